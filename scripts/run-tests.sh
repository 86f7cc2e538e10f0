#!/usr/bin/env bash
# Runs Criterion test binaries, keeps going after a failure, and prints one closing block with
# the totals so a reader (or CI) sees the whole result at once. A failing binary's assertion
# messages are repeated in that block: CI logs are often read from the tail, and the failure
# itself scrolled away long before. Skips count too: a test that could not run here
# ("[SKIP] ...", tests/lib/skips.c) and a part of a test that could not ("[SKIP-PART] ...")
# are listed with their reasons, so a machine without perf, a JDK or node never reads as all
# green.
#
# RUN_JOBS binaries run at a time (default 2), each running TEST_JOBS of its tests at a time
# (default 2 alone, 1 when RUN_JOBS > 1: never more tests at once than before, so a test's
# patience under load is what it was; a binary whose tests are one slow one no longer leaves
# a core idle). A binary's output is printed whole when it ends, never interleaved. The
# binaries in ALONE run with nothing else beside them: they change what every test on the
# machine sees.
set -uo pipefail
passed=0; failed=0; skipped=0; bad=()
work=$(mktemp -d)
details=$work/details; skips=$work/skips; times=$work/times
: >"$details"; : >"$skips"; : >"$times"
trap 'rm -rf "$work"' EXIT
start_all=$SECONDS
# Leaks inside Criterion itself are not ours (SANITIZE=1 builds).
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
run_jobs=${RUN_JOBS:-2}
[ "$#" -lt "$run_jobs" ] && run_jobs=$#
[ "$run_jobs" -ge 1 ] 2>/dev/null || run_jobs=1
if [ "$run_jobs" -gt 1 ]; then test_jobs=${TEST_JOBS:-1}; else test_jobs=${TEST_JOBS:-2}; fi
# profile_user sets kernel.perf_event_paranoid for its test (and puts it back): the tests that
# run perf as an unprivileged user, or say what the level allows, would read it mid-change.
ALONE=" e2e-profile_user "

# One binary in the background: its output, exit code and seconds into $work/<i>.*.
start() {
	local i=$1 bin=$2
	(
		t0=$SECONDS
		"$bin" --jobs="$test_jobs" >"$work/$i.out" 2>&1
		rc=$?
		echo "$((SECONDS - t0))" >"$work/$i.secs"
		echo "$rc" >"$work/$i.rc"	# last: its presence says the binary ended
	) &
	running[$i]=$!
}

# The ended binary i: its output, then its counts.
finish() {
	local i=$1 bin=$2 out=$work/$1.out rc secs line p f c
	rc=$(cat "$work/$i.rc"); secs=$(cat "$work/$i.secs")
	unset "running[$i]"
	if [ "$run_jobs" -gt 1 ]; then
		echo "== ${bin##*/} (${secs} s)"
		cat "$out"
	fi
	echo "$secs ${bin##*/}" >>"$times"
	line=$(grep -a 'Synthesis:' "$out" | tail -n 1)
	p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<<"$line")
	c=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<<"$line")
	passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0} + ${c:-0}))
	grep -a -E '^\[SKIP(-PART)?\] ' "$out" | sed "s|^|${bin##*/}: |" >>"$skips"
	skipped=$((skipped + $(grep -a -c -E '^\[SKIP\] ' "$out")))
	if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
		bad+=("${bin##*/}")
		[ -z "$line" ] && failed=$((failed + 1))
		{
			echo "-- ${bin##*/} (exit $rc): its failures, again"
			# Criterion's failure lines and what precedes them; a crash's sanitizer report.
			grep -a -B3 -A12 -E '\[FAIL\]|Assertion Failed|CRASH|ERROR: AddressSanitizer|runtime error:|Timed out' "$out" | head -n 80
		} >>"$details"
	fi
	rm -f "$out"
}

# Waits until fewer than $1 binaries run, finishing (in the order they end) those that ended.
drain_to() {
	local i
	while [ "${#running[@]}" -ge "$1" ]; do
		wait -n 2>/dev/null
		for i in "${!running[@]}"; do
			[ -e "$work/$i.rc" ] && finish "$i" "${bins[$i]}"
		done
	done
}

declare -A running=()
bins=("$@")
for i in "${!bins[@]}"; do
	bin=${bins[$i]}
	if [ "$run_jobs" -eq 1 ]; then	# one at a time: as it runs, as before
		echo "== ${bin##*/}"
		t0=$SECONDS
		"$bin" --jobs="$test_jobs" 2>&1 | tee "$work/$i.out"
		echo "${PIPESTATUS[0]}" >"$work/$i.rc"
		echo "$((SECONDS - t0))" >"$work/$i.secs"
		running[$i]=0
		finish "$i" "$bin"
		continue
	fi
	case "$ALONE" in
	*" ${bin##*/} "*)
		drain_to 1
		start "$i" "$bin"
		drain_to 1
		continue ;;
	esac
	drain_to "$run_jobs"
	start "$i" "$bin"
done
drain_to 1
if [ ${#bad[@]} -gt 0 ]; then
	cat "$details"
	echo "failing binaries: ${bad[*]}"
fi
if [ -s "$skips" ]; then
	echo "skipped here, and why:"
	sed 's/^/  /' "$skips"
	parts=$(grep -c -F '[SKIP-PART]' "$skips")
	[ "$parts" -gt 0 ] && echo "($parts parts of passing tests skipped; listed above)"
fi
# Where the time went: the slowest binaries first (make check's length is theirs).
echo "slowest: $(sort -rn "$times" | head -n 8 | awk '{printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1}')"
echo "time: $((SECONDS - start_all)) s for ${#@} binaries ($run_jobs at a time, each running $test_jobs of its tests at a time)"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ ${#bad[@]} -eq 0 ]
