/* test_elf.c - ELF symbols and DWARF lines with inlined frames (recorder/symbols/elfsym.c,
 * lines.c, dso.c) on programs gcc builds here (-g -O2, forced inlining), checked address by
 * address against `nm` and `addr2line -f -i` as the oracles. */
#include <criterion/criterion.h>
#include <gelf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/symbols/symbols.h"
#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

struct nmsym {
	uint64_t start, size;
	char name[128];
};

static size_t nm_funcs(const char *path, struct nmsym *out, size_t max)
{
	char cmd[4200];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", path);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	size_t n = 0;
	for (char *line = strtok(r.out, "\n"); line && n < max; line = strtok(NULL, "\n")) {
		unsigned long long a, sz;
		char t;
		char name[128];
		if (sscanf(line, "%llx %llx %c %127s", &a, &sz, &t, name) == 4 &&
		    (t == 'T' || t == 't') && sz) {
			out[n].start = a;
			out[n].size = sz;
			snprintf(out[n].name, sizeof(out[n].name), "%s", name);
			n++;
		}
	}
	tu_result_free(&r);
	return n;
}

static const char *base_of(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;
	return b ? b + 1 : p ? p : "??";
}

/* Compares every 2nd address of every sized function with nm and addr2line -f -i -a. */
static void check_against_oracles(const char *dir, const char *path, uint64_t base)
{
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(path, &bid, NULL), 0);
	struct st_seg sg = st_exec_segment(path);
	char bd[4200];
	snprintf(bd, sizeof(bd), "%s/no-cache", dir);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = bd, .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	cr_assert_eq(sym_mmap(s, 7, 7, base + sg.vaddr, sg.memsz, sg.off, path, bid.data, bid.size,
			      2, 1), 0);

	static struct nmsym syms[256];
	size_t ns = nm_funcs(path, syms, 256);
	cr_assert_geq(ns, 3);
	static uint64_t addrs[8192];
	static const char *want_sym[8192];
	size_t na = 0;
	for (size_t i = 0; i < ns; i++)
		for (uint64_t a = syms[i].start; a < syms[i].start + syms[i].size && na < 8192; a += 2) {
			want_sym[na] = syms[i].name;
			addrs[na++] = a;
		}
	/* addr2line, one run for all addresses */
	size_t cmdcap = 64 + strlen(path) + na * 20;
	char *cmd = malloc(cmdcap);
	size_t len = (size_t)snprintf(cmd, cmdcap, "addr2line -f -i -a -e %s", path);
	for (size_t i = 0; i < na; i++)
		len += (size_t)snprintf(cmd + len, cmdcap - len, " 0x%llx",
					(unsigned long long)addrs[i]);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	free(cmd);

	size_t checked = 0, inl_seen = 0;
	char *save = NULL, *line = strtok_r(r.out, "\n", &save);
	for (size_t i = 0; i < na; i++) {
		cr_assert(line && line[0] == '0' && line[1] == 'x', "addr2line output out of step");
		struct sym_result res;
		cr_assert_eq(sym_resolve(s, 7, base + addrs[i], 5, 2, SYM_RES_LINES, &res), 0);
		cr_assert_str_eq(res.dso_name, base_of(path));
		cr_expect_eq(res.dso_addr, addrs[i]);
		cr_expect_str_eq(res.sym_raw ? res.sym_raw : "(null)", want_sym[i], "sym at 0x%llx",
				 (unsigned long long)addrs[i]);
		unsigned k = 0;
		for (line = strtok_r(NULL, "\n", &save); line && !(line[0] == '0' && line[1] == 'x');
		     line = strtok_r(NULL, "\n", &save)) {
			char *fl = strtok_r(NULL, "\n", &save);
			cr_assert(fl, "addr2line: function without location");
			char file[1024] = "";
			unsigned ln = 0;
			char *colon = strrchr(fl, ':');
			if (colon) {
				*colon = 0;
				snprintf(file, sizeof(file), "%s", fl);
				ln = (unsigned)strtoul(colon + 1, NULL, 10);
			}
			/* no DWARF here (crt code): addr2line falls back to the symbol name */
			if (!strncmp(fl, "??", 2))
				continue;
			cr_assert_lt(k, res.n_inline, "0x%llx: frame %u (%s) missing",
				     (unsigned long long)addrs[i], k, line);
			cr_expect_str_eq(res.inl[k].func ? res.inl[k].func : "??", line,
					 "0x%llx frame %u", (unsigned long long)addrs[i], k);
			cr_expect_str_eq(base_of(res.inl[k].file), base_of(file), "0x%llx frame %u",
					 (unsigned long long)addrs[i], k);
			cr_expect_eq(res.inl[k].line, ln, "0x%llx frame %u: line %u want %u",
				     (unsigned long long)addrs[i], k, res.inl[k].line, ln);
			if (!k) {
				cr_expect_eq(res.line, ln);
				cr_expect_str_eq(base_of(res.srcfile), base_of(file));
			}
			checked++;
			k++;
		}
		if (k > 1)
			inl_seen++;
		cr_expect_eq(res.n_inline, k, "0x%llx: %u frames, addr2line %u",
			     (unsigned long long)addrs[i], res.n_inline, k);
	}
	tu_result_free(&r);
	cr_expect_gt(checked, 50);
	cr_expect_gt(inl_seen, 5, "the test program must exercise inlined frames");
	sym_session_free(s);
}

Test(elf, shared_object_symbols_lines_inlines)
{
	char *dir = tu_tmpdir("sym-elf");
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	check_against_oracles(dir, so, 0x7f1234560000ull);
	free(so);
	tu_rmtree(dir);
	free(dir);
}

