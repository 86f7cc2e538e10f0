/* test_beneath.c - safeio/beneath.c: directories opened and created beneath a directory fd
 * never through a link (a symlinked component of the build-id cache pointing elsewhere gets
 * nothing created behind it), with openat2 and with the component walk alike. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio.h"
#include "tests/unit/safeio/siotest.h"

static char elsewhere[4096];

static void setup(void)
{
	char p[4096];
	sio_fixture_open("siob");
	snprintf(p, sizeof(p), "%s/cache", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	cr_assert_eq(mkdir(elsewhere, 0755), 0);
	snprintf(p, sizeof(p), "%s/cache/tmp", dir);
	cr_assert_eq(symlink(elsewhere, p), 0);
	snprintf(p, sizeof(p), "%s/cache/file", dir);
	cr_assert_eq(tu_write_file(p, "x", 1), 0);
}

/* The fixture's "cache" directory, as a caller opens its cache root. */
static int cache_fd(void)
{
	int fd = openat(dfd, "cache", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	return fd;
}

static int exists(const char *rel)
{
	char p[4096];
	struct stat sb;
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return lstat(p, &sb) == 0;
}

Test(beneath_dirs, creates_missing_levels, .init = setup, .fini = teardown, .timeout = 20)
{
	int root = cache_fd();
	int fd = sio_mkdirs_beneath(root, "usr/lib/x.so/abcd", 0755);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(mkdirat(fd, "inside", 0755), 0, "the fd is the deepest directory");
	close(fd);
	cr_assert(exists("cache/usr/lib/x.so/abcd/inside"));
	/* existing: opened, not an error; a trailing slash names the same directory */
	cr_assert_geq((fd = sio_mkdirs_beneath(root, "usr/lib/x.so/abcd/", 0755)), 0);
	close(fd);
	cr_assert_geq((fd = sio_opendir_beneath(root, "usr/lib")), 0);
	close(fd);
	cr_assert_eq(sio_opendir_beneath(root, "usr/none"), -ENOENT);
	close(root);
}

Test(beneath_dirs, symlinked_component_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	int root = cache_fd();
	/* ~/.debug/tmp -> elsewhere: nothing made behind the link, for a new and an old path */
	cr_assert_eq(sio_mkdirs_beneath(root, "tmp/j/jitted-1-2.so/abcd", 0755), -ELOOP);
	cr_assert_eq(sio_mkdirs_beneath(root, "tmp", 0755), -ELOOP);
	cr_assert_eq(sio_opendir_beneath(root, "tmp"), -ELOOP);
	cr_assert_eq(sio_opendir_beneath(root, "tmp/"), -ELOOP);
	cr_assert(!exists("elsewhere/j"), "a directory was created through the link");
	/* a file where a directory should be */
	cr_assert_eq(sio_mkdirs_beneath(root, "file/x", 0755), -ENOTDIR);
	cr_assert_eq(sio_opendir_beneath(root, "file"), -ENOTDIR);
	/* climbing out or starting at / */
	cr_assert_eq(sio_mkdirs_beneath(root, "usr/../../out", 0755), -EXDEV);
	cr_assert_eq(sio_mkdirs_beneath(root, "/tmp/x", 0755), -EXDEV);
	cr_assert_eq(sio_opendir_beneath(root, ".."), -EXDEV);
	cr_assert(!exists("out"));
	close(root);
}

/* A link that appears in the middle of a path being created is found the same way. */
Test(beneath_dirs, deep_link_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	char p[4096];
	int root = cache_fd();
	int fd = sio_mkdirs_beneath(root, "a/b", 0755);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/cache/a/b/c", dir);
	cr_assert_eq(symlink(elsewhere, p), 0);
	cr_assert_eq(sio_mkdirs_beneath(root, "a/b/c/d/e", 0755), -ELOOP);
	cr_assert(!exists("elsewhere/d"));
	close(root);
}
