/* symtest.c - what the symbols unit tests share: a C program with inlining that gcc builds
 * in the test, its executable segment as the loader maps it, and a message collector. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
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
	char c[4200], cmd[8800];
	snprintf(c, sizeof(c), "%s/t.c", dir);
	cr_assert_eq(tu_write_file(c, st_src, strlen(st_src)), 0);
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