Test(elf, executable_symbols_lines_inlines)
{
	char *dir = tu_tmpdir("sym-elf");
	char *exe = st_build(dir, "t-exe", "-no-pie");
	check_against_oracles(dir, exe, 0);
	free(exe);
	tu_rmtree(dir);
	free(dir);
}

/* A unit of many functions: its first level is searched through the children's sorted
 * ranges (lines.c's cu_top) rather than scanned child by child; the answers must stay
 * addr2line's, and the search must be what answered. */
Test(elf, many_functions_in_one_unit)
{
	char *dir = tu_tmpdir("sym-elf");
	size_t cap = 1 << 16, len = 0;
	char *src = malloc(cap);
	len += (size_t)snprintf(src + len, cap - len, "volatile int g;\n");
	for (int i = 0; i < 120; i++)
		len += (size_t)snprintf(src + len, cap - len,
			"static inline __attribute__((always_inline)) int h%d(int x)\n"
			"{ return x * %d + g; }\n"
			"__attribute__((noinline)) int f%d(int x)\n"
			"{ int y = h%d(x);\n  return y ^ (x >> 3); }\n", i, i + 3, i, i);
	len += (size_t)snprintf(src + len, cap - len, "int main(void)\n{ int s = 0;\n");
	for (int i = 0; i < 120; i++)
		len += (size_t)snprintf(src + len, cap - len, "  s += f%d(s);\n", i);
	snprintf(src + len, cap - len, "  return s & 1; }\n");
	char *exe = st_build_src(dir, "many", "-no-pie", src);
	check_against_oracles(dir, exe, 0);

	/* the unit was searched: its index is there, sorted and disjoint */
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(exe, &bid, NULL), 0);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	cr_assert_eq(st_map(s, 4, exe, exe, 0, &bid), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 4, st_nm_addr(exe, "f77") + 1, 1, 2, SYM_RES_LINES, &r), 0);
	cr_assert_str_eq(r.sym_raw, "f77");
	cr_assert_geq(r.n_inline, 2, "h77 inlined into f77");
	size_t indexed = 0;
	for (size_t i = 0; i < r.dso->n_cus; i++) {
		const struct cu_scopes *cs = r.dso->cus[i].scopes;
		if (!cs || !cs->n_top)
			continue;
		for (size_t k = 1; k < cs->n_top; k++)
			cr_assert_geq(cs->top[k].lo, cs->top[k - 1].hi);
		indexed = cs->n_top;
	}
	cr_assert_geq(indexed, 120, "the unit's 121 functions searched by range");
	sym_session_free(s);
	free(exe);
	free(src);
	tu_rmtree(dir);
	free(dir);
}

/* Code bytes for disassembly (report --compare): what the file holds at that address. */
Test(elf, read_code_matches_file)
{
	char *dir = tu_tmpdir("sym-elf");
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct st_seg sg = st_exec_segment(so);
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	cr_assert_eq(st_map(s, 3, so, so, 0x7f0000000000ull, &bid), 0);
	uint64_t work = st_nm_addr(so, "work");
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 3, 0x7f0000000000ull + work, 1, 2, 0, &r), 0);
	cr_assert_not_null(r.dso);
	unsigned char got[48];
	long n = sym_dso_read_code(s, r.dso, r.sym_start, got, sizeof(got));
	cr_assert_eq(n, (long)sizeof(got));
	size_t len = 0;
	unsigned char *file = tu_read_file(so, &len);
	uint64_t off = work - sg.vaddr + sg.off;	/* vaddr -> file offset in the text segment */
	cr_assert(file && off + sizeof(got) <= len);
	cr_expect(!memcmp(got, file + off, sizeof(got)), "code bytes differ from the file's");
	cr_expect_lt(sym_dso_read_code(s, r.dso, 0xffffffff00000000ull, got, 8), 0);
	free(file);
	sym_session_free(s);
	free(so);
	tu_rmtree(dir);
	free(dir);
}

/* PLT stubs get perf's "<callee>@plt" names; objdump labels them the same way (the oracle). */
Test(elf, plt_stubs_named_like_objdump)
{
	if (!tu_have("objdump"))
		cr_skip_test("objdump not installed");
	char *dir = tu_tmpdir("sym-plt");
	char src[4200], so[4200], cmd[9000];
	static const char *code = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
				  "int f(const char *s) { puts(s); return (int)strlen(s) + "
				  "(getenv(s) != NULL) + abs(*s); }\n";
	snprintf(src, sizeof(src), "%s/p.c", dir);
	snprintf(so, sizeof(so), "%s/libp.so", dir);
	cr_assert_eq(tu_write_file(src, code, strlen(code)), 0);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -fPIC -shared -fno-builtin -Wl,-z,lazy -o %s %s", so,
		 src);
	st_run(cmd);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt %s | sed -n 's/^\\([0-9a-f]*\\) <\\(.*\\)>:$/\\1 \\2/p'",
		 so);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	uint64_t base = 0x7f1100000000ull;
	cr_assert_eq(st_map(s, 9, so, so, base, &bid), 0);
	size_t n = 0;
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		char *name = strchr(line, ' ');
		cr_assert(name);
		*name++ = 0;
		size_t nl = strlen(name);
		if (nl < 4 || strcmp(name + nl - 4, "@plt"))
			continue;	/* the header ("<getenv@plt-0x10>") */
		struct sym_result res;
		uint64_t addr = base + strtoull(line, NULL, 16) + 4;
		cr_assert_eq(sym_resolve(s, 9, addr, 2, 2, 0, &res), 0);
		cr_expect_str_eq(res.sym ? res.sym : "(none)", name);
		n++;
	}
	cr_expect_geq(n, 3, "puts, strlen, getenv, abs go through the PLT");
	tu_result_free(&r);
	sym_session_free(s);
	tu_rmtree(dir);
	free(dir);
}
