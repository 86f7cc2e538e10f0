#!/usr/bin/env bash
# bench/profile.sh - what `jitprof profile` costs around the work it profiles:
#  1. launch: samples/java SteadyState alone vs under `jitprof profile -o x.txt -- java ...`
#     (agent, -XX:+PreserveFramePointer, record -g at 999 Hz, inject, report): wall and CPU
#     (user+sys of every process), median of BENCH_RUNS (default 3);
#  2. attach: `jitprof profile -d 1 -p PID` on a running JVM, BENCH_RUNS times in a row: the
#     time until the agent is in (first attach: trigger file, SIGQUIT, listener start, load,
#     back-fill; later ones: the listener is up), and the whole run beyond its 1 s of recording
#     (stop, inject, report).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${JITPROF_BUILD:-build}
runs=${BENCH_RUNS:-3}
command -v java >/dev/null || { echo "profile bench: java not installed, skipped"; exit 0; }
[ -f "$build/java/.built" ] && [ -f "$build/libagent.so" ] ||
	{ echo "profile bench: agent or samples/java not built, skipped"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/jitprof-bench-profile.XXXXXX")
trap 'kill $jvm 2>/dev/null || true; rm -rf "$work"' EXIT
export HOME="$work/home" DEBUGINFOD_URLS=
mkdir -p "$HOME"
# A private copy of the tools (a rebuild during the run must not swap them).
cp "$build/jitprof" "$build/libagent.so" "$work/"
jitprof=$work/jitprof
cp_dir=$(realpath "$build/java")
rounds=${BENCH_PROFILE_ROUNDS:-40}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now_ms() { date +%s%3N; }

# "wall cpu" in seconds for one command (bash's time: children included).
measure() {
	local TIMEFORMAT='%R %U %S'
	{ time "$@" >/dev/null 2>"$work/err"; } 2>&1 | awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }'
}

: >"$work/plain"
: >"$work/prof"
for ((i = 0; i < runs; i++)); do
	measure java -cp "$cp_dir" jitprof.samples.SteadyState "$rounds" >>"$work/plain"
	measure "$jitprof" profile -q -o "$work/x.txt" -- java -cp "$cp_dir" \
		jitprof.samples.SteadyState "$rounds" >>"$work/prof"
done
pw=$(cut -d' ' -f1 "$work/plain" | median); pc=$(cut -d' ' -f2 "$work/plain" | median)
jw=$(cut -d' ' -f1 "$work/prof" | median); jc=$(cut -d' ' -f2 "$work/prof" | median)
echo "launch, SteadyState $rounds: java alone ${pw} s wall ${pc} s CPU; jitprof profile" \
	"${jw} s wall ${jc} s CPU (+$(awk -v a="$pw" -v b="$jw" 'BEGIN { printf "%.2f", b - a }') s" \
	"wall, +$(awk -v a="$pc" -v b="$jc" 'BEGIN { printf "%.2f", b - a }') s CPU)"

java -cp "$cp_dir" jitprof.samples.Generations 100000 >/dev/null 2>&1 &
jvm=$!
sleep 2
for ((i = 1; i <= runs; i++)); do
	t0=$(now_ms)
	"$jitprof" profile -d 1 -p "$jvm" -o "$work/a$i.txt" 2>&1 |
		while IFS= read -r line; do echo "$(now_ms) $line"; done >"$work/a$i.log"
	t1=$(now_ms)
	loaded=$(awk '/loaded into Java VM/ { print $1; exit }' "$work/a$i.log")
	echo "attach $i: agent in after $((loaded - t0)) ms; whole run $((t1 - t0)) ms" \
		"(1000 ms of it recording)"
done
