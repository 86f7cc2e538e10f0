/* security_report.c - issue 16 against `jitprof report` on a recording from someone else:
 * --archive leaves nothing unpacked behind in a release build (finding 10); a recording owned
 * by another user than the runner or root is refused unless -f, as perf does (finding 13).
 * Issue 34: so are a --diff base and the dumps of an `inject --no-elfs` output, for report
 * and --elfs-for (finding 11); a FIFO or device at such a dump's path is refused at once
 * (finding 5).
 * Issue 34 finding 15: --archive leaves nothing behind either when SIGINT, SIGTERM or SIGHUP
 * ends it (exit 128+signal), and what
 * a SIGKILL left is removed by the next run. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/e2e/inject_util.h"
#include "tests/lib/testutil.h"

static char *t;
static char data[4400];

static void setup(void)
{
	struct tu_result r;
	t = tu_tmpdir("sec-rep");
	cr_assert(t);
	snprintf(data, sizeof(data), "%s/perf.data", t);
	char *argv[] = { (char *)tu_build("inject-gen"), "--dir", t, "-o", data, "--loads", "10",
			 "--samples", "200", NULL };
	iu_run(&r, argv, NULL, 120);
	cr_assert_eq(r.status, 0, "inject-gen: %s", r.err);
	tu_result_free(&r);
}

static void teardown(void)
{
	tu_rmtree(t);
	free(t);
}

TestSuite(security_report, .init = setup, .fini = teardown, .timeout = 120);

/* The built jitprof by absolute path: the commands run after a cd. */
static const char *jp(void)
{
	static char p[4096];
	cr_assert(realpath(tu_build("jitprof"), p));
	return p;
}

static void sh(struct tu_result *r, const char *fmt, const char *a, const char *b)
{
	char cmd[20000];
	snprintf(cmd, sizeof(cmd), fmt, a, b, a, b, a, b);
	cr_assert_eq(tu_sh(r, cmd, 100), 0);
}

Test(security_report, archive_is_removed_after_a_successful_report)
{
	struct tu_result r;
	sh(&r, "cd '%s' && mkdir -p tmp z/d && echo hi > z/d/f && tar --zstd -C z -cf a.tar.zst d"
	   " && TMPDIR=$PWD/tmp DEBUGINFOD_URLS= '%s' report -i perf.data --archive a.tar.zst "
	   "--buildid-dir $PWD/cache && ls -A tmp", t, jp());
	cr_assert_eq(r.status, 0, "%s", r.err);
	const char *left = strstr(r.out, "jitprof-archive");
	cr_assert_null(left, "the unpacked archive was left behind: %s", left);
	tu_result_free(&r);
}

Test(security_report, another_users_recording_needs_force)
{
	if (geteuid() != 0) {
		cr_skip_test("not root: cannot give the recording to another uid");
	}
	struct tu_result r;
	sh(&r, "cd '%s' && chown 54321 perf.data && DEBUGINFOD_URLS= '%s' report -i perf.data "
	   "--buildid-dir $PWD/cache", t, jp());
	cr_assert_neq(r.status, 0, "another user's recording was read without -f");
	cr_assert(strstr(r.err, "perf.data") && strstr(r.err, "uid 54321") && strstr(r.err, "-f"),
		  "%s", r.err);
	cr_assert_str_eq(r.out, "");
	tu_result_free(&r);
	sh(&r, "cd '%s' && DEBUGINFOD_URLS= '%s' inject -j -i perf.data -o o.data --buildid-dir "
	   "$PWD/cache", t, jp());
	cr_assert_neq(r.status, 0, "inject read another user's recording without -f");
	cr_assert(strstr(r.err, "uid 54321"), "%s", r.err);
	tu_result_free(&r);
	sh(&r, "cd '%s' && DEBUGINFOD_URLS= '%s' report -f -i perf.data --buildid-dir $PWD/cache",
	   t, jp());
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "Samples"), "%s", r.out);
	tu_result_free(&r);
}

static int root_or_skip(const char *what)
{
	if (geteuid() == 0)
		return 1;
	fprintf(stderr, "security_report: not root, cannot give files to another uid; %s "
			"skipped\n", what);
	return 0;
}

