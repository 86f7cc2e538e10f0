/* beneath.c - directories beneath a directory fd, opened or created without following any
 * link: the build-id cache is walked this way, so a symlink planted at one of its components
 * (~/.debug/tmp -> /root) can never carry a write or a read outside the cache. */
#include "safeio/safeio_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Why name (beneath dirfd) could not be opened as a directory: a link is -ELOOP, anything
 * else that is there -ENOTDIR, so the caller's message says which. */
static int why_not_dir(int dirfd, const char *name, int err)
{
	struct stat sb;
	if ((err == ENOTDIR || err == ELOOP) && !fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW))
		return S_ISLNK(sb.st_mode) ? -ELOOP : -ENOTDIR;
	return -err;
}

/* One O_NOFOLLOW component at a time; a link anywhere stops the walk with -ELOOP. */
static int opendir_walk(int dirfd, const char *rel)
{
	char comp[NAME_MAX + 1];
	int cur = dirfd, rc = 0;
	for (const char *p = rel;;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n > NAME_MAX) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		int nfd = openat(cur, n ? comp : ".", DIR_FLAGS);
		if (nfd < 0) {
			rc = why_not_dir(cur, comp, errno);
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = nfd;
		p += n;
		while (*p == '/')
			p++;
		if (!*p)
			return cur;
	}
	if (cur != dirfd)
		close(cur);
	return rc;
}

int sio_opendir_beneath(int dirfd, const char *rel)
{
	static int no_openat2;	/* as in sio_open_beneath: every thread learns the same */
	if (rel[0] == '/' || sio_has_dotdot(rel))
		return -EXDEV;
	if (!__atomic_load_n(&no_openat2, __ATOMIC_RELAXED)) {
		struct open_how how = {
			.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS && errno != EPERM && errno != ELOOP && errno != ENOTDIR &&
		    errno != EAGAIN)
			return -errno;
		if (errno == ENOSYS || errno == EPERM)
			__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
		/* ELOOP/ENOTDIR: the walk finds the component and says what it is; EAGAIN (a
		 * rename raced RESOLVE_BENEATH's check): the walk needs no retry. */
	}
	return opendir_walk(dirfd, rel);
}

/* rel is ours to cut: the parent is made first when rel is missing, deepest first, so a
 * warm cache costs one open and a new entry one open per missing level plus its mkdir. */
static int mkdirs(int dirfd, char *rel, mode_t mode)
{
	int fd = sio_opendir_beneath(dirfd, rel);
	if (fd != -ENOENT)
		return fd;
	char *slash = strrchr(rel, '/');
	const char *name = rel;
	int pfd = dirfd;
	if (slash) {
		*slash = 0;
		pfd = mkdirs(dirfd, rel, mode);
		*slash = '/';
		if (pfd < 0)
			return pfd;
		name = slash + 1;
	}
	int rc = 0;
	if (mkdirat(pfd, name, mode) && errno != EEXIST)
		rc = -errno;
	/* O_NOFOLLOW again: a link put at the name after our mkdir is refused, not followed. */
	if (!rc && (fd = openat(pfd, name, DIR_FLAGS)) < 0)
		rc = why_not_dir(pfd, name, errno);
	if (pfd != dirfd)
		close(pfd);
	return rc ? rc : fd;
}

int sio_mkdirs_beneath(int dirfd, const char *rel, mode_t mode)
{
	size_t n = strlen(rel);
	if (rel[0] == '/' || sio_has_dotdot(rel))
		return -EXDEV;
	if (!n || n >= PATH_MAX)
		return n ? -ENAMETOOLONG : -EINVAL;
	char *copy = malloc(n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rel, n + 1);
	while (n > 1 && copy[n - 1] == '/')	/* "a/b/" names "a/b" */
		copy[--n] = 0;
	int rc = mkdirs(dirfd, copy, mode);
	free(copy);
	return rc;
}
