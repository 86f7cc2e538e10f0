#!/usr/bin/env bash
# Runs Criterion test binaries one after another, keeps going after a failure, and prints one
# closing block with the totals so a reader (or CI) sees the whole result at once. A failing
# binary's assertion messages are repeated in that block: CI logs are often read from the
# tail, and the failure itself scrolled away long before. Skips count too: a test that could
# not run here ("[SKIP] ...", tests/lib/skips.c) and a part of a test that could not
# ("[SKIP-PART] ...") are listed with their reasons, so a machine without perf, a JDK or node
# never reads as all green.
set -uo pipefail
passed=0; failed=0; skipped=0; bad=()
details=$(mktemp); skips=$(mktemp); times=$(mktemp)
trap 'rm -f "$details" "$skips" "$times"' EXIT
start_all=$SECONDS
# Leaks inside Criterion itself are not ours (SANITIZE=1 builds).
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/.." && pwd)/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
for bin in "$@"; do
	echo "== ${bin##*/}"
	out=$(mktemp)
	t0=$SECONDS
	"$bin" --jobs="${TEST_JOBS:-2}" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "$((SECONDS - t0)) ${bin##*/}" >>"$times"
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
done
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
echo "time: $((SECONDS - start_all)) s for ${#@} binaries"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ ${#bad[@]} -eq 0 ]
