/* test_cus_cache.c - recorder/symbols/cus_cache.c: the CU index of a debug file whose DWARF
 * came mapped from the build-id cache, kept beside that entry: written, read back equal to
 * what lines_index_cus makes; not written for DWARF that was inflated here (no entry to key
 * it by); not taken when it belongs to another entry, names a unit past .debug_info, is out of
 * order, or others may write it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

static char *dir, *so, root[4200], cus_path[4400];
static struct sym_build_id bid;

static void setup(void)
{
	st_zcache_fixture("sym-cuscache", &dir, &so, &bid, root, sizeof(root), ".cus", cus_path,
			  sizeof(cus_path));
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
	free(so);
}

TestSuite(cus_cache, .init = setup, .fini = teardown, .timeout = 60);

/* so's DWARF through the DWARF cache as the read-ahead gets it; its CU index made by
 * lines_index_cus into *made and, when load, what lines_cus_load gives into *got (NULL: not
 * taken); save: lines_cus_save after. Returns whether the DWARF came mapped. */
struct pass {
	struct cu_range *made, *got;
	size_t n_made, n_got;
};

static int one_pass(int load, int save, struct pass *p)
{
	int rootfd = lines_zcache_root(root), fd = open(so, O_RDONLY);
	cr_assert(rootfd >= 0 && fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	struct lines_zbuf z;
	cr_assert_eq(lines_inflate_cached(rootfd, &bid, fd, elf, &z), 0);
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cr_assert(dw, "%s", dwarf_errmsg(-1));
	memset(p, 0, sizeof(*p));
	cr_assert_eq(lines_index_cus(dw, &p->made, &p->n_made), 0);
	cr_assert_gt(p->n_made, 0);
	if (load && !lines_cus_load(rootfd, &bid, &z, dw, &p->got, &p->n_got))
		p->got = NULL;
	if (save)
		lines_cus_save(rootfd, &bid, &z, p->made, p->n_made);
	int mapped = z.mapped;
	dwarf_end(dw);
	elf_end(elf);
	lines_zbuf_free(&z);
	close(fd);
	close(rootfd);
	return mapped;
}

static void pass_free(struct pass *p)
{
	free(p->made);
	free(p->got);
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Written on the first pass whose DWARF came mapped, then taken back equal. */
static void written_and_taken(void)
{
	struct pass p;
	cr_assert_eq(one_pass(0, 1, &p), 0, "mapped from an empty cache");
	pass_free(&p);
	cr_assert(!exists(cus_path), "an index kept for DWARF inflated here");
	cr_assert_eq(one_pass(1, 1, &p), 1);
	cr_assert_null(p.got, "an index taken before any was written");
	pass_free(&p);
	cr_assert(exists(cus_path));
	cr_assert_eq(one_pass(1, 0, &p), 1);
	cr_assert_not_null(p.got, "the kept index was not taken");
	cr_assert_eq(p.n_got, p.n_made);
	for (size_t i = 0; i < p.n_made; i++) {
		cr_expect_eq(p.got[i].lo, p.made[i].lo, "range %zu", i);
		cr_expect_eq(p.got[i].hi, p.made[i].hi, "range %zu", i);
		cr_expect_eq(p.got[i].cu_off, p.made[i].cu_off, "range %zu", i);
		cr_expect_eq(p.got[i].depth, 0);
		cr_expect_null(p.got[i].scopes);
	}
	pass_free(&p);
}

Test(cus_cache, kept_beside_a_mapped_entry_and_taken_back)
{
	written_and_taken();
}

/* The kept file rewritten with one value changed at byte off (after the 48-byte head: ranges
 * of lo, hi, cu_off); then whether the next pass took it. */
static int taken_after_poke(size_t off, uint64_t v)
{
	size_t len;
	uint8_t *b = tu_read_file(cus_path, &len);
	cr_assert(b && off + 8 <= len);
	memcpy(b + off, &v, 8);
	cr_assert_eq(unlink(cus_path), 0);
	cr_assert_eq(tu_write_file(cus_path, b, len), 0);
	cr_assert_eq(chmod(cus_path, 0600), 0);
	free(b);
	struct pass p;
	cr_assert_eq(one_pass(1, 0, &p), 1);
	int taken = p.got != NULL;
	pass_free(&p);
	return taken;
}

/* A sound index written again in place of the kept one. */
static void rewrite_sound(void)
{
	struct pass p;
	unlink(cus_path);
	cr_assert_eq(one_pass(0, 1, &p), 1);
	pass_free(&p);
	cr_assert(exists(cus_path));
}

Test(cus_cache, unsound_or_foreign_index_is_not_taken)
{
	written_and_taken();
	cr_expect_eq(taken_after_poke(48 + 16, UINT64_MAX / 2), 0, "a unit past .debug_info");
	rewrite_sound();
	cr_expect_eq(taken_after_poke(48 + 8, 0), 0, "an empty range");
	rewrite_sound();
	cr_expect_eq(taken_after_poke(16, 12345), 0, "another entry's index (its inode)");
	rewrite_sound();
	/* an offset inside .debug_info is taken as written: the file is ours (0600), trusted as
	 * the DWARF entry's own bytes are; only what could break a search is refused */
	cr_expect_eq(taken_after_poke(48 + 40, 0), 1, "an in-bounds unit offset refused");
	rewrite_sound();
	cr_assert_eq(chmod(cus_path, 0620), 0);
	struct pass p;
	cr_assert_eq(one_pass(1, 0, &p), 1);
	cr_expect_null(p.got, "an index others may write was taken");
	pass_free(&p);
}
