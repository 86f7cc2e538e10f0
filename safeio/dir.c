/* dir.c - whether a directory is safe to write into or to trust what it holds: only its
 * owner (and root) can add, replace or rename the names in it. */
#include "safeio/safeio.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

int sio_dir_check(int dirfd, uid_t uid, int flags, char *why, size_t whylen)
{
	struct stat sb;
	char dummy[8];
	if (!why) {
		why = dummy;
		whylen = sizeof(dummy);
	}
	if (fstat(dirfd, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(why, whylen, "not a directory");
		return -ENOTDIR;
	}
	if (sb.st_uid != uid && (sb.st_uid != 0 || (flags & SIO_DIR_OWNER_ONLY))) {
		snprintf(why, whylen, "owned by uid %u, not by uid %u%s", (unsigned)sb.st_uid,
			 (unsigned)uid, flags & SIO_DIR_OWNER_ONLY ? "" : " or root");
		return -EPERM;
	}
	/* Group write is the owner's choice (user-private groups make it the norm). */
	if ((sb.st_mode & S_IWOTH) && !((flags & SIO_DIR_STICKY_OK) && (sb.st_mode & S_ISVTX))) {
		snprintf(why, whylen, "writable by others without the sticky bit (mode %04o)",
			 (unsigned)(sb.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int sio_owner_check(const struct stat *sb, uid_t uid, char *why, size_t whylen)
{
	if (sb->st_uid == uid || sb->st_uid == 0)
		return 0;
	if (why)
		snprintf(why, whylen, "owned by uid %u, not by uid %u or root", (unsigned)sb->st_uid,
			 (unsigned)uid);
	return -EPERM;
}
