/* proc.c - what /proc tells about a process we may attach to: its ids, the pid it sees itself
 * as, whether it is a HotSpot JVM that handles SIGQUIT, its mount namespace, and a jitdump it
 * already maps. Nothing here signals or writes anything. */
#include "recorder/attach/attach.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_status(struct att_proc *p, const struct jp_log *log)
{
	char path[64], line[512];
	uint64_t sigcgt = 0;
	int have_uid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p->pid);
	if (!(f = fopen(path, "re"))) {
		int e = errno;
		jp_logf(log, JP_LOG_ERROR, "no process %d (%s)", (int)p->pid, strerror(e));
		return e == ENOENT ? -ESRCH : -e;
	}
	p->nspid = p->pid;
	while (fgets(line, sizeof(line), f)) {
		unsigned r, e;
		if (sscanf(line, "Uid: %u %u", &r, &e) == 2) {
			p->uid = (uid_t)e;
			have_uid = 1;
		} else if (sscanf(line, "Gid: %u %u", &r, &e) == 2) {
			p->gid = (gid_t)e;
		} else if (!strncmp(line, "NSpid:", 6)) {
			/* The last number is the pid in the innermost namespace: the JVM names its
			 * socket and attach file with it. */
			char *s = line + 6, *end;
			for (;;) {
				long v = strtol(s, &end, 10);
				if (end == s)
					break;
				p->nspid = (pid_t)v;
				s = end;
			}
		} else if (sscanf(line, "SigCgt: %" SCNx64, &sigcgt) == 1) {
			p->catches_quit = (sigcgt >> 2) & 1;	/* SIGQUIT = 3 */
		}
	}
	fclose(f);
	if (!have_uid) {
		jp_logf(log, JP_LOG_ERROR, "%s: no Uid line", path);
		return -EPROTO;
	}
	return 0;
}

/* 1 when the mapping's path ends in "/libjvm.so". */
static int is_libjvm(const char *file)
{
	size_t n = strlen(file);
	return n >= 10 && !strcmp(file + n - 10, "/libjvm.so");
}

/* Calls fn(ctx, path) for every mapped file of p until fn returns non-zero (returned). */
static int each_mapping(const struct att_proc *p, int (*fn)(void *ctx, const char *file),
			void *ctx)
{
	char path[64], line[4096 + 128];
	int rc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');
		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		rc = fn(ctx, file);
	}
	fclose(f);
	return rc;
}

/* 1 when the last of the command line's -XX:[+-]DisableAttachMechanism turns it on. */
static int attach_disabled(pid_t pid)
{
	char path[64], buf[1 << 16];
	int fd, on = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
		if (!strcmp(buf + i, "-XX:+DisableAttachMechanism"))
			on = 1;
		else if (!strcmp(buf + i, "-XX:-DisableAttachMechanism"))
			on = 0;
	}
	return on;
}

static int jvm_fn(void *ctx, const char *file)
{
	(void)ctx;
	return is_libjvm(file);
}

int att_proc_read(pid_t pid, struct att_proc *p, const struct jp_log *log)
{
	char a[64], b[64];
	struct stat sa, sb;
	int rc;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (pid <= 0) {
		jp_logf(log, JP_LOG_ERROR, "bad pid %d", (int)pid);
		return -EINVAL;
	}
	if ((rc = read_status(p, log)))
		return rc;
	snprintf(p->root, sizeof(p->root), "/proc/%d/root", (int)pid);
	snprintf(a, sizeof(a), "/proc/%d/ns/mnt", (int)pid);
	snprintf(b, sizeof(b), "/proc/self/ns/mnt");
	p->other_mntns = !stat(a, &sa) && !stat(b, &sb) && sa.st_ino != sb.st_ino;
	rc = each_mapping(p, jvm_fn, NULL);
	if (rc < 0 && rc != -EACCES) {
		jp_logf(log, JP_LOG_ERROR, "/proc/%d/maps: %s", (int)pid, strerror(-rc));
		return rc;
	}
	p->is_jvm = rc == 1;
	p->attach_disabled = p->is_jvm && attach_disabled(pid);
	return 0;
}

int att_check(const struct att_proc *p, const struct jp_log *log)
{
	uid_t me = geteuid();

	if (me != 0 && me != p->uid) {
		jp_logf(log, JP_LOG_ERROR,
			"process %d belongs to uid %u, not to you (uid %u): the JVM "
			"accepts attach requests only from its own user or root", (int)p->pid,
			(unsigned)p->uid, (unsigned)me);
		return -EPERM;
	}
	if (!p->is_jvm) {
		jp_logf(log, JP_LOG_ERROR,
			"process %d is not a Java VM (no libjvm.so in its mappings); "
			"to profile another program use 'jitprof record -p %d'", (int)p->pid,
			(int)p->pid);
		return -EINVAL;
	}
	if (p->attach_disabled) {
		jp_logf(log, JP_LOG_ERROR,
			"Java VM %d was started with -XX:+DisableAttachMechanism: it "
			"accepts no agent after start; restart it without, or launch it under "
			"'jitprof profile -- java ...'", (int)p->pid);
		return -EINVAL;
	}
	if (!p->catches_quit) {
		jp_logf(log, JP_LOG_ERROR,
			"Java VM %d does not handle SIGQUIT (started with -Xrs?): "
			"the attach trigger would kill it, so it is not sent", (int)p->pid);
		return -EINVAL;
	}
	return 0;
}

struct dump_find {
	const struct att_proc *p;
	char *path;
	size_t len;
};

static int dump_fn(void *ctx, const char *file)
{
	struct dump_find *d = ctx;
	const char *s = strrchr(file, '/') + 1;

	/* "jit-<digits>.dump" exactly: not the companion, not a deleted file. */
	if (strncmp(s, "jit-", 4))
		return 0;
	for (s += 4; *s >= '0' && *s <= '9'; s++)
		;
	if (s == strrchr(file, '/') + 5 || strcmp(s, ".dump"))
		return 0;
	/* Paths in maps are the target's; read them through its root. */
	if (snprintf(d->path, d->len, "%s%s", d->p->other_mntns ? d->p->root : "", file) >=
	    (int)d->len)
		return 0;
	return 1;
}

int att_find_dump(const struct att_proc *p, char *path, size_t len)
{
	struct dump_find d = { p, path, len };
	int rc = each_mapping(p, dump_fn, &d);
	return rc == 1 ? 0 : rc < 0 ? rc : -ENOENT;
}
