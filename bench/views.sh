#!/usr/bin/env bash
# bench/views.sh - the report's views on two recordings, each view's time against
# `--sort dso,sym` on the same file (the issue's target: every export within 2x) and against
# `--sort dso,sym -g` (the same call chains resolved: what a stack view cannot skip), and its
# size:
#   StartupHeavy: samples/java StartupHeavy under our agent (-Xbatch, BENCH_VIEWS_CLASSES x 100
#                 methods, default 330 -> ~33k compiled methods), perf record -g -F 999;
#   100k samples: samples/java Generations at -F BENCH_VIEWS_FREQ (default 20000) for
#                 BENCH_VIEWS_PHASE_MS per phase (default 3000): ~100k samples, deep stacks.
# Then the HTML report's load time in headless Chromium (tests/browser/html_report.js), when
# node, chromium and tests/browser's npm packages are there. Best wall time of BENCH_RUNS
# (default 3) rounds, each round running every command once (interleaved).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib/java_env.sh
classes=${BENCH_VIEWS_CLASSES:-330}
freq=${BENCH_VIEWS_FREQ:-20000}
phase_ms=${BENCH_VIEWS_PHASE_MS:-3000}
runs=${BENCH_RUNS:-3}
java_bench_env views

record() {	# record NAME PERF_ARGS -- JAVA_ARGS...
	local name=$1 d=$work/$1
	shift
	mkdir -p "$d/jit"
	local pargs=()
	while [ "$1" != -- ]; do pargs+=("$1"); shift; done
	shift
	(cd "$d" && perf record -q -k mono -g "${pargs[@]}" -o perf.data java \
		-agentpath:"$agent"=dir="$d/jit" -cp "$classdir" "$@" >/dev/null 2>&1)
	"$jitprof" inject --jit -q -i "$d/perf.data" -o "$d/perf.jit.data"
}

wall_of() {	# wall_of 'CMD': its wall time in seconds (run by this shell: no shell of its own)
	local t0 t1
	t0=$(date +%s.%N)
	eval "$1" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v z="$t1" 'BEGIN { print z - a }'
}

views() {	# views NAME
	local d=$work/$1 samples i k t
	# awk reads to the end: an early exit (head) would fail the pipeline by SIGPIPE
	samples=$("$jitprof" report -q -i "$d/perf.jit.data" --json |
		sed -n 's/.*"samples": \([0-9]*\),.*/\1/p' | awk 'NR == 1')
	# Round-robin: each round runs every command once, and each command's best round counts.
	# A slow minute of the host then falls on all of them alike, where $runs runs of one
	# view in a row could all land in it (one view's best 20% over the others' in a run).
	local names=(base graph --flamegraph --html --pprof --speedscope --collapsed)
	local outs=("" "" "$d/fg.svg" "$d/report.html" "$d/p.pb.gz" "$d/s.json" "$d/collapsed.txt")
	local cmds=("'$jitprof' report -q -i '$d/perf.jit.data' --sort dso,sym"
		    "'$jitprof' report -q -i '$d/perf.jit.data' --sort dso,sym -g")
	for k in 2 3 4 5; do
		cmds+=("'$jitprof' report -q -i '$d/perf.jit.data' ${names[$k]} '${outs[$k]}'")
	done
	cmds+=("'$jitprof' report -q -i '$d/perf.jit.data' --collapsed > '${outs[6]}'")
	local best=()
	for k in "${!cmds[@]}"; do best[$k]=1e9; done
	for i in $(seq "$runs"); do
		for k in "${!cmds[@]}"; do
			t=$(wall_of "${cmds[$k]}")
			best[$k]=$(awk -v a="$t" -v b="${best[$k]}" 'BEGIN { print (a < b) ? a : b }')
		done
	done
	local base=${best[0]} graph=${best[1]}
	printf 'views bench: %s: %s samples; --sort dso,sym %.3f s, with -g %.3f s\n' "$1" \
		"$samples" "$base" "$graph"
	for k in 2 3 4 5 6; do
		local size
		size=$(stat -c %s "${outs[$k]}")
		awk -v v="${names[$k]}" -v t="${best[$k]}" -v b="$base" -v g="$graph" -v s="$size" 'BEGIN {
			printf "  %-14s %7.3f s  %5.2fx dso,sym  %5.2fx dso,sym -g  %9.1f KiB\n", v, t,
			       t / (b > 0 ? b : 1e-3), t / (g > 0 ? g : 1e-3), s / 1024 }'
	done
	if command -v node >/dev/null && [ -x /usr/bin/chromium ] &&
	   [ -d tests/browser/node_modules/puppeteer-core ]; then
		local load
		load=$(node tests/browser/html_report.js "$d/report.html" "$d" 'x^' all none |
			sed -n 's/.*"loadMs":\([0-9]*\).*/\1/p')
		echo "  HTML load in headless Chromium: ${load:-?} ms (to the page's data-ready)"
	fi
}

echo "views bench: recording StartupHeavy ($classes classes x 100 methods) ..."
record startup -F 999 -- -Xbatch jitprof.samples.StartupHeavy "$classes" 100
views startup
echo "views bench: recording Generations at -F $freq, $phase_ms ms per phase ..."
record gens100k -F "$freq" -- jitprof.samples.Generations "$phase_ms"
views gens100k
echo "views bench: target: every export within 2x of --sort dso,sym; StartupHeavy SVG < 1 MiB"
