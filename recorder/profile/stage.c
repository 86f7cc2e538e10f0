/* stage.c - a JVM in another mount namespace (a container) sees neither our libagent.so nor
 * our data directory: the agent is copied into its /tmp and its dumps are written in a
 * directory of its /tmp, both reached through /proc/PID/root and handed to the JVM's user,
 * and the dumps are brought back into the data directory after the agent stopped. */
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

/* Copies from -> to through a temporary name and a rename: a copy the JVM has mapped is
 * never rewritten in place. */
static int copy_file(const char *from, const char *to, uid_t uid, gid_t gid, mode_t mode)
{
	char tmp[4200], buf[1 << 16];
	int in, out, rc = 0;
	ssize_t n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", to, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if ((in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	unlink(tmp);
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)) < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			break;
		}
	if (n < 0)
		rc = -errno;
	if (!rc && geteuid() == 0 && fchown(out, uid, gid))
		rc = -errno;
	if (close(out) && !rc)
		rc = -errno;
	close(in);
	if (!rc && rename(tmp, to))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

static int same_bytes(const char *a, const char *b)
{
	size_t la, lb;
	int same = 0;
	FILE *fa = fopen(a, "re"), *fb = fopen(b, "re");

	if (fa && fb) {
		char x[1 << 14], y[1 << 14];
		do {
			la = fread(x, 1, sizeof(x), fa);
			lb = fread(y, 1, sizeof(y), fb);
		} while (la == lb && la && !memcmp(x, y, la));
		same = la == lb && la == 0 && !ferror(fa) && !ferror(fb);
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

int prof_stage_agent(const char *root, const char *lib, uid_t uid, gid_t gid, char *target,
		     size_t len, char *err, size_t errlen)
{
	char ours[4200];
	int rc;

	/* One name per user: a second profile loads the same library, which the JVM then
	 * finds already loaded (dlopen by path) and the agent restarts. */
	snprintf(target, len, "/tmp/.jitprof-libagent-%u.so", (unsigned)uid);
	if (snprintf(ours, sizeof(ours), "%s%s", root, target) >= (int)sizeof(ours))
		return -ENAMETOOLONG;
	if (same_bytes(lib, ours))
		return 0;
	if ((rc = copy_file(lib, ours, uid, gid, 0644))) {
		snprintf(err, errlen, "cannot copy libagent.so to %s: %s", ours, strerror(-rc));
		return rc;
	}
	return 0;
}

int prof_stage_dir(const char *root, uid_t uid, gid_t gid, char *target, size_t tlen,
		   char *ours, size_t olen, char *err, size_t errlen)
{
	snprintf(target, tlen, "/tmp/.jitprof-profile-%d", (int)getpid());
	snprintf(ours, olen, "%s%s", root, target);
	prof_clear_dir(ours);
	rmdir(ours);
	if (mkdir(ours, 0700) || (geteuid() == 0 && chown(ours, uid, gid))) {
		snprintf(err, errlen, "cannot create %s: %s", ours, strerror(errno));
		return -errno;
	}
	return 0;
}

/* jit-N.dump and its companion: what the agent writes. */
static int is_dump_file(const char *name)
{
	return !strncmp(name, "jit-", 4) && (strstr(name, ".dump") != NULL);
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
	return is_dump_file(name) || prof_jvm_log_pid(name) || prof_node_file_pid(name) ||
	       !strcmp(name, "perf.data") ||
	       !strcmp(name, "perf.jit.data") || (!strncmp(name, "jitted-", 7) &&
						  strstr(name, ".so"));
}

void prof_clear_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (is_profile_file(de->d_name)) {
			char p[4200];
			if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) < (int)sizeof(p))
				unlink(p);
		}
	closedir(d);
}

int prof_collect_dumps(const char *from, const char *to, char *err, size_t errlen)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		snprintf(err, errlen, "%s: %s", from, strerror(errno));
		return -errno;
	}
	while (!rc && (de = readdir(d))) {
		char a[4200], b[4200];
		if (!is_dump_file(de->d_name))
			continue;
		if (snprintf(a, sizeof(a), "%s/%s", from, de->d_name) >= (int)sizeof(a) ||
		    snprintf(b, sizeof(b), "%s/%s", to, de->d_name) >= (int)sizeof(b))
			continue;
		if (rename(a, b) && (rc = copy_file(a, b, getuid(), getgid(), 0644)))
			snprintf(err, errlen, "cannot bring %s to %s: %s", a, b, strerror(-rc));
		unlink(a);
	}
	closedir(d);
	if (!rc)
		rmdir(from);
	return rc;
}
