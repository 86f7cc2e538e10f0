#!/usr/bin/env bash
# bench/alloclock.sh - what the agent's alloc and lock options cost the JVM (issue 37):
# an allocation-heavy program (samples/java AllocRatio: a thread allocating long[] and small
# objects flat out, MB given) run with the agent and without alloc, then with alloc at the
# default interval (512 KiB, the JVM's own); an uncontended program (SteadyState: maps,
# strings, sorting; no monitor contended) with and without lock. CPU = user+sys of the JVM
# (/usr/bin/time), wall beside it; rounds interleaved, each figure's median and range. On a
# shared machine the CPU of whole runs moves by tens of percent between identical rounds, so
# the agent's own accounting is printed too: the time spent inside its callbacks (what the
# sampled threads pay for our code: stack walk, names, the record's encoding), in the
# companion's AGENT_STATS record, and the SAMPLE records written.
set -euo pipefail
build=${JITPROF_BUILD:-build}
jp=$build/jitprof
java=${JAVA:-java}
rounds=${BENCH_ALLOCLOCK_ROUNDS:-5}
mb=${BENCH_ALLOC_MB:-3000}
command -v "$java" >/dev/null || { echo "java not installed: skipping"; exit 0; }
agent=$(realpath "$build/libagent.so")
cp=$(realpath "$build/java")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {	# tag, agent options, class and args...
	local tag=$1 opts=$2; shift 2
	rm -rf "$tmp/jit" && mkdir "$tmp/jit"
	/usr/bin/time -f "%U %S %e" -o "$tmp/t" "$java" -agentpath:"$agent"=dir="$tmp/jit",quiet$opts \
		-cp "$cp" "$@" >/dev/null 2>"$tmp/err" || { echo "$tag failed:"; cat "$tmp/err"; exit 1; }
	awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$tmp/t" >> "$tmp/$tag"
	local n
	n=$(cat "$tmp"/jit/*.jitprof 2>/dev/null | wc -c)
	echo "$n" >> "$tmp/$tag.bytes"
	# the agent's own accounting: time inside its callbacks, and the samples written
	"$jp" jitdump "$tmp"/jit/*.jitprof | awk '/AGENT_STATS/ { for (i = 1; i <= NF; i++)
		if ($i ~ /^callback_ns=/) { sub("callback_ns=", "", $i); ns = $i } }
		/ SAMPLE / { s++ } END { printf "%d %d\n", ns, s }' >> "$tmp/$tag.cb"
}

stats() {	# tag: "cpu median [min-max] s, wall median s"
	sort -n "$tmp/$1" | awk '{ c[NR] = $1; w[NR] = $2 } END {
		printf "CPU %.3f s [%.3f-%.3f]  wall %.3f s", c[int((NR + 1) / 2)], c[1], c[NR],
		w[int((NR + 1) / 2)] }'
}

median() { sort -n "$tmp/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "java: $("$java" -version 2>&1 | head -n 1); rounds: $rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	run alloc_off "" jitprof.samples.AllocRatio "$mb"
	run alloc_on ",alloc" jitprof.samples.AllocRatio "$mb"
	run alloc_4k ",alloc=4096" jitprof.samples.AllocRatio "$mb"
	run lock_off "" jitprof.samples.SteadyState 60
	run lock_on ",lock" jitprof.samples.SteadyState 60
done
for t in alloc_off alloc_on alloc_4k lock_off lock_on; do
	printf "%-10s %s  companion %s bytes  agent callbacks %s ms, %s samples (median)\n" "$t" \
		"$(stats $t)" "$(median $t.bytes)" \
		"$(awk '{ print $1 / 1e6 }' "$tmp/$t.cb" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
		"$(awk '{ print $2 }' "$tmp/$t.cb" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
done
# A sample's cost where it can be seen above the noise: 128x the samples at 4 KiB.
s4=$(awk '{ print $2 }' "$tmp/alloc_4k.cb" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
s512=$(awk '{ print $2 }' "$tmp/alloc_on.cb" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
awk -v a="$(median alloc_off)" -v b="$(median alloc_4k)" -v n="$s4" -v m="$s512" 'BEGIN {
	us = 1e6 * (b - a) / n
	printf "a sample costs %.2f us of CPU (alloc=4096: %+.3f s for %d samples); at 512 KiB: %d samples, %.1f ms, %+.2f%% of the run'"'"'s CPU\n", us, b - a, n, m, us * m / 1e3, 100 * us * m / 1e6 / a }'
awk -v a="$(median alloc_off)" -v b="$(median alloc_on)" \
	'BEGIN { printf "alloc sampling at 512 KiB (AllocRatio %s MB): %+.1f%% CPU (median against median; target <= 2%%)\n", '"$mb"', 100 * (b - a) / a }'
awk -v a="$(median lock_off)" -v b="$(median lock_on)" \
	'BEGIN { printf "lock on an uncontended program (SteadyState): %+.1f%% CPU\n", 100 * (b - a) / a }'
