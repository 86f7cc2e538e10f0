/* report_system_wide.c - perf record -a: the idle task's samples are "swapper" (pid 0) as perf
 * names them, with perf's share, in --sort comm and --sort pid. The oracle is perf report on
 * the same file, computed where the test runs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"

/* The percentage of the first row of a perf-style table whose text after the share starts
 * with key (after blanks); -1 when there is none. */
static double share_of(const char *table, const char *key)
{
	for (const char *l = table; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		double pct;
		int n = 0;
		if (l[0] == '#' || sscanf(l, " %lf%%%n", &pct, &n) != 1)
			continue;
		const char *rest = l + n;
		while (*rest == ' ')
			rest++;
		if (!strncmp(rest, key, strlen(key)))
			return pct;
	}
	return -1;
}

Test(report_system_wide, the_idle_task_is_swapper, .timeout = 300)
{
	struct tu_result r;
	char jp[4096], cmd[16384];

	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	cr_assert_not_null(realpath(tu_build("jitprof"), jp), "jitprof is not built");
	char *dir = tu_tmpdir("syswide");
	snprintf(cmd, sizeof(cmd), "cd '%s' && perf record -q -a -e cpu-clock -o a.data -- "
		 "sleep 1 2>&1", dir);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	if (r.status != 0) {
		tu_rmtree(dir);
		cr_skip_test("perf record -a fails here: %s", r.out);
	}
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "cd '%s' && perf report -i a.data --stdio --no-children "
		 "--sort comm -g none 2>/dev/null", dir);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	double want = share_of(r.out, "swapper");
	tu_result_free(&r);
	if (want < 0) {
		tu_rmtree(dir);
		cr_skip_test("no idle sample in this recording (every CPU busy for the whole "
			     "second)");
	}
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' report -i a.data --sort comm", dir, jp);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	double got = share_of(r.out, "swapper");
	cr_expect(got >= 0 && got > want - 0.015 && got < want + 0.015,
		  "swapper: ours %.2f%%, perf's %.2f%%\n%.1500s", got, want, r.out);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' report -i a.data --sort pid", dir, jp);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_expect(share_of(r.out, "0:swapper") >= 0, "%.1500s", r.out);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
