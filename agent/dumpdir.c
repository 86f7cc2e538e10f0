/* dumpdir.c - where the agent may write its dump. A service JVM is often told dir=/tmp/...:
 * a directory someone else made, a symlink into a directory of root's, or one where anybody
 * can swap files (feeding inject another user's dump) is refused for a private default. */
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

/* $HOME/.debug/jit (the passwd entry's home when $HOME is unset): only we write there. */
static int private_default(char *out, size_t len)
{
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(geteuid());
		home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
	}
	if (!home)
		return -ENOENT;
	int n = snprintf(out, len, "%s/.debug/jit", home);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A dir= that does not exist yet is created 0700 by the writer, components and all: then the
 * nearest existing ancestor must be one nobody else can rename things in, or she could swap
 * our new directory for her own. 0, or -EPERM with the reason in why. */
static int check_ancestor(const char *path, char *why, size_t whylen)
{
	char a[4096], r[100];
	snprintf(a, sizeof(a), "%s", path);
	for (;;) {
		char *slash = strrchr(a, '/');
		if (!slash)
			snprintf(a, sizeof(a), ".");
		else if (slash == a)
			a[1] = 0;
		else
			*slash = 0;
		int fd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			int rc = sio_dir_check(fd, geteuid(), SIO_DIR_STICKY_OK, r, sizeof(r));
			close(fd);
			if (rc)
				snprintf(why, whylen, "to be created in %.60s, which is %s", a, r);
			return rc ? -EPERM : 0;
		}
		if (errno != ENOENT || !strcmp(a, "/") || !strcmp(a, "."))
			return 0;	/* unusable: the writer says why */
	}
}

int agent_dump_dir(const char *dir, char *out, size_t len, char *warn, size_t warnlen)
{
	char path[4096], why[200];
	const char *what = "dir";
	warn[0] = 0;
	if (!dir || !*dir) {
		/* the library's default: $JITDUMPDIR (judged as dir= is) or ~/.debug/jit */
		dir = getenv("JITDUMPDIR");
		what = "JITDUMPDIR";
		if (!dir || !*dir) {
			out[0] = 0;
			return 0;
		}
	}
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')	/* a trailing slash would follow a symlink */
		n--;
	if (n >= sizeof(path) || n >= len)
		return -ENAMETOOLONG;
	memcpy(path, dir, n);
	path[n] = 0;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = 0;
	struct stat sb;
	if (fd < 0 && (errno == ELOOP || (!lstat(path, &sb) && S_ISLNK(sb.st_mode)))) {
		snprintf(why, sizeof(why), "a symlink");
		rc = -ELOOP;
	} else if (fd < 0 && errno == ENOENT) {
		rc = check_ancestor(path, why, sizeof(why));
	} else if (fd < 0) {
		/* unusable (not a directory, no permission): the writer says which */
		snprintf(out, len, "%s", path);
		return 0;
	} else {
		/* The owner may be root (/tmp is root's, sticky): nobody else replaces our files. */
		rc = sio_dir_check(fd, geteuid(), SIO_DIR_STICKY_OK, why, sizeof(why));
		close(fd);
	}
	if (!rc) {
		snprintf(out, len, "%s", path);
		return 0;
	}
	if ((rc = private_default(out, len)) < 0)
		return rc;
	snprintf(warn, warnlen, "%s=%s refused (%s): would have written %s/jit-%d.dump; "
		 "writing in %s instead", what, path, why, path, (int)getpid(), out);
	return 0;
}
