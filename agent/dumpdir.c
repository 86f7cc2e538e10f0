/* dumpdir.c - where the agent may write its dump. A service JVM is often told dir=/tmp/...:
 * a directory someone else made, a symlink into a directory of root's, or one where anybody
 * can swap files (feeding inject another user's dump) is refused for a private default. The
 * directory is opened once and judged on its fd; the writer creates beneath that fd, so
 * nothing swapped at the name after the check redirects the dump (issue 34 finding 7). */
#include "agent/dumpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio.h"

#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)

/* $HOME (the passwd entry's home when $HOME is unset). */
static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(geteuid());
		home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
	}
	return home;
}

/* One level beneath cur (comp has no '/'), the last level when last: its fd, or -errno with
 * why set for a refusal (-ELOOP: a symlink we may not follow; -EPERM: a directory to be
 * made where others may rename it). shown is the path so far, for why. */
static int step(int cur, const char *comp, int last, const char *shown, char *why,
		size_t whylen)
{
	char r[120];
	for (int tries = 0; tries < 8; tries++) {
		int fd = openat(cur, comp, DIR_FLAGS | O_NOFOLLOW);
		if (fd >= 0)
			return fd;
		int e = errno;
		struct stat sb;
		if (e == ENOENT) {
			/* Created 0700 below: only in a directory where nobody else can swap our
			 * new directory for her own. */
			if (sio_dir_check(cur, geteuid(), SIO_DIR_STICKY_OK, r, sizeof(r))) {
				snprintf(why, whylen, "to be created in %.60s, which is %.100s",
					 *shown ? shown : "/", r);
				return -EPERM;
			}
			if (mkdirat(cur, comp, 0700) && errno != EEXIST)
				return -errno;
			continue;
		}
		if ((e != ELOOP && e != ENOTDIR) || fstatat(cur, comp, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISLNK(sb.st_mode))
			return -e;
		/* A symlink: the named directory itself never (finding 4); one on the way only
		 * where its owner or root alone may have put it (/var/run -> /run). */
		if (last || sio_dir_check(cur, geteuid(), 0, NULL, 0)) {
			snprintf(why, whylen, "a symlink%s%.60s", last ? "" : " at ",
				 last ? "" : shown);
			return -ELOOP;
		}
		fd = openat(cur, comp, DIR_FLAGS);
		return fd >= 0 ? fd : -errno;
	}
	return -EAGAIN;
}

/* path opened from start (an fd, or AT_FDCWD for path's own start) one component at a time
 * (step); the result checked on its fd. An fd, or -errno with why set for a refusal. */
static int walk(int start, const char *path, char *why, size_t whylen)
{
	char buf[4096], shown[4096];
	size_t n = strlen(path);
	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	int cur = start != AT_FDCWD ? fcntl(start, F_DUPFD_CLOEXEC, 0)
				    : open(path[0] == '/' ? "/" : ".", DIR_FLAGS);
	if (cur < 0)
		return -errno;
	snprintf(shown, sizeof(shown), "%s", path[0] == '/' ? "" : ".");
	char *save = NULL;
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		const char *next = save;	/* what is left, "." and "/" aside */
		while (*next == '/' || (next[0] == '.' && (next[1] == '/' || !next[1])))
			next++;
		size_t sl = strlen(shown);
		snprintf(shown + sl, sizeof(shown) - sl, "/%s", c);
		int fd = step(cur, c, !*next, shown, why, whylen);
		close(cur);
		if (fd < 0)
			return fd;
		cur = fd;
	}
	/* The owner may be root (/tmp is root's, sticky): nobody else replaces our files. */
	int rc = sio_dir_check(cur, geteuid(), SIO_DIR_STICKY_OK, why, whylen);
	if (rc) {
		close(cur);
		return rc == -ENOTDIR ? rc : -EPERM;
	}
	return cur;
}

/* $HOME/.debug/jit, only we write there: $HOME followed as it is, beneath it walked. */
static int private_default(int *fd, char *out, size_t len)
{
	const char *home = home_dir();
	char why[200];
	if (!home)
		return -ENOENT;
	int n = snprintf(out, len, "%s/.debug/jit", home);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	int h = open(home, DIR_FLAGS);
	if (h < 0)
		return -errno;
	*fd = walk(h, ".debug/jit", why, sizeof(why));
	close(h);
	return *fd < 0 ? *fd : 0;
}

int agent_dump_dir_open(const char *dir, int *fd, char *path, size_t len, char *warn,
			size_t warnlen)
{
	char why[200];
	const char *what = "dir";
	warn[0] = 0;
	*fd = -1;
	if (!dir || !*dir) {
		/* the library's default: $JITDUMPDIR (judged as dir= is) or ~/.debug/jit */
		dir = getenv("JITDUMPDIR");
		what = "JITDUMPDIR";
		if (!dir || !*dir)
			return private_default(fd, path, len);
	}
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(path, dir, n);
	path[n] = 0;
	why[0] = 0;
	int rc = walk(AT_FDCWD, path, why, sizeof(why));
	if (rc >= 0) {
		*fd = rc;
		return 0;
	}
	if (!why[0] || rc == -ENOTDIR)
		return rc;	/* unusable (not a directory, no permission): path names it */
	char refused[4096];
	snprintf(refused, sizeof(refused), "%s", path);
	if ((rc = private_default(fd, path, len)) < 0)
		return rc;
	snprintf(warn, warnlen, "%s=%s refused (%s): would have written %s/jit-%d.dump; "
		 "writing in %s instead", what, refused, why, refused, (int)getpid(), path);
	return 0;
}
