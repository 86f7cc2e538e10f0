#!/usr/bin/env bash
# Runs every benchmark script bench/*.sh (each prints its own figures and ratios against perf
# measured in the same run). BENCH_ONLY=name runs one of them.
set -euo pipefail
build=${1:-build}
export JITPROF_BUILD=$build
status=0
for b in bench/*.sh; do
	name=$(basename "$b" .sh)
	[ -n "${BENCH_ONLY:-}" ] && [ "$name" != "$BENCH_ONLY" ] && continue
	echo "=== bench: $name"
	bash "$b" || { echo "bench $name failed"; status=1; }
done
exit $status
