/* out.c - output files created fresh: written unnamed (O_TMPFILE) or under a random O_EXCL
 * temp name, and named only once whole. Nothing already at the name is ever opened, so a
 * FIFO or a link planted there can neither receive our bytes nor stall us. */
#include "safeio/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 when name is absent, a regular file or a symlink (replaced, not followed). */
static int target_ok(int dirfd, const char *name)
{
	struct stat sb;
	if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode) ? 0 : SIO_ENOTREG;
}

/* A fresh O_EXCL file of random name beside name; fd is -1 and -errno returned on failure. */
static int make_temp(struct sio_out *o, int *fd, mode_t mode)
{
	for (int tries = 0; tries < 64; tries++) {
		uint64_t r = 0;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r ^= (uint64_t)getpid() * 0x9e3779b97f4a7c15ull + (uint64_t)tries;
		snprintf(o->tmp, sizeof(o->tmp), ".%.200s.%016llx.tmp", o->name,
			 (unsigned long long)r);
		*fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			     O_CLOEXEC, mode);
		if (*fd >= 0 || errno != EEXIST)
			return *fd >= 0 ? 0 : -errno;
	}
	return -EEXIST;
}

static int proc_fd_path(int fd, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/proc/self/fd/%d", fd);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

int sio_out_open(struct sio_out *o, int dirfd, const char *name, mode_t mode)
{
	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = -1;
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (strlen(name) >= sizeof(o->name))
		return -ENAMETOOLONG;
	int rc = target_ok(dirfd, name);
	if (rc)
		return rc;
	snprintf(o->name, sizeof(o->name), "%s", name);
	if ((o->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	/* An unnamed file costs one directory operation (the link) instead of two, and needs
	 * /proc to be named. */
	if (access("/proc/self/fd", X_OK) == 0) {
		o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
		if (o->fd >= 0) {
			o->unnamed = 1;
			return 0;
		}
	}
	if ((rc = make_temp(o, &o->fd, mode)) < 0) {
		close(o->dirfd);
		o->dirfd = -1;
		o->tmp[0] = 0;
	}
	return rc;
}

int sio_out_open_path(struct sio_out *o, const char *path, mode_t mode)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = -1;
	if (!*base)
		return -EISDIR;
	int n = slash ? snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path)
		      : snprintf(dir, sizeof(dir), ".");
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	int dfd = open(n ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	int rc = sio_out_open(o, dfd, base, mode);
	close(dfd);
	return rc;
}

int sio_out_commit(struct sio_out *o)
{
	char proc[64];
	int rc = 0;
	if (o->fd < 0 || o->dirfd < 0)
		return -EBADF;
	if (o->unnamed) {
		rc = proc_fd_path(o->fd, proc, sizeof(proc));
		if (!rc && !linkat(AT_FDCWD, proc, o->dirfd, o->name, AT_SYMLINK_FOLLOW))
			goto out;
		if (!rc && errno != EEXIST)
			rc = -errno;
		/* The name exists: replacing it takes a temp name and a rename. */
		if (!rc && !(rc = target_ok(o->dirfd, o->name))) {
			int dummy = -1;
			if ((rc = make_temp(o, &dummy, 0600)) == 0) {
				close(dummy);
				unlinkat(o->dirfd, o->tmp, 0);
				if (linkat(AT_FDCWD, proc, o->dirfd, o->tmp, AT_SYMLINK_FOLLOW))
					rc = -errno;
			}
			o->unnamed = rc != 0;
		}
		if (rc)
			goto out;
	}
	if (!o->unnamed) {
		if (!(rc = target_ok(o->dirfd, o->name)) &&
		    renameat(o->dirfd, o->tmp, o->dirfd, o->name))
			rc = -errno;
	}
out:
	if (close(o->fd) && !rc)
		rc = -errno;
	o->fd = -1;
	if (rc && !o->unnamed && o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	close(o->dirfd);
	o->dirfd = -1;
	return rc;
}

void sio_out_abort(struct sio_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0) {
		if (!o->unnamed && o->tmp[0])
			unlinkat(o->dirfd, o->tmp, 0);
		close(o->dirfd);
	}
	o->fd = o->dirfd = -1;
}
