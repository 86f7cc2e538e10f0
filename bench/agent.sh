#!/usr/bin/env bash
# bench/agent.sh - what libagent.so costs a JVM: wall and CPU time (user+sys) without an agent,
# with a do-nothing agent that only enables the same JVMTI events (jvmti0: HotSpot's own cost
# of producing them), with libagent.so, with perf's libperf-jvmti.so when one is found
# (PERF_JVMTI=/path, or the usual install paths), and with -XX:+PreserveFramePointer alone
# (fp); median of BENCH_RUNS (>= 5)
# runs, configurations interleaved so machine noise hits them alike. Two workloads from
# samples/java: start-up heavy (StartupHeavy -Xbatch, ~20k compiled methods) and steady state.
set -euo pipefail
build=${JITPROF_BUILD:-build}
runs=${BENCH_RUNS:-5}
[ "$runs" -lt 5 ] && runs=5
java=${JAVA:-java}
agent=$(realpath "$build/libagent.so")
null_agent=$(realpath "$build/bench/libnullagent.so")
cp=$(realpath "$build/java")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

perf_jvmti=${PERF_JVMTI:-}
if [ -z "$perf_jvmti" ]; then
	for c in /usr/lib/linux-tools/*/libperf-jvmti.so /usr/lib64/libperf-jvmti.so \
		/usr/lib/*/libperf-jvmti.so /usr/lib/libperf-jvmti.so /usr/libexec/perf-core/libperf-jvmti.so; do
		[ -f "$c" ] && { perf_jvmti=$c; break; }
	done
fi

# nometh: libagent.so without its method table (methods=off), what the table costs beside jitprof
configs=(none jvmti0 jitprof nometh fp)
[ -n "$perf_jvmti" ] && configs=(none jvmti0 jitprof nometh perf fp)

# run <config> <workload>: one JVM run; appends "wall cpu" to $tmp/<workload>.<config>
run() {
	local cfg=$1 wl=$2 pre=() env=() args
	case $wl in
	startup) args=(-Xbatch -cp "$cp" jitprof.samples.StartupHeavy 200 100 300) ;;
	steady) args=(-cp "$cp" jitprof.samples.SteadyState 100) ;;
	esac
	rm -rf "$tmp/out" && mkdir -p "$tmp/out"
	case $cfg in
	jvmti0) pre=("-agentpath:$null_agent") ;;
	jitprof) pre=("-agentpath:$agent=dir=$tmp/out,verbose") ;;
	nometh) pre=("-agentpath:$agent=dir=$tmp/out,verbose,methods=off") ;;
	perf) pre=("-agentpath:$perf_jvmti"); env=("JITDUMPDIR=$tmp/out") ;;
	fp) pre=(-XX:+PreserveFramePointer) ;;
	esac
	env "${env[@]}" /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$java" "${pre[@]}" "${args[@]}" \
		>/dev/null 2>"$tmp/err.$wl.$cfg"
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$tmp/t" >>"$tmp/$wl.$cfg"
	du -sb "$tmp/out" | awk '{print $1}' >"$tmp/bytes.$wl.$cfg"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "java: $("$java" -version 2>&1 | head -n 1); runs: $runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "perf's agent: ${perf_jvmti:-not found (Debian 12 linux-perf ships no libperf-jvmti.so; set PERF_JVMTI)}"
for wl in startup steady; do
	for ((i = 0; i < runs; i++)); do
		for cfg in "${configs[@]}"; do run "$cfg" "$wl"; done
	done
	bw=$(cut -d' ' -f1 "$tmp/$wl.none" | median)
	bc=$(cut -d' ' -f2 "$tmp/$wl.none" | median)
	printf '%-8s %-8s %9s %9s %9s %9s %12s\n' workload config wall_s cpu_s wall_% cpu_% dump_bytes
	for cfg in "${configs[@]}"; do
		w=$(cut -d' ' -f1 "$tmp/$wl.$cfg" | median)
		c=$(cut -d' ' -f2 "$tmp/$wl.$cfg" | median)
		awk -v wl="$wl" -v cfg="$cfg" -v w="$w" -v c="$c" -v bw="$bw" -v bc="$bc" \
			-v b="$(cat "$tmp/bytes.$wl.$cfg")" 'BEGIN {
			printf "%-8s %-8s %9.2f %9.2f %+8.1f%% %+8.1f%% %12d\n", wl, cfg, w, c,
				100 * (w - bw) / bw, 100 * (c - bc) / bc, b }'
	done
	grep -h 'ms in callbacks' "$tmp/err.$wl.jitprof" | sed 's/^jitprof agent: [^:]*: /  libagent.so (last run): /' || true
done
