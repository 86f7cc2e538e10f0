/* record_ctl.c - end to end, how `jitprof record` behaves as a command: the workload's exit
 * status comes back, SIGINT/SIGTERM leave a valid file, -p attaches to a running process, -k
 * takes every clock spelling the issue lists, bad arguments and exec failures are reported. */
#include "tests/e2e/record_util.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

TestSuite(record_ctl, .init = setup, .fini = teardown, .timeout = 120);

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* Reads a recording whole with our reader; returns the number of samples (and in *of_pid,
 * when given, how many of them have pid *of_pid). */
static size_t valid_samples(const char *path, uint32_t *of_pid)
{
	uint32_t want = of_pid ? *of_pid : 0;

	struct pd_reader *r;
	struct pd_event ev;
	size_t n = 0;
	int k;

	if (of_pid)
		*of_pid = 0;
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0, "%s", r ? pd_reader_error(r) : path);
	while ((k = pd_reader_next(r, &ev)) > 0)
		if (ev.type == PERF_RECORD_SAMPLE) {
			n++;
			if (of_pid && ev.u.sample.pid == want)
				(*of_pid)++;
		}
	cr_assert_eq(k, 0, "%s", pd_reader_error(r));
	pd_reader_close(r);
	return n;
}

Test(record_ctl, workload_exit_status_returned)
{
	struct tu_result r;
	char *argv[] = { (char *)tu_build("jitprof"), "record", "-q", "-o", data, "--", "sh", "-c",
			 "exit 7", NULL };

	cr_assert_eq(tu_run(&r, argv, ru_env, NULL, 0, 30), 0);
	cr_assert_eq(r.status, 7, "%s", r.err);
	valid_samples(data, NULL);
	tu_result_free(&r);
}

static void stop_with(int sig)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execl(tu_build("jitprof"), "jitprof", "record", "-q", "-k", "mono", "-e",
		      "page-faults", "-c", "1", "-o", data, "--", "sh", "-c",
		      "while :; do x=$(echo a); done", (char *)NULL);
		_exit(127);
	}
	sleep_ms(700);
	kill(pid, sig);
	for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		sleep_ms(20);
	cr_assert(WIFEXITED(status), "jitprof must stop by itself after signal %d", sig);
	cr_assert_eq(WEXITSTATUS(status), 128 + sig, "the workload got the signal too");
	cr_assert_gt(valid_samples(data, NULL), 10);
	if (tu_have("perf")) {
		struct tu_result r;
		char *rep[] = { "perf", "report", "-i", data, "--stdio", NULL };
		ru_ok(&r, rep, 60);
		ru_no_warnings("perf report", r.err);
		tu_result_free(&r);
	}
}

Test(record_ctl, sigint_leaves_valid_file)
{
	stop_with(SIGINT);
}

Test(record_ctl, sigterm_leaves_valid_file)
{
	stop_with(SIGTERM);
}

/* page-faults, one sample each, and a target that forks: samples arrive however loaded the
 * machine is (a cpu-clock timer may never fire in the short slices of a busy CI box). */
Test(record_ctl, attach_to_pid)
{
	pid_t busy = fork(), rec;
	uint32_t seen;
	int status;

	if (busy == 0) {
		execl("/bin/sh", "sh", "-c", "while :; do x=$(echo a); done", (char *)NULL);
		_exit(127);
	}
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)busy);
	rec = fork();
	if (rec == 0) {
		execl(tu_build("jitprof"), "jitprof", "record", "-q", "-e", "page-faults", "-c",
		      "1", "-p", pid, "-o", data, (char *)NULL);
		_exit(127);
	}
	sleep_ms(1500);
	kill(busy, SIGKILL);	/* the target going away ends the recording */
	waitpid(busy, &status, 0);
	for (int i = 0; i < 500 && waitpid(rec, &status, WNOHANG) == 0; i++)
		sleep_ms(20);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	seen = (uint32_t)busy;
	cr_assert_gt(valid_samples(data, &seen), 10);
	cr_assert_gt(seen, 0, "samples of the attached process itself");
	/* The COMM and maps of the running process were synthesized from /proc. */
	struct pd_reader *r;
	struct pd_event ev;
	bool comm = false, dash = false;
	cr_assert_eq(pd_reader_open(&r, data, NULL), 0);
	while (pd_reader_next(r, &ev) > 0) {
		comm |= ev.type == PERF_RECORD_COMM && ev.u.comm.pid == (uint32_t)busy;
		dash |= ev.type == PERF_RECORD_MMAP2 && ev.u.mmap.pid == (uint32_t)busy &&
			strstr(ev.u.mmap.filename, "dash");
	}
	pd_reader_close(r);
	cr_assert(comm && dash);
}

Test(record_ctl, every_clock_spelling)
{
	static const struct { const char *arg; int id; } clocks[] = {
		{ "mono", 1 }, { "monotonic", 1 }, { "CLOCK_MONOTONIC", 1 }, { "1", 1 },
		{ "raw", 4 }, { "boot", 7 }, { "realtime", 0 }, { "tai", 11 },
	};
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		struct tu_result r;
		struct pd_reader *rd;
		struct pd_clock_data cd;
		char *argv[] = { (char *)tu_build("jitprof"), "record", "-q", "-k",
				 (char *)clocks[i].arg, "-o", data, "--", "true", NULL };
		ru_ok(&r, argv, 30);
		tu_result_free(&r);
		cr_assert_eq(pd_reader_open(&rd, data, NULL), 0);
		cr_assert(pd_reader_evsel(rd, 0)->attr.use_clockid);
		cr_assert_eq(pd_reader_evsel(rd, 0)->attr.clockid, clocks[i].id, "-k %s",
			     clocks[i].arg);
		cr_assert_eq(pd_reader_feat_clock_data(rd, &cd), 0);
		cr_assert_eq(cd.clockid, (uint32_t)clocks[i].id);
		cr_assert_gt(cd.tod_ns, 1500000000ull * 1000000000ull);
		pd_reader_close(rd);
	}
}

