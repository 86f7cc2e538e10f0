/* test_no_fd_realpath.c - recorder/symbols/lines.c's realpath: libdw's question for an Elf
 * made from memory (realpath of /proc/self/fd/-1, printed unsigned) is answered "no such file"
 * without a system call, once per dwarf_begin_elf; every other path is resolved as before. */
#include <criterion/criterion.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

Test(no_fd_realpath, other_paths_resolve_as_before)
{
	char *dir = tu_tmpdir("sym-realpath"), in[PATH_MAX + 32], want[PATH_MAX + 32], *got;
	unsigned long before = sym_no_fd_realpaths;
	snprintf(in, sizeof(in), "%s/sub", dir);
	cr_assert_eq(mkdir(in, 0700), 0);
	snprintf(in, sizeof(in), "%s/sub/../sub/.", dir);
	/* the tmpdir itself may sit under a link (/tmp on some machines): its own real path */
	char real_dir[PATH_MAX];
	cr_assert_not_null(realpath(dir, real_dir));
	snprintf(want, sizeof(want), "%s/sub", real_dir);
	cr_assert_not_null(got = realpath(in, NULL), "%s: %s", in, strerror(errno));
	cr_assert_str_eq(got, want);
	free(got);
	char buf[PATH_MAX];
	cr_assert_eq(realpath(in, buf), buf);
	cr_assert_str_eq(buf, want);
	snprintf(in, sizeof(in), "%s/missing", dir);
	errno = 0;
	cr_assert_null(realpath(in, NULL));
	cr_assert_eq(errno, ENOENT);
	/* a real descriptor's path through /proc is still the kernel's answer */
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
	cr_assert_not_null(got = realpath(in, NULL));
	cr_assert_str_eq(got, real_dir);
	free(got);
	close(fd);
	cr_assert_eq(sym_no_fd_realpaths, before, "none of those answered without the kernel");
	errno = 0;
	cr_assert_null(realpath("/proc/self/fd/4294967295", NULL));
	cr_assert_eq(errno, ENOENT);
	cr_assert_eq(sym_no_fd_realpaths, before + 1);
	tu_rmtree(dir);
	free(dir);
}

/* The premise: libdw asks it once per Dwarf made from memory, and reads the DWARF all the
 * same. (Should a later libdw stop asking, this fails, and the shortcut can go.) */
Test(no_fd_realpath, dwarf_begin_elf_from_memory_asks_once)
{
	char *dir = tu_tmpdir("sym-realpath-dw");
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	int fd = open(so, O_RDONLY);
	struct stat st;
	cr_assert(fd >= 0 && fstat(fd, &st) == 0);
	char *image = malloc((size_t)st.st_size);
	cr_assert_eq(read(fd, image, (size_t)st.st_size), st.st_size);
	close(fd);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(image, (size_t)st.st_size);
	cr_assert_not_null(elf);
	unsigned long before = sym_no_fd_realpaths;
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cr_assert_not_null(dw, "%s", dwarf_errmsg(-1));
	cr_assert_eq(sym_no_fd_realpaths, before + 1, "libdw asked %lu times",
		     sym_no_fd_realpaths - before);
	Dwarf_Off off = 0, next;
	size_t hsize;
	cr_assert_eq(dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL), 0, "a unit read");
	dwarf_end(dw);
	elf_end(elf);
	free(image);
	tu_rmtree(dir);
	free(so);
	free(dir);
}
