#!/usr/bin/env bash
# inject benchmark: `jitprof inject --jit` against `perf inject --jit` on the same inputs in the
# same run: wall time, peak RSS and files created (beside the dump and in the build-id cache).
# Inputs: a synthetic run of INJBENCH_LOADS (default 200000) code loads from inject-gen (90% of
# its samples in 16 hot address slots whose code is recompiled as the slots are reused, the
# rest anywhere: about the sampled share of a real start-up; INJBENCH_HOT=0: uniform), and a
# start-up-heavy Java run (samples/java StartupHeavy with our agent, ~20k methods) when java
# and the agent are built. Prints figures; asserts nothing. Needs perf.
set -euo pipefail
build=${JITPROF_BUILD:-build}
jitprof=$(realpath "$build/jitprof")
gen=$(realpath "$build/inject-gen")
loads=${INJBENCH_LOADS:-200000}
samples=${INJBENCH_SAMPLES:-20000}
hot=${INJBENCH_HOT:-90}
perf_timeout=${INJBENCH_PERF_TIMEOUT:-900}
for f in "$jitprof" "$gen"; do
	[ -x "$f" ] || { echo "inject bench: $f missing (make $f)"; exit 1; }
done
command -v perf > /dev/null || { echo "inject bench: perf is not installed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/injbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export DEBUGINFOD_URLS=

# measure NAME DIR CMD...: runs CMD with HOME and the build-id cache inside DIR, prints
# "wall_s rss_mb files" (files = new files under DIR after the run).
measure() {
	local name=$1 dir=$2; shift 2
	local before after
	before=$(find "$dir" -type f -o -type l | wc -l)
	HOME=$dir/home PERF_BUILDID_DIR=$dir/home/.debug \
		/usr/bin/time -f "%e %M" -o "$tmp/$name.time" timeout "$perf_timeout" "$@" \
		> /dev/null 2> "$tmp/$name.err" || echo "($name exited $?: $(tail -n 2 "$tmp/$name.err"))" >&2
	after=$(find "$dir" -type f -o -type l | wc -l)
	read -r wall rss < <(tail -n 1 "$tmp/$name.time")
	echo "$wall $((rss / 1024)) $((after - before))"
}

# compare LABEL DATA DUMPDIR: perf inject on the dump where the recording names it, ours on a
# copy (both write jitted-PID-N.so beside the dump), each with its own HOME/cache.
compare() {
	local label=$1 data=$2 dumpdir=$3
	mkdir -p "$tmp/$label-ours/home" "$tmp/$label-perf/home"
	cp "$dumpdir"/jit-* "$tmp/$label-ours/"
	read -r jw jr jf < <(measure "$label-jitprof" "$tmp/$label-ours" \
		"$jitprof" inject --jit -q -i "$data" -o "$tmp/$label-ours/out.data" \
		--jit-dir "$tmp/$label-ours")
	read -r pw pr pf < <(measure "$label-perf" "$dumpdir" \
		perf inject --jit -i "$data" -o "$tmp/$label-perf/out.data")
	# perf's files land in the dump dir; the HOME it got is under the same dir.
	echo "$label: jitprof inject ${jw} s, ${jr} MB peak RSS, ${jf} files;" \
	     "perf inject ${pw} s, ${pr} MB, ${pf} files"
	awk -v jw="$jw" -v pw="$pw" -v jr="$jr" -v pr="$pr" -v jf="$jf" -v pf="$pf" -v l="$label" \
	'BEGIN { printf "%s: speed-up %.1fx (target >= 10x), memory %.2f of perf'\''s " \
		"(target <= 0.25), files %d vs %d\n", l, (jw > 0 ? pw / jw : 0), \
		(pr > 0 ? jr / pr : 0), jf, pf }'
}

# 1. Synthetic: loads reusing 4096 address slots, names recompiled, samples over the run.
mkdir -p "$tmp/syn"
"$gen" --dir "$tmp/syn" -o "$tmp/syn/perf.data" --loads "$loads" --samples "$samples" \
	--slots 4096 --names $((loads / 4)) --hot "$hot" > "$tmp/syn/expect.txt"
dump=$(sed -n 's/^dump //p' "$tmp/syn/expect.txt")
echo "synthetic: $loads code loads ($(stat -c %s "$dump") bytes of dump)," \
     "$samples samples ($hot% hot) hitting $(grep -c '^expect' "$tmp/syn/expect.txt") generations"
compare synthetic "$tmp/syn/perf.data" "$tmp/syn"

# 2. Java start-up-heavy run with our agent (skipped when not built).
if command -v java > /dev/null && [ -f "$build/libagent.so" ] && [ -f "$build/java/.built" ]; then
	mkdir -p "$tmp/java"
	agent=$(realpath "$build/libagent.so"); cp=$(realpath "$build/java")
	perf record -q -k mono -F 999 -g -o "$tmp/java/perf.data" -- java -Xbatch \
		-XX:+PreserveFramePointer -agentpath:"$agent"=dir="$tmp/java" -cp "$cp" \
		jitprof.samples.StartupHeavy > /dev/null 2>&1
	d=$(ls "$tmp/java"/jit-*.dump | head -n 1)
	echo "java StartupHeavy: $("$jitprof" jitdump --stats "$d" 2>/dev/null | grep -m1 -i 'code_load\|CODE_LOAD' || true)"
	compare java "$tmp/java/perf.data" "$tmp/java"
else
	echo "java: skipped (java, build/libagent.so or samples/java not built)"
fi
