#!/usr/bin/env bash
# symbols benchmark: resolving every sample of a recording with recorder/symbols (bench-symbols:
# replay, maps over time, DSOs by build-id, ELF symbols, DWARF lines) against perf script on
# the same file in the same run.
#  1. symbols: a synthetic JIT run (inject-gen, SYMBENCH_LOADS code loads, default 10000, and
#     SYMBENCH_SAMPLES samples) injected by jitprof: one ELF per sampled generation;
#     `perf script -F ip,sym` vs `bench-symbols`.
#  2. source lines: the perf-jvmti fixture after `perf inject --jit` (jitted ELFs with line
#     tables, libjvm, libc, kernel); `perf script -F ip,srcline` vs `bench-symbols --lines`.
# Prints figures and ratios; asserts nothing. Needs perf.
set -euo pipefail
build=${JITPROF_BUILD:-build}
jitprof=$(realpath "$build/jitprof")
gen=$(realpath "$build/inject-gen")
bench=$(realpath "$build/bench-symbols")
loads=${SYMBENCH_LOADS:-10000}
samples=${SYMBENCH_SAMPLES:-200000}
fixture=$(realpath "$(dirname "$0")/../../shared/fixtures/perf-jvmti")
for f in "$jitprof" "$gen" "$bench"; do
	[ -x "$f" ] || { echo "symbols bench: $f missing (make $f)"; exit 1; }
done
command -v perf > /dev/null || { echo "symbols bench: perf is not installed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/symbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export DEBUGINFOD_URLS= HOME=$tmp

secs() { # secs CMD...: wall seconds of CMD, its output discarded
	local t0 t1
	t0=$(date +%s.%N)
	"$@" > /dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

echo "symbols: inject-gen $loads loads, $samples samples, injected by jitprof"
"$gen" --dir "$tmp" -o "$tmp/gen.data" --loads "$loads" --samples "$samples" > /dev/null
"$jitprof" inject -q --jit -i "$tmp/gen.data" -o "$tmp/gen.jit.data"
sync
# one untimed pass each so both read the ELFs from the page cache
"$bench" "$tmp/gen.jit.data" > /dev/null
perf script -i "$tmp/gen.jit.data" -G -F ip,sym > /dev/null 2>&1 || true
ours=$(secs "$bench" "$tmp/gen.jit.data")
theirs=$(secs perf script -i "$tmp/gen.jit.data" -G -F ip,sym)
"$bench" "$tmp/gen.jit.data" | sed 's/^/  bench-symbols: /'
echo "  jitprof symbols ${ours} s, perf script -F ip,sym ${theirs} s: $(ratio "$theirs" "$ours")x"

if [ -f "$fixture/perf.data" ] && mkdir -p /var/jitfix/out/.debug/jit/java-jit-20261129.XXhElaKC &&
	cp "$fixture/jit-27543.dump" /var/jitfix/out/.debug/jit/java-jit-20261129.XXhElaKC/; then
	echo "source lines: perf-jvmti fixture after perf inject --jit"
	perf inject --jit -i "$fixture/perf.data" -o "$tmp/fix.jit.data" 2> /dev/null
	"$bench" "$tmp/fix.jit.data" --lines > /dev/null
	ours=$(secs "$bench" "$tmp/fix.jit.data" --lines)
	theirs=$(secs perf script -i "$tmp/fix.jit.data" -G -F ip,srcline)
	"$bench" "$tmp/fix.jit.data" --lines | sed 's/^/  bench-symbols --lines: /'
	echo "  jitprof lines ${ours} s, perf script -F ip,srcline ${theirs} s: $(ratio "$theirs" "$ours")x"
else
	echo "source lines: skipped ($fixture absent or its dump path not writable)"
fi
