#!/usr/bin/env bash
# make-seeds.sh [BUILD] - regenerates the seed corpora in tests/fuzz/corpus/ from real files:
# a minijit run (dump + companion), node --perf-prof, perf's JVMTI fixture (both cut to a few
# records), byte-swapped copies, perf record output (file and pipe mode) and the ELFs
# `jitprof synth` makes. Seeds stay small (a few KB each): libFuzzer mutates, seeds only point
# it at the formats. Needs build/minijit, build/jitprof, perf, node, python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=tests/fuzz/corpus
fixture=${FIXTURE_DUMP:-../shared/fixtures/perf-jvmti/jit-27543.dump}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in minijit jitprof; do [ -x "$build/$t" ] || { echo "make-seeds: build $build/$t first" >&2; exit 1; }; done

# python3 helper: "cut IN OUT MAXBYTES" keeps the header and whole load groups (a CODE_LOAD with
# the DEBUG_INFO/UNWINDING_INFO before it), small ones first plus one with line info; "swap IN
# OUT" rewrites a native little-endian dump in big-endian order (header, prefixes, the fixed
# fields of records 0-4 and every debug entry).
jd() {
	python3 - "$@" <<'EOF'
import struct, sys
def records(d):
    off = struct.unpack_from('<I', d, 8)[0]
    while off + 16 <= len(d):
        i, sz, _ = struct.unpack_from('<IIQ', d, off)
        if sz < 16 or off + sz > len(d): break
        yield off, i, sz
        off += sz
def cut(src, dst, limit):
    d = open(src, 'rb').read()
    groups, cur = [], []
    for r in records(d):
        cur.append(r)
        if r[1] in (0, 1, 3): groups.append(cur); cur = []
    size = lambda g: sum(r[2] for r in g)
    dbg = sorted((g for g in groups if any(r[1] == 2 for r in g)), key=size)[:1]
    pick, total = [], 40 + sum(size(g) for g in dbg)
    for g in groups:
        if g not in dbg and total + size(g) <= limit:
            pick.append(g); total += size(g)
    out = bytearray(d[:40])
    for g in sorted(pick + dbg):
        for o, _, sz in g: out += d[o:o + sz]
    open(dst, 'wb').write(out)
def swap(src, dst):
    b = bytearray(open(src, 'rb').read())
    def sw(fmt, o):
        struct.pack_into('>' + fmt, b, o, *struct.unpack_from('<' + fmt, b, o))
    recs = list(records(bytes(b)))
    sw('IIIIII', 0); sw('QQ', 24)
    for off, i, sz in recs:
        sw('IIQ', off); p = off + 16
        if i == 0: sw('IIQQQQ', p)
        elif i == 1: sw('IIQQQQQ', p)
        elif i == 4: sw('QQQ', p)
        elif i == 2:
            nr = struct.unpack_from('<Q', b, p + 8)[0]; sw('QQ', p); q = p + 16
            for _ in range(nr):
                sw('Qii', q); q = b.index(0, q + 16) + 1
    open(dst, 'wb').write(b)
if sys.argv[1] == 'cut': cut(sys.argv[2], sys.argv[3], int(sys.argv[4]))
else: swap(sys.argv[2], sys.argv[3])
EOF
}

mkdir -p "$out"/{jitdump,jitdump_index,perfdata,symbols,synth,agent_options,report,inject}

# minijit: its dump and companion, and a perf recording of it (file mode, with callchains)
perf record -q -N -k mono -F 999 -g -o "$tmp/minijit.data" -- \
	"$build/minijit" --dir "$tmp" --seconds 0.003 >/dev/null
dump=$(ls "$tmp"/jit-*.dump)
cp "$dump" "$out/jitdump/minijit.dump"
cp "$dump.jitprof" "$out/jitdump/minijit.dump.jitprof"
cat "$dump" "$dump.jitprof" >"$out/jitdump_index/minijit-with-companion"
cp "$tmp/minijit.data" "$out/perfdata/minijit-callchains.data"
cp "$tmp/minijit.data" "$out/report/minijit-not-injected.data"
# injected by us: MMAP2s with build-ids; their ELFs are the symbols seeds below (build-ids do
# not depend on the pid, so fuzz_report finds them in its cache whatever run made the seeds)
"$build/jitprof" inject --jit -q --all --no-buildid-cache -i "$tmp/minijit.data" \
	-o "$tmp/minijit.jit.data"
