#!/usr/bin/env bash
# fuzz.sh - `make fuzz`: builds every libFuzzer target tests/fuzz/fuzz_<t>.c with clang
# (-fsanitize=fuzzer,address,undefined) straight from the library sources it names, replays its
# regression inputs (tests/fuzz/regressions/<t>/), then fuzzes it FUZZ_SECONDS (default 60)
# from its seed corpus (tests/fuzz/corpus/<t>/), with tests/fuzz/<t>.dict when there is one. A crash input is saved under
# tests/fuzz/crashes/<t>/ (git-ignored) and makes the run fail.
#
# A target names what it links in its opening comment:
#   fuzz-srcs: jitdump/ synth/x.c    (files, or directories meaning all their *.c, from the root)
#   fuzz-libs: -lpthread             (linker flags)
# Environment: FUZZ_SECONDS (per target), FUZZ_ONLY=<t> (one target), FUZZ_CC (default clang),
# FUZZ_JOBS (libFuzzer -fork workers, default 0 = in-process).
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${FUZZ_SECONDS:-60}
only=${FUZZ_ONLY:-}
cc=${FUZZ_CC:-clang}
out=build/fuzz
# shellcheck disable=SC2054  # the commas belong to -fsanitize=
# libxml2's headers (recorder/report_analysis/jvmlog.c) live in their own directory.
# shellcheck disable=SC2207
cflags=(-std=gnu11 -g -O1 -D_GNU_SOURCE -I. -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	$(pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2))
shopt -s nullglob

die() { echo "fuzz: $*" >&2; exit 1; }
command -v "$cc" >/dev/null || die "$cc not found (make deps installs clang)"
[[ $secs =~ ^[0-9]+$ ]] || die "FUZZ_SECONDS must be a whole number of seconds, got '$secs'"
mkdir -p "$out"
# Leaks inside third-party libraries, each explained in the file.
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# The value of a "fuzz-<key>:" line in a target's opening comment.
meta() { sed -n "s/^[ /*]*fuzz-$2: *//p" "$1" | head -n 1 | sed 's|[[:space:]]*\*/.*||'; }

build_target() {
	local src=$1 bin=$2 srcs=() g f
	for g in $(meta "$src" srcs); do
		if [ -d "$g" ]; then f=("${g%/}"/*.c); else f=("$g"); fi
		if [ ! -f "${f[0]:-}" ]; then
			echo "fuzz: $src: fuzz-srcs '$g' names no C source" >&2
			return 1
		fi
		srcs+=("${f[@]}")
	done
	# up to date when no C source or header of the tree changed since the last build
	if [ -x "$bin" ] && [ -z "$(find agent jitdump lib recorder safeio synth tests/fuzz tests/lib \
		-name '*.[ch]' -newer "$bin" -print -quit)" ] && [ "$0" -ot "$bin" ]; then
		return 0
	fi
	# shellcheck disable=SC2046
	"$cc" "${cflags[@]}" -o "$bin" "$src" "${srcs[@]}" $(meta "$src" libs)
}

# "N/s" and whether the issue's 1M executions per target were reached, or how long they would
# take at that rate.
rate_of() {
	local n=$1 t=$2
	[ "$t" -gt 0 ] || { echo "no time"; return; }
	if [ "$n" -ge 1000000 ]; then
		echo "$((n / t))/s, 1M reached"
	elif [ "$n" -gt 0 ]; then
		echo "$((n / t))/s, 1M would take $((1000000 * t / n)) s"
	else
		echo "0/s"
	fi
}

# libFuzzer's final "stat::<name>: N" line.
stat_of() { sed -n "s/^stat::$2: *//p" "$1" | tail -n 1; }

summary=()
failed=0
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c); t=${t#fuzz_}
	[ -n "$only" ] && [ "$t" != "$only" ] && continue
	bin=$out/fuzz_$t log=$out/$t.log
	echo "=== fuzz: $t"
	if ! build_target "$src" "$bin"; then
		summary+=("$t: BUILD FAILED"); failed=1; continue
	fi

	regs=(tests/fuzz/regressions/"$t"/*)
	if [ ${#regs[@]} -gt 0 ]; then
		# every output of the report target on each (it picks two per input when fuzzing)
		if ! FUZZ_REPORT_ALL=1 "$bin" -runs=1 "${regs[@]}" >"$out/$t.regressions.log" 2>&1; then
			tail -n 30 "$out/$t.regressions.log"
			summary+=("$t: REGRESSION INPUT CRASHES (see $out/$t.regressions.log)")
			failed=1; continue
		fi
		echo "fuzz: $t: ${#regs[@]} regression inputs replayed clean"
	fi

	# New inputs go to a work corpus under build/, so the committed seeds stay small.
	work=$out/corpus/$t crashes=tests/fuzz/crashes/$t
	mkdir -p "$work" "$crashes" tests/fuzz/corpus/"$t"
	args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536
	      -print_final_stats=1 -artifact_prefix="$crashes/")
	[ -f tests/fuzz/"$t".dict ] && args+=(-dict=tests/fuzz/"$t".dict)
	[ "${FUZZ_JOBS:-0}" -gt 0 ] && args+=(-fork="$FUZZ_JOBS" -ignore_crashes=0)
	rc=0
	"$bin" "${args[@]}" "$work" tests/fuzz/corpus/"$t" >"$log" 2>&1 || rc=$?
	execs=$(stat_of "$log" number_of_executed_units)
	# -fork mode prints no final stats: its last "#N:" progress line has the count
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
	found=$(find "$crashes" -type f | wc -l)
	if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
		grep -E 'ERROR|SUMMARY|==[0-9]+==|promise|runtime error' "$log" | head -n 20 || true
		summary+=("$t: CRASH after ${execs:-?} executions; inputs in $crashes/, log $log")
		failed=1
	else
		rate=$(rate_of "${execs:-0}" "$secs")
		summary+=("$t: ${execs:-0} executions in ${secs} s ($rate), coverage ${cov:-?} edges, no crash")
	fi
done

[ ${#summary[@]} -gt 0 ] || die "no target matches '${only:-*}'"
echo "=== fuzz summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
exit $failed
