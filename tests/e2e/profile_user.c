/* profile_user.c - `jitprof profile` and users: a non-root user with
 * kernel.perf_event_paranoid=2 profiles its own JVM (launch and attach); the same user is
 * refused a process of another user by name; root attaches to that user's JVM (the attach
 * done by a child with the JVM's ids, the dumps staged in its /tmp and copied back into root's
 * data directory). Needs root to create the user and
 * set the sysctl: skipped, with the reason, where that cannot be done. The sysctl is put
 * back afterwards. */
#include "tests/e2e/profile_util.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/un.h>

#define PF_USER "jitprof-e2e"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

static int old_paranoid = -100;

static int read_int(const char *path)
{
	char *s = tu_read_file(path, NULL);
	int v = s ? atoi(s) : -100;
	free(s);
	return v;
}

static int write_int(const char *path, int v)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%d\n", v);
	return tu_write_file(path, buf, (size_t)n);
}

static void restore_paranoid(void)
{
	if (old_paranoid != -100 && write_int(PARANOID, old_paranoid))
		fprintf(stderr, "profile_user: could not restore %s to %d\n", PARANOID,
			old_paranoid);
	old_paranoid = -100;
}

/* The test user (created when missing); NULL with the reason on stderr when impossible. */
static const struct passwd *test_user(void)
{
	struct tu_result r;
	const struct passwd *pw;

	if (geteuid() != 0) {
		fprintf(stderr, "profile_user: skipped, not root (cannot create a user)\n");
		return NULL;
	}
	if (!(pw = getpwnam(PF_USER))) {
		tu_sh(&r, "useradd --system --no-create-home --home-dir /tmp --shell /bin/sh "
			  PF_USER " 2>&1", 60);
		if (r.status != 0)
			fprintf(stderr, "profile_user: skipped, useradd failed: %s\n", r.out);
		tu_result_free(&r);
		pw = getpwnam(PF_USER);
	}
	return pw;
}

/* A directory the test user owns, and a shell prefix that runs as that user in it. */
static char *user_dir(const struct passwd *pw, char *prefix, size_t len)
{
	char *dir = tu_tmpdir("profile-user");

	cr_assert_eq(chown(dir, pw->pw_uid, pw->pw_gid), 0);
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_lt(snprintf(prefix, len, "cd %s && env HOME=%s %ssetpriv --reuid=%u "
			      "--regid=%u --clear-groups --", dir, dir, ag_env_sh(),
			      (unsigned)pw->pw_uid, (unsigned)pw->pw_gid), (int)len);
	return dir;
}

/* The end of what the JVM in dir printed (a thread dump says a SIGQUIT came but found no
 * attach trigger), for a failure's message; static, so valid until the next call. */
static const char *jvm_log(const char *dir)
{
	static char tail[4096];
	char path[PATH_MAX + 16];
	size_t len = 0;

	AG_FMT(path, "%s/jvm.log", dir);
	char *s = tu_read_file(path, &len);
	snprintf(tail, sizeof(tail), "%s", !s ? "(none)" : len < sizeof(tail) ? s
						 : s + len - (sizeof(tail) - 1));
	free(s);
	return tail;
}

/* A socket that nobody listens on at /tmp/.java_pid<pid>, root's and 0600: what a JVM of
 * root's with that pid leaves when it is killed. */
static void plant_stale_socket(pid_t pid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/.java_pid%d", (int)pid);
	unlink(sa.sun_path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	cr_assert_eq(chmod(sa.sun_path, 0600), 0);
	close(fd);
}

/* The JVM as the test user, in the background; log in dir. An earlier killed JVM of
 * another user with this pid may have left its /tmp/.java_pid<pid>, which this user could
 * never replace: removed, so the run does not depend on the pids this machine handed out
 * before (the case itself is tested with a planted one). */
static pid_t user_jvm(const struct ag_jdk *jdk, const struct passwd *pw, const char *dir)
{
	char log[PATH_MAX + 16], java[PATH_MAX + 16];
	const char *const *env = ag_env();
	const char *cp = ag_classpath();	/* before the chdir, and no assertion in the child */
	pid_t pid;

	AG_FMT(log, "%s/jvm.log", dir);
	AG_FMT(java, "%s/bin/java", jdk->home);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(dir) ||
		    setgroups(0, NULL) || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid))
			_exit(127);
		setenv("HOME", dir, 1);
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execl(java, java, "-XX:+IgnoreUnrecognizedVMOptions",
		      "-XX:+EnableDynamicAgentLoading", "-cp", cp,
		      "jitprof.samples.Generations", "8000", (char *)NULL);
		_exit(127);
	}
	struct stat st;
	AG_FMT(java, "/tmp/.java_pid%d", (int)pid);
	if (!lstat(java, &st) && st.st_uid != pw->pw_uid)
		unlink(java);
	ag_sleep_ms(2000);
	cr_assert(pf_alive(pid), "the JVM as %s died: %s", PF_USER,
		     (char *)tu_read_file(log, NULL));
	return pid;
}

