/* test_create.c - safeio/create.c: a new name gets exactly the bytes and the mode asked for,
 * whatever the umask; anything already at the name (file, link, dangling link, FIFO) is left
 * as it was and answered -EEXIST; a write that fails leaves no name behind. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "safeio/safeio.h"
#include "tests/unit/safeio/siotest.h"

static void setup(void)
{
	sio_fixture_open("siocreate");
}

static char *at(const char *name)
{
	static char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static int create(const char *name, const char *a, const char *b)
{
	struct iovec v[3] = { { (void *)a, strlen(a) }, { (void *)"", 0 },
			      { (void *)b, strlen(b) } };
	return sio_create_new(dfd, name, v, 3, 0644);
}

static void assert_content(const char *path, const char *want)
{
	char *s = tu_read_file(path, NULL);
	cr_assert(s, "%s unreadable", path);
	cr_assert_str_eq(s, want);
	free(s);
}

Test(create, new_file_whole_with_its_mode, .init = setup, .fini = teardown)
{
	umask(077);	/* must not take 0644's read bits away */
	cr_assert_eq(create("jitted-1-2.so", "head", "+tail"), 0);
	assert_content(at("jitted-1-2.so"), "head+tail");
	struct stat sb;
	cr_assert_eq(lstat(at("jitted-1-2.so"), &sb), 0);
	cr_assert(S_ISREG(sb.st_mode));
	cr_assert_eq(sb.st_mode & 07777, 0644, "mode %o", sb.st_mode & 07777);
}

Test(create, existing_file_left_alone, .init = setup, .fini = teardown)
{
	cr_assert_eq(create("f", "old", ""), 0);
	cr_assert_eq(create("f", "new", ""), -EEXIST);
	assert_content(at("f"), "old");
}

Test(create, links_never_followed, .init = setup, .fini = teardown)
{
	cr_assert_eq(create("target", "theirs", ""), 0);
	char *target = strdup(at("target")), *absent = strdup(at("absent"));
	cr_assert_eq(symlink(target, at("link")), 0);
	cr_assert_eq(symlink(absent, at("dangling")), 0);
	cr_assert_eq(create("link", "ours", ""), -EEXIST);
	cr_assert_eq(create("dangling", "ours", ""), -EEXIST);
	assert_content(at("target"), "theirs");
	cr_assert_eq(access(absent, F_OK), -1, "a dangling link was followed");
	free(target);
	free(absent);
	struct stat sb;
	cr_assert_eq(lstat(at("link"), &sb), 0);
	cr_assert(S_ISLNK(sb.st_mode));
}

Test(create, fifo_not_opened, .init = setup, .fini = teardown, .timeout = 10)
{
	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	cr_assert_eq(create("fifo", "x", ""), -EEXIST);	/* would block if it were opened */
}

Test(create, names_of_one_component_only, .init = setup, .fini = teardown)
{
	cr_assert_eq(mkdir(at("sub"), 0755), 0);
	cr_assert_eq(create("sub/x", "x", ""), -EINVAL);
	cr_assert_eq(create("..", "x", ""), -EINVAL);
	cr_assert_eq(create(".", "x", ""), -EINVAL);
	cr_assert_eq(create("", "x", ""), -EINVAL);
	cr_assert_eq(access(at("sub/x"), F_OK), -1);
}

Test(create, failed_write_leaves_no_name, .init = setup, .fini = teardown)
{
	/* A file size limit makes the write stop part way (EFBIG after a short write). */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = { 10, 10 };
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	int rc = create("big", "0123456789abcdef", "ghijklmnop");
	cr_assert_eq(rc, -EFBIG, "%s", sio_strerror(rc));
	cr_assert_eq(access(at("big"), F_OK), -1, "a part-written file was left");
}
