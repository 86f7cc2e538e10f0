/* test_buildid.c - lib/buildid.c, the one GNU build-id note reader: raw note sequences (the
 * /sys notes files' layout) with other notes first, cut or lying lengths, and an ELF file
 * checked against libdw's own reader as the oracle. */
#include <criterion/criterion.h>
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "tests/lib/testutil.h"

static size_t put_note(uint8_t *b, uint32_t type, const char *name, const uint8_t *desc,
		       uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	size_t np = (namesz + 3u) & ~3u, dp = (descsz + 3u) & ~3u;
	memcpy(b, &namesz, 4);
	memcpy(b + 4, &descsz, 4);
	memcpy(b + 8, &type, 4);
	memset(b + 12, 0, np + dp);
	memcpy(b + 12, name, namesz);
	memcpy(b + 12 + np, desc, descsz);
	return 12 + np + dp;
}

Test(buildid, raw_notes_other_notes_first)
{
	uint8_t buf[256], id[20];
	static const uint8_t want[20] = { 0xde, 0xad, 0xbe, 0xef, 9, 8, 7 };
	size_t n = put_note(buf, 1, "Linux", (const uint8_t *)"abcde", 5);
	n += put_note(buf + n, NT_GNU_BUILD_ID, "GNU", want, 20);
	cr_assert_eq(jp_notes_build_id(buf, n, id, sizeof(id)), 20);
	cr_assert_eq(memcmp(id, want, 20), 0);
	cr_assert_eq(jp_notes_build_id(buf, n, id, 8), 8, "copies at most max bytes");
	cr_assert_eq(jp_notes_build_id(buf, n - 1, id, sizeof(id)), -ENOENT, "cut");
	uint32_t huge = 0xfffffff0;
	memcpy(buf + 4, &huge, 4);	/* the first note's descsz lies */
	cr_assert_eq(jp_notes_build_id(buf, n, id, sizeof(id)), -ENOENT);
	cr_assert_eq(jp_notes_build_id(buf, 0, id, sizeof(id)), -ENOENT);
}

Test(buildid, elf_file_agrees_with_libdw)
{
	uint8_t id[20];
	const void *want;
	elf_version(EV_CURRENT);
	int fd = open("/proc/self/exe", O_RDONLY);
	cr_assert_geq(fd, 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cr_assert_not_null(elf);
	ssize_t wn = dwelf_elf_gnu_build_id(elf, &want);
	if (wn <= 0) {
		tu_skip_part("this test binary was linked without a build-id");
		cr_assert_eq(jp_elf_build_id(elf, id, sizeof(id)), -ENOENT);
	} else {
		cr_assert_eq(jp_elf_build_id(elf, id, sizeof(id)), wn > 20 ? 20 : wn);
		cr_assert_eq(memcmp(id, want, wn > 20 ? 20 : (size_t)wn), 0);
	}
	elf_end(elf);
	close(fd);
	cr_assert_eq(jp_notes_file_build_id("/nonexistent/notes", id, sizeof(id)), -ENOENT);
}