Test(profile_user, own_jvm_with_paranoid_2, .timeout = 600, .fini = restore_paranoid)
{
	const struct passwd *pw = test_user();
	char prefix[2 * PATH_MAX], cmd[6 * PATH_MAX], java[PATH_MAX];
	struct ag_jdk jdk;
	struct tu_result r;

	if (!pw)
		cr_skip_test("no test user");
	old_paranoid = read_int(PARANOID);
	if (old_paranoid == -100 || write_int(PARANOID, 2) || read_int(PARANOID) != 2) {
		fprintf(stderr, "profile_user: skipped, cannot set %s to 2 here\n", PARANOID);
		old_paranoid = -100;
		cr_skip_test("sysctl not settable");
	}
	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	char *dir = user_dir(pw, prefix, sizeof(prefix));
	AG_FMT(java, "%s/bin/java", jdk.home);

	/* Launch. */
	char exe[PATH_MAX];
	AG_FMT(exe, "%s", tu_build("jitprof"));
	if (exe[0] != '/') {
		char cwd[PATH_MAX];
		cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
		AG_FMT(exe, "%s/%s", cwd, tu_build("jitprof"));
	}
	AG_FMT(cmd, "%s %s profile -o u.txt -- %s -cp %s jitprof.samples.Generations 300",
	       prefix, exe, java, ag_classpath());
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_assert_eq(r.status, 0, "as %s: %s", PF_USER, r.err);
	tu_result_free(&r);
	char path[PATH_MAX + 16];
	AG_FMT(path, "%s/u.txt", dir);
	char *rep = tu_read_file(path, NULL);
	cr_assert_not_null(rep);
	cr_expect(pf_method_row(rep, "jitprof.samples.Generations.", NULL), "%.3000s", rep);
	free(rep);

	/* Attach to the user's own JVM, as that user. First with a socket root's killed JVM of
	 * that pid left in /tmp: the user can remove it no more than the JVM can replace it, so
	 * jitprof says so at once instead of waiting for a listener that cannot start. */
	pid_t pid = user_jvm(&jdk, pw, dir);
	plant_stale_socket(pid);
	AG_FMT(cmd, "%s %s profile -d 2 -p %d -o a.txt", prefix, exe, (int)pid);
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_expect_eq(r.status, 1, "%s", r.err);
	char want[128];
	AG_FMT(want, "/tmp/.java_pid%d is a socket that uid 0 left behind", (int)pid);
	cr_expect(strstr(r.err, want) && strstr(r.err, "remove it as root"), "%s", r.err);
	tu_result_free(&r);
	AG_FMT(path, "/tmp/.java_pid%d", (int)pid);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_expect_eq(r.status, 0, "as %s: %s\nthe JVM's output:\n%s", PF_USER, r.err,
		     jvm_log(dir));
	tu_result_free(&r);
	AG_FMT(path, "%s/a.txt", dir);
	rep = tu_read_file(path, NULL);
	cr_expect(rep && pf_method_row(rep, "jitprof.samples.Generations.", NULL), "%.3000s", rep);
	free(rep);
	pf_kill(pid);
	restore_paranoid();
	tu_rmtree(dir);
	free(dir);
}

Test(profile_user, another_users_process, .timeout = 600)
{
	const struct passwd *pw = test_user();
	char prefix[2 * PATH_MAX], cmd[6 * PATH_MAX], want[256], exe[PATH_MAX];
	struct ag_jdk jdk;
	struct tu_result r;

	if (!pw)
		cr_skip_test("no test user");
	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	char *dir = user_dir(pw, prefix, sizeof(prefix));
	AG_FMT(exe, "%s", tu_build("jitprof"));
	if (exe[0] != '/') {
		char cwd[PATH_MAX];
		cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
		AG_FMT(exe, "%s/%s", cwd, tu_build("jitprof"));
	}

	/* The user may not attach to root's process: refused by name, the process untouched. */
	pid_t mine = fork();
	cr_assert_neq(mine, -1);
	if (mine == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	AG_FMT(cmd, "%s %s profile -d 1 -p %d -o r.txt", prefix, exe, (int)mine);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_expect_eq(r.status, 1, "%s", r.err);
	AG_FMT(want, "process %d belongs to uid 0, not to you (uid %u)", (int)mine,
	       (unsigned)pw->pw_uid);
	cr_expect(strstr(r.err, want), "%s", r.err);
	cr_expect(pf_alive(mine), "the process was harmed");
	tu_result_free(&r);
	pf_kill(mine);

	/* Root may attach to the user's JVM: the JVM, running as the user, writes the dump. A
	 * socket root's killed JVM of the same pid left in /tmp would keep the user's JVM from
	 * starting its listener: jitprof, as root, removes it. */
	pid_t pid = user_jvm(&jdk, pw, dir);
	plant_stale_socket(pid);
	char out[PATH_MAX + 16], p[16];
	AG_FMT(out, "%s/root.txt", dir);
	snprintf(p, sizeof(p), "%d", (int)pid);
	const char *args[] = { "-d", "2", "-p", p, "-o", out, NULL };
	pf_profile(&r, args, 300);
	cr_expect_eq(r.status, 0, "%s\nthe JVM's output:\n%s", r.err, jvm_log(dir));
	tu_result_free(&r);
	char *rep = tu_read_file(out, NULL);
	cr_expect(rep && pf_method_row(rep, "jitprof.samples.Generations.", NULL), "%.3000s", rep);
	free(rep);
	pf_kill(pid);
	tu_rmtree(dir);
	free(dir);
}
