/* profile_inproc.c - `jitprof profile` runs inject and report in its own process: the only
 * programs it starts are `jitprof record` and, under it, the profiled command (counted with
 * strace -f's execve trace), and a signal that comes while the in-process report reads ends the
 * profile with its error and no output (signal injected by strace at the report's open of the
 * injected recording). The steps' work is checked by the toy JIT's known generations. Parts
 * that need strace skip without it, or where it may not trace. */
#include "tests/e2e/profile_util.h"

struct traced {
	char dir[PATH_MAX], out[PATH_MAX], mj[PATH_MAX], log[PATH_MAX + 16];
	char data[PATH_MAX + 32], jitdata[PATH_MAX + 32];
	struct tu_result r;
};

/* A fresh directory and the paths of a profile into DIR/m.txt; 0 without strace (said, as a
 * skipped part). */
static int traced_setup(struct traced *t, const char *why)
{
	if (!tu_have("strace")) {
		tu_skip_part("strace is not installed: %s not checked", why);
		return 0;
	}
	char *dir = tu_tmpdir("profile-inproc");
	AG_FMT(t->dir, "%s", dir);
	free(dir);
	AG_FMT(t->out, "%s/m.txt", t->dir);
	AG_FMT(t->log, "%s/strace.log", t->dir);
	AG_FMT(t->data, "%s/m.txt.jitprof/perf.data", t->dir);
	AG_FMT(t->jitdata, "%s/m.txt.jitprof/perf.jit.data", t->dir);
	cr_assert_not_null(realpath(tu_build("minijit"), t->mj), "minijit not built");
	return 1;
}

/* `strace -f -qq -o LOG EXTRA... jitprof profile -q -o DIR/m.txt -- minijit`; 0 when strace
 * may not trace here (said, as a skipped part; the directory removed), 1 when it ran. */
static int traced_profile(struct traced *t, const char *const *extra, const char *why)
{
	const char *argv[40];
	char exe[PATH_MAX];
	int n = 0;

	cr_assert_not_null(realpath(tu_build("jitprof"), exe));
	const char *head[] = { "strace", "-f", "-qq", "-s", "256", "-o", t->log, NULL };
	const char *rest[] = { exe, "profile", "-q", "-o", t->out, "--", t->mj, NULL };
	for (int i = 0; head[i]; i++)
		argv[n++] = head[i];
	for (int i = 0; extra[i]; i++)
		argv[n++] = extra[i];
	for (int i = 0; rest[i]; i++)
		argv[n++] = rest[i];
	argv[n] = NULL;
	cr_assert_eq(tu_run(&t->r, (char *const *)argv, ag_env(), NULL, 0, 300), 0,
		     "cannot run strace");
	if (strstr(t->r.err, "strace: ") && (strstr(t->r.err, "ptrace") ||
					     strstr(t->r.err, "Operation not permitted"))) {
		tu_skip_part("strace may not trace here (%.200s): %s not checked", t->r.err, why);
		tu_result_free(&t->r);
		tu_rmtree(t->dir);
		return 0;
	}
	return 1;
}

/* The execve calls of a strace log that succeeded (" = 0" at the line's end), counted by
 * whether their argv[1] is what. what NULL: all of them. */
static int execs(const char *log, const char *exe, const char *what)
{
	char want[PATH_MAX + 64];
	int n = 0;

	if (what)
		AG_FMT(want, "execve(\"%s\", [\"%s\", \"%s\"", exe, exe, what);
	else
		AG_FMT(want, "execve(\"%s\", ", exe);
	for (const char *p = log; (p = strstr(p, want)); p++) {
		const char *end = strchr(p, '\n');
		n += end && end - p > 4 && !strncmp(end - 4, " = 0", 4);
	}
	return n;
}

/* Before, profile started `jitprof inject` once and `jitprof report` twice (the methods
 * table, then --generations) after the recording: now jitprof is exec'd as the profile (and
 * its malloc-tuned re-execution) and as record, the toy JIT once, nothing else. */
Test(profile_inproc, starts_only_the_recording, .timeout = 300)
{
	struct traced t;
	const char *extra[] = { "-e", "trace=execve", "-e", "signal=none", NULL };
	char exe[PATH_MAX];

	if (!traced_setup(&t, "which programs profile starts") ||
	    !traced_profile(&t, extra, "which programs profile starts"))
		return;
	cr_assert_eq(t.r.status, 0, "%s", t.r.err);
	cr_assert_not_null(realpath(tu_build("jitprof"), exe));
	char *log = tu_read_file(t.log, NULL);
	cr_assert_not_null(log);
	/* profile itself, and once more when it re-executes with glibc's malloc tuned
	 * (lib/malloc_tune.h: not in a sanitized build) */
	int self = execs(log, exe, "profile");
	cr_expect(self == 1 || self == 2, "%d: %s", self, log);
	cr_expect_eq(execs(log, exe, "record"), 1, "%s", log);
	cr_expect_eq(execs(log, exe, "inject"), 0, "inject ran as a program: %s", log);
	cr_expect_eq(execs(log, exe, "report"), 0, "report ran as a program: %s", log);
	cr_expect_eq(execs(log, exe, NULL), self + 1, "%s", log);
	cr_expect_eq(execs(log, t.mj, NULL), 1, "%s", log);
	cr_expect_eq(tu_count(log, "execve("), (size_t)self + 2, "another program started: %s",
		     log);
	/* inject and report did their work: the three generations of checksum minijit makes
	 * (samples/minijit), in the table and the generations after it */
	char *s = tu_read_file(t.out, NULL);
	cr_assert_not_null(s, "%s", t.r.err);
	cr_expect(pf_method_row(s, "checksum", NULL), "%.2000s", s);
	cr_expect_eq(pf_generations(s, "checksum"), 3, "%.4000s", s);
	free(s);
	free(log);
	tu_result_free(&t.r);
	tu_rmtree(t.dir);
}

/* SIGINT while report (in profile's process) opens the injected recording: the profile ends
 * there with its error and status 1, no report written, the recording kept. Profile opens
 * that file once itself before (it counts the code loads): the report's open is the 2nd. */
Test(profile_inproc, signal_during_report_stops_the_profile, .timeout = 300)
{
	const char *why = "a signal during the report";
	char want[PATH_MAX + 96];
	struct traced t;

	if (!traced_setup(&t, why))
		return;
	const char *extra[] = { "-P", t.jitdata, "-e", "trace=openat", "-e",
				"inject=openat:signal=SIGINT:when=2", NULL };
	if (!traced_profile(&t, extra, why))
		return;
	cr_expect_eq(t.r.status, 1, "%s", t.r.err);
	AG_FMT(want, "jitprof profile: error: stopped by signal %d; the recording is %s\n", SIGINT,
	       t.data);
	cr_expect(strstr(t.r.err, want), "no '%s' in: %s", want, t.r.err);
	cr_expect_null(strstr(t.r.err, "the report failed"), "%s", t.r.err);
	cr_expect(!pf_exists(t.out), "a report was written: %s", t.r.err);
	cr_expect(pf_exists(t.data), "the recording is gone");
	tu_result_free(&t.r);
	tu_rmtree(t.dir);
}
