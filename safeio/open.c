/* open.c - opening files an untrusted input names: regular files only, never blocking on a
 * FIFO, and beneath a directory without following any link when the caller asks. */
#include "safeio/safeio_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *sio_strerror(int rc)
{
	if (rc == SIO_ENOTREG)
		return "not a regular file";
	return strerror(rc < 0 ? -rc : rc);
}

int sio_regular_or_close(int fd)
{
	struct stat sb;
	int rc = 0;
	if (fd < 0)
		return fd;
	if (fstat(fd, &sb))
		rc = -errno;
	else if (!S_ISREG(sb.st_mode))
		rc = SIO_ENOTREG;
	else {
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
			rc = -errno;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

#define RD_FLAGS (O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

int sio_open_regular(const char *path)
{
	int fd = open(path, RD_FLAGS);
	return sio_regular_or_close(fd < 0 ? -errno : fd);
}

int sio_open_beneath_walk(int dirfd, const char *rel)
{
	char comp[NAME_MAX + 1];
	int cur = dirfd, rc;
	if (rel[0] == '/')
		return -EXDEV;
	for (const char *p = rel;;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		const char *next = p + n;
		while (*next == '/')
			next++;
		int last = !*next;
		if (n > NAME_MAX) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		if (!strcmp(comp, "..")) {
			rc = -EXDEV;
			break;
		}
		if (last) {
			int fd = openat(cur, n ? comp : ".", RD_FLAGS | O_NOFOLLOW);
			rc = sio_regular_or_close(fd < 0 ? -errno : fd);
			break;
		}
		int nfd = openat(cur, n ? comp : ".", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			rc = errno == ENOTDIR || errno == ELOOP ? -ELOOP : -errno;
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = nfd;
		p = next;
	}
	if (cur != dirfd)
		close(cur);
	return rc;
}

int sio_has_dotdot(const char *p)
{
	for (;;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

int sio_open_beneath(int dirfd, const char *rel)
{
	static int no_openat2;	/* racy but idempotent: every thread learns the same */
	if (sio_has_dotdot(rel))
		return -EXDEV;
	if (!__atomic_load_n(&no_openat2, __ATOMIC_RELAXED)) {
		struct open_how how = {
			.flags = RD_FLAGS,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return sio_regular_or_close(fd < 0 ? -errno : (int)fd);
		/* ENOSYS: an old kernel; EPERM: a seccomp filter that does not know openat2. */
		__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
	}
	return sio_open_beneath_walk(dirfd, rel);
}
