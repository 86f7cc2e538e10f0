# bench/lib/java_env.sh - sourced by the benchmarks that record samples/java under our agent:
# `java_bench_env NAME` checks perf, java, the agent and the classes (absent: says so and exits
# 0, a skipped benchmark), then sets build, agent, classdir, a private work directory (removed
# on exit) with its own HOME, and jitprof = a private copy of the built binary (a rebuild during
# the run must not swap the binary being measured).
java_bench_env() {
	local name=$1 need
	build=${JITPROF_BUILD:-build}
	agent=$(realpath "$build/libagent.so" 2>/dev/null || true)
	classdir=$(realpath "$build/java" 2>/dev/null || true)
	for need in perf java; do
		command -v "$need" >/dev/null ||
			{ echo "$name bench: $need not installed, skipped"; exit 0; }
	done
	[ -n "$agent" ] && [ -f "$build/java/.built" ] ||
		{ echo "$name bench: agent or samples/java not built, skipped"; exit 0; }
	work=$(mktemp -d "${TMPDIR:-/tmp}/jitprof-bench-$name.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	export HOME="$work/home" DEBUGINFOD_URLS=
	mkdir -p "$HOME" "$work/jit"
	cp "$build/jitprof" "$work/jitprof"
	jitprof=$work/jitprof
}
