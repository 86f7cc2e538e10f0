/* test_dir.c - safeio/dir.c: who may own a directory we trust, and which modes are refused;
 * who may own a file a recording names. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio.h"
#include "tests/lib/testutil.h"

static int check_mode(mode_t mode, uid_t uid, int flags)
{
	char *d = tu_tmpdir("siodir");
	cr_assert(d);
	cr_assert_eq(chmod(d, mode), 0);
	int fd = open(d, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	char why[128] = "";
	int rc = sio_dir_check(fd, uid, flags, why, sizeof(why));
	cr_assert(rc == 0 || why[0], "refused without a reason");
	close(fd);
	tu_rmtree(d);
	free(d);
	return rc;
}

Test(dir, modes)
{
	uid_t me = geteuid();
	cr_assert_eq(check_mode(0700, me, 0), 0);
	cr_assert_eq(check_mode(0775, me, 0), 0, "group write is the owner's choice");
	cr_assert_eq(check_mode(0777, me, 0), -EPERM);
	cr_assert_eq(check_mode(01777, me, 0), -EPERM);
	cr_assert_eq(check_mode(01777, me, SIO_DIR_STICKY_OK), 0);
	cr_assert_eq(check_mode(0777, me, SIO_DIR_STICKY_OK), -EPERM);
}

Test(dir, owner)
{
	uid_t me = geteuid(), other = me == 12345 ? 12346 : 12345;
	/* The directory is ours: for another uid it is trusted only when we are root. */
	int rc = check_mode(0755, other, 0);
	cr_assert_eq(rc, me == 0 ? 0 : -EPERM);
	cr_assert_eq(check_mode(0755, other, SIO_DIR_OWNER_ONLY), -EPERM);
	int fd = open("/dev/null", O_RDONLY);
	cr_assert_eq(sio_dir_check(fd, me, 0, NULL, 0), -ENOTDIR);
	close(fd);
}

/* A file a recording names: the runner's or root's, or refused with its owner named. */
Test(dir, file_owner)
{
	struct stat sb = { .st_uid = 54321 };
	char why[128] = "";
	cr_assert_eq(sio_owner_check(&sb, 54321, why, sizeof(why)), 0);
	cr_assert_eq(sio_owner_check(&sb, 1000, why, sizeof(why)), -EPERM);
	cr_assert_str_eq(why, "owned by uid 54321, not by uid 1000 or root");
	cr_assert_eq(sio_owner_check(&sb, 1000, NULL, 0), -EPERM);
	sb.st_uid = 0;
	cr_assert_eq(sio_owner_check(&sb, 1000, why, sizeof(why)), 0, "root's is trusted");
}
