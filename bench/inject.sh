#!/usr/bin/env bash
# inject benchmark: `jitprof inject --jit` (writing ELF files, and --no-elfs) against
# `perf inject --jit` on the same inputs in the same run: wall and CPU time, peak RSS, files
# created, `cat` of the inputs (the physical limit: reading them once), `jitprof report --sort
# dso,sym` on each output against `perf report` on perf's, and file-system calls per ELF
# (strace -c -f) of the file-writing path next to perf inject's.
# Inputs: a synthetic run of INJBENCH_LOADS (default 200000) code loads from inject-gen (90% of
# its samples in 16 hot address slots whose code is recompiled as the slots are reused: the
# sampled share of a real start-up), a sample-dense synthetic run (INJBENCH_DENSE_LOADS loads,
# ten times as many samples spread uniformly: most loads sampled, as in javac), and a Java
# start-up (samples/java StartupHeavy with our agent, INJBENCH_CLASSES x 100 methods, 30k+
# loads) when java and the agent are built. Prints figures; asserts nothing. Needs perf.
set -euo pipefail
build=${JITPROF_BUILD:-build}
jitprof=$(realpath "$build/jitprof")
gen=$(realpath "$build/inject-gen")
loads=${INJBENCH_LOADS:-200000}
samples=${INJBENCH_SAMPLES:-20000}
hot=${INJBENCH_HOT:-90}
dense_loads=${INJBENCH_DENSE_LOADS:-20000}
classes=${INJBENCH_CLASSES:-330}
strace_loads=${INJBENCH_STRACE_LOADS:-20000}
perf_timeout=${INJBENCH_PERF_TIMEOUT:-900}
for f in "$jitprof" "$gen"; do
	[ -x "$f" ] || { echo "inject bench: $f missing (make $f)"; exit 1; }
