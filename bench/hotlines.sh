#!/usr/bin/env bash
# bench/hotlines.sh - which line jitprof blames in loops of several statements where one does the
# work (samples/java/HotLines.java, lines marked "HOT <case>"): the share of each case's samples
# on its working line, for C2 and C1, median of RUNS runs (default 3). With PERF_JVMTI=path to
# perf's libperf-jvmti.so (Debian ships none: build it from the Linux sources' tools/perf/jvmti)
# the same runs with perf's agent, read by the same report, for the side by side the issue asks;
# with ASPROF=dir of an async-profiler build (its build/ with lib/libasyncProfiler.so and
# bin/jfrconv; built from its sources in a scratch folder), the same runs under async-profiler,
# its lines from its own JFR output (jfrconv --lines: the bci of each frame's PcDesc).
# Targets (issue 36): >= 90% under C2, >= 80% under C1.
set -euo pipefail
build=${JITPROF_BUILD:-build}
java=${JAVA:-java}
runs=${RUNS:-3}
jitprof=$(realpath "$build/jitprof")
agent=$(realpath "$build/libagent.so")
cp=$(realpath "$build/java")
src=samples/java/HotLines.java
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=(div3 sqrt5 walk inlined)
dontinline=$(for c in "${cases[@]}"; do printf -- '-XX:CompileCommand=dontinline,jitprof.samples.HotLines::%s ' "$c"; done)

# share <report> <case>: % of the case method's samples on its HOT line
share() {
	local line
	line=$(grep -n "HOT $2\$" "$src" | cut -d: -f1)
	awk -v m="jitprof.samples.HotLines.$2(" -v want="HotLines.java:$line" '
		$1 ~ /%$/ && index($0, m) { p = $1 + 0; all += p; if ($NF == want) on += p }
		END { printf "%.0f", (all > 0 ? 100 * on / all : 0) }' "$1"
}

# share_asprof <collapsed with lines> <case>: the same share from async-profiler's leaf frames
# ("jitprof/samples/HotLines.div3:16_[j] 78"): the leaves in the case's method (for inlined,
# in it or in helper, its inlined callee that holds the HOT line) and those on the HOT line.
share_asprof() {
	local line m=$2
	line=$(grep -n "HOT $2\$" "$src" | cut -d: -f1)
	[ "$m" = inlined ] && m=helper
	awk -v c="HotLines.$2:" -v m="HotLines.$m:" -v want="HotLines.$m:$line" '
		{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); leaf = f[k]
		  sub(/_\[.\]$/, "", leaf)
		  if (index(leaf, c) || index(leaf, m)) {
			all += n
			if (substr(leaf, length(leaf) - length(want) + 1) == want) on += n } }
		END { printf "%.0f", (all > 0 ? 100 * on / all : 0) }' "$1"
}

asprof_one() {
	local tier=$1
	rm -rf "$tmp/run" && mkdir -p "$tmp/run"
	# shellcheck disable=SC2086
	(cd "$tmp/run" && "$java" -XX:CompileCommand=quiet $dontinline $tier \
		"-agentpath:$ASPROF/lib/libasyncProfiler.so=start,event=cpu,interval=500us,file=out.jfr,jfr" \
		-cp "$cp" jitprof.samples.HotLines 3000 >/dev/null 2>&1)
	"$ASPROF/bin/jfrconv" --lines -o collapsed "$tmp/run/out.jfr" "$tmp/run/out.txt" >/dev/null 2>&1
	for c in "${cases[@]}"; do printf '%s ' "$(share_asprof "$tmp/run/out.txt" "$c")"; done
	echo
}

# one <agent: jitprof|perf|asprof> <tier args>: prints the shares of the four cases
one() {
	local who=$1 tier=$2 pre env=()
	if [ "$who" = asprof ]; then
		asprof_one "$tier"
		return
	fi
	rm -rf "$tmp/run" && mkdir -p "$tmp/run/jit" "$tmp/run/home"
	if [ "$who" = perf ]; then
		pre="-agentpath:$PERF_JVMTI"
		env=(JITDUMPDIR="$tmp/run/jit")
	else
		pre="-agentpath:$agent=dir=$tmp/run/jit"
	fi
	# shellcheck disable=SC2086
	(cd "$tmp/run" && env HOME="$tmp/run/home" "${env[@]}" "$jitprof" record -q -k mono \
		-F 2000 -o perf.data -- "$java" -XX:CompileCommand=quiet $dontinline $tier "$pre" \
		-cp "$cp" jitprof.samples.HotLines 3000 >/dev/null 2>&1)
	(cd "$tmp/run" && HOME="$tmp/run/home" "$jitprof" inject --jit -q -i perf.data \
		-o perf.jit.data)
	HOME="$tmp/run/home" "$jitprof" report -i "$tmp/run/perf.jit.data" --sort sym,srcline \
		2>/dev/null >"$tmp/report"
	for c in "${cases[@]}"; do printf '%s ' "$(share "$tmp/report" "$c")"; done
	echo
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "java: $("$java" -version 2>&1 | head -n 1); runs: $runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
who=(jitprof)
[ -n "${PERF_JVMTI:-}" ] && who+=(perf)
[ -z "${PERF_JVMTI:-}" ] && echo "perf's agent: not measured (set PERF_JVMTI=/path/libperf-jvmti.so)"
[ -n "${ASPROF:-}" ] && who+=(asprof)
[ -z "${ASPROF:-}" ] && echo "async-profiler: not measured (set ASPROF=/path/to/async-profiler/build)"
for tier in "C2:-XX:-TieredCompilation" "C1:-XX:TieredStopAtLevel=1"; do
	for w in "${who[@]}"; do
		for ((i = 0; i < runs; i++)); do one "$w" "${tier#*:}"; done >"$tmp/shares"
		printf '%s %-8s' "${tier%%:*}" "$w"
		for k in 1 2 3 4; do
			printf '  %s %3s%%' "${cases[k - 1]}" "$(cut -d' ' -f$k "$tmp/shares" | median)"
		done
		echo
	done
done
echo "targets: C2 >= 90%, C1 >= 80% on every case"
