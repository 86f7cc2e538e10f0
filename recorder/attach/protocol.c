/* protocol.c - HotSpot's attach listener spoken as jcmd speaks it: make the JVM start its
 * listener (an .attach_pid<nspid> file owned by the JVM's user, then SIGQUIT), then one
 * "load" request on the Unix socket /tmp/.java_pid<nspid> of the target's file system, and its
 * reply. Paths go through /proc/PID/root and /proc/PID/cwd, so a JVM in a container (another
 * mount namespace, its own /tmp) is reached as well. */
#include "recorder/attach/attach.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define ATT_REPLY_MAX 8192

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int socket_path(const struct att_proc *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/tmp/.java_pid%d", p->root, (int)p->nspid);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* The trigger file: in the JVM's working directory, else its /tmp. It must belong to the
 * JVM's user (HotSpot ignores it otherwise), so root hands it over; where that fails (a
 * root-squashed mount) the next place is tried. */
static int create_trigger(const struct att_proc *p, char *path, size_t len)
{
	const char *where[2] = { "cwd", "root/tmp" };
	int chown_it = geteuid() == 0 && (p->uid != 0 || p->gid != 0), e = ENOENT;

	for (int i = 0; i < 2; i++) {
		snprintf(path, len, "/proc/%d/%s/.attach_pid%d", (int)p->pid, where[i],
			 (int)p->nspid);
		/* A fresh file of ours: never one planted under that name (we may chown it). */
		unlink(path);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (chown_it && fchown(fd, p->uid, p->gid)) {
			e = errno;
			close(fd);
			unlink(path);
			continue;
		}
		close(fd);
		return 0;
	}
	return -e;
}

int att_clear_stale_socket(const struct att_proc *p, const struct jp_log *log)
{
	char sock[128];
	struct stat st;
	int fd, rc;

	if ((rc = socket_path(p, sock, sizeof(sock))))
		return rc;
	if ((fd = connect_to(sock)) >= 0) {
		close(fd);
		return 0;
	}
	/* Refused: a socket file nobody listens on, left by a JVM of this pid that was killed
	 * before it could remove it. Not ours to open (HotSpot makes it 0600): another user's,
	 * and no live JVM of that user has this pid. */
	if ((fd != -ECONNREFUSED && fd != -EACCES) || lstat(sock, &st) || !S_ISSOCK(st.st_mode))
		return 0;
	if (fd == -EACCES && st.st_uid == p->uid)
		return 0;	/* the JVM's own, closed to us: not for us to judge */
	if (!unlink(sock) || st.st_uid == p->uid)
		return 0;	/* gone, or the JVM's own user replaces it */
	/* /tmp is sticky: neither we nor the JVM may replace another user's file, so HotSpot's
	 * listener would fail to start and say nothing. */
	jp_logf(log, JP_LOG_ERROR, "%s is a socket that uid %u left behind (a process %d of theirs "
		"was killed before it could remove it): Java VM %d (uid %u) cannot replace it, "
		"so its attach listener cannot start; remove it as root", sock + strlen(p->root),
		(unsigned)st.st_uid, (int)p->nspid, (int)p->pid, (unsigned)p->uid);
	return -EPERM;
}