done
command -v perf > /dev/null || { echo "inject bench: perf is not installed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/injbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export DEBUGINFOD_URLS=

# measure NAME DIR CMD...: runs CMD with HOME and the build-id cache inside DIR, prints
# "wall_s cpu_s rss_mb files" (files = new files under DIR after the run).
measure() {
	local name=$1 dir=$2; shift 2
	local before after wall usr sys rss
	before=$(find "$dir" -type f -o -type l | wc -l)
	HOME=$dir/home PERF_BUILDID_DIR=$dir/home/.debug \
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/$name.time" timeout "$perf_timeout" "$@" \
		> "$tmp/$name.out" 2> "$tmp/$name.err" ||
		echo "($name exited $?: $(tail -n 2 "$tmp/$name.err"))" >&2
	after=$(find "$dir" -type f -o -type l | wc -l)
	read -r wall usr sys rss < <(tail -n 1 "$tmp/$name.time")
	echo "$wall $(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') \
$((rss / 1024)) $((after - before))"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

# fs_calls NAME CMD...: file-system system calls CMD makes (strace -c -f), one number.
fs_calls() {
	local name=$1; shift
	strace -f -c -o "$tmp/$name.strace" "$@" > /dev/null 2>&1 || true
	awk '$NF ~ /^(open|openat|creat|close|read|pread64|write|pwrite64|writev|lseek|stat|fstat|lstat|newfstatat|statx|access|faccessat|faccessat2|mkdir|mkdirat|link|linkat|symlink|symlinkat|rename|renameat|renameat2|unlink|unlinkat|readlink|readlinkat|fsync|fdatasync|ftruncate|fchmod|fchmodat|getdents64|mmap|munmap)$/ \
		{ n += $4 } END { print n + 0 }' "$tmp/$name.strace"
}

# compare LABEL DATA DUMPDIR: perf inject on the dump where the recording names it; ours on
# copies (file path and --no-elfs), each with its own HOME/cache; then the reports.
compare() {
	local label=$1 data=$2 dumpdir=$3
	local files=$tmp/$label-files lazy=$tmp/$label-lazy
	mkdir -p "$files/home" "$lazy/home" "$tmp/$label-perf/home"
	cp "$dumpdir"/jit-* "$files/"
	cp "$dumpdir"/jit-* "$lazy/"
	local t0 t1 best=""
	for _ in 1 2 3; do	# best of 3, in ns: the inputs are in the page cache by now
		t0=$(date +%s%N)
		cat "$dumpdir"/jit-* "$data" > "$tmp/$label.cat"
		t1=$(date +%s%N)
		[ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ] && best=$((t1 - t0))
		rm -f "$tmp/$label.cat"
	done
	cw=$(awk -v n="$best" 'BEGIN { printf "%.3f", n / 1e9 }')
	read -r lw lc lr lf < <(measure "$label-noelfs" "$lazy" \
		"$jitprof" inject --jit -q --no-elfs -i "$data" -o "$lazy/out.data" --jit-dir "$lazy")
	read -r jw jc jr jf < <(measure "$label-files" "$files" \
		"$jitprof" inject --jit -q -i "$data" -o "$files/out.data" --jit-dir "$files")
	read -r pw pc pr pf < <(measure "$label-perf" "$dumpdir" \
		perf inject --jit -i "$data" -o "$tmp/$label-perf/out.data")
	read -r rlw rlc rlr _ < <(measure "$label-rep-noelfs" "$lazy" \
		"$jitprof" report -i "$lazy/out.data" --sort dso,sym)
	read -r rfw rfc rfr _ < <(measure "$label-rep-files" "$files" \
		"$jitprof" report -i "$files/out.data" --sort dso,sym)
	read -r rpw rpc rpr _ < <(measure "$label-rep-perf" "$dumpdir" \
		perf report -i "$tmp/$label-perf/out.data" --stdio --no-children -g none \
		--sort dso,sym)
	local same=differ
	cmp -s "$tmp/$label-rep-noelfs.out" "$tmp/$label-rep-files.out" && same=identical
	echo "$label: cat of the inputs ${cw} s"
	echo "$label: inject --no-elfs ${lw} s (cpu ${lc} s), ${lr} MB, ${lf} files;" \
	     "writing ELFs ${jw} s (cpu ${jc} s), ${jr} MB, ${jf} files;" \
	     "perf inject ${pw} s (cpu ${pc} s), ${pr} MB, ${pf} files"
	echo "$label: --no-elfs vs perf: $(ratio "$pw" "$lw")x wall, $(ratio "$pc" "$lc")x cpu," \
	     "memory $(ratio "$lr" "$pr") of perf's; vs cat: $(ratio "$lw" "$cw")x cat's time wall," \
	     "$(ratio "$lc" "$cw")x in cpu"
	echo "$label: writing ELFs vs perf: $(ratio "$pw" "$jw")x wall, $(ratio "$pc" "$jc")x cpu," \
	     "memory $(ratio "$jr" "$pr")"
	echo "$label: report --sort dso,sym: on --no-elfs ${rlw} s (cpu ${rlc} s, ${rlr} MB)," \
	     "on files ${rfw} s (cpu ${rfc} s, ${rfr} MB) [$same output, $(ratio "$rlw" "$rfw")x the time];" \
	     "perf report ${rpw} s (cpu ${rpc} s, ${rpr} MB)"
	echo "$label: inject --no-elfs + report vs perf inject + perf report:" \
	     "$(awk -v a="$lw" -v b="$rlw" -v c="$pw" -v d="$rpw" \
		'BEGIN { printf "%.2f s vs %.2f s: %.1fx", a + b, c + d, (a + b > 0 ? (c + d) / (a + b) : 0) }') wall," \
	     "$(awk -v a="$lc" -v b="$rlc" -v c="$pc" -v d="$rpc" \
		'BEGIN { printf "%.1fx", (a + b > 0 ? (c + d) / (a + b) : 0) }') cpu"
}

# syscalls LABEL DATA DUMPDIR ELFS_OURS: file-system calls of the file path and of perf inject
# on copies, per ELF each writes (ours: the sampled generations; perf's: every load).
syscalls() {
	local label=$1 data=$2 dumpdir=$3 loads=$4
	command -v strace > /dev/null || { echo "$label: strace not installed, no syscall count"; return; }
	mkdir -p "$tmp/$label-sf" "$tmp/$label-sp"
	cp "$dumpdir"/jit-* "$tmp/$label-sf/"
	local ours perf n
	ours=$(fs_calls "$label-sf" "$jitprof" inject --jit -q -i "$data" -o "$tmp/$label-sf/out.data" \
		--jit-dir "$tmp/$label-sf")
	n=$(find "$tmp/$label-sf" -name 'jitted-*' | wc -l)
	perf=$(HOME=$tmp/$label-sp fs_calls "$label-sp" perf inject --jit -i "$data" \
		-o "$tmp/$label-sp/out.data")
	echo "$label: file-system calls: jitprof inject $ours for $n ELFs" \
	     "($(ratio "$ours" "$n") per ELF, the whole run included);" \
	     "perf inject $perf for $loads ELFs ($(ratio "$perf" "$loads") per ELF)"
}

synthetic() {	# LABEL LOADS SAMPLES HOT
	local label=$1 n=$2 s=$3 h=$4
	mkdir -p "$tmp/$label"
	"$gen" --dir "$tmp/$label" -o "$tmp/$label/perf.data" --loads "$n" --samples "$s" \
		--slots 4096 --names $((n / 4)) --hot "$h" > "$tmp/$label/expect.txt"
	local dump
	dump=$(sed -n 's/^dump //p' "$tmp/$label/expect.txt")
	echo "$label: $n code loads ($(stat -c %s "$dump") bytes of dump), $s samples" \
	     "($h% hot) hitting $(grep -c '^expect' "$tmp/$label/expect.txt") generations"
}

# 1. Synthetic start-up-like: 90% of the samples in 16 hot slots.
synthetic syn "$loads" "$samples" "$hot"
compare synthetic "$tmp/syn/perf.data" "$tmp/syn"

# 2. Sample-dense: ten samples per load, uniform, so most loads are sampled.
synthetic dense "$dense_loads" $((dense_loads * 10)) 0
compare dense "$tmp/dense/perf.data" "$tmp/dense"

# 3. File-system calls per ELF, on a smaller sample-dense run (perf inject under strace is slow).
synthetic sc "$strace_loads" $((strace_loads * 10)) 0
syscalls strace "$tmp/sc/perf.data" "$tmp/sc" "$strace_loads"

# 4. Java start-up-heavy run with our agent (skipped when not built).
if command -v java > /dev/null && [ -f "$build/libagent.so" ] && [ -f "$build/java/.built" ]; then
	mkdir -p "$tmp/java"
	agent=$(realpath "$build/libagent.so"); cp=$(realpath "$build/java")
	perf record -q -k mono -F 999 -g -o "$tmp/java/perf.data" -- java -Xbatch \
		-XX:+PreserveFramePointer -agentpath:"$agent"=dir="$tmp/java" -cp "$cp" \
		jitprof.samples.StartupHeavy "$classes" 100 > /dev/null 2>&1
	d=$(ls "$tmp/java"/jit-*.dump | head -n 1)
	echo "java StartupHeavy $classes x 100: $("$jitprof" jitdump --stats "$d" 2>/dev/null |
		grep -m1 -i 'code_load\|CODE_LOAD' || true)"
	compare java "$tmp/java/perf.data" "$tmp/java"
else
	echo "java: skipped (java, build/libagent.so or samples/java not built)"
fi
