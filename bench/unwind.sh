#!/usr/bin/env bash
# bench/unwind.sh - call graphs from stack copies (--call-graph dwarf), ours against perf's in
# the same run. `jitprof report -g` against `perf report -g --stdio --no-children` on the same
# files, a small recording (BENCH_UNWIND_SMALL_SECONDS, default 1) and a large one (the last of
# the recordings below), CPU and wall (issue 35's target: >= 20x faster); from the two, each
# tool's fixed start-up cost and its cost per 1,000 samples (a line through both points), so
# the ratio on a large file reads apart from what any report pays once. The recorders' CPU
# with stack copies (`jitprof record --call-graph dwarf` against `perf record --call-graph
# dwarf`: <= 1x, 0 lost; bench/record.sh's method: recorder CPU = total - the workload's own).
# The workload: a C program built here without frame pointers, a recursion 24 deep calling
# into libc (qsort with a comparator) and a CPU loop, BENCH_UNWIND_SECONDS (default 8) at
# BENCH_UNWIND_FREQ (default 4000) Hz. Then `jitprof inject` on both large recordings (the
# stacks unwound into the call chains, the copies dropped): the output's size against the
# recording's (target <= 1/5), its time against `perf inject` copying the same file (perf
# cannot unwind into chains: a plain pass is its nearest), and the samples reaching main
# in `perf script` of the injected file against perf's own unwinding of the recording. Best of
# BENCH_RUNS (default 3). Last, javac without frame pointers on each JDK of BENCH_UNWIND_JDKS
# (default JDK 17 and 25 where installed) compiling java.util.stream (the JDK's own src.zip,
# else the first JDK's; javac 17 stops at errors on 25's sources after parsing and attributing
# them: the work is measured all the same): the Java samples (a jitted, interpreter or call stub
# frame) whose stack reaches its root without an [unknown] cut, through inject's chains (perf
# script) and report's own walk (--keep-stacks), and the share of `Interpreter` frames left
# among the Java frames of the flame graph (issue 35: >= 95%, 0), with stack copies of
# BENCH_UNWIND_JAVA_STACK bytes (default 32768, what `jitprof profile` records for Java).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${JITPROF_BUILD:-build}
jp=$(realpath "$build/jitprof")
runs=${BENCH_RUNS:-3}
secs=${BENCH_UNWIND_SECONDS:-8}
small_secs=${BENCH_UNWIND_SMALL_SECONDS:-1}
freq=${BENCH_UNWIND_FREQ:-4000}
java_stack=${BENCH_UNWIND_JAVA_STACK:-32768}
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
command -v cc >/dev/null || { echo "cc not installed: skipping"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/w.c" <<'C'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
static int cmp(const void *a, const void *b)
{ return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) void burn(unsigned n)
{ unsigned long x = 0; for (unsigned i = 0; i < n; i++) x += i * i ^ (x >> 3); sink = x; }
__attribute__((noinline)) void sortsome(void)
{ int v[256]; for (int i = 0; i < 256; i++) v[i] = rand(); qsort(v, 256, sizeof(int), cmp); }
__attribute__((noinline)) void rec(int d)
{ if (d == 0) { burn(20000); sortsome(); return; } rec(d - 1); sink++; }
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 3);
	while (time(NULL) < end) rec(24);
	return 0;
}
C
cc -O2 -fomit-frame-pointer -o "$work/w" "$work/w.c"

. bench/lib/best.sh
lost() { perf report -i "$1" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' | awk 'NR == 1'; }

# Recorder CPU: the workload's own CPU (inner time) taken from the total.
rec_cpu() {	# rec_cpu OUT RECORDER-COMMAND... -> "CPU LOST SIZE"
	local out=$1; shift
	/usr/bin/time -f "%U %S" -o "$work/outer" "$@" -o "$out" -- /usr/bin/time -f "%U %S" \
		-o "$work/inner" "$work/w" "$secs" >/dev/null 2>&1
	awk -v l="$(lost "$out")" -v s="$(stat -c %s "$out")" 'NR == FNR { t = $1 + $2; next }
		{ printf "%.3f %s %s\n", t - ($1 + $2), l, s }' "$work/outer" "$work/inner"
}
jb=1e9; pb=1e9
for _ in $(seq "$runs"); do
	read -r jc jl js < <(rec_cpu "$work/j.data" "$jp" record -q -F "$freq" --call-graph dwarf)
	read -r pc pl ps < <(rec_cpu "$work/p.data" perf record -q -N -k mono -F "$freq" \
		--call-graph dwarf)
	echo "record: jitprof $jc s CPU, lost $jl, $js B | perf $pc s CPU, lost $pl, $ps B"
	jb=$(awk -v x="$jc" -v y="$jb" 'BEGIN { print (x < y) ? x : y }')
	pb=$(awk -v x="$pc" -v y="$pb" 'BEGIN { print (x < y) ? x : y }')
done
awk -v j="$jb" -v p="$pb" 'BEGIN { printf "record --call-graph dwarf, best of runs: jitprof " \
	"%.3f s, perf %.3f s, ratio jitprof/perf %.2f (target <= 1, 0 lost)\n", j, p,
	(p > 0 ? j / p : 0) }'

