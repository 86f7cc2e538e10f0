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

# --call-graph dwarf: user registers and 512-byte stack copies, unwound by the report
"$build/jitprof" record -q -N --call-graph dwarf,512 -F 500 -o "$tmp/dwarf.data" -- \
	sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null
cp "$tmp/dwarf.data" "$out/report/dwarf-stacks.data"

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

# issue 16's hostile shapes (docs/SECURITY.md), each past the limit that now stops it:
# finding 9, markers of 66 more pids naming one dump (INJ_MAX_PIDS_PER_DUMP)
mkdir -p "$tmp/many"
many_dump=$("$build/inject-gen" --dir "$tmp/many" -o "$tmp/many.data" --loads 4 --samples 16 \
	--names 2 --slots 2 --extra-markers 66 | sed -n 's/^dump //p')
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<I", int(sys.argv[1])))' \
	"$(stat -c %s "$tmp/many.data")" >"$out/inject/many-pids-one-dump"
cat "$tmp/many.data" "$many_dump" >>"$out/inject/many-pids-one-dump"
# ... and 6 more pids, under the limit, on a dump with moves and unloads: every pid injected
# from the one shared index (inj_dfile: build-ids and move links once, a timeline per pid)
mkdir -p "$tmp/shared"
shared_dump=$("$build/inject-gen" --dir "$tmp/shared" -o "$tmp/shared.data" --loads 6 \
	--samples 16 --names 2 --slots 2 --moves --unloads --extra-markers 6 |
	sed -n 's/^dump //p')
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<I", int(sys.argv[1])))' \
	"$(stat -c %s "$tmp/shared.data")" >"$out/inject/pids-share-one-dump"
cat "$tmp/shared.data" "$shared_dump" >>"$out/inject/pids-share-one-dump"
# finding 7, 60 attrs sharing one area of 200 ids; finding 8, COMPRESSED records of a few
# dozen bytes inflating to 16 KiB of FINISHED_ROUNDs each; finding 5, an ELF whose one DWARF
# unit nests 600 lexical blocks (SYM_DWARF_MAX_DEPTH is 512)
python3 - "$tmp" <<'EOF'
import struct, subprocess, sys
tmp = sys.argv[1]
def attr(config):
    st = 1 | 2 | 4 | 256 | 1024 | 65536 | 32    # IP TID TIME PERIOD CPU IDENTIFIER CALLCHAIN
    flags = 1 << 18                              # sample_id_all
    a = struct.pack('<IIQQQQQ', 1, 128, config, 1, st, 0, flags)
    return a + b'\0' * (128 - len(a))
def perf_data(attrs, data):
    ent = 128 + 16
    ids_off = 104 + len(attrs) * ent
    ids_blob = b''.join(ids for _, ids in attrs)
    data_off = ids_off + len(ids_blob)
    h = b'PERFILE2' + struct.pack('<QQ', 104, ent)
    h += struct.pack('<QQQQQQ', 104, len(attrs) * ent, data_off, len(data), 0, 0) + b'\0' * 32
    body, o = b'', ids_off
    for a, ids in attrs:
        body += a + struct.pack('<QQ', o if ids else 0, len(ids))
    return h + body + ids_blob + data
# finding 7: every attr's id section is the same 200 ids
ids = b''.join(struct.pack('<Q', k + 1) for k in range(200))
ids_off = 104 + 60 * 144
b7 = bytearray(perf_data([(attr(i), b'') for i in range(60)], b'')[:104])
for i in range(60):
    b7 += attr(i) + struct.pack('<QQ', ids_off, len(ids))
b7 += ids
struct.pack_into('<QQ', b7, 40, len(b7), 0)
open(tmp + '/ids.data', 'wb').write(b7)
# finding 8: four COMPRESSED (81) records of zstd frames of FINISHED_ROUND (68) records
raw = struct.pack('<IHH', 68, 0, 8) * (1 << 11)   # 16 KiB: a seed must stay fast
z = subprocess.run(['zstd', '-19', '-c', '-q'], input=raw, stdout=subprocess.PIPE,
                   check=True).stdout
rec = struct.pack('<IHH', 81, 0, 8 + len(z)) + z   # unpadded, as perf writes it
open(tmp + '/zbomb.data', 'wb').write(perf_data([(attr(0), struct.pack('<Q', 1))], rec * 3))
# finding 5: .debug_abbrev / .debug_info of 600 nested lexical blocks over [0, 1 MiB)
depth = 600
abbrev = bytes([1, 0x11, 1, 0x11, 0x01, 0x12, 0x06, 0, 0, 2, 0x0b, 1, 0x11, 0x01, 0x12, 0x06,
                0, 0, 0])
dies = b''.join(bytes([1 if i == 0 else 2]) + struct.pack('<QI', 0, 1 << 20)
                for i in range(depth + 1)) + b'\0' * (depth + 1)
info = struct.pack('<IHIB', 2 + 4 + 1 + len(dies), 4, 0, 8) + dies
open(tmp + '/deep.abbrev', 'wb').write(abbrev)
open(tmp + '/deep.info', 'wb').write(info)
EOF
cp "$tmp/ids.data" "$out/perfdata/shared-ids.data"
cp "$tmp/ids.data" "$out/report/shared-ids.data"
cp "$tmp/zbomb.data" "$out/perfdata/zstd-bomb.data"
cp "$tmp/zbomb.data" "$out/report/zstd-bomb.data"
objcopy --remove-section .debug_aranges --remove-section .debug_rnglists \
	--update-section .debug_info="$tmp/deep.info" \
	--update-section .debug_abbrev="$tmp/deep.abbrev" \
	"$out/symbols/small-dwarf.so" "$out/symbols/deep-dwarf.so"

# Java names as agents, perf's map files and V8 write them (fuzz_demangle.c).
mkdir -p "$out/demangle"
dm() { printf '%s' "$2" >"$out/demangle/$1"; }
dm agent-arrays 'Lgenerations/Shape;area([Lgenerations/Shape;I)D'
dm agent-object 'Ljava/util/HashMap;get(Ljava/lang/Object;)Ljava/lang/Object;'
dm generic 'Ljava/util/Map<TK;TV;>.Entry<TK;TV;>;'\
'<T:Ljava/lang/Object;U::Ljava/lang/Comparable<-TU;>;>'\
'm(Ljava/util/List<+TT;>;[[ITU;Ljava/util/Map<*Ljava/lang/String;>;)V^Ljava/io/IOException;'
dm colons 'java.util.HashMap::get(Ljava/lang/Object;)Ljava/lang/Object;'
dm slashes 'java/lang/String.hashCode()I'
# shellcheck disable=SC2016  # Java's '$' (an inner class)
dm init 'LFixture;<init>(LFixture$Op;J)V'
# shellcheck disable=SC2016  # Java's '$' (a lambda)
dm lambda 'LFixture;lambda$main$0()V'
dm plain 'Interpreter'
du -sh "$out"; find "$out" -type f -size +16k -printf 'make-seeds: large seed %p (%s bytes)\n'
