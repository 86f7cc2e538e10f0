#!/usr/bin/env bash
# bench/profile.sh - what `jitprof profile` costs around the work it profiles:
#  1. launch: samples/java SteadyState alone vs under `jitprof profile -o x.txt -- java ...`
#     (agent, record --call-graph dwarf,32768 at 999 Hz, inject, report) and under
#     `--call-graph fp` (-XX:+PreserveFramePointer, record -g: the mode before): wall and CPU
#     (user+sys of every process), median of BENCH_RUNS (default 3), and the recordings' sizes;
#  2. attach: `jitprof profile -d 1 -p PID` on a running JVM, BENCH_RUNS times in a row: the
#     time until the agent is in (first attach: trigger file, SIGQUIT, listener start, load,
#     back-fill; later ones: the listener is up), and the whole run beyond its 1 s of recording
#     (stop, inject, report);
#  3. the Java mode (issue 35): javac of samples/java under `jitprof profile` (default: stack
#     copies, --call-graph dwarf,32768) and under `--call-graph fp` (-g and
#     -XX:+PreserveFramePointer, the mode before), then a JVM attached without frame pointers,
#     on each of JDK 17 and 25 present: the share of Java samples (a thread's stack that enters
#     Java at call_stub) whose stack reaches a named thread root with no [unknown] frame, the
#     recording's size and the whole profile's CPU.
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

# The recording's size in a profile's DIR: perf.data, or perf.jit.data where it holds the
# stack copies (the Java mode: profile removes perf.data once merged, docs/profile.md).
recording_size() {
	stat -c %s "$1/perf.data" 2>/dev/null || stat -c %s "$1/perf.jit.data"
}

: >"$work/plain"
: >"$work/prof"
: >"$work/proffp"
for ((i = 0; i < runs; i++)); do
	measure java -cp "$cp_dir" jitprof.samples.SteadyState "$rounds" >>"$work/plain"
	measure "$jitprof" profile -q -o "$work/x.txt" -- java -cp "$cp_dir" \
		jitprof.samples.SteadyState "$rounds" >>"$work/prof"
	measure "$jitprof" profile -q --call-graph fp -o "$work/f.txt" -- java -cp "$cp_dir" \
		jitprof.samples.SteadyState "$rounds" >>"$work/proffp"
done
fw=$(cut -d' ' -f1 "$work/proffp" | median); fc=$(cut -d' ' -f2 "$work/proffp" | median)
echo "launch, SteadyState $rounds, --call-graph fp (the mode before): ${fw} s wall ${fc} s CPU;" \
	"recording $(($(recording_size "$work/f.txt.jitprof") / 1024)) KiB against" \
	"$(($(recording_size "$work/x.txt.jitprof") / 1024)) KiB in the Java mode"
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

# Of a --collapsed output: "JAVA ROOTED" sample counts. A Java sample's stack has a Java frame
# (or an unnamed Interpreter, or [unknown]) right after its first call_stub; it is rooted when
# that frame is named (main, run(), a <clinit>) and no [unknown] frame is in it.
rooted() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); i = 0
	       for (j = 1; j <= k; j++) if (f[j] == "call_stub") { i = j; break }
	       if (!i || i == k) next
	       g = f[i + 1]
	       if (g != "Interpreter" && g !~ /\(/ && g !~ /^\[unknown\]/) next
	       java += n
	       if (g ~ /\(/ && $0 !~ /\[unknown\]/) root += n }
	     END { printf "%d %d\n", java, root }' "$1"
}

for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
	[ -x "$home/bin/java" ] || { echo "java mode: $home not installed, skipped"; continue; }
	jdk=$(basename "$home")
	for mode in dwarf fp; do
		cg=()
		[ $mode = fp ] && cg=(--call-graph fp)
		rm -rf "$work/out" && mkdir "$work/out"
		t=$(measure "$jitprof" profile -q "${cg[@]}" -o "$work/j-$mode.collapsed" -- \
			"$home/bin/java" -m jdk.compiler/com.sun.tools.javac.Main -d "$work/out" \
			samples/java/*.java)
		read -r java root < <(rooted "$work/j-$mode.collapsed")
		size=$(recording_size "$work/j-$mode.collapsed.jitprof")
		lost=$(grep -c "lost" "$work/err" || true)
		echo "java mode, javac, $jdk, $mode: $root of $java Java samples rooted" \
			"($(awk -v a="$root" -v b="$java" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')%);" \
			"recording $((size / 1024)) KiB; profile ${t% *} s wall ${t#* } s CPU;" \
			"lost-sample warnings $lost"
	done
	"$home/bin/java" -XX:+IgnoreUnrecognizedVMOptions -XX:+EnableDynamicAgentLoading \
		-cp "$cp_dir" jitprof.samples.SteadyState 100000 >/dev/null 2>&1 &
	jvm=$!
	sleep 2
	"$jitprof" profile -q -d 3 -p "$jvm" -o "$work/att.collapsed" 2>/dev/null
	kill "$jvm" 2>/dev/null || true
	wait "$jvm" 2>/dev/null || true
	read -r java root < <(rooted "$work/att.collapsed")
	echo "java mode, attach (no -XX:+PreserveFramePointer), SteadyState, $jdk: $root of" \
		"$java Java samples rooted" \
		"($(awk -v a="$root" -v b="$java" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')%);" \
		"recording $(($(recording_size "$work/att.collapsed.jitprof") / 1024)) KiB"
done