# report -g, ours and perf's, on the same file: "SAMPLES JW JC PW PC" (best of runs).
report_g() {
	local n jw jc pw pc
	n=$("$jp" report -i "$1" 2>/dev/null | sed -n 's/^# Samples: \([0-9]*\).*/\1/p')
	read -r jw jc < <(best "$runs" "$jp" report -i "$1" -g)
	read -r pw pc < <(best "$runs" perf report -i "$1" -g --stdio --no-children)
	echo "$n $jw $jc $pw $pc"
}
perf record -q -N -k mono -F "$freq" --call-graph dwarf -o "$work/small.data" -- \
	"$work/w" "$small_secs" >/dev/null 2>&1
read -r sn sjw sjc spw spc < <(report_g "$work/small.data")
read -r ln ljw ljc lpw lpc < <(report_g "$work/p.data")
samples=$ln
for r in "small $sn $(du -k "$work/small.data" | cut -f1) $sjw $sjc $spw $spc" \
	 "large $ln $(du -k "$work/p.data" | cut -f1) $ljw $ljc $lpw $lpc"; do
	awk -v r="$r" 'BEGIN { split(r, f, " ")
		printf "report -g, %s (perf record, %d samples, %d KiB): jitprof %.3f s wall " \
		       "%.3f s cpu | perf %.3f s wall %.3f s cpu | perf/jitprof %.1fx wall " \
		       "%.1fx cpu (target >= 20x)\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7],
		       f[6] / (f[4] > 0 ? f[4] : 1e-3), f[7] / (f[5] > 0 ? f[5] : 1e-3) }'
done
# Cost = start-up + samples x per-sample, through the two points (CPU).
awk -v sn="$sn" -v ln="$ln" -v sj="$sjc" -v lj="$ljc" -v sp="$spc" -v lp="$lpc" 'BEGIN {
	if (ln <= sn) { print "report -g: the large recording is not larger; no split"; exit }
	kj = (lj - sj) / (ln - sn); kp = (lp - sp) / (ln - sn)
	printf "report -g, CPU split: start-up jitprof %.3f s, perf %.3f s (%.1fx); per 1,000 " \
	       "samples jitprof %.1f ms, perf %.1f ms (%.1fx)\n", sj - sn * kj, sp - sn * kp,
	       (sp - sn * kp) / (sj - sn * kj > 0 ? sj - sn * kj : 1e-3), 1e6 * kj, 1e6 * kp,
	       kp / (kj > 0 ? kj : 1e-9) }'
# The same answer? Samples whose stack reaches main, by each.
jm=$("$jp" report -i "$work/p.data" --collapsed 2>/dev/null | awk '/;main;/ { n += $NF } END { print n + 0 }')
pm=$(perf script -i "$work/p.data" -F ip,sym 2>/dev/null | awk 'BEGIN { RS = "" } {
	k = split($0, l, "\n")
	for (i = 1; i <= k; i++) { m = split(l[i], f, /[ \t]+/); if (f[m] == "main") { n++; break } }
} END { print n + 0 }')
echo "report: samples reaching main: jitprof $jm, perf $pm (of $samples)"

# inject: the stacks unwound into the chains, the copies dropped.
reaching_main() {	# samples whose perf script stack has main
	perf script -i "$1" -F ip,sym 2>/dev/null | awk 'BEGIN { RS = "" } {
		k = split($0, l, "\n")
		for (i = 1; i <= k; i++) { m = split(l[i], f, /[ \t]+/); if (f[m] == "main") { n++; break } }
	} END { print n + 0 }'
}
for who in j p; do
	in="$work/$who.data" out="$work/$who.inj.data"
	read -r iw ic < <(best "$runs" "$jp" inject -q -i "$in" -o "$out")
	read -r pw pc < <(best "$runs" perf inject -i "$in" -o "$work/$who.perfinj.data")
	is=$(stat -c %s "$in") os=$(stat -c %s "$out")
	awk -v who="$([ $who = j ] && echo jitprof || echo perf)" -v is="$is" -v os="$os" \
		-v iw="$iw" -v ic="$ic" -v pw="$pw" -v pc="$pc" -v m0="$(reaching_main "$in")" \
		-v m1="$(reaching_main "$out")" 'BEGIN {
		printf "inject (%s record --call-graph dwarf): %d B -> %d B (1/%.1f, target <= 1/5); " \
		       "jitprof inject %.3f s wall %.3f s cpu, perf inject (a copy) %.3f s wall " \
		       "%.3f s cpu (%.1fx wall); perf script reaching main: recording %d, " \
		       "injected %d\n", who, is, os, is / (os > 0 ? os : 1), iw, ic, pw, pc,
		       pw / (iw > 0 ? iw : 1e-3), m0, m1 }'
