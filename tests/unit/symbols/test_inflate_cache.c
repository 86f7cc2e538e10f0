/* test_inflate_cache.c - lines_inflate_cached (recorder/symbols/inflate_cache.c): a debug
 * file's inflated DWARF written to the build-id cache on the first read and mapped on the next,
 * the same bytes and lines; an entry that is not ours, that others may write, reached through
 * a symlink, damaged, or made from another version of the file is not used (and a sound one
 * is written in its place where it can be); JITPROF_DWARF_INFLATE=nocache turns it off. */
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

static char *dir, *so, root[4200], entry[4400];
static struct sym_build_id bid;

static void setup(void)
{
	st_zcache_fixture("sym-zcache", &dir, &so, &bid, root, sizeof(root), "", entry,
			  sizeof(entry));
}

static void teardown(void)
{
	unsetenv("JITPROF_DWARF_INFLATE");
	tu_rmtree(dir);
	free(dir);
	free(so);
}

TestSuite(inflate_cache, .init = setup, .fini = teardown, .timeout = 60);

/* One read of so through the cache: whether the entry was mapped; the first bytes of its
 * .debug_info and the first line of its first CU through libdw into *info, *line. */
static int read_once(uint8_t info[16], int *line)
{
	int rootfd = lines_zcache_root(root), fd = open(so, O_RDONLY);
	cr_assert_geq(fd, 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	struct lines_zbuf z;
	cr_assert_eq(lines_inflate_cached(rootfd, &bid, fd, elf, &z), 0);
	cr_assert(z.p);
	size_t shstrndx;
	elf_getshdrstrndx(elf, &shstrndx);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".debug_info")) {
			cr_assert_eq(sh.sh_flags & SHF_COMPRESSED, 0);
			memcpy(info, elf_getdata(scn, NULL)->d_buf, 16);
		}
	}
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cr_assert(dw, "%s", dwarf_errmsg(-1));
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	size_t n;
	cr_assert_eq(dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL), 0);
	cr_assert_eq(dwarf_getsrclines(&cudie, &lines, &n), 0);
	cr_assert_eq(dwarf_lineno(dwarf_onesrcline(lines, 0), line), 0);
	dwarf_end(dw);
	elf_end(elf);
	int mapped = z.mapped;
	lines_zbuf_free(&z);
	close(fd);
	if (rootfd >= 0)
		close(rootfd);
	return mapped;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

Test(inflate_cache, written_then_mapped_with_the_same_bytes)
{
	uint8_t a[16], b[16];
	int la, lb;
	cr_assert_eq(read_once(a, &la), 0, "mapped from an empty cache");
	struct stat st;
	cr_assert_eq(stat(entry, &st), 0, "no entry written at %s", entry);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(read_once(b, &lb), 1, "the entry was not used");
	cr_assert_eq(memcmp(a, b, 16), 0);
	cr_assert_eq(la, lb);
	cr_assert_gt(la, 0);
}

Test(inflate_cache, entry_others_may_write_is_not_used)
{
	uint8_t a[16];
	int l;
	read_once(a, &l);
	cr_assert_eq(chmod(entry, 0620), 0);
	cr_assert_eq(read_once(a, &l), 0, "a group-writable entry was used");
	/* written again in its place, sound */
	cr_assert_eq(read_once(a, &l), 1);
}

Test(inflate_cache, entry_of_another_user_is_not_used)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give the entry to another user");
	uint8_t a[16];
	int l;
	read_once(a, &l);
	cr_assert_eq(chown(entry, 54321, 54321), 0);
	cr_assert_eq(read_once(a, &l), 0, "another user's entry was used");
}

/* Run as root with another user's cache (HOME kept by sudo -E): read, never written into. */
Test(inflate_cache, another_users_cache_root_is_not_written)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give the cache root to another user");
	uint8_t a[16];
	int l;
	cr_assert_eq(chown(root, 54321, 54321), 0);
	cr_assert_eq(read_once(a, &l), 0);
	cr_assert(!exists(entry), "root wrote %s into uid 54321's cache", entry);
	char sub[4300];
	snprintf(sub, sizeof(sub), "%s/.jitprof", root);
	cr_assert(!exists(sub), "root made %s in uid 54321's cache", sub);
}

Test(inflate_cache, symlinks_are_not_followed)
{
	uint8_t a[16];
	int l;
	char moved[4500], dwdir[4500], elsewhere[4500], cmd[20000];
	read_once(a, &l);
	/* the entry replaced by a link to a sound copy of itself */
	snprintf(moved, sizeof(moved), "%s/sound", dir);
	cr_assert_eq(rename(entry, moved), 0);
	cr_assert_eq(symlink(moved, entry), 0);
	cr_assert_eq(read_once(a, &l), 0, "an entry reached through a symlink was used");
	/* a linked directory on the way: nothing read or written through it */
	snprintf(dwdir, sizeof(dwdir), "%s/.jitprof", root);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	snprintf(cmd, sizeof(cmd), "mv '%s' '%s' && ln -s '%s' '%s'", dwdir, elsewhere, elsewhere,
		 dwdir);
	st_run(cmd);
	snprintf(cmd, sizeof(cmd), "rm -f '%s/dwarf/'* && cp '%s' '%s/dwarf/sound'", elsewhere,
		 moved, elsewhere);
	st_run(cmd);
	cr_assert_eq(read_once(a, &l), 0);
	snprintf(cmd, sizeof(cmd), "[ \"$(ls '%s/dwarf')\" = sound ]", elsewhere);
	st_run(cmd);	/* nothing written through the link */
}

/* Overwrites the byte at off of the entry with v. */
static void poke(off_t off, uint8_t v)
{
	int fd = open(entry, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, &v, 1, off), 1);
	close(fd);
}

Test(inflate_cache, damaged_or_stale_entry_is_not_used)
{
	uint8_t a[16];
	int l;
	read_once(a, &l);
	poke(0, 'X');	/* the magic */
	cr_assert_eq(read_once(a, &l), 0, "a damaged head was used");
	cr_assert_eq(read_once(a, &l), 1, "not written again");
	cr_assert_eq(truncate(entry, 4096 + 100), 0);
	cr_assert_eq(read_once(a, &l), 0, "a truncated entry was used");
	cr_assert_eq(read_once(a, &l), 1);
	/* the debug file rewritten (its mtime moves): inflated again */
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, so, ts, 0), 0);
	cr_assert_eq(read_once(a, &l), 0, "the entry of the file before it changed was used");
	cr_assert_eq(read_once(a, &l), 1);
}

Test(inflate_cache, turned_off_by_the_environment)
{
	uint8_t a[16];
	int l;
	setenv("JITPROF_DWARF_INFLATE", "nocache", 1);
	cr_assert_eq(lines_zcache_root(root), -1);
	cr_assert_eq(read_once(a, &l), 0);
	cr_assert_eq(exists(entry), 0, "written with the cache off");
	unsetenv("JITPROF_DWARF_INFLATE");
}
