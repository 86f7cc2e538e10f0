#!/usr/bin/env bash
# bench/record.sh - `jitprof record` against `perf record` on the same workload, same event
# (the default: cycles where the PMU has them, else cpu-clock), same frequency, in the same run:
# recorder CPU time (recorder minus workload, both measured), samples, lost samples, output size.
# Workload: two CPU-bound shell loops in parallel (2 CPUs busy), ~SECONDS each.
set -euo pipefail
build=${JITPROF_BUILD:-build}
jp=$build/jitprof
secs=${BENCH_RECORD_SECONDS:-4}
freq=${BENCH_RECORD_FREQ:-4000}
rounds=${BENCH_RECORD_ROUNDS:-3}
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
[ -x "$jp" ] || { echo "$jp not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The workload reports its own CPU time (the inner /usr/bin/time), the outer one the total:
# recorder CPU = outer - inner.
loop="end=\$((\$(date +%s) + $secs)); while [ \$(date +%s) -lt \$end ]; do i=0; while [ \$i -lt 2000 ]; do i=\$((i+1)); done; done"
workload=(/usr/bin/time -f "%U %S" -o "$tmp/inner" sh -c "($loop) & ($loop) & wait")

cpu() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }
lost() { perf report -i "$1" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' | awk 'NR == 1'; }
samples() { perf report -i "$1" --stdio -D 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | awk 'NR == 1'; }

run() {	# tag, name, output, command...
	local tag=$1 name=$2 out=$3; shift 3
	/usr/bin/time -f "%U %S" -o "$tmp/outer" "$@" >/dev/null 2>"$tmp/err" || {
		echo "$name failed:"; cat "$tmp/err"; exit 1; }
	local total inner rec
	total=$(cpu "$tmp/outer"); inner=$(cpu "$tmp/inner")
	rec=$(awk -v a="$total" -v b="$inner" 'BEGIN { printf "%.3f", a - b }')
	printf "%-28s recorder CPU %6.3f s  samples %7s  lost %5s  size %9d B\n" "$name" "$rec" \
		"$(samples "$out")" "$(lost "$out")" "$(stat -c %s "$out")"
	echo "$rec" >> "$tmp/$tag.cpu"
}

for g in "" "-g"; do
	for r in $(seq "$rounds"); do
		run "j$g" "jitprof record -F$freq $g" "$tmp/j.data" \
			"$jp" record -q -k mono -F "$freq" $g -o "$tmp/j.data" -- "${workload[@]}"
		run "p$g" "perf record -F$freq $g" "$tmp/p.data" \
			perf record -q -N -k mono -F "$freq" $g -o "$tmp/p.data" -- "${workload[@]}"
	done
	jb=$(sort -n "$tmp/j$g.cpu" | head -1)
	pb=$(sort -n "$tmp/p$g.cpu" | head -1)
	awk -v j="$jb" -v p="$pb" -v g="$g" 'BEGIN { printf "best of runs%s: jitprof %.3f s, perf %.3f s, ratio jitprof/perf %.2f\n", \
		g == "" ? "" : " (" g ")", j, p, (p > 0 ? j / p : 0) }'
done
