/* test_inflate.c - lines_inflate (recorder/symbols/inflate.c): a debug file's zlib-compressed
 * DWARF inflated by libdeflate gives libdw the bytes libelf's own inflation gives, in the
 * private handle only; libdw opens it and answers the same lines; a damaged section is left
 * compressed for libdw to judge; JITPROF_DWARF_INFLATE=libdw turns it off. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

static char *dir;

static void setup(void)
{
	dir = tu_tmpdir("sym-inflate");
	elf_version(EV_CURRENT);
	unsetenv("JITPROF_DWARF_INFLATE");
}

static void teardown(void)
{
	unsetenv("JITPROF_DWARF_INFLATE");
	tu_rmtree(dir);
	free(dir);
}

TestSuite(inflate, .init = setup, .fini = teardown, .timeout = 60);

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		cr_assert(gelf_getshdr(scn, sh));
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	cr_assert_fail("no section %s", name);
	return NULL;
}

static const char *const names[] = { ".debug_info", ".debug_abbrev", ".debug_line",
				     ".debug_str" };
#define N_NAMES (sizeof(names) / sizeof(*names))

/* The line of the first row of each CU's table, through libdw on elf. */
static void first_lines(Elf *elf, int *out, size_t max, size_t *n)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cr_assert(dw, "libdw refused the handle: %s", dwarf_errmsg(-1));
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	*n = 0;
	while (*n < max && dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Lines *lines;
		size_t k;
		cr_assert_eq(dwarf_getsrclines(&cudie, &lines, &k), 0);
		cr_assert_gt(k, 0);
		cr_assert_eq(dwarf_lineno(dwarf_onesrcline(lines, 0), &out[*n]), 0);
		++*n;
	}
	dwarf_end(dw);
}

Test(inflate, same_bytes_as_libelf_and_libdw_reads_them)
{
	cr_assert(lines_inflate_ready(), "libdeflate.so.0 cannot be loaded (scripts/deps.sh "
		  "installs libdeflate0)");
	char *so = st_build(dir, "z.so", "-fPIC -shared -gz=zlib -gdwarf-5");
	int fd = open(so, O_RDONLY);
	cr_assert_geq(fd, 0);
	Elf *ours = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	Elf *ref = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	cr_assert(ours && ref);
	GElf_Shdr sh;
	for (size_t i = 0; i < N_NAMES; i++) {
		section(ours, names[i], &sh);
		cr_assert(sh.sh_flags & SHF_COMPRESSED, "gcc -gz left %s uncompressed", names[i]);
	}
	struct lines_zbuf z;
	cr_assert_eq(lines_inflate(ours, &z), 0, "a section left compressed");
	cr_assert(z.p, "nothing inflated");
	for (size_t i = 0; i < N_NAMES; i++) {
		GElf_Shdr rsh;
		Elf_Scn *o = section(ours, names[i], &sh), *r = section(ref, names[i], &rsh);
		cr_assert_eq(sh.sh_flags & SHF_COMPRESSED, 0, "%s still compressed", names[i]);
		cr_assert_eq(elf_compress(r, 0, 0), 1, "libelf: %s", elf_errmsg(-1));
		Elf_Data *a = elf_getdata(o, NULL), *b = elf_getdata(r, NULL);
		cr_assert(a && b);
		cr_assert_eq(a->d_size, b->d_size, "%s: %zu bytes, libelf %zu", names[i], a->d_size,
			     b->d_size);
		cr_assert_eq(memcmp(a->d_buf, b->d_buf, a->d_size), 0, "%s differs", names[i]);
		cr_assert(gelf_getshdr(r, &rsh));
		cr_assert_eq(sh.sh_size, rsh.sh_size);
	}
	int want[64], got[64];
	size_t nw, ng;
	first_lines(ref, want, 64, &nw);
	first_lines(ours, got, 64, &ng);
	cr_assert_eq(ng, nw);
	cr_assert_gt(ng, 0);
	cr_assert_eq(memcmp(got, want, ng * sizeof(*got)), 0);
	elf_end(ours);
	elf_end(ref);
	lines_zbuf_free(&z);

	/* the file itself, read again, is still compressed */
	Elf *again = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	section(again, ".debug_info", &sh);
	cr_assert(sh.sh_flags & SHF_COMPRESSED);
	elf_end(again);
	close(fd);
	free(so);
}

/* Overwrites n bytes at the start of section name's compressed stream (past its header). */
static void damage(const char *path, const char *name, size_t n)
{
	int fd = open(path, O_RDWR);
	cr_assert_geq(fd, 0);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Shdr sh;
	section(elf, name, &sh);
	elf_end(elf);
	char junk[64];
	memset(junk, 0xff, sizeof(junk));
	cr_assert_leq(n, sizeof(junk));
	cr_assert_eq(pwrite(fd, junk, n, (off_t)(sh.sh_offset + sizeof(Elf64_Chdr))), (ssize_t)n);
	close(fd);
}

Test(inflate, damaged_section_left_to_libdw)
{
	cr_assert(lines_inflate_ready());
	char *so = st_build(dir, "d.so", "-fPIC -shared -gz=zlib -gdwarf-5");
	damage(so, ".debug_line", 16);
	int fd = open(so, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	cr_assert(elf);
	struct lines_zbuf z;
	cr_assert_eq(lines_inflate(elf, &z), 1, "one section refused");
	cr_assert(z.p, "the undamaged sections are inflated");
	GElf_Shdr sh;
	section(elf, ".debug_line", &sh);
	cr_assert(sh.sh_flags & SHF_COMPRESSED, "the damaged section was not left compressed");
	section(elf, ".debug_info", &sh);
	cr_assert_eq(sh.sh_flags & SHF_COMPRESSED, 0);
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);	/* whatever libdw says: no crash */
	if (dw)
		dwarf_end(dw);
	elf_end(elf);
	lines_zbuf_free(&z);
	close(fd);
	free(so);
}

/* A header claiming more than DEFLATE can expand to is not allocated for. */
Test(inflate, impossible_size_left_to_libdw)
{
	cr_assert(lines_inflate_ready());
	char *so = st_build(dir, "s.so", "-fPIC -shared -gz=zlib -gdwarf-5");
	int fd = open(so, O_RDWR);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Shdr sh;
	section(elf, ".debug_info", &sh);
	elf_end(elf);
	uint64_t huge = 1ull << 60;	/* Elf64_Chdr: ch_type, ch_reserved, ch_size */
	cr_assert_eq(pwrite(fd, &huge, 8, (off_t)(sh.sh_offset + 8)), 8);
	close(fd);
	fd = open(so, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	struct lines_zbuf z;
	lines_inflate(elf, &z);
	section(elf, ".debug_info", &sh);
	cr_assert(sh.sh_flags & SHF_COMPRESSED);
	section(elf, ".debug_abbrev", &sh);
	cr_assert_eq(sh.sh_flags & SHF_COMPRESSED, 0, "the sound sections are inflated");
	elf_end(elf);
	lines_zbuf_free(&z);
	close(fd);
	free(so);
}

Test(inflate, turned_off_by_the_environment)
{
	setenv("JITPROF_DWARF_INFLATE", "libdw", 1);
	cr_assert_eq(lines_inflate_ready(), 0);
	unsetenv("JITPROF_DWARF_INFLATE");
	cr_assert_eq(lines_inflate_ready(), 1);
}