/* Issue 34 finding 11: the base of `report --diff BASE NEW` is a recording like any other. */
Test(security_report, another_users_diff_base_needs_force)
{
	if (!root_or_skip("--diff owner check"))
		return;
	struct tu_result r;
	sh(&r, "cd '%s' && cp perf.data base.data && chown 54321 base.data && DEBUGINFOD_URLS= "
	   "'%s' report --diff base.data perf.data --flamegraph o.svg --buildid-dir $PWD/cache",
	   t, jp());
	cr_assert_neq(r.status, 0, "another user's --diff base was read without -f");
	cr_assert(strstr(r.err, "base.data") && strstr(r.err, "uid 54321") && strstr(r.err, "-f"),
		  "%s", r.err);
	tu_result_free(&r);
	sh(&r, "cd '%s' && DEBUGINFOD_URLS= '%s' report -f --diff base.data perf.data "
	   "--flamegraph o.svg --buildid-dir $PWD/cache", t, jp());
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
}

/* The report of an `inject --no-elfs` output with its dump as it is now (set up by prep). */
static void lazy_report(struct tu_result *r, const char *prep, const char *flags)
{
	char cmd[4000];
	snprintf(cmd, sizeof(cmd), "cd '%%s' && %s && DEBUGINFOD_URLS= timeout 60 '%%s' report %s "
		 "-i lazy.data --sort dso,sym --stdio --buildid-dir $PWD/cache", prep, flags);
	sh(r, cmd, t, jp());
}

#define INJECT_LAZY "'%s' inject -q --no-elfs -i perf.data -o lazy.data"

/* Finding 11: the dumps an `inject --no-elfs` output names are another user's: report and
 * --elfs-for refuse them without -f (a warning naming the dump; --elfs-for exits 1), read
 * them with it; --elfs-for's own input is a recording like -i's. */
Test(security_report, another_users_noelfs_dumps_need_force)
{
	if (!root_or_skip("--no-elfs dump owner check"))
		return;
	struct tu_result r;
	sh(&r, "cd '%s' && " INJECT_LAZY " && chown 54321 jit-*.dump", t, jp());
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	lazy_report(&r, "true", "");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, ".dump: owned by uid 54321") && strstr(r.err, "-f"), "%s", r.err);
	cr_assert_null(strstr(r.out, "bench."), "another user's names shown:\n%s", r.out);
	tu_result_free(&r);
	lazy_report(&r, "true", "-f");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "bench."), "-f: no jitted names:\n%s", r.out);
	tu_result_free(&r);
	sh(&r, "cd '%s' && '%s' inject -q --elfs-for lazy.data", t, jp());
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(strstr(r.err, "uid 54321") && strstr(r.err, "-f"), "%s", r.err);
	tu_result_free(&r);
	sh(&r, "cd '%s' && '%s' inject -q -f --elfs-for lazy.data && ls jitted-*.so", t, jp());
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	sh(&r, "cd '%s' && chown 54321 lazy.data && '%s' inject -q --elfs-for lazy.data", t, jp());
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(strstr(r.err, "lazy.data") && strstr(r.err, "uid 54321"), "%s", r.err);
	tu_result_free(&r);
}

/* Finding 5: a FIFO at the dump's path hung report; /dev/zero (and /dev/urandom, whose bytes
 * an error then printed) passed an empty dump's identity. Refused at once, no byte shown. */
