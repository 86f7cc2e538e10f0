#!/usr/bin/env bash
# demo.sh BUILD - `make demo`: the longest end-to-end flow that exists today, on a sample.
# One small function per stage. A stage whose command is not built yet is skipped with a line
# saying so (jitprof subcommands fall back to perf where perf can do the job); a command that
# exists and fails stops the demo with its exit code.
#
#   workload  minijit under `jitprof record` (else `perf record -k mono`, else alone)
#   dump      `jitprof jitdump --stats` on the dump minijit wrote
#   inject    `jitprof inject --jit` (else `perf inject --jit`)
#   report    `jitprof report --generations` (else `perf report`), then perf's own view
#
# Environment: DEMO_SECONDS (per minijit phase, default 1), DEMO_DIR (default BUILD/demo).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
work=${DEMO_DIR:-$build/demo}
seconds=${DEMO_SECONDS:-1}
jitprof=$build/jitprof
export DEBUGINFOD_URLS=	# no network lookups for the build-ids of jitted code

data=$work/perf.data
jitdata=$work/perf.jit.data
dump=

stage() { printf '\n=== demo: %s\n' "$*"; }
skip() { echo "--- skipped: $*"; }
die() { echo "demo: error: $*" >&2; exit 1; }

# Runs a command, echoing it first; a failure names the command and stops the demo.
run() {
	echo "+ $*"
	local rc=0
	"$@" || rc=$?
	[ "$rc" -eq 0 ] || die "'$1 ${2:-}' failed with exit code $rc"
}

have_perf() { command -v perf >/dev/null 2>&1; }

# 1 if `jitprof NAME` exists in this build: its --help lists "  NAME  summary".
have_cmd() {
	[ -x "$jitprof" ] || return 1
	"$jitprof" --help 2>/dev/null | grep -Eq "^  ${1}( |$)"
}

stage_setup() {
	stage "setup in $work"
	[ -x "$build/minijit" ] || die "$build/minijit is not built (run 'make all')"
	if [ "$(uname -m)" != x86_64 ]; then
		skip "the whole flow: minijit, its sample JIT, emits x86-64 code only"
		exit 0
	fi
	rm -rf "$work"
	mkdir -p "$work/jit"
	if [ -x "$jitprof" ]; then run "$jitprof" --version; else skip "$jitprof is not built"; fi
	if have_perf; then echo "perf: $(perf --version)"; else echo "perf: not installed"; fi
}

stage_workload() {
	local mj=("$build/minijit" --dir "$work/jit" --seconds "$seconds")
	if have_cmd record; then
		stage "workload: minijit under jitprof record"
		run "$jitprof" record -k mono -o "$data" -- "${mj[@]}"
	elif have_perf; then
		stage "workload: minijit under perf record -k mono (jitprof record is not built yet)"
		run perf record -N -q -k mono -F 999 -g -o "$data" -- "${mj[@]}"
	else
		stage "workload: minijit alone"
		skip "no recorder: neither jitprof record nor perf is available"
		run "${mj[@]}"
		data=
	fi
	for dump in "$work"/jit/jit-*.dump; do break; done
	[ -f "$dump" ] || die "minijit wrote no jit-*.dump in $work/jit"
}

stage_dump() {
	stage "dump: what minijit wrote ($dump)"
	ls -l "$work/jit"
	if have_cmd jitdump; then
		run "$jitprof" jitdump --stats "$dump"
	else
		skip "jitprof jitdump is not built yet"
	fi
}

stage_inject() {
	[ -n "$data" ] || { stage "inject"; skip "nothing was recorded"; return; }
	if have_cmd inject; then
		stage "inject: jitprof inject --jit"
		run "$jitprof" inject --jit -i "$data" -o "$jitdata"
	elif have_perf; then
		stage "inject: perf inject --jit (jitprof inject is not built yet)"
		run perf inject --jit -i "$data" -o "$jitdata"
	else
		stage "inject"
		skip "neither jitprof inject nor perf is available"
		jitdata=
	fi
}

stage_report() {
	[ -n "$jitdata" ] || { stage "report"; skip "nothing was injected"; return; }
	if have_cmd report; then
		stage "report: jitprof report --generations"
		run "$jitprof" report -i "$jitdata" --generations
	else
		stage "report"
		skip "jitprof report is not built yet"
	fi
	if have_perf; then
		stage "report: perf's view of the same file (one row per generation)"
		echo "+ perf report -i $jitdata --stdio --no-children --sort dso,sym -g none"
		local out
		out=$(perf report -i "$jitdata" --stdio --no-children --sort dso,sym -g none 2>&1) ||
			die "perf report failed: $out"
		grep -v '^#' <<<"$out" | grep -v '^$' | head -n 12
	fi
}

stage_setup
stage_workload
stage_dump
stage_inject
stage_report
stage "done: files in $work"
