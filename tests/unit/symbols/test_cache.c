/* test_cache.c - recorder/symbols/cache.c: perf's build-id cache is read through its one
 * link (.build-id/xx/rest -> ../../<path>/<id>) and never through a link planted inside it:
 * a symlinked directory, a linked file, or a .build-id link aimed outside the cache are all
 * refused (issue 16). */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"

static char *top;
static char root[PATH_MAX], outside[PATH_MAX];
static struct sym_build_id id;
#define HEX "0123456789abcdef0123456789abcdef01234567"

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[PATH_MAX * 4];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), fmt, a, b);
	cr_assert_eq(tu_sh(&r, cmd, 10), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err ? r.err : "");
	tu_result_free(&r);
}

static void setup(void)
{
	top = tu_tmpdir("sym-cache");
	cr_assert(top);
	snprintf(root, sizeof(root), "%s/cache", top);
	snprintf(outside, sizeof(outside), "%s/outside", top);
	cr_assert_eq(sym_build_id_parse(HEX, &id), 0);
	/* perf's layout, and the same file outside the cache */
	sh("mkdir -p '%s/usr/lib/x.so/" HEX "' '%s/" HEX "'", root, outside);
	sh("printf inside > '%s/usr/lib/x.so/" HEX "/elf' && printf outside > '%s/" HEX "/elf'",
	   root, outside);
	sh("mkdir -p '%s/.build-id/01' && ln -s ../../usr/lib/x.so/" HEX
	   " '%s/.build-id/01/23456789abcdef0123456789abcdef01234567'", root, root);
}

static void teardown(void)
{
	tu_rmtree(top);
	free(top);
}

static void expect(int fd, const char *want)
{
	char buf[32] = { 0 };
	cr_assert_geq(fd, 0, "not opened: %s", strerror(-fd));
	cr_assert_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	cr_assert_str_eq(buf, want);
}

static void relink(const char *target)
{
	sh("ln -sfn '%s' '%s/.build-id/01/23456789abcdef0123456789abcdef01234567'", target, root);
}

Test(sym_cache, perf_layout_read, .init = setup, .fini = teardown, .timeout = 20)
{
	expect(sym_cache_open(root, &id, NULL, "elf"), "inside");
	expect(sym_cache_open(root, &id, "/usr/lib/x.so", "elf"), "inside");
	cr_assert_eq(sym_cache_open(root, &id, NULL, "debug"), -ENOENT);
	cr_assert_eq(sym_cache_open(root, &id, NULL, "../elf"), -EINVAL);
}

Test(sym_cache, link_out_of_the_cache_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	char t[PATH_MAX + 64];
	snprintf(t, sizeof(t), "%s/" HEX, outside);
	relink(t);	/* absolute */
	cr_assert_lt(sym_cache_open(root, &id, NULL, "elf"), 0, "absolute link followed");
	relink("../../../outside/" HEX);	/* climbs out */
	cr_assert_lt(sym_cache_open(root, &id, NULL, "elf"), 0, "link out of the cache followed");
}

Test(sym_cache, planted_links_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	/* a directory on the way replaced by a link to the outside copy */
	sh("mv '%s/usr/lib/x.so' '%s/moved'", root, top);
	sh("ln -s '%s' '%s/usr/lib/x.so'", outside, root);
	cr_assert_eq(sym_cache_open(root, &id, NULL, "elf"), -ELOOP, "symlinked directory");
	cr_assert_eq(sym_cache_open(root, &id, "usr/lib/x.so", "elf"), -ELOOP);
	/* the file itself a link */
	sh("rm '%s/usr/lib/x.so' && mkdir -p '%s/usr/lib/x.so/" HEX "'", root, root);
	sh("ln -s '%s/" HEX "/elf' '%s/usr/lib/x.so/" HEX "/elf'", outside, root);
	cr_assert_lt(sym_cache_open(root, &id, NULL, "elf"), 0, "linked file followed");
	/* .build-id itself a link */
	sh("mv '%s/.build-id' '%s/bid'", root, top);
	sh("ln -s '%s/bid' '%s/.build-id'", top, root);
	cr_assert_eq(sym_cache_open(root, &id, NULL, "elf"), -ELOOP);
}

/* The old layout: .build-id/xx/rest is the ELF itself. */
Test(sym_cache, old_layout_file, .init = setup, .fini = teardown, .timeout = 20)
{
	sh("rm '%s/.build-id/01/23456789abcdef0123456789abcdef01234567' && printf old > "
	   "'%s/.build-id/01/23456789abcdef0123456789abcdef01234567'", root, root);
	expect(sym_cache_open(root, &id, NULL, "elf"), "old");
	cr_assert_lt(sym_cache_open(root, &id, NULL, "debug"), 0);
}
