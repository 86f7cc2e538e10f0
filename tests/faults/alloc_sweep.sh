#!/bin/bash
# alloc_sweep.sh - runs one jitprof command once per allocation, failing that allocation
# (tests/faults/failalloc.c), and checks each run either gives exactly the answer of a run
# without failures (exit 0, same stdout, same output files) or exits non-zero (not by a
# signal) with a message on stderr. Anything else - a crash, a sanitizer report, a different
# answer with exit 0, a silent failure - is a finding, listed with the allocation's number.
#
# usage: alloc_sweep.sh NAME -- JITPROF-ARGS...
#   SWEEP_JITPROF  the jitprof binary            SWEEP_SHIM  libfailalloc.so
#   SWEEP_OUT      output file the command writes (compared byte for byte; removed per run)
#   SWEEP_ELFS     a directory of ELFs the command writes (jitted-*.so; emptied per run and
#                  compared by content), optional
#   SWEEP_DENSE    every N up to this many (default: all)
#   SWEEP_POINTS   past SWEEP_DENSE, this many more points spread evenly (default 0)
#   SWEEP_TRACE    1: each finding's run again with the failing allocation's backtrace
#   SWEEP_KEEP     set: the work directory (runs' stdout and stderr) is left behind
# Prints one summary line "NAME: T allocations, R runs: S same, E error, 0 bad" (then the bad
# ones); exits 1 when a run is bad.
set -u
name=$1
shift
[ "$1" = "--" ] && shift
jp=${SWEEP_JITPROF:?} shim=${SWEEP_SHIM:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/sweep-$name.XXXXXX") || exit 2
[ -n "${SWEEP_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
export JITPROF_MALLOC_TUNE=0	# no re-execution: one image, one count
export JITPROF_FAIL_ALLOC_LOG=$work/count

elf_sums() {
	[ -n "${SWEEP_ELFS:-}" ] || return 0
	(cd "$SWEEP_ELFS" && for f in jitted-*.so; do [ -e "$f" ] && cksum "$f"; done)
}

# The failing allocation's callers in jitprof, as function (file:line), from a trace.
where() {
	local base=${jp##*/}
	sed -n "s/.*$base(+\(0x[0-9a-f]*\)).*/\1/p" "$1" | head -6 |
		addr2line -f -s -p -e "$jp" 2>/dev/null
}

cmd=("$@")
sweep_one() {
	rm -f "${SWEEP_OUT:-/nonexistent}"
	[ -n "${SWEEP_ELFS:-}" ] && rm -f "$SWEEP_ELFS"/jitted-*.so
	rm -f "$work/count"
	JITPROF_FAIL_ALLOC=$1 LD_PRELOAD=$shim JITPROF_FAIL_ALLOC_TRACE=${2:-0} \
		"$jp" "${cmd[@]}" >"$work/out" 2>"$work/err"
	rc=$?
	if [ -n "${SWEEP_OUT:-}" ] && [ -e "$SWEEP_OUT" ]; then
		cksum <"$SWEEP_OUT" >>"$work/out"
	fi
	elf_sums >>"$work/out"
	read -r calls fired 2>/dev/null <"$work/count" || { calls=0; fired=0; }
}

sweep_one 0
if [ "$rc" != 0 ]; then
	echo "$name: the run without failures exited $rc:"
	head -5 "$work/err"
	exit 2
fi
cp "$work/out" "$work/expect"
total=$calls
dense=${SWEEP_DENSE:-$total}
points=${SWEEP_POINTS:-0}
stride=1
if [ "$dense" -lt "$total" ] && [ "$points" -gt 0 ]; then
	stride=$(( (total - dense + points - 1) / points ))
fi

same=0 error=0 bad=0 runs=0 nomsg=0
n=1
report=$work/report
: >"$report"
while :; do
	sweep_one "$n"
	[ "$fired" = 0 ] && [ "$rc" = 0 ] && [ "$n" -gt "$total" ] && break
	runs=$((runs + 1))
	verdict=
	if grep -q -e 'Sanitizer' -e 'runtime error:' "$work/err"; then
		verdict="sanitizer report"
	elif [ "$rc" -ge 128 ]; then
		verdict="killed by signal $((rc - 128))"
	elif [ "$rc" = 0 ]; then
		if cmp -s "$work/out" "$work/expect"; then
			same=$((same + 1))
		else
			verdict="a different answer with exit 0"
		fi
	elif [ ! -s "$work/err" ]; then
		verdict="exit $rc without a message"
	else
		error=$((error + 1))
		grep -qi -e 'out of memory' -e 'Cannot allocate memory' "$work/err" ||
			nomsg=$((nomsg + 1))
	fi
	if [ -n "$verdict" ]; then
		bad=$((bad + 1))
		{
			echo "  N=$n: $verdict (exit $rc); stderr: $(head -c 300 "$work/err" | tr '\n' '|')"
			if [ "${SWEEP_TRACE:-0}" = 1 ]; then
				sweep_one "$n" 1
				where "$work/err" | sed 's/^/    /'
			fi
		} >>"$report"
	fi
	if [ "$n" -lt "$dense" ]; then
		n=$((n + 1))
	else
		n=$((n + stride))
	fi
	[ "$n" -gt $((total + 50)) ] && break
done
echo "$name: $total allocations, $runs runs (every N to $dense, then every $stride):" \
	"$same same, $error error ($nomsg not saying 'out of memory'), $bad bad"
cat "$report"
[ "$bad" = 0 ]
