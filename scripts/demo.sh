#!/usr/bin/env bash
# demo.sh BUILD - `make demo`: the whole jitprof flow on samples/java Generations, a method that
# goes C1 -> C2 -> deoptimized -> recompiled:
#
#   agent     java -agentpath:BUILD/libagent.so            -> jit-PID.dump (+ .jitprof companion)
#   record    jitprof record -k mono -g -- java ...        -> perf.data
#   dump      jitprof jitdump --stats                      what the agent wrote
#   inject    jitprof inject --jit                         -> perf.jit.data + one ELF per sampled generation
#   report    jitprof report, then jitprof report --generations
#   html      jitprof report --html --jvm-log on the profile's data: flame graph, generations
#             timeline with what ended each generation, top table in one page
#   profile   the same in one command, with HotSpot's compilation log joined (why each
#             generation ended): jitprof profile --jvm-log -o profile.txt -- java ...; then
#             jitprof profile -d 2 -p PID on a running JVM (attach, no jcmd)
#
# Environment: DEMO_PHASE_MS (per Generations phase, default 1000), DEMO_DIR (default BUILD/demo).
# Any failing step stops the demo with its exit code and the command that failed.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
work=${DEMO_DIR:-$build/demo}
phase_ms=${DEMO_PHASE_MS:-1000}
jitprof=$build/jitprof
agent=$(realpath "$build/libagent.so")
export DEBUGINFOD_URLS=	# no network look-ups for the build-ids of jitted code
# The ELFs go to a build-id cache inside the demo directory, not the user's ~/.debug.
export PERF_BUILDID_DIR=$(realpath -m "$work/buildid-cache")

stage() { printf '\n=== demo: %s\n' "$*"; }
die() { echo "demo: error: $*" >&2; exit 1; }
# Shows the first N lines of a command's output (whole output captured: no SIGPIPE under pipefail).
show_head() {
	local n=$1
	shift
	echo "+ $* | head -n $n"
	local out rc=0
	out=$("$@") || rc=$?
	head -n "$n" <<<"$out"
	[ "$rc" -eq 0 ] || die "'$*' failed with exit code $rc"
}

run() {
	echo "+ $*"
	local rc=0
	"$@" || rc=$?
	[ "$rc" -eq 0 ] || die "'$*' failed with exit code $rc"
}

# HotSpot's default thresholds give C1 only milliseconds; these make every phase last long
# enough to be sampled (samples/java/Generations.java explains them).
java_cmd=(java "-agentpath:$agent=dir=$work/jit" -XX:+PreserveFramePointer
	-XX:Tier4InvocationThreshold=2000000 -XX:Tier4MinInvocationThreshold=400000
	-XX:Tier4CompileThreshold=8000000 -XX:Tier4BackEdgeThreshold=80000000
	-cp "$build/java" jitprof.samples.Generations "$phase_ms")

stage_setup() {
	stage "setup in $work"
	for f in "$jitprof" "$agent" "$build/java/.built"; do
		[ -e "$f" ] || die "$f is not built (run 'make all')"
	done
	command -v java >/dev/null || die "java is not installed (run 'make deps')"
	rm -rf "$work"
	mkdir -p "$work/jit"
	run "$jitprof" --version
}

stage_record() {
	stage "agent + record: Generations under jitprof record -k mono -g"
	run "$jitprof" record -k mono -g -o "$work/perf.data" -- "${java_cmd[@]}"
	dump=$(ls "$work"/jit/jit-*.dump 2>/dev/null | head -n 1)
	[ -n "$dump" ] || die "the agent wrote no jit-*.dump in $work/jit"
}

stage_dump() {
	stage "dump: what the agent wrote"
	show_head 20 "$jitprof" jitdump --stats "$dump"
}

stage_inject() {
	stage "inject: one ELF per sampled method generation"
	run "$jitprof" inject --jit -i "$work/perf.data" -o "$work/perf.jit.data"
}

stage_report() {
	stage "report: where the time went"
	show_head 25 "$jitprof" report -i "$work/perf.jit.data"
	stage "report: the generations of each method, side by side"
	run "$jitprof" report -i "$work/perf.jit.data" --generations
}

# The whole flow again in one command: agent, frame pointers, clock, inject and report added
# by jitprof profile; then the same for a JVM that is already running.
stage_profile() {
	stage "profile: all of the above in one command, with the JVM's compilation log (--jvm-log)"
	run "$jitprof" profile --jvm-log -o "$work/profile.txt" -- java \
		-XX:Tier4InvocationThreshold=2000000 -XX:Tier4MinInvocationThreshold=400000 \
		-XX:Tier4CompileThreshold=8000000 -XX:Tier4BackEdgeThreshold=80000000 \
		-cp "$build/java" jitprof.samples.Generations "$phase_ms"
	show_head 14 cat "$work/profile.txt"
	stage "profile: the generations of total(), and what ended each (the JVM's log)"
	show_head 30 sed -n '/^jitprof.samples.Generations.total(/,/^$/p' "$work/profile.txt"
	stage "profile: attach to a running JVM for 2 s, twice"
	java -cp "$build/java" jitprof.samples.Generations 20000 >/dev/null 2>&1 &
	local pid=$!
	trap 'kill '"$pid"' 2>/dev/null || true' EXIT
	sleep 2
	run "$jitprof" profile -d 2 -p "$pid" -o "$work/attach1.txt"
	run "$jitprof" profile -d 2 -p "$pid" -o "$work/attach2.txt"
	kill "$pid"
	show_head 12 cat "$work/attach2.txt"
}

stage_html() {
	stage "html: the interactive report (flame graph, generations timeline, top table)"
	local log
	log=$(ls "$work"/profile.txt.jitprof/jvm-pid*.log 2>/dev/null | head -n 1)
	[ -n "$log" ] || die "the profile's JVM wrote no compilation log in $work/profile.txt.jitprof"
	run "$jitprof" report -q -i "$work/profile.txt.jitprof/perf.jit.data" --jvm-log "$log" \
		--html "$work/report.html"
	echo "open $(realpath "$work/report.html") in a browser"
}

stage_setup
stage_record
stage_dump
stage_inject
stage_report
stage_profile
stage_html
stage "done: files in $work; the HTML report: $(realpath "$work/report.html")"