Test(security_report, fifo_or_device_at_a_noelfs_dump_is_refused_without_blocking)
{
	struct tu_result r;
	sh(&r, "cd '%s' && " INJECT_LAZY " && mkdir away && mv jit-*.dump away/", t, jp());
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	const char *preps[] = { "for f in away/*; do mkfifo $(basename $f); done",
				"for f in away/*; do rm -f $(basename $f); ln -s /dev/zero "
				"$(basename $f); done",
				"for f in away/*; do rm -f $(basename $f); ln -s /dev/urandom "
				"$(basename $f); done" };
	for (int i = 0; i < 3; i++) {
		lazy_report(&r, preps[i], "");
		cr_assert_eq(r.status, 0, "%s: %s", preps[i], r.err);
		cr_assert(strstr(r.err, ".dump: not a regular file"), "%s: %s", preps[i], r.err);
		cr_assert_null(strstr(r.err, "header"), "%s", r.err);
		tu_result_free(&r);
		sh(&r, "cd '%s' && timeout 60 '%s' inject -q --elfs-for lazy.data", t, jp());
		cr_assert_eq(r.status, 1, "%s", r.err);
		cr_assert(strstr(r.err, "not a regular file"), "%s", r.err);
		tu_result_free(&r);
	}
}
/* An archive of 8192 members of 2 KiB each (a second or so to unpack) at t/big.tar.zst. */
static void big_archive(void)
{
	struct tu_result r;
	sh(&r, "cd '%s' && mkdir -p tmp z/d && head -c 16M /dev/urandom > z/all && "
	   "split -b 2k -a 4 z/all z/d/f && rm z/all && tar --zstd -C z -cf big.tar.zst d && "
	   "rm -rf z", t, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
}

/* The names in t/tmp starting with jitprof-archive, space-separated in out ("" if none). */
static int unpacked_dirs(char *out, size_t len)
{
	char tmp[4400];
	int n = 0;
	out[0] = 0;
	snprintf(tmp, sizeof(tmp), "%s/tmp", t);
	DIR *d = opendir(tmp);
	cr_assert(d);
	for (struct dirent *e; (e = readdir(d));)
		if (!strncmp(e->d_name, "jitprof-archive", 15)) {
			size_t k = strlen(out);
			snprintf(out + k, len - k, "%s ", e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

/* `jitprof report --archive big.tar.zst` with TMPDIR=t/tmp, stopped (SIGSTOP) as soon as its
 * unpacked directory appears: its pid, or -1 when it finished before it was caught. */
static pid_t report_caught_unpacking(void)
{
	char dir[4400];
	const char *prog = jp();	/* before the chdir: tu_build's path is relative */
	snprintf(dir, sizeof(dir), "%s", t);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char tmpdir[4500];
		snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s/tmp", dir);
		if (chdir(dir) || putenv(tmpdir) || setenv("DEBUGINFOD_URLS", "", 1))
			_exit(126);
		/* report keeps a signal its parent ignores (nohup): a test run in the background
		 * of a non-interactive shell inherits SIGINT ignored, which is not our subject. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(prog, "jitprof", "report", "-i", "perf.data", "--archive", "big.tar.zst",
		      "--buildid-dir", "cache", (char *)NULL);
		_exit(127);
	}
	char names[4096];
	for (int i = 0; i < 60000; i++) {	/* 6 s of sleeps at most */
		if (unpacked_dirs(names, sizeof(names))) {
			kill(pid, SIGSTOP);
			return pid;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert_fail("report never unpacked big.tar.zst");
	return -1;
}

Test(security_report, signals_remove_the_unpacked_archive, .timeout = 240)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	big_archive();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		pid_t pid = -1;
		for (int tries = 0; tries < 5 && pid < 0; tries++)
			pid = report_caught_unpacking();
		cr_assert_gt(pid, 0, "report always finished before it could be stopped");
		kill(pid, sigs[i]);
		kill(pid, SIGCONT);
		int status;
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sigs[i],
			  "%s: status %#x, want exit %d", strsignal(sigs[i]), status, 128 + sigs[i]);
		char names[4096];
		cr_assert_eq(unpacked_dirs(names, sizeof(names)), 0, "%s left %s",
			     strsignal(sigs[i]), names);
	}
}

/* A SIGKILL (or a crash) leaves the directory: the next report with --archive removes it once
 * nobody holds its lock and it is older than a few seconds; one that is still locked stays. */
Test(security_report, the_next_run_removes_what_a_kill_left, .timeout = 240)
{
	big_archive();
	pid_t pid = -1;
	for (int tries = 0; tries < 5 && pid < 0; tries++)
		pid = report_caught_unpacking();
	cr_assert_gt(pid, 0, "report always finished before it could be stopped");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	char names[4096];
	cr_assert_eq(unpacked_dirs(names, sizeof(names)), 1, "SIGKILL left nothing to clean? %s",
		     names);
	struct tu_result r;
	/* as if it had been left an hour ago; a second one, of a live run, keeps its lock */
	sh(&r, "cd '%s'/tmp && mkdir jitprof-archive.live && touch -d '1 hour ago' jitprof-archive.*",
	   t, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	char live[4500];
	snprintf(live, sizeof(live), "%s/tmp/jitprof-archive.live", t);
	int lock = open(live, O_RDONLY | O_DIRECTORY);
	cr_assert(lock >= 0 && !flock(lock, LOCK_EX));
	sh(&r, "cd '%s' && mkdir -p z/d && echo hi > z/d/f && tar --zstd -C z -cf a.tar.zst d && "
	   "TMPDIR=$PWD/tmp DEBUGINFOD_URLS= '%s' report -i perf.data --archive a.tar.zst "
	   "--buildid-dir $PWD/cache >/dev/null && ls -A tmp", t, jp());
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.out, "jitprof-archive.live\n", "the killed run's directory stays, or "
			 "the live one went: %s", r.out);
	tu_result_free(&r);
	close(lock);
}
