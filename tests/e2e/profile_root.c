/* profile_root.c - `jitprof profile` run by root against what another user (uid 54321)
 * controls (issue 34, findings 1-4), with a fake JVM: a process of hers that maps a file named
 * libjvm.so, catches SIGQUIT, and on it opens /tmp/.java_pid<pid> and answers the load request
 * the way HotSpot does, writing into the dir= it is given what she likes (a dump, and a link
 * to a file of root's). Her working directory is root's. Nothing here needs a real JVM.
 * Root only (skipped otherwise, with the reason). */
#include "tests/e2e/profile_util.h"

#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#define HER 54321
#define SECRET "root's secret"

static volatile sig_atomic_t quit;
static void on_quit(int sig) { (void)sig; quit = 1; }

/* In her user and mount namespace, with her own tmpfs on /tmp (as `unshare -Urm`). */
static int own_namespace(void)
{
	char map[32];
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1;
	snprintf(map, sizeof(map), "0 %d 1", HER);
	if (tu_write_file("/proc/self/setgroups", "deny", 4) ||
	    tu_write_file("/proc/self/uid_map", map, strlen(map)) ||
	    tu_write_file("/proc/self/gid_map", map, strlen(map)))
		return -1;
	return mount("none", "/tmp", "tmpfs", 0, NULL);
}

/* The request's options ("dir=..." or "stop"): the fifth NUL-terminated part. */
static const char *options_of(char *req, size_t n)
{
	int part = 0;
	for (size_t i = 0; i < n; i++)
		if (!req[i] && ++part == 4)
			return i + 1 < n ? req + i + 1 : "";
	return "";
}

/* What she does on a load: a dump, and a companion that is a link to root's secret. */
static void answer(int c, const char *secret)
{
	char req[8192], path[PATH_MAX + 64];
	ssize_t n = read(c, req, sizeof(req) - 1);
	const char *opts = n > 0 ? options_of(req, (size_t)n) : "";

	if (!strncmp(opts, "dir=", 4)) {
		snprintf(path, sizeof(path), "%s/jit-%d.dump", opts + 4, (int)getpid());
		tu_write_file(path, "not really a dump", 17);
		snprintf(path, sizeof(path), "%s/jit-%d.dump.jitprof", opts + 4, (int)getpid());
		if (symlink(secret, path)) {
			/* nothing to do: the test sees no copy either way */
		}
	}
	if (write(c, "0\nreturn code: 0\n", 17) != 17) {
		/* the reader went away */
	}
	close(c);
}

/* The fake JVM: *trigger_where gets 'c' (trigger in her cwd, root's), 't' (in /tmp, hers)
 * or '?' written to report_fd once SIGQUIT came. */
static void fake_jvm(const char *lib, const char *cwd, const char *secret, int own_ns,
		     int report_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char trig[64];
	struct stat st;
	int fd = open(lib, O_RDONLY);

	if (fd < 0 || mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED ||
	    chdir(cwd) || setgroups(0, NULL) || setresgid(HER, HER, HER) ||
	    setresuid(HER, HER, HER) || prctl(PR_SET_DUMPABLE, 1) /* as an exec'd JVM */ ||
	    (own_ns && own_namespace()))
		_exit(127);
	alarm(100);	/* whatever happens to the test */
	signal(SIGQUIT, on_quit);
	while (!quit)
		;	/* busy: the recording gets samples */
	alarm(20);
	snprintf(trig, sizeof(trig), ".attach_pid%d", (int)getpid());
	char where = !lstat(trig, &st) && st.st_uid == getuid() ? 'c' : 0;
	snprintf(trig, sizeof(trig), "/tmp/.attach_pid%d", (int)getpid());
	if (!where)
		where = !lstat(trig, &st) && st.st_uid == getuid() ? 't' : '?';
	if (write(report_fd, &where, 1) != 1 || chdir("/"))	/* away: a root unlink misses */
		_exit(127);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/.java_pid%d", (int)getpid());
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 4))
		_exit(127);
	fcntl(s, F_SETFL, O_NONBLOCK);
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c >= 0) {
			fcntl(c, F_SETFL, 0);
			answer(c, secret);
		}
	}
}

