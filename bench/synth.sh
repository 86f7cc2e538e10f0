#!/usr/bin/env bash
# ELFs per second from libsynth (build-ids only, in memory, to files, to files + build-id cache)
# and from `jitprof synth`, beside the per-ELF rate of `perf inject --jit` on the same 20k-load
# dump, measured in the same run. The dump is written by bench/synth/synth_bench.c through
# libjitdump under `perf record -k mono`, so the recording holds its marker.
set -euo pipefail
build=${JITPROF_BUILD:-build}
loads=${SYNTH_BENCH_LOADS:-20000}
helper=$(realpath "$build/synth-bench")
jitprof=$(realpath "$build/jitprof")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jitprof-bench-synth.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp DEBUGINFOD_URLS=	# perf's build-id cache goes to the scratch directory

now() { date +%s.%N; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%9.0f /s  %9.1f us each", n / s, s * 1e6 / n }'; }

cd "$tmp"
perf record -q -k mono -e cpu-clock -o perf.data -- "$helper" gen "$tmp/dump" "$loads"
dump=$(ls "$tmp"/dump/jit-*.dump)
echo "synth: $loads code loads, dump $(du -h "$dump" | cut -f1), file system of $tmp: $(df --output=fstype "$tmp" | tail -1)"

"$helper" run "$dump" "$tmp/ours" > ours.txt
sync; t0=$(now); "$jitprof" synth "$dump" -o "$tmp/cmd" -q > /dev/null; t1=$(now)
cmd_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')

t0=$(now); perf inject -i perf.data -o perf.plain.data; t1=$(now)
plain_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
sync; t0=$(now); perf inject --jit -i perf.data -o perf.jit.data; t1=$(now)
perf_s=$(awk -v a="$t0" -v b="$t1" -v p="$plain_s" 'BEGIN { print b - a - p }')
perf_n=$(find "$tmp/dump" -name 'jitted-*.so' | wc -l)
[ "$perf_n" -gt 0 ] || { echo "perf inject wrote no ELFs"; exit 1; }

while read -r what n s; do
	printf '  libsynth %-30s %s\n' "$what:" "$(rate "$n" "$s")"
	what=${what//[-+]/_}
	eval "ours_$what=$s"
done < ours.txt
printf '  %-39s %s\n' "jitprof synth (command, files):" "$(rate "$loads" "$cmd_s")"
printf '  %-39s %s  (%d ELFs, net of a plain inject)\n' "perf inject --jit:" \
	"$(rate "$perf_n" "$perf_s")" "$perf_n"
ratio() { awk -v a="$1" -v b="$2" -v na="$loads" -v nb="$perf_n" \
	'BEGIN { printf "%.1fx", (na / a) / (nb / b) }'; }
echo "  ratio vs perf inject --jit per ELF (target >= 5x): in memory" \
	"$(ratio "$ours_memory" "$perf_s"), files $(ratio "$ours_files" "$perf_s")," \
	"files on $(nproc) threads $(ratio "$ours_files_threads" "$perf_s")," \
	"files + build-id cache $(ratio "$ours_files_cache" "$perf_s")"
echo "  load average during the run: $(cut -d' ' -f1-3 /proc/loadavg)"