Test(record_ctl, usage_errors)
{
	struct tu_result r;
	char *bad_clock[] = { (char *)tu_build("jitprof"), "record", "-k", "sundial", "--", "true",
			      NULL };
	cr_assert_eq(tu_run(&r, bad_clock, NULL, NULL, 0, 30), 0);
	cr_assert_eq(r.status, 2);
	cr_assert_not_null(strstr(r.err, "sundial"));
	tu_result_free(&r);

	char *nothing[] = { (char *)tu_build("jitprof"), "record", NULL };
	cr_assert_eq(tu_run(&r, nothing, NULL, NULL, 0, 30), 0);
	cr_assert_eq(r.status, 2);
	tu_result_free(&r);

	char *noexec[] = { (char *)tu_build("jitprof"), "record", "-o", data, "--",
			   "/nonexistent/prog", NULL };
	cr_assert_eq(tu_run(&r, noexec, NULL, NULL, 0, 30), 0);
	cr_assert_neq(r.status, 0);
	cr_assert_not_null(strstr(r.err, "cannot run"), "%s", r.err);
	cr_assert_neq(access(data, F_OK), 0, "no half-written output after a failure");
	tu_result_free(&r);

	/* -F above what the kernel samples at: refused before anything runs, naming the limit
	 * (read here: each machine has its own, and the kernel lowers it by itself). */
	char *lim = tu_read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);
	if (lim) {
		unsigned long long max = strtoull(lim, NULL, 10);
		char hz[32], want[64];
		snprintf(hz, sizeof(hz), "%llu", max + 1);
		snprintf(want, sizeof(want), "limit of %llu Hz", max);
		for (int i = 0; i < 2; i++) {
			char *fast[] = { (char *)tu_build("jitprof"), i ? "profile" : "record", "-F",
					 hz, "-o", data, "--", "true", NULL };
			cr_assert_eq(tu_run(&r, fast, NULL, NULL, 0, 30), 0);
			cr_expect_eq(r.status, 2, "%s -F %s: %s", fast[1], hz, r.err);
			cr_expect(strstr(r.err, want), "%s", r.err);
			cr_expect_neq(access(data, F_OK), 0, "%s ran", fast[1]);
			tu_result_free(&r);
		}
		free(lim);
	} else {
		tu_skip_part("no /proc/sys/kernel/perf_event_max_sample_rate here");
	}

	char *help[] = { (char *)tu_build("jitprof"), "record", "--help", NULL };
	cr_assert_eq(tu_run(&r, help, NULL, NULL, 0, 30), 0);
	cr_assert_eq(r.status, 0);
	cr_assert_not_null(strstr(r.out, "-k CLOCK"));
	tu_result_free(&r);
}

/* The engine says why it failed, once; the command adds no second, wrong reason. */
Test(record_ctl, unknown_event_said_once)
{
	struct tu_result r;
	char *argv[] = { (char *)tu_build("jitprof"), "record", "-e", "bogus", "-o", data, "--",
			 "true", NULL };
	cr_assert_eq(tu_run(&r, argv, NULL, NULL, 0, 30), 0);
	cr_assert_neq(r.status, 0);
	cr_assert_eq(tu_count(r.err, "unknown event 'bogus'"), 1, "%s", r.err);
	cr_assert_eq(tu_count(r.err, "error"), 1, "one error line only: %s", r.err);
	cr_assert_null(strstr(r.err, "record failed"), "%s", r.err);
	cr_assert_neq(access(data, F_OK), 0, "no output after a failure");
	tu_result_free(&r);
}

Test(record_ctl, summary_reports_samples)
{
	struct tu_result r;
	char *argv[] = { (char *)tu_build("jitprof"), "record", "-F", "1000", "-o", data, "--",
			 "sh", "-c", RU_LOOP, NULL };

	ru_ok(&r, argv, 60);
	size_t n = valid_samples(data, NULL);
	char want[64];
	snprintf(want, sizeof(want), "%zu samples", n);
	cr_assert_not_null(strstr(r.err, want), "summary '%s' missing in: %s", want, r.err);
	tu_result_free(&r);
}

/* As an unprivileged user (kernel.perf_event_paranoid 2 here): a workload is recorded in user
 * space with a warning; -a is refused with a message that says what to change. */
Test(record_ctl, unprivileged_user)
{
	struct tu_result r;
	char cmd[2048];

	if (geteuid() != 0 || !tu_have("runuser"))
		cr_skip_test("needs root (to become nobody) and runuser");
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int lvl = -1;
	if (f) {
		if (fscanf(f, "%d", &lvl) != 1)
			lvl = -1;
		fclose(f);
	}
	if (lvl < 2)
		cr_skip_test("kernel.perf_event_paranoid is %d: nothing is refused", lvl);
	cr_assert_eq(chmod(dir, 0777), 0);
	snprintf(cmd, sizeof(cmd), "runuser -u nobody -- %s record -o %s -- sh -c '%s'",
		 tu_build("jitprof"), data, RU_LOOP);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "user space only"), "%s", r.err);
	valid_samples(data, NULL);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "runuser -u nobody -- %s record -a -o %s.a -- true",
		 tu_build("jitprof"), data);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_neq(r.status, 0);
	cr_assert_not_null(strstr(r.err, "perf_event_paranoid"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "sysctl -w kernel.perf_event_paranoid="), "%s", r.err);
	tu_result_free(&r);
}
