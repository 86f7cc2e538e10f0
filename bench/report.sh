#!/usr/bin/env bash
# bench/report.sh - `jitprof report` against `perf report` on the same injected recording, in
# the same run: --sort dso,sym (target >= 3x faster) and --sort srcline (target >= 50x; perf
# took 308 s on a 33k-method Java run). The recording: samples/java StartupHeavy under our
# agent (-Xbatch, BENCH_REPORT_CLASSES x 100 methods, default 330 -> ~33k compiled methods),
# `perf record -k mono -g`, then `jitprof inject --jit`. Wall and CPU (user+sys) time, best of
# BENCH_RUNS (default 3) for the fast cases; perf's srcline run once (it is the slow one).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib/java_env.sh
classes=${BENCH_REPORT_CLASSES:-330}
runs=${BENCH_RUNS:-3}
java_bench_env report

echo "report bench: recording StartupHeavy ($classes classes x 100 methods) ..."
(cd "$work" && perf record -q -k mono -g -F 999 -o perf.data java -Xbatch \
	-agentpath:"$agent"=dir="$work/jit" -cp "$classdir" jitprof.samples.StartupHeavy \
	"$classes" 100 >/dev/null 2>&1)
"$jitprof" inject --jit -q -i "$work/perf.data" -o "$work/perf.jit.data"
loads=$("$jitprof" jitdump --stats "$work"/jit/jit-*.dump 2>/dev/null |
	awk '$1 == "CODE_LOAD" { print $2; exit }' || true)
samples=$("$jitprof" report -i "$work/perf.jit.data" 2>/dev/null |
	sed -n 's/^# Samples: \([0-9]*\).*/\1/p')
echo "report bench: ${loads:-?} code loads, $samples samples, $(du -k "$work/perf.jit.data" |
	cut -f1) KiB injected perf.data"

. bench/lib/best.sh

row() {	# row SORT PERF_RUNS
	local sort=$1 pr=$2 jw jc pw pc
	read -r jw jc < <(best "$runs" "$jitprof" report -i "$work/perf.jit.data" --sort "$sort")
	read -r pw pc < <(best "$pr" perf report -i "$work/perf.jit.data" --stdio --no-children \
		-g none --sort "$sort")
	awk -v s="$sort" -v jw="$jw" -v jc="$jc" -v pw="$pw" -v pc="$pc" 'BEGIN {
		printf "  --sort %-8s jitprof %8.3f s wall %8.3f s cpu | perf %8.3f s wall %8.3f s cpu" \
		       " | perf/jitprof %6.1fx wall %6.1fx cpu\n", s, jw, jc, pw, pc,
		       pw / (jw > 0 ? jw : 1e-3), pc / (jc > 0 ? jc : 1e-3) }'
}

echo "report bench: best of $runs runs (perf srcline: one run)"
row dso,sym "$runs"
row srcline 1
echo "report bench: targets: dso,sym >= 3x, srcline >= 50x"
