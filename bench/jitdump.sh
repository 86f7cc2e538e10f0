#!/usr/bin/env bash
# jitdump benchmark: reader throughput on a ~500 MB synthetic Java-like dump as a ratio to
# `cat FILE > /dev/null` on the same (cached) file in the same run, the index over it, and
# writer loads/s with 1 and 4 threads. Prints figures; asserts nothing. JDBENCH_MB resizes.
set -euo pipefail
build=${JITPROF_BUILD:-build}
bin=$build/bench/jdbench
mb=${JDBENCH_MB:-500}
[ -x "$bin" ] || { echo "jitdump bench: $bin missing (make $bin)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jdbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ns() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }

t0=$(ns); dump=$("$bin" gen "$tmp" "$mb"); t1=$(ns)
size=$(stat -c %s "$dump")
echo "synthetic dump: $((size / 1000000)) MB written in $(secs "$t0" "$t1") s ($dump)"

cat "$dump" > /dev/null	# warm the page cache: both sides then read from memory
best_cat=; best_rd=
for i in 1 2 3; do
	t0=$(ns); cat "$dump" > /dev/null; t1=$(ns)
	c=$((t1 - t0)); [ -z "$best_cat" ] || [ "$c" -lt "$best_cat" ] && best_cat=$c
	t0=$(ns); out=$("$bin" read "$dump"); t1=$(ns)
	r=$((t1 - t0)); [ -z "$best_rd" ] || [ "$r" -lt "$best_rd" ] && best_rd=$r
done
echo "reader: $out"
awk -v c="$best_cat" -v r="$best_rd" -v s="$size" 'BEGIN {
	printf "cat FILE > /dev/null: %.3f s (%.0f MB/s); jd_reader: %.3f s (%.0f MB/s); " \
	       "reader/cat time ratio %.2f (best of 3)\n", c / 1e9, s / c * 1e3, r / 1e9,
	       s / r * 1e3, r / c }'
"$bin" index "$dump"
rm -f "$dump"

n=${JDBENCH_LOADS:-500000}	# ~400 MB: more runs into dirty-page throttling
for th in 1 4; do
	"$bin" write "$tmp" "$th" "$n"
	rm -f "$tmp"/jit-*.dump
done
