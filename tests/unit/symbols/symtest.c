/* symtest.c - what the symbols unit tests share: a C program with inlining that gcc builds
 * in the test, its executable segment as the loader maps it, and a message collector. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "recorder/symbols/symbols_int.h"
#include "tests/unit/symbols/symtest.h"

const char *st_src =
	"#include <stdlib.h>\n"
	"static inline __attribute__((always_inline)) int sq(int x)\n"
	"{\n"
	"	return x * x + (x >> 3);\n"
	"}\n"
	"static inline __attribute__((always_inline)) int addsq(int a, int b)\n"
	"{\n"
	"	int r = sq(a);\n"
	"	r ^= sq(b + 1);\n"
	"	return r;\n"
	"}\n"
	"__attribute__((noinline)) int work(const int *v, int n)\n"
	"{\n"
	"	int s = 0;\n"
	"	for (int i = 0; i < n; i++)\n"
	"		s += addsq(v[i], i);\n"
	"	return s;\n"
	"}\n"
	"__attribute__((noinline)) long other(long x)\n"
	"{\n"
	"	long t = 1;\n"
	"	while (x-- > 0)\n"
	"		t = t * 3 + sq((int)x);\n"
	"	return t;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	int v[4] = { argc, 2, 3, 4 };\n"
	"	return work(v, 4) + (int)other(argv[0][0]);\n"
	"}\n";

struct st_seg st_exec_segment(const char *path)
{
	struct st_seg sg = { 0 };
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0;
	cr_assert(e && !elf_getphdrnum(e, &n));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			sg.vaddr = ph.p_vaddr & ~0xfffull;
			sg.off = ph.p_offset & ~0xfffull;
			sg.memsz = ph.p_memsz + (ph.p_vaddr & 0xfff);
		}
	}
	elf_end(e);
	close(fd);
	cr_assert(sg.memsz, "no executable segment in %s", path);
	return sg;
}

char *st_build(const char *dir, const char *name, const char *flags)
{
	return st_build_src(dir, name, flags, st_src);
}

char *st_build_src(const char *dir, const char *name, const char *flags, const char *src)
{
	char c[4200], cmd[8800];
	snprintf(c, sizeof(c), "%s/t.c", dir);
	cr_assert_eq(tu_write_file(c, src, strlen(src)), 0);
	char *out = malloc(4200);
	snprintf(out, 4200, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "gcc -g -O2 %s -o %s %s", flags, out, c);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "gcc: %s", r.err);
	tu_result_free(&r);
	return out;
}

int st_map(struct sym_session *s, uint32_t pid, const char *recorded, const char *layout_of,
	   uint64_t base, const struct sym_build_id *bid)
{
	struct st_seg sg = st_exec_segment(layout_of);
	return sym_mmap(s, pid, pid, base + sg.vaddr, sg.memsz, sg.off, recorded,
			bid ? bid->data : NULL, bid ? bid->size : 0, 2, 1);
}

char st_msgs[16384];

void st_collect(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	size_t n = strlen(st_msgs);
	snprintf(st_msgs + n, sizeof(st_msgs) - n, "%s\n", msg);
}

void st_run(const char *cmdline)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmdline, 120), 0);
	cr_assert_eq(r.status, 0, "%s: %s%s", cmdline, r.out, r.err);
	tu_result_free(&r);
}

uint64_t st_nm_addr(const char *path, const char *sym)
{
	char cmd[4400];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "nm --defined-only %s | awk '$3 == \"%s\" { print $1 }'", path,
		 sym);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	uint64_t a = strtoull(r.out, NULL, 16);
	tu_result_free(&r);
	cr_assert(a, "%s not in %s", sym, path);
	return a;
}

static void put(FILE *f, const void *p, size_t n)
{
	cr_assert_eq(fwrite(p, 1, n, f), n);
}

/* path's DWARF becomes these .debug_abbrev and .debug_info bytes (objcopy --update-section;
 * the ranges and aranges sections removed). */
static void replace_dwarf(const char *path, const void *abbrev, size_t alen, const void *info,
			  size_t ilen)
{
	char ipath[4200], apath[4200], cmd[13000];
	snprintf(ipath, sizeof(ipath), "%s.info", path);
	snprintf(apath, sizeof(apath), "%s.abbrev", path);
	FILE *f = fopen(apath, "wb");
	cr_assert(f);
	put(f, abbrev, alen);
	fclose(f);
	f = fopen(ipath, "wb");
	cr_assert(f);
	put(f, info, ilen);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "objcopy --decompress-debug-sections --remove-section "
		 ".debug_aranges --remove-section .debug_rnglists --remove-section .debug_ranges "
		 "--update-section .debug_info='%s' --update-section .debug_abbrev='%s' '%s'",
		 ipath, apath, path);
	st_run(cmd);
}

