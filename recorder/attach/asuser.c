/* asuser.c - work done as the target's user: HotSpot's attach protocol needs files in the
 * JVM's working directory and /tmp (the trigger, the socket, for us the agent's dumps), which
 * root must never follow, create or remove in another user's place or mount namespace. A child
 * drops to the JVM's ids and does it; the parent waits for its answer with a deadline and a
 * stop flag, so a child the user stops or kills (she may: it is hers) cannot hang us. */
#include "recorder/attach/attach.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int att_need_user(const struct att_proc *p)
{
	return geteuid() != p->uid;
}

/* In the child: everything but the pipe and what fn needs closed, then the JVM's ids (never
 * dumpable, so she can neither trace it nor read its memory or fds). */
static int become(const struct att_proc *p, int pipe_fd, const int *keep, int nkeep)
{
	for (int fd = 3; fd < 1024; fd++) {
		int kept = fd == pipe_fd;
		for (int i = 0; i < nkeep; i++)
			kept |= fd == keep[i];
		if (!kept)
			close(fd);
	}
	if (!att_need_user(p))
		return 0;
	if (prctl(PR_SET_DUMPABLE, 0) || setgroups(0, NULL) ||
	    setresgid(p->gid, p->gid, p->gid) || setresuid(p->uid, p->uid, p->uid))
		return -errno;
	return geteuid() == p->uid && getegid() == p->gid ? 0 : -EPERM;
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads len bytes from fd until the deadline or *stop; -ETIMEDOUT, -EINTR, -EPIPE (closed
 * early: the child died). */
static int read_answer(int fd, void *buf, size_t len, unsigned timeout_ms,
		       volatile sig_atomic_t *stop)
{
	long end = now_ms() + (long)timeout_ms;
	size_t got = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		if (stop && *stop)
			return -EINTR;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -EPIPE;
		got += (size_t)n;
	}
	return 0;
}

int att_as_user(const struct att_proc *p, int (*fn)(void *ctx, void *out), void *ctx,
		void *out, size_t outlen, const int *keep, int nkeep, unsigned timeout_ms,
		volatile sig_atomic_t *stop)
{
	int fds[2], rc, st;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if ((pid = fork()) < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		rc = become(p, fds[1], keep, nkeep);
		if (!rc)
			rc = fn(ctx, out);
		else
			rc = -EPERM;
		/* a short write is a broken answer the parent refuses */
		if (write(fds[1], &rc, sizeof(rc)) == (ssize_t)sizeof(rc) && outlen &&
		    write(fds[1], out, outlen) != (ssize_t)outlen)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	int frc = 0;
	rc = read_answer(fds[0], &frc, sizeof(frc), timeout_ms, stop);
	if (!rc && outlen)
		rc = read_answer(fds[0], out, outlen, timeout_ms, stop);
	close(fds[0]);
	if (rc)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return rc ? rc : frc;
}
