/* report_perf.c - `jitprof report` against `perf report --stdio --no-children` (the oracle)
 * on files recorded by perf and injected by perf or by jitprof: the same top 20 rows, with
 * the same percentages to 0.01. The perf-jvmti fixture (perf's own agent) and a fresh
 * minijit recording. */
#include "tests/e2e/report_util.h"

TestSuite(report_perf, .init = rx_setup, .fini = rx_teardown, .timeout = 240);

static int need_perf(void)
{
	return tu_have("perf");
}

Test(report_perf, fixture_injected_by_perf)
{
	if (!need_perf())
		cr_skip_test("perf is not installed");
	if (rx_fixture(dir))
		cr_skip_test("fixture %s is not on this machine", RX_FIXTURE);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s/home' perf inject --jit -i perf.data -o perf.jit.data", dir,
	      dir);
	tu_result_free(&r);
	char data[PATH_MAX], home[PATH_MAX];
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_compare_with_perf(home, data, 20);
	/* The generations perf cannot tell apart: four rows of fold, told apart by us. */
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --generations --method 'Fixture\\.fold' 2>&1",
	      home, rx_jitprof, data);
	cr_assert(strstr(r.out, "Fixture.fold(Fixture$Op[], int)  (pid 27543, 8 generations"),
		  "%s", r.out);
	tu_result_free(&r);
	rx_check_generations(home, data);
}

Test(report_perf, fixture_injected_by_jitprof)
{
	if (!need_perf())
		cr_skip_test("perf is not installed");
	if (rx_fixture(dir))
		cr_skip_test("fixture %s is not on this machine", RX_FIXTURE);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s/home' '%s' inject --jit -q -i perf.data -o perf.jit.data",
	      dir, dir, rx_jitprof);
	tu_result_free(&r);
	char data[PATH_MAX], home[PATH_MAX];
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_compare_with_perf(home, data, 20);
	rx_check_generations(home, data);
}

Test(report_perf, minijit_injected_by_perf_and_by_jitprof)
{
	if (!need_perf())
		cr_skip_test("perf is not installed");
	char home[PATH_MAX], data[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_record_minijit(dir, home);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' perf inject --jit -i perf.data -o perf.jit.data", dir,
	      home);
	tu_result_free(&r);
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	rx_compare_with_perf(home, data, 20);

	/* jitprof inject into a copy of the dump directory: the ELF names are the same. */
	rx_ok(&r, "cd '%s' && cp -r jit jit2 && rm -f jit2/*.so && HOME='%s' '%s' inject --jit -q "
	      "--jit-dir jit2 -i perf.data -o perf.jp.data", dir, home, rx_jitprof);
	tu_result_free(&r);
	snprintf(data, sizeof(data), "%s/perf.jp.data", dir);
	rx_compare_with_perf(home, data, 20);
}

Test(report_perf, sort_keys_match_perf)
{
	if (!need_perf())
		cr_skip_test("perf is not installed");
	char home[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_record_minijit(dir, home);
	struct tu_result a, b;
	rx_ok(&a, "cd '%s' && HOME='%s' perf inject --jit -i perf.data -o perf.jit.data", dir,
	      home);
	tu_result_free(&a);
	static const char *const sorts[] = { "dso,sym", "pid", "comm,dso" };
	static char ours[64][512], theirs[64][512];
	for (size_t k = 0; k < sizeof(sorts) / sizeof(sorts[0]); k++) {
		rx_ok(&a, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data --sort %s 2>/dev/null", dir,
		      home, rx_jitprof, sorts[k]);
		rx_ok(&b, "cd '%s' && HOME='%s' perf report -i perf.jit.data --stdio --no-children "
		      "-g none --sort %s 2>/dev/null", dir, home, sorts[k]);
		size_t na = rx_rows(a.out, ours, 64), nb = rx_rows(b.out, theirs, 64);
		cr_assert(na >= 1 && nb >= 1);
		size_t n = na < nb ? na : nb;
		for (size_t i = 0; i < n && i < 10; i++)
			cr_assert_str_eq(ours[i], theirs[i], "--sort %s row %zu\nours:\n%s\nperf:\n%s",
					 sorts[k], i + 1, a.out, b.out);
		tu_result_free(&a);
		tu_result_free(&b);
	}
}

/* The all-jitprof pipeline: jitprof record, jitprof inject, then both reports. */
Test(report_perf, minijit_recorded_and_injected_by_jitprof)
{
	if (!need_perf())
		cr_skip_test("perf is not installed");
	if (!rx_minijit[0])
		cr_skip_test("minijit is not built");
	struct tu_result r;
	if (rx_sh(&r, "'%s' record --help", rx_jitprof) || r.status) {
		tu_result_free(&r);
		cr_skip_test("jitprof record is not built in");
	}
	tu_result_free(&r);
	char home[PATH_MAX], data[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_ok(&r, "mkdir -p '%s/jit' '%s' && cd '%s' && HOME='%s' '%s' record -k mono -g -o "
	      "perf.data -- '%s' --dir '%s/jit' --seconds 0.3 >/dev/null 2>&1 && HOME='%s' '%s' "
	      "inject --jit -q -i perf.data -o perf.jit.data", dir, home, dir, home, rx_jitprof,
	      rx_minijit, dir, home, rx_jitprof);
	tu_result_free(&r);
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	rx_compare_with_perf(home, data, 20);
}