/* A DWARF 4 unit header (32-bit, 8-byte addresses) for a unit of len bytes after it. */
static void unit_header(FILE *f, uint32_t len)
{
	uint32_t aoff = 0, ulen = len + 2 + 4 + 1;
	uint16_t ver = 4;
	uint8_t asz = 8;
	put(f, &ulen, 4);
	put(f, &ver, 2);
	put(f, &aoff, 4);
	put(f, &asz, 1);
}

/* abbrev 1: compile_unit with children, low_pc (addr) and high_pc (data4, a length since
 * DWARF 4); 2: lexical_block, the same; 3: imported_unit, DW_AT_import (ref_addr);
 * 4: partial_unit with children */
static const uint8_t st_abbrev[] = { 1, 0x11, 1, 0x11, 0x01, 0x12, 0x06, 0, 0,
				     2, 0x0b, 1, 0x11, 0x01, 0x12, 0x06, 0, 0,
				     3, 0x3d, 0, 0x18, 0x10, 0, 0,
				     4, 0x3c, 1, 0, 0, 0 };

/* One DIE of abbrev 1 or 2 covering [0, 1 MiB). */
static void put_scope(FILE *f, uint8_t code)
{
	uint32_t hi = 1u << 20;
	uint64_t lo = 0;
	put(f, &code, 1);
	put(f, &lo, 8);
	put(f, &hi, 4);
}

void st_deep_dwarf(const char *path, unsigned depth)
{
	char *info;
	size_t ilen;
	FILE *f = open_memstream(&info, &ilen);
	cr_assert(f);
	unit_header(f, (depth + 1) * (1 + 8 + 4) + depth + 1);
	for (unsigned i = 0; i <= depth; i++)
		put_scope(f, i ? 2 : 1);
	for (unsigned i = 0; i <= depth; i++)
		put(f, "", 1);	/* the end of every level's children */
	fclose(f);
	replace_dwarf(path, st_abbrev, sizeof(st_abbrev), info, ilen);
	free(info);
}

/* An imported_unit DIE naming the unit at offset to. */
static void put_import(FILE *f, uint32_t to)
{
	uint8_t code = 3;
	put(f, &code, 1);
	put(f, &to, 4);
}

void st_import_chain_dwarf(const char *path, unsigned n, enum st_imports how)
{
	char *info;
	size_t ilen;
	FILE *f = open_memstream(&info, &ilen);
	cr_assert(f);
	const unsigned per_pu = how == ST_IMPORT_TWICE ? 2 : 1;
	const uint32_t cu_size = 11 + 13 + 5 + 1, pu_size = 11 + 1 + 5 * per_pu + 1;
	unit_header(f, 13 + 5 + 1);
	put_scope(f, 1);
	put_import(f, cu_size + 11);	/* the partial_unit DIE after its unit's header */
	put(f, "", 1);
	for (unsigned k = 0; k < n; k++) {
		uint8_t code = 4;
		unit_header(f, 1 + 5 * per_pu + 1);
		put(f, &code, 1);
		/* the last one imports the first again, or a unit past the end (nothing) */
		for (unsigned i = 0; i < per_pu; i++)
			put_import(f, k + 1 < n ? cu_size + pu_size * (k + 1) + 11
					: how == ST_IMPORT_LOOP ? cu_size + 11 : 0xfffffff0u);
		put(f, "", 1);
	}
	fclose(f);
	replace_dwarf(path, st_abbrev, sizeof(st_abbrev), info, ilen);
	free(info);
}

struct sym_session *st_session(const char *buildid_dir, const char *symfs)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = buildid_dir, .symfs = symfs,
			      .no_debuginfod = 1, .log = { st_collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	cr_assert(s);
	return s;
}

char *st_path(const char *dir, const char *sub)
{
	char *p = NULL;
	cr_assert(asprintf(&p, "%s/%s", dir, sub) >= 0);
	return p;
}

void st_zcache_fixture(const char *prefix, char **dir, char **so, struct sym_build_id *bid,
		       char *root, size_t rootlen, const char *suffix, char *entry,
		       size_t entrylen)
{
	char rel[512];
	*dir = tu_tmpdir(prefix);
	elf_version(EV_CURRENT);
	unsetenv("JITPROF_DWARF_INFLATE");
	cr_assert(lines_inflate_ready(), "libdeflate.so.0 cannot be loaded");
	*so = st_build(*dir, "z.so", "-fPIC -shared -gz=zlib -gdwarf-5");
	cr_assert_eq(sym_elf_build_id(*so, bid, NULL), 0);
	cr_assert_eq(lines_zcache_entry(bid, suffix, rel, sizeof(rel)), 0);
	snprintf(root, rootlen, "%s/cache", *dir);
	snprintf(entry, entrylen, "%s/%s", root, rel);
	cr_assert_eq(mkdir(root, 0700), 0);
}
