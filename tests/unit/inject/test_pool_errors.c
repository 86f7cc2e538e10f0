/* test_pool_errors.c - recorder/inject/elfpool.c's messages: an ELF that cannot be placed
 * beside its dump is said through the caller's log with the whole directory and name (they
 * were cut at 180 and 190 bytes when the message went into a char buffer). The name is taken
 * by a directory, which no user (root neither) can replace with a file. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/inject/inject_int.h"
#include "synth/synth.h"
#include "tests/lib/testutil.h"

Test(pool_errors, a_failed_elf_names_its_whole_long_directory)
{
	char *top = tu_tmpdir("poolerr"), deep[4096], taken[4200], long_a[201], long_b[201];
	memset(long_a, 'a', 200);
	memset(long_b, 'b', 200);
	long_a[200] = long_b[200] = 0;
	snprintf(deep, sizeof(deep), "%s/%s", top, long_a);
	cr_assert_eq(mkdir(deep, 0755), 0);
	snprintf(deep, sizeof(deep), "%s/%s/%s", top, long_a, long_b);
	cr_assert_eq(mkdir(deep, 0755), 0);
	snprintf(taken, sizeof(taken), "%s/jitted-1-1.so", deep);
	cr_assert_eq(mkdir(taken, 0755), 0);

	struct inj_pool *pool;
	cr_assert_eq(inj_pool_new(&pool, 1, NULL), 0);
	struct inj_dump d = { .path = "jit-1.dump", .dir = deep, .beside = 1,
			      .dirfd = open(deep, O_PATH | O_DIRECTORY | O_CLOEXEC) };
	cr_assert_geq(d.dirfd, 0);
	uint8_t bytes[16] = { 0x7f, 'E', 'L', 'F' };
	struct synth_elf elf = { .data = bytes, .size = sizeof(bytes) };
	char err[2048];
	cr_assert_lt(inj_pool_place(pool, &d, &elf, taken, JP_ERRBUF_LOG(err)), 0);
	cr_assert(strstr(err, deep) && strstr(err, "/jitted-1-1.so: "), "the whole path: %s", err);
	inj_pool_finish(pool, NULL, NULL, JP_LOG_WARN);
	close(d.dirfd);
	tu_rmtree(top);
	free(top);
}
