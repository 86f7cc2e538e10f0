/* test_listener.c - starting a JVM's attach listener. att_clear_stale_socket: a
 * /tmp/.java_pid<nspid> that nobody listens on goes, a listening one stays, and another user's
 * that we may not remove is named in the error (HotSpot could not replace it, and would fail
 * to start its listener silently). A target that ignores the first SIGQUIT gets a second at
 * half the timeout, as jcmd sends it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

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

Test(attach_listener, a_listening_socket_stays)
{
	struct att_proc p = target(geteuid());
	char path[64], err[512] = "";
	int fd = make_socket(&p, path, sizeof(path), 1);

	cr_assert_eq(att_clear_stale_socket(&p, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert(exists(path));
	close(fd);
	unlink(path);
}

Test(attach_listener, a_socket_nobody_listens_on_goes)
{
	struct att_proc p = target(geteuid());
	char path[64], err[512] = "";

	make_socket(&p, path, sizeof(path), 0);
	cr_assert(exists(path));
	cr_assert_eq(att_clear_stale_socket(&p, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_not(exists(path), "the stale socket is still there");
	/* None at all: nothing to do. */
	cr_assert_eq(att_clear_stale_socket(&p, JP_ERRBUF_LOG(err)), 0, "%s", err);
}

Test(attach_listener, another_users_that_we_may_not_remove_is_named)
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
		int rc = att_clear_stale_socket(&p, JP_ERRBUF_LOG(err));
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
	cr_assert_eq(att_clear_stale_socket(&p, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_not(exists(path));
}

static volatile sig_atomic_t quits;

static void on_quit(int sig)
{
	(void)sig;
	quits++;
}

/* A JVM that misses the first SIGQUIT: it opens its listener at the second and answers one
 * load request as HotSpot does. Exits with the number of SIGQUITs it got. */
static void fake_jvm(int ready_fd)
{
	struct sigaction sa = { .sa_handler = on_quit };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char req[512];

	sigaction(SIGQUIT, &sa, NULL);
	if (write(ready_fd, "r", 1) != 1)
		_exit(100);
	for (int i = 0; i < 1000 && quits < 2; i++)
		usleep(10000);
	if (quits < 2)
		_exit(101);
	snprintf(un.sun_path, sizeof(un.sun_path), "/tmp/.java_pid%d", (int)getpid());
	unlink(un.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&un, sizeof(un)) || listen(l, 1))
		_exit(102);
	int c = accept(l, NULL, NULL);
	ssize_t n = c >= 0 ? read(c, req, sizeof(req)) : -1;
	if (n <= 0 || write(c, "0\nreturn code: 0\n", 17) != 17)
		_exit(103);
	close(c);
	close(l);
	unlink(un.sun_path);
	_exit(quits);
}

Test(attach_listener, a_lost_first_signal_is_sent_again, .timeout = 30)
{
	char *dir = tu_tmpdir("attach-quit"), err[1024] = "";
	int pfd[2], st, arc = -1;
	char c;

	cr_assert_eq(pipe(pfd), 0);
	pid_t child = fork();
	cr_assert_neq(child, -1);
	if (child == 0) {
		close(pfd[0]);
		if (chdir(dir))	/* the trigger goes into the target's working directory */
			_exit(104);
		fake_jvm(pfd[1]);
	}
	close(pfd[1]);
	cr_assert_eq(read(pfd[0], &c, 1), 1, "the fake JVM did not start");
	close(pfd[0]);
	struct att_proc p = { .pid = child, .nspid = child, .uid = geteuid(), .gid = getegid() };
	snprintf(p.root, sizeof(p.root), "/proc/%d/root", (int)child);
	int rc = att_load_agent(&p, "/x/libagent.so", "", 2000, &arc, JP_ERRBUF_LOG(err));
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(arc, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "the fake JVM: status %d", st);
	tu_rmtree(dir);
	free(dir);
}
