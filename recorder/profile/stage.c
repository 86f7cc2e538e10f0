/* stage.c - a JVM of another user, or in another mount namespace (a container), does not
 * write into our data directory: its dumps go to a fresh directory of its /tmp and, in another
 * mount namespace, the agent is copied there too, both reached through /proc/PID/root by a
 * process running as the JVM's user (cmd_profile_attach.c), never by root. Also what a profile
 * clears from its data directory, and node's files. */
#include "recorder/profile/profile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies the bytes of fd (from offset 0) to `to` through a temporary name and a rename: a copy
 * the JVM has mapped is never rewritten in place. */
static int copy_fd(int in, const char *to, mode_t mode)
{
	char tmp[4200], buf[1 << 16];
	int out, rc = 0;
	ssize_t n;
	off_t off = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", to, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)) < 0)
		return -errno;
	while ((n = pread(in, buf, sizeof(buf), off)) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			break;
		}
		off += n;
	}
	if (n < 0)
		rc = -errno;
	if (!rc && fchmod(out, mode))
		rc = -errno;
	if (close(out) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, to))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* 1 when the file at path holds the bytes of fd. */
static int same_bytes(int fd, const char *path)
{
	char x[1 << 14], y[1 << 14];
	int other = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), same = 0;
	off_t off = 0;
	ssize_t la, lb;

	if (other < 0)
		return 0;
	do {
		la = pread(fd, x, sizeof(x), off);
		lb = read(other, y, sizeof(y));
		off += la > 0 ? la : 0;
	} while (la > 0 && la == lb && !memcmp(x, y, (size_t)la));
	same = la == 0 && lb == 0;
	close(other);
	return same;
}

int prof_stage_agent(const char *root, int libfd, char *target, size_t len,
		     const struct jp_log *log)
{
	char ours[4200];
	int rc;

	/* One name per user: a second profile loads the same library, which the JVM then
	 * finds already loaded (dlopen by path) and the agent restarts. */
	snprintf(target, len, "/tmp/.jitprof-libagent-%u.so", (unsigned)geteuid());
	if (snprintf(ours, sizeof(ours), "%s%s", root, target) >= (int)sizeof(ours))
		return -ENAMETOOLONG;
	if (same_bytes(libfd, ours))
		return 0;
	if ((rc = copy_fd(libfd, ours, 0644))) {
		jp_logf(log, JP_LOG_ERROR,
			"cannot copy libagent.so to %s: %s", ours, strerror(-rc));
		return rc;
	}
	return 0;
}

int prof_stage_dir(const char *root, char *target, size_t tlen, char *ours, size_t olen,
		   const struct jp_log *log)
{
	int n = snprintf(ours, olen, "%s/tmp/.jitprof-profile-XXXXXX", root);

	if (n < 0 || (size_t)n >= olen || strlen(ours + strlen(root)) >= tlen)
		return -ENAMETOOLONG;
	if (!mkdtemp(ours)) {
		int e = errno;
		jp_logf(log, JP_LOG_ERROR, "cannot create a directory in %s/tmp: %s", root,
			strerror(e));
		return -e;
	}
	snprintf(target, tlen, "%s", ours + strlen(root));
	return 0;
}

int prof_is_dump_file(const char *name)
{
	size_t n = strlen(name);
	return !strncmp(name, "jit-", 4) && (strstr(name, ".dump") != NULL ||
					     (n > 8 && !strcmp(name + n - 4, ".jfr")));
}

/* A positive decimal pid, without a leading zero, ending where *end points. */
static pid_t pid_at(const char *s, const char **end)
{
	unsigned long v = 0;
	const char *p = s;

	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9' && v <= INT_MAX)
		v = v * 10 + (unsigned long)(*p++ - '0');
	*end = p;
	return v <= INT_MAX ? (pid_t)v : 0;
}

pid_t prof_node_file_pid(const char *name)
{
	const char *end;
	pid_t pid;

	if (!strncmp(name, "jit-", 4))
		return (pid = pid_at(name + 4, &end)) && !strcmp(end, ".dump") ? pid : 0;
	if (strncmp(name, "isolate-0x", 10))
		return 0;
	const char *p = name + 10;
	while (isxdigit((unsigned char)*p))
		p++;
	if (p == name + 10 || *p != '-')
		return 0;
	return (pid = pid_at(p + 1, &end)) && !strcmp(end, "-v8.log") ? pid : 0;
}

int prof_move_node_files(const char *from, const char *to, const pid_t *pids, int n)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int moved = 0;

	while (d && (de = readdir(d))) {
		pid_t pid = prof_node_file_pid(de->d_name);
		char a[4200], b[4200];
		struct stat st;
		int ours = 0;
		for (int i = 0; pid && i < n; i++)
			ours |= pids[i] == pid;
		if (!ours || snprintf(a, sizeof(a), "%s/%s", from, de->d_name) >= (int)sizeof(a) ||
		    snprintf(b, sizeof(b), "%s/%s", to, de->d_name) >= (int)sizeof(b) ||
		    lstat(a, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;	/* in a shared directory, only what our process wrote */
		if (!rename(a, b))
			moved += !strncmp(de->d_name, "jit-", 4);
	}
	if (d)
		closedir(d);
	return moved;
}

/* What a profile leaves in its data directory. */
static int is_profile_file(const char *name)
{
	return prof_is_dump_file(name) || prof_jvm_log_pid(name) || prof_node_file_pid(name) ||
	       !strcmp(name, "perf.data") ||
	       !strcmp(name, "perf.jit.data") || (!strncmp(name, "jitted-", 7) &&
						  strstr(name, ".so"));
}

void prof_clear_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* unlinkat removes a name, never what a link there points to */
	while ((de = readdir(d)))
		if (is_profile_file(de->d_name))
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
}