struct scene {
	char *dir;
	char lib[PATH_MAX], cwd[PATH_MAX], secret[PATH_MAX], out[PATH_MAX], data[PATH_MAX];
	pid_t pid;
	int report;
};

static void scene_up(struct scene *s, int own_ns)
{
	int fds[2];

	s->dir = tu_tmpdir("profile-root");
	AG_FMT(s->lib, "%s/libjvm.so", s->dir);
	AG_FMT(s->cwd, "%s/roots", s->dir);
	AG_FMT(s->secret, "%s/private/secret", s->dir);
	AG_FMT(s->out, "%s/px.txt", s->dir);
	AG_FMT(s->data, "%s/px.txt.jitprof", s->dir);
	cr_assert_eq(tu_write_file(s->lib, "\177ELF", 4), 0);
	cr_assert_eq(truncate(s->lib, 4096), 0);
	cr_assert_eq(mkdir(s->cwd, 0755), 0);
	cr_assert_eq(chmod(s->dir, 0755), 0);	/* her cwd reachable, as a root dir can be */
	AG_FMT(s->secret, "%s/private", s->dir);
	cr_assert_eq(mkdir(s->secret, 0700), 0);
	AG_FMT(s->secret, "%s/private/secret", s->dir);
	cr_assert_eq(tu_write_file(s->secret, SECRET, strlen(SECRET)), 0);
	cr_assert_eq(chmod(s->secret, 0600), 0);
	cr_assert_eq(pipe(fds), 0);
	s->pid = fork();
	cr_assert_neq(s->pid, -1);
	if (s->pid == 0) {
		close(fds[0]);
		fake_jvm(s->lib, s->cwd, s->secret, own_ns, fds[1]);
	}
	close(fds[1]);
	s->report = fds[0];
	ag_sleep_ms(300);
	cr_assert_eq(kill(s->pid, 0), 0, "the fake JVM died");
}

static void scene_down(struct scene *s)
{
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	close(s->report);
	tu_rmtree(s->dir);
	free(s->dir);
}

/* What the fake JVM said of the trigger (0: nothing within 5 s). */
static char trigger_report(const struct scene *s)
{
	struct pollfd pfd = { .fd = s->report, .events = POLLIN };
	char where = 0;
	if (poll(&pfd, 1, 5000) == 1 && read(s->report, &where, 1) != 1)
		where = 0;
	return where;
}

static void profile_fake(struct scene *s, struct tu_result *r)
{
	char p[16];
	snprintf(p, sizeof(p), "%d", (int)s->pid);
	const char *args[] = { "-d", "1", "-p", p, "-o", s->out, NULL };
	pf_profile(r, args, 120);
}

/* No file of the data directory holds root's secret; the directory is root's, 0700. */
static void expect_private_data(const struct scene *s)
{
	char p[2 * PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(s->data);

	cr_assert_not_null(d, "no %s", s->data);
	cr_assert_eq(stat(s->data, &st), 0);
	cr_expect_eq(st.st_uid, 0, "the data directory belongs to uid %u", (unsigned)st.st_uid);
	cr_expect_eq(st.st_mode & 077, 0, "the data directory has mode %o", st.st_mode & 0777);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", s->data, de->d_name);
		char *text = tu_read_file(p, NULL);
		cr_expect(!text || !strstr(text, SECRET), "%s holds root's secret", p);
		free(text);
		cr_expect_eq(lstat(p, &st), 0);
		cr_expect_eq(st.st_uid, 0, "%s belongs to uid %u", p, (unsigned)st.st_uid);
	}
	closedir(d);
}

static int need_root(void)
{
	if (geteuid() == 0)
		return 1;
	fprintf(stderr, "profile_root: skipped, not root\n");
	return 0;
}

/* Findings 2 and 3: the trigger is made as her, where she may write (not in her cwd, which is
 * root's), nothing of root's of that name is removed; the data directory stays root's. */
Test(profile_root, trigger_and_data_directory, .timeout = 180)
{
	struct scene s;
	struct tu_result r;
	char planted[2 * PATH_MAX], where = 0;

	if (!need_root())
		return;
	scene_up(&s, 0);
	AG_FMT(planted, "%s/.attach_pid%d", s.cwd, (int)s.pid);
	cr_assert_eq(tu_write_file(planted, "ROOT", 4), 0);
	profile_fake(&s, &r);
	where = trigger_report(&s);
	cr_expect_eq(where, 't', "the trigger was %s", where == 'c' ? "made in root's directory"
		     : "not found");
	char *text = tu_read_file(planted, NULL);
	cr_expect(text && !strcmp(text, "ROOT"), "root's .attach_pid file was replaced or removed");
	free(text);
	cr_expect_eq(r.status, 0, "%s", r.err);
	expect_private_data(&s);
	tu_result_free(&r);
	scene_down(&s);
}

