/* test_cache.c - recorder/record/cache.c: what record saves in the build-id cache lands in
 * perf's layout, and a symlink planted inside the cache (a directory on the way, or the file
 * itself) is never followed (issue 16). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/record/record_int.h"
#include "tests/lib/testutil.h"

static char *top;
static char cache[PATH_MAX], elsewhere[PATH_MAX];
static const uint8_t id[4] = { 0xab, 0xcd, 0x01, 0x02 };

static void setup(void)
{
	top = tu_tmpdir("rec-cache");
	cr_assert(top);
	snprintf(cache, sizeof(cache), "%s/cache", top);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", top);
	cr_assert_eq(mkdir(elsewhere, 0755), 0);
}

static void teardown(void)
{
	tu_rmtree(top);
	free(top);
}

static size_t entries(const char *d)
{
	DIR *dp = opendir(d);
	size_t n = 0;
	for (struct dirent *de; dp && (de = readdir(dp));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (dp)
		closedir(dp);
	return n;
}

Test(rec_cache, layout, .init = setup, .fini = teardown, .timeout = 20)
{
	char p[PATH_MAX * 2], t[PATH_MAX];
	cr_assert_eq(rec_cache_save(cache, "/usr/lib/x.so", id, sizeof(id), "elf", "ELF!", 4), 0);
	snprintf(p, sizeof(p), "%s/.build-id/ab/cd0102/elf", cache);	/* perf's way in */
	size_t len;
	char *b = tu_read_file(p, &len);
	cr_assert(b && len == 4 && !memcmp(b, "ELF!", 4));
	free(b);
	snprintf(p, sizeof(p), "%s/.build-id/ab/cd0102", cache);
	ssize_t n = readlink(p, t, sizeof(t) - 1);
	cr_assert_gt(n, 0);
	t[n] = 0;
	cr_assert_str_eq(t, "../../usr/lib/x.so/abcd0102");
	/* again: identical, nothing to do */
	cr_assert_eq(rec_cache_save(cache, "/usr/lib/x.so", id, sizeof(id), "elf", "ELF!", 4), 0);
	cr_assert_eq(rec_cache_save(cache, "/a/../b", id, sizeof(id), "elf", "x", 1), -EINVAL);
}

Test(rec_cache, symlinked_dir_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	char p[PATH_MAX * 2];
	cr_assert_eq(mkdir(cache, 0755), 0);
	snprintf(p, sizeof(p), "%s/usr", cache);
	cr_assert_eq(symlink(elsewhere, p), 0);
	cr_assert_eq(rec_cache_save(cache, "/usr/lib/x.so", id, sizeof(id), "elf", "ELF!", 4),
		     -ELOOP);
	cr_assert_eq(entries(elsewhere), 0, "written through the link");
}

Test(rec_cache, symlink_at_file_replaced, .init = setup, .fini = teardown, .timeout = 20)
{
	char p[PATH_MAX * 2], victim[PATH_MAX + 8];
	snprintf(victim, sizeof(victim), "%s/victim", elsewhere);
	cr_assert_eq(tu_write_file(victim, "keep", 4), 0);
	snprintf(p, sizeof(p), "%s/[vdso]/abcd0102", cache);
	struct tu_result r;
	char cmd[PATH_MAX * 6];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && ln -s '%s' '%s/vdso'", p, victim, p);
	cr_assert_eq(tu_sh(&r, cmd, 10), 0);
	cr_assert_eq(r.status, 0);
	tu_result_free(&r);
	cr_assert_eq(rec_cache_save(cache, "[vdso]", id, sizeof(id), "vdso", "VDSO", 4), 0);
	size_t len;
	char *v = tu_read_file(victim, &len);
	cr_assert(v && len == 4 && !memcmp(v, "keep", 4), "the link's target was written");
	free(v);
	struct stat sb;
	snprintf(p, sizeof(p), "%s/[vdso]/abcd0102/vdso", cache);
	cr_assert_eq(lstat(p, &sb), 0);
	cr_assert(S_ISREG(sb.st_mode));
}
