#!/usr/bin/env bash
# bench/lines.sh - line coverage of samples in compiled Java methods: the share of samples in
# Java methods that `jitprof report --sort srcline` shows without a line (??:0), on a small
# program (samples/java Generations) and a start-up-heavy one (StartupHeavy -Xbatch), recorded
# with `jitprof record` and libagent.so, injected by `jitprof inject`. AGENT=path compares
# another build of the agent (e.g. an older one). Target (issue 17): under 5% on both.
set -euo pipefail
build=${JITPROF_BUILD:-build}
java=${JAVA:-java}
jitprof=$(realpath "$build/jitprof")
agent=$(realpath "${AGENT:-$build/libagent.so}")
cp=$(realpath "$build/java")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure <label> <java args...>
measure() {
	local label=$1
	shift
	rm -rf "$tmp/run" && mkdir -p "$tmp/run/jit" "$tmp/run/home"
	(cd "$tmp/run" && HOME="$tmp/run/home" "$jitprof" record -q -k mono -F 2000 -o perf.data -- \
		"$java" "-agentpath:$agent=dir=$tmp/run/jit" "$@" >/dev/null 2>&1)
	(cd "$tmp/run" && HOME="$tmp/run/home" "$jitprof" inject --jit -q -i perf.data \
		-o perf.jit.data)
	# Methods whose loads have no DEBUG_INFO at all (native wrappers, method-handle
	# intrinsics): no line can be known for them.
	"$jitprof" jitdump --json "$tmp/run"/jit/jit-*.dump 2>/dev/null | python3 -c '
import json, re, sys
recs = json.load(sys.stdin)["records"]
withl, names = set(), set()
pending = False
for r in recs:
    if r.get("type") == "CODE_DEBUG_INFO":
        pending = r.get("nr_entry", 0) > 0
    elif r.get("type") == "CODE_LOAD":
        names.add(r["name"])
        if pending:
            withl.add(r["name"])
        pending = False
for n in sorted(names - withl):
    print(n)' >"$tmp/raw-nolines" || : >"$tmp/raw-nolines"
	HOME="$tmp/run/home" "$jitprof" report -i "$tmp/run/perf.jit.data" --sort dso,sym,srcline \
		--json 2>/dev/null | python3 "$here/lines/coverage.py" <(demangle <"$tmp/raw-nolines") |
		sed "s/^/$label: /"
}

# JVM names ("Lpkg/Cls;name(I)V") -> what report prints ("pkg.Cls.name(int)").
demangle() {
	python3 -c '
import sys
PRIM = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long",
        "S": "short", "Z": "boolean", "V": "void"}
def one(sig, i):
    dims = 0
    while sig[i] == "[":
        dims += 1; i += 1
    if sig[i] == "L":
        j = sig.index(";", i)
        t = sig[i + 1:j].replace("/", "."); i = j + 1
    else:
        t = PRIM.get(sig[i], sig[i]); i += 1
    return t + "[]" * dims, i
for line in sys.stdin:
    n = line.strip()
    try:
        k = n.index(";")
        cls = n[1:k].replace("/", "."); rest = n[k + 1:]
        p = rest.index("(")
        meth, sig = rest[:p], rest[p + 1:rest.index(")")]
        args, i = [], 0
        while i < len(sig):
            t, i = one(sig, i); args.append(t)
        print("%s.%s(%s)" % (cls, meth, ", ".join(args)))
    except (ValueError, IndexError):
        pass'
}

echo "java: $("$java" -version 2>&1 | head -n 1); agent: $agent; load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "small (Generations 600)" -cp "$cp" jitprof.samples.Generations 600
measure "start-up heavy (StartupHeavy -Xbatch 200 100 300)" -Xbatch -cp "$cp" \
	jitprof.samples.StartupHeavy 200 100 300
