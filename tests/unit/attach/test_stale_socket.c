/* test_stale_socket.c - att_clear_stale_socket: a /tmp/.java_pid<nspid> that nobody listens
 * on goes, a listening one stays, and another user's that we may not remove is named in the
 * error (HotSpot could not replace it, and would fail to start its listener silently). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/attach/attach.h"

/* A target that is this process seen under an nspid no real process has. */
static struct att_proc target(uid_t uid)
{
	struct att_proc p = { .pid = getpid(), .nspid = 0x7ffe0000 + (getpid() & 0xffff),
			      .uid = uid };

	snprintf(p.root, sizeof(p.root), "/proc/%d/root", (int)getpid());
	return p;
}

/* The socket file at its path; listening or (closed at once) stale. Returns the fd or -1. */
static int make_socket(const struct att_proc *p, char *path, size_t len, int listening)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(path, len, "/tmp/.java_pid%d", (int)p->nspid);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	cr_assert_eq(listen(fd, 1), 0);
	cr_assert_eq(chmod(path, 0600), 0);	/* as HotSpot leaves it */
	if (!listening) {
		close(fd);
		return -1;
	}
	return fd;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

Test(attach_stale, a_listening_socket_stays)
{
	struct att_proc p = target(geteuid());
	char path[64], err[512] = "";
	int fd = make_socket(&p, path, sizeof(path), 1);

	cr_assert_eq(att_clear_stale_socket(&p, err, sizeof(err)), 0, "%s", err);
	cr_assert(exists(path));
	close(fd);
	unlink(path);
}

Test(attach_stale, a_socket_nobody_listens_on_goes)
{
	struct att_proc p = target(geteuid());
	char path[64], err[512] = "";

	make_socket(&p, path, sizeof(path), 0);
	cr_assert(exists(path));
	cr_assert_eq(att_clear_stale_socket(&p, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(exists(path), "the stale socket is still there");
	/* None at all: nothing to do. */
	cr_assert_eq(att_clear_stale_socket(&p, err, sizeof(err)), 0, "%s", err);
}

Test(attach_stale, another_users_that_we_may_not_remove_is_named)
{
	struct att_proc p = target(65534);
	char path[64], err[512] = "";
	int st;

	if (geteuid() != 0)
		cr_skip_test("needs root: a socket of another user in the sticky /tmp");
	make_socket(&p, path, sizeof(path), 0);
	/* As nobody (65534), the stale socket is root's: neither nobody nor its JVM may remove
	 * it. */
	pid_t child = fork();
	cr_assert_neq(child, -1);
	if (child == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(3);
		/* Seen through our own /proc entry: nobody may not look into root's. */
		p.pid = getpid();
		snprintf(p.root, sizeof(p.root), "/proc/%d/root", (int)p.pid);
		int rc = att_clear_stale_socket(&p, err, sizeof(err));
		char want[64];
		snprintf(want, sizeof(want), "/tmp/.java_pid%d is a socket that uid 0 left",
			 (int)p.nspid);
		_exit(rc == -EPERM && strstr(err, want) && strstr(err, "remove it as root") ? 0 : 1);
	}
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	cr_assert(exists(path));
	p = target(65534);
	/* Root removes it. */
	cr_assert_eq(att_clear_stale_socket(&p, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(exists(path));
}