done

# javac without frame pointers: where Java stacks stop (docs/PERFORMANCE.md).
java_share() {	# java_share FOLDED -> "JAVA_SAMPLES UNCUT INTERPRETER_FRAMES JAVA_FRAMES"
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); j = 0; cut = 0
		for (i = 1; i <= k; i++) {
			if (f[i] ~ /^\[unknown\]/) cut = 1
			if (f[i] == "Interpreter" || f[i] == "call_stub" || f[i] ~ /_\[int\]$/ ||
			    f[i] ~ /^[a-z]+(\.[A-Za-z0-9_$]+)+\(/) { j++; if (f[i] == "Interpreter") it += n }
		}
		if (j) { js += n; ok += cut ? 0 : n; jf += j * n } }
		END { print js + 0, ok + 0, it + 0, jf + 0 }' "$1"
}
script_share() {	# perf script of an injected file -> "JAVA_SAMPLES UNCUT"
	perf script --max-stack 1024 -i "$1" -F ip,sym,dso 2>/dev/null | awk 'BEGIN { RS = "" } {
		k = split($0, l, "\n"); j = 0; last = ""
		for (i = 1; i <= k; i++) {
			if (l[i] ~ /kernel\.kallsyms/) continue
			if (l[i] ~ /jitted-[0-9]+-[0-9]+(-[0-9]+)?\.so\)$/) j = 1
			last = l[i]
		}
		if (j) { js++; ok += last ~ /\[unknown\] \(\[unknown\]\)$/ ? 0 : 1 } }
		END { print js + 0, ok + 0 }'
}
for home in ${BENCH_UNWIND_JDKS:-/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64}; do
	[ -x "$home/bin/javac" ] || { echo "javac: $home not installed: skipped"; continue; }
	src=$home/lib/src.zip
	[ -r "$src" ] || src=$(ls /usr/lib/jvm/*/lib/src.zip 2>/dev/null | while read -r z; do
		[ -r "$z" ] && echo "$z" && break; done)
	[ -n "$src" ] || { echo "javac: no src.zip: skipped"; continue; }
	jc=$work/javac; rm -rf "$jc"; mkdir -p "$jc/src" "$jc/out" "$jc/jit"
	unzip -q "$src" 'java.base/java/util/stream/*' -d "$jc/src"
	"$jp" record -q -k mono -F 499 --call-graph dwarf,"$java_stack" -o "$jc/perf.data" -- \
		"$home/bin/javac" -J-agentpath:"$(realpath "$build/libagent.so")"=dir="$jc/jit",quiet \
		-nowarn --patch-module java.base="$jc/src/java.base" -d "$jc/out" \
		"$jc/src/java.base/java/util/stream/"*.java >/dev/null 2>&1 || true
	"$jp" inject -q --jit --all -i "$jc/perf.data" -o "$jc/inj.data"
	"$jp" inject -q --jit --all --keep-stacks -i "$jc/perf.data" -o "$jc/keep.data"
	"$jp" report -i "$jc/keep.data" --collapsed > "$jc/folded" 2>/dev/null
	read -r sj sok < <(script_share "$jc/inj.data")
	read -r rj rok it jf < <(java_share "$jc/folded")
	awk -v h="$(basename "$home")" -v sj="$sj" -v sok="$sok" -v rj="$rj" -v rok="$rok" \
		-v it="$it" -v jf="$jf" -v cs="$java_stack" -v rs="$(stat -c %s "$jc/perf.data")" 'BEGIN {
		printf "javac %s, no frame pointers, %d-byte stack copies (recording %.0f MB): Java " \
		"samples reaching their root: inject %d of %d (%.1f%%), report walk %d of %d " \
		"(%.1f%%) (target >= 95%%); Interpreter frames %d of %d Java frames (%.2f%%, " \
		"target 0)\n", h, cs, rs / 1e6, sok, sj, 100 * sok / (sj ? sj : 1), rok, rj,
		100 * rok / (rj ? rj : 1), it, jf, 100 * it / (jf ? jf : 1) }'
done