/* Connected socket to a listener that is up, starting it when needed. */
static int open_listener(const struct att_proc *p, unsigned timeout_ms, const struct jp_log *log)
{
	char sock[128], trig[128];
	unsigned waited = 0, step = 10;
	int fd, rc;

	if ((rc = socket_path(p, sock, sizeof(sock))))
		return rc;
	if ((fd = connect_to(sock)) >= 0)
		return fd;
	if ((rc = att_clear_stale_socket(p, log)))
		return rc;
	if ((rc = create_trigger(p, trig, sizeof(trig)))) {
		jp_logf(log, JP_LOG_ERROR, "cannot create the attach trigger .attach_pid%d in the "
			"working directory or /tmp of process %d: %s", (int)p->nspid, (int)p->pid,
			strerror(-rc));
		return rc;
	}
	if (kill(p->pid, SIGQUIT)) {
		rc = -errno;
		unlink(trig);
		jp_logf(log, JP_LOG_ERROR,
			"cannot signal process %d: %s", (int)p->pid, strerror(-rc));
		return rc;
	}
	/* Once more at half the time, as jcmd does: a JVM can lose the first signal (still
	 * starting, its listener's start failed). Not more often: a JVM whose listener is up
	 * answers every further SIGQUIT with a thread dump on its stdout. */
	int resent = 0;
	for (;;) {
		fd = connect_to(sock);
		if (fd >= 0 || waited >= timeout_ms || (kill(p->pid, 0) && errno == ESRCH))
			break;
		if (!resent && waited > timeout_ms / 2 && fd == -ENOENT) {
			resent = 1;
			kill(p->pid, SIGQUIT);
		}
		sleep_ms(step);
		waited += step;
		step = step < 200 ? step * 2 : 200;
	}
	unlink(trig);
	if (fd < 0)
		jp_logf(log, JP_LOG_ERROR,
			"Java VM %d did not open its attach socket %s within %.1f s "
			"(started with -XX:+DisableAttachMechanism, or too busy?)", (int)p->pid,
			sock + strlen(p->root), timeout_ms / 1000.0);
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int att_parse_reply(const char *reply, int *result, int *agent_rc)
{
	char *end;
	const char *rc;
	long v = strtol(reply, &end, 10);

	if (end == reply || (*end != '\n' && *end != '\0'))
		return -EPROTO;
	*result = (int)v;
	*agent_rc = -1;
	if ((rc = strstr(end, "return code: ")))
		*agent_rc = (int)strtol(rc + 13, NULL, 10);
	return 0;
}

/* The request: protocol version, command and always three arguments, NUL-terminated. */
static int build_request(char *buf, size_t len, const char *lib, const char *options)
{
	const char *parts[5] = { "1", "load", lib, "true", options ? options : "" };
	size_t off = 0;

	for (int i = 0; i < 5; i++) {
		size_t n = strlen(parts[i]) + 1;
		if (off + n > len)
			return -ENAMETOOLONG;
		memcpy(buf + off, parts[i], n);
		off += n;
	}
	return (int)off;
}

int att_load_agent(const struct att_proc *p, const char *lib, const char *options,
		   unsigned timeout_ms, int *agent_rc, const struct jp_log *log)
{
	char req[8192], reply[ATT_REPLY_MAX];
	struct timeval tv = { .tv_sec = 120 };	/* back-fill of a big code cache takes a while */
	size_t got = 0;
	int fd, n, rc, result;

	if ((n = build_request(req, sizeof(req), lib, options)) < 0) {
		jp_logf(log, JP_LOG_ERROR,
			"agent path and options too long for the attach protocol");
		return n;
	}
	if ((fd = open_listener(p, timeout_ms, log)) < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if ((rc = write_all(fd, req, (size_t)n))) {
		jp_logf(log, JP_LOG_ERROR,
			"sending the load request to Java VM %d: %s", (int)p->pid,
			strerror(-rc));
		close(fd);
		return rc;
	}
	for (;;) {
		ssize_t r = read(fd, reply + got, sizeof(reply) - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (got += (size_t)r) == sizeof(reply) - 1)
			break;
	}
	close(fd);
	reply[got] = '\0';
	if (att_parse_reply(reply, &result, agent_rc)) {
		jp_logf(log, JP_LOG_ERROR,
			"Java VM %d sent no valid reply to the load request%s%.200s",
			(int)p->pid, got ? ": " : " (connection closed: the JVM refused our "
			"credentials?)", reply);
		return -EPROTO;
	}
	if (result != 0) {
		for (char *s = reply; *s; s++)
			if (*s == '\n')
				*s = ' ';
		jp_logf(log, JP_LOG_ERROR,
			"Java VM %d refused to load %s: %.300s", (int)p->pid, lib,
			reply);
		return -EIO;
	}
	return 0;
}