cp "$tmp/minijit.jit.data" "$out/report/minijit-injected.data"
cp "$tmp/minijit.jit.data" "$out/perfdata/minijit-injected.data"
"$build/jitprof" synth "$dump" -o "$tmp/elf" -q >/dev/null
for so in "$tmp"/elf/jitted-*.so; do cp "$so" "$out/symbols/minijit-${so##*-}"; done

# inject: u32 length of the recording, the recording, the dump and its companion
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<I", int(sys.argv[1])))' \
	"$(stat -c %s "$tmp/minijit.data")" >"$out/inject/minijit"
cat "$tmp/minijit.data" "$dump" "$dump.jitprof" >>"$out/inject/minijit"

# node --perf-prof: UNWINDING_INFO, DEBUG_INFO, many loads
(cd "$tmp" && node --perf-prof --interpreted-frames-native-stack -e \
	'function f(a){let s=0;for(let i=0;i<a.length;i++)s+=a[i]*31+i;return s}
	 let a=new Array(1000).fill(3),t=0;for(let k=0;k<20000;k++)t+=f(a);' )
for node_dump in "$tmp"/jit-*.dump; do [ "$node_dump" != "$dump" ] && break; done
jd cut "$node_dump" "$out/jitdump/node.dump" 2048
jd swap "$out/jitdump/node.dump" "$out/jitdump/node-swapped.dump"

# perf's own JVMTI agent (the shared fixture): full path names in DEBUG_INFO, CODE_CLOSE
if [ -f "$fixture" ]; then
	jd cut "$fixture" "$out/jitdump/perf-jvmti.dump" 3072
	jd swap "$out/jitdump/perf-jvmti.dump" "$out/jitdump/perf-jvmti-swapped.dump"
else
	echo "make-seeds: $fixture absent: no perf-jvmti seed" >&2
fi
cp "$out"/jitdump/{node,perf-jvmti}*.dump "$out/jitdump_index/" 2>/dev/null || true

# perf record -z: PERF_RECORD_COMPRESSED (zstd frames the reader inflates)
mkdir -p "$tmp/z"
perf record -q -N -z -k mono -F 999 -o "$tmp/z.data" -- \
	"$build/minijit" --dir "$tmp/z" --seconds 0.01 >/dev/null
cp "$tmp/z.data" "$out/perfdata/minijit-zstd.data"

# perf record: file and pipe mode of a trivial command
perf record -q -N -k mono -F 999 -o "$tmp/true.data" -- /bin/true
perf record -q -N -k mono -F 999 -o - -- /bin/true >"$out/perfdata/true.pipe.data"
cp "$tmp/true.data" "$out/perfdata/true.data"

# a small ordinary ELF with DWARF (symbols, lines, an inlined function)
printf '%s\n' 'static inline int sq(int x) { return x * x; }' \
	'int f(int a) { return sq(a) + 1; }' 'int g(int a) { return f(a) * 3; }' >"$tmp/small.c"
# (tiny page size: no 4 KiB alignment padding in the file)
cc -O2 -g -shared -fPIC -nostdlib -Wl,-z,noseparate-code -Wl,-z,max-page-size=0x10 \
	-Wl,--build-id -o "$tmp/small.so" "$tmp/small.c"
strip --strip-unneeded --keep-section=.debug_info --keep-section=.debug_line \
	--keep-section=.debug_abbrev -o "$out/symbols/small-dwarf.so" "$tmp/small.so" 2>/dev/null ||
	cp "$tmp/small.so" "$out/symbols/small-dwarf.so"

du -sh "$out"; find "$out" -type f -size +16k -printf 'make-seeds: large seed %p (%s bytes)\n'
