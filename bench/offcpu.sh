#!/usr/bin/env bash
# bench/offcpu.sh - `jitprof record --off-cpu` against perf recording the same thing, on a
# server-like workload of many short blocks: two threads ping-pong a byte over two pipes
# (each round trip two switch-outs, ~microseconds apart) with a little computing between.
# perf here may lack --off-cpu (BPF skeletons not built in): then perf records what ours does,
# cpu-clock at 4 kHz plus context-switches at period 1 with --switch-events, and the lighter
# `-e context-switches -c 1 -g` alone. Recorder CPU = outer user+sys minus the workload's own
# (record.sh's method); the workload's wall time slowdown against an unrecorded run. Then
# `report --event wall --sort dso,sym` against `report --sort dso,sym` on the same file.
set -euo pipefail
build=${JITPROF_BUILD:-build}
jp=$build/jitprof
trips=${BENCH_OFFCPU_TRIPS:-100000}
rounds=${BENCH_OFFCPU_ROUNDS:-3}
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
command -v cc >/dev/null || { echo "cc not installed: skipping"; exit 0; }
[ -x "$jp" ] || { echo "$jp not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/pingpong.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static int ab[2], ba[2];
static long trips;
static volatile unsigned long sink;
static void work(void) { for (int i = 0; i < 2000; i++) sink += (unsigned long)i * i; }
static void *pong(void *a)
{
	char c;
	for (long i = 0; i < trips; i++) {
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			abort();
		work();
	}
	return a;
}
int main(int argc, char **argv)
{
	pthread_t t;
	char c = 'x';
	trips = argc > 1 ? atol(argv[1]) : 100000;
	if (pipe(ab) || pipe(ba) || pthread_create(&t, NULL, pong, NULL))
		return 1;
	for (long i = 0; i < trips; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
		work();
	}
	return pthread_join(t, NULL);
}
C
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$tmp/pingpong" "$tmp/pingpong.c"
workload=(/usr/bin/time -f "%U %S %e" -o "$tmp/inner" "$tmp/pingpong" "$trips")

cpu() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }
wall() { awk '{ printf "%.3f", $3 }' "$1"; }

run() {	# tag, name, output (or -), command...
	local tag=$1 name=$2 out=$3; shift 3
	/usr/bin/time -f "%U %S %e" -o "$tmp/outer" "$@" >/dev/null 2>"$tmp/err" || {
		echo "$name failed:"; cat "$tmp/err"; exit 1; }
	local rec w size=0
	rec=$(awk -v a="$(cpu "$tmp/outer")" -v b="$(cpu "$tmp/inner")" 'BEGIN { printf "%.3f", a - b }')
	w=$(wall "$tmp/inner")
	[ "$out" != - ] && size=$(stat -c %s "$out")
	printf "%-58s recorder CPU %6.3f s  workload wall %6.3f s  size %10d B\n" "$name" "$rec" "$w" "$size"
	echo "$rec $w" >> "$tmp/$tag"
}

for r in $(seq "$rounds"); do
	run bare "unrecorded" - "${workload[@]}"
	run jp "jitprof record --off-cpu -g" "$tmp/j.data" \
		"$jp" record -q -k mono -g --off-cpu -o "$tmp/j.data" -- "${workload[@]}"
	ignored=$(perf record --off-cpu -o "$tmp/oc.data" -- true 2>&1 | grep -c "is being ignored" || true)
	if [ "$ignored" != 0 ]; then
		run pf "perf record -e cpu-clock,cs/period=1/ --switch-events -g" "$tmp/p.data" \
			perf record -q -N -k mono -g -e cpu-clock/freq=4000/ \
			-e context-switches/period=1/ --switch-events -o "$tmp/p.data" -- "${workload[@]}"
	else
		run pf "perf record --off-cpu -g" "$tmp/p.data" \
			perf record -q -N -k mono -g --off-cpu -o "$tmp/p.data" -- "${workload[@]}"
	fi
	run pc "perf record -e context-switches -c 1 -g" "$tmp/c.data" \
		perf record -q -N -k mono -g -e context-switches -c 1 -o "$tmp/c.data" -- "${workload[@]}"
done
best() { sort -n "$tmp/$1" | head -1; }
echo "best of $rounds (recorder CPU s, workload wall s): unrecorded $(best bare)," \
	"jitprof $(best jp), perf same events $(best pf), perf cs only $(best pc)"

# The report: wall time of the same recording's views.
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N);
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'; }
for r in $(seq "$rounds"); do
	a=$(t "$jp" report -i "$tmp/j.data" --sort dso,sym)
	b=$(t "$jp" report -i "$tmp/j.data" --event wall --sort dso,sym)
	c=$(t "$jp" report -i "$tmp/j.data" --event offcpu --sort dso,sym)
	echo "report: cpu-clock --sort dso,sym $a s, --event wall $b s, --event offcpu $c s," \
		"wall/cpu $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')"
done
"$jp" report -i "$tmp/j.data" --event wall --sort comm 2>&1 | grep -E "Samples|ms " | head -4
