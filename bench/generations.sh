#!/usr/bin/env bash
# bench/generations.sh - the cost of the JVM's own account of its compiles (issue 12):
#  1. the JVM's overhead of -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation on StartupHeavy
#     (-Xbatch, BENCH_GEN_CLASSES x 100 methods, default 200) and SteadyState (BENCH_GEN_ROUNDS,
#     default 300): wall time with and without, best of BENCH_RUNS (default 3), and the log's size;
#  2. `jitprof report --generations` on StartupHeavy recorded under our agent and perf, with and
#     without --jvm-log (best of BENCH_RUNS), and the log's parse rate in MB/s from the
#     difference (the join and the detail lines are included: an upper bound on the cost).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib/java_env.sh
classes=${BENCH_GEN_CLASSES:-200}
rounds=${BENCH_GEN_ROUNDS:-300}
runs=${BENCH_RUNS:-3}
java_bench_env generations
logflags=(-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation)

best() {	# best N CMD...: minimum wall seconds over N runs
	local n=$1 b=1e9 w; shift
	for _ in $(seq "$n"); do
		w=$( { TIMEFORMAT=%R; time "$@" >/dev/null 2>&1; } 2>&1 )
		b=$(awk -v x="$w" -v y="$b" 'BEGIN { print (x < y) ? x : y }')
	done
	echo "$b"
}

overhead() {	# overhead NAME JAVA-ARGS...
	local name=$1; shift
	local off on size
	off=$(best "$runs" java "$@")
	on=$(best "$runs" java "${logflags[@]}" -XX:LogFile="$work/$name.log" "$@")
	size=$(du -k "$work/$name.log" | cut -f1)
	awk -v n="$name" -v a="$off" -v b="$on" -v s="$size" 'BEGIN {
		printf "generations bench: %-12s without %.3f s, with LogCompilation %.3f s (%+.1f%%), log %d KiB\n",
		       n, a, b, 100 * (b - a) / a, s }'
}

overhead StartupHeavy -Xbatch -cp "$classdir" jitprof.samples.StartupHeavy "$classes" 100
overhead SteadyState -cp "$classdir" jitprof.samples.SteadyState "$rounds"

echo "generations bench: recording StartupHeavy ($classes classes x 100 methods) with the log ..."
(cd "$work" && perf record -q -k mono -g -F 999 -o perf.data java -Xbatch "${logflags[@]}" \
	-XX:LogFile="$work/comp.log" -agentpath:"$agent"=dir="$work/jit" -cp "$classdir" \
	jitprof.samples.StartupHeavy "$classes" 100 >/dev/null 2>&1)
"$jitprof" inject --jit -q -i "$work/perf.data" -o "$work/perf.jit.data"
bytes=$(stat -c %s "$work/comp.log")
without=$(best "$runs" "$jitprof" report -i "$work/perf.jit.data" --generations)
with=$(best "$runs" "$jitprof" report -i "$work/perf.jit.data" --generations --jvm-log "$work/comp.log")
joined=$("$jitprof" report -i "$work/perf.jit.data" --generations --jvm-log "$work/comp.log" 2>/dev/null |
	sed -n 's/^# JVM compilation log: //p')
awk -v a="$without" -v b="$with" -v n="$bytes" -v j="$joined" 'BEGIN {
	printf "generations bench: report --generations %.3f s, with --jvm-log %.3f s (%s)\n", a, b, j
	d = b - a; if (d < 0.001) d = 0.001
	printf "generations bench: log %.1f MB parsed and joined at %.0f MB/s\n", n / 1e6, n / 1e6 / d }'
