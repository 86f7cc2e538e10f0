/* test_open.c - safeio/open.c and read.c: links, "..", FIFOs and devices are refused without
 * blocking, both with openat2 and with the component walk; whole-file reads respect limits. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio_int.h"
#include "tests/unit/safeio/siotest.h"

static void setup(void)
{
	char p[4096];
	sio_fixture_open("sio");
	snprintf(p, sizeof(p), "%s/sub", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/sub/f", dir);
	cr_assert_eq(tu_write_file(p, "hello", 5), 0);
	snprintf(p, sizeof(p), "%s/fifo", dir);
	cr_assert_eq(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/lnk", dir);
	cr_assert_eq(symlink("sub", p), 0);
	snprintf(p, sizeof(p), "%s/flnk", dir);
	cr_assert_eq(symlink("sub/f", p), 0);
	snprintf(p, sizeof(p), "%s/out", dir);
	cr_assert_eq(symlink("/etc/passwd", p), 0);
}

typedef int (*opener)(int, const char *);

static void check_beneath(opener op)
{
	char buf[8] = { 0 };
	int fd = op(dfd, "sub/f");
	cr_assert_geq(fd, 0, "sub/f: %s", strerror(-fd));
	cr_assert_eq(read(fd, buf, sizeof(buf)), 5);
	cr_assert_str_eq(buf, "hello");
	cr_assert_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0, "left non-blocking");
	close(fd);
	cr_assert_geq((fd = op(dfd, "./sub//f")), 0);
	close(fd);
	cr_assert_lt(op(dfd, "lnk/f"), 0, "symlinked directory followed");
	cr_assert_lt(op(dfd, "flnk"), 0, "symlinked file followed");
	cr_assert_lt(op(dfd, "out"), 0, "link out of the directory followed");
	cr_assert_lt(op(dfd, "sub/../sub/f"), 0, "\"..\" accepted");
	cr_assert_lt(op(dfd, "/etc/passwd"), 0, "absolute path accepted");
	cr_assert_eq(op(dfd, "fifo"), SIO_ENOTREG, "FIFO opened (or blocked)");
	cr_assert_eq(op(dfd, "sub"), SIO_ENOTREG, "directory opened as a file");
	cr_assert_eq(op(dfd, "nope"), -ENOENT);
}

Test(beneath, openat2_or_walk, .init = setup, .fini = teardown, .timeout = 20)
{
	check_beneath(sio_open_beneath);
}

Test(beneath, walk, .init = setup, .fini = teardown, .timeout = 20)
{
	check_beneath(sio_open_beneath_walk);
}

Test(regular, fifo_and_devices_refused_without_blocking, .init = setup, .fini = teardown,
     .timeout = 20)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/fifo", dir);
	cr_assert_eq(sio_open_regular(p), SIO_ENOTREG);
	cr_assert_eq(sio_open_regular("/dev/zero"), SIO_ENOTREG);
	snprintf(p, sizeof(p), "%s/flnk", dir);	/* a named library may be a link */
	int fd = sio_open_regular(p);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_str_eq(sio_strerror(SIO_ENOTREG), "not a regular file");
}

Test(read, whole_file_and_limit, .init = setup, .fini = teardown)
{
	uint8_t *b;
	size_t n;
	int fd = sio_open_beneath(dfd, "sub/f");
	cr_assert_geq(fd, 0);
	cr_assert_eq(sio_read_all(fd, 0, &b, &n), 0);
	cr_assert_eq(n, 5);
	cr_assert_str_eq((char *)b, "hello");
	free(b);
	cr_assert_eq(sio_read_all(fd, 5, &b, &n), 0);
	free(b);
	cr_assert_eq(sio_read_all(fd, 4, &b, &n), -EFBIG);
	cr_assert_null(b);
	close(fd);
}

Test(read, file_that_shrinks_after_open_is_read_as_it_is_now, .init = setup, .fini = teardown)
{
	char p[4096];
	static char big[1 << 16];
	snprintf(p, sizeof(p), "%s/sub/big", dir);
	cr_assert_eq(tu_write_file(p, big, sizeof(big)), 0);
	int fd = sio_open_beneath(dfd, "sub/big");
	cr_assert_geq(fd, 0);
	cr_assert_eq(truncate(p, 100), 0);
	uint8_t *b;
	size_t n;
	cr_assert_eq(sio_read_all(fd, 0, &b, &n), 0);
	cr_assert_eq(n, 100);
	free(b);
	close(fd);
}