/* Finding 1: her JVM in its own user and mount namespace (a rename out of her tmpfs gives
 * EXDEV, so the dumps are copied): the link she planted among them is not followed. */
Test(profile_root, planted_link_in_her_namespace, .timeout = 180)
{
	struct scene s;
	struct tu_result r;
	char where = 0;

	if (!need_root())
		return;
	if (tu_sh(&r, "setpriv --reuid=54321 --regid=54321 --clear-groups unshare -Urm true", 30)
	    || r.status) {
		fprintf(stderr, "profile_root: namespace part skipped: unshare -Urm as a user is "
			"not allowed here\n");
		tu_result_free(&r);
		return;
	}
	tu_result_free(&r);
	scene_up(&s, 1);
	profile_fake(&s, &r);
	where = trigger_report(&s);
	cr_expect_eq(where, 't', "no trigger in her /tmp: %c", where ? where : '0');
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, ".dump.jitprof: a symbolic link: not read"), "%s", r.err);
	char p[2 * PATH_MAX];
	AG_FMT(p, "%s/jit-%d.dump", s.data, (int)s.pid);
	cr_expect(pf_exists(p), "her dump was not brought back: %s", r.err);
	expect_private_data(&s);
	tu_result_free(&r);
	scene_down(&s);
}

/* Finding 4 and what follows from it: the data directory beside -o is never a planted link,
 * another user's directory, or one others may write. */
Test(profile_root, planted_data_directory, .timeout = 120)
{
	char *dir = tu_tmpdir("profile-root"), out[PATH_MAX], data[PATH_MAX], victim[PATH_MAX];
	char keep[PATH_MAX + 16];
	struct tu_result r;
	const char *args[] = { "-o", out, "--", "true", NULL };

	AG_FMT(victim, "%s/victim", dir);
	cr_assert_eq(mkdir(victim, 0700), 0);
	AG_FMT(keep, "%s/perf.data", victim);
	cr_assert_eq(tu_write_file(keep, "KEEP", 4), 0);

	AG_FMT(out, "%s/px.txt", dir);
	AG_FMT(data, "%s/px.txt.jitprof", dir);
	cr_assert_eq(symlink(victim, data), 0);
	pf_profile(&r, args, 60);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "px.txt.jitprof: a symbolic link: refused"), "%s", r.err);
	tu_result_free(&r);
	char *text = tu_read_file(keep, NULL);
	cr_expect(text && !strcmp(text, "KEEP"), "the linked directory's perf.data was touched");
	free(text);

	AG_FMT(out, "%s/pw.txt", dir);
	AG_FMT(data, "%s/pw.txt.jitprof", dir);
	cr_assert_eq(mkdir(data, 0777), 0);
	cr_assert_eq(chmod(data, 0777), 0);
	pf_profile(&r, args, 60);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "pw.txt.jitprof exists and others may write into it (mode 0777)"),
		  "%s", r.err);
	tu_result_free(&r);

	if (geteuid() == 0) {
		AG_FMT(out, "%s/py.txt", dir);
		AG_FMT(data, "%s/py.txt.jitprof", dir);
		cr_assert_eq(mkdir(data, 0755), 0);
		cr_assert_eq(chown(data, HER, HER), 0);
		pf_profile(&r, args, 60);
		cr_expect_eq(r.status, 1, "%s", r.err);
		cr_expect(strstr(r.err, "py.txt.jitprof exists and it belongs to uid 54321, not to "
				  "you"), "%s", r.err);
		tu_result_free(&r);
	}

	/* An earlier run's directory of ours is used again. */
	AG_FMT(out, "%s/pz.txt", dir);
	AG_FMT(data, "%s/pz.txt.jitprof", dir);
	cr_assert_eq(mkdir(data, 0755), 0);
	pf_profile(&r, args, 60);
	cr_expect_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
