/* security_report.c - issue 16 against `jitprof report` on a recording from someone else:
 * --archive leaves nothing unpacked behind in a release build (finding 10); a recording owned
 * by another user than the runner or root is refused unless -f, as perf does (finding 13). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
