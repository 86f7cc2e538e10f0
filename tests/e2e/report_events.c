/* report_events.c - a recording of two events (perf record -e cpu-clock,task-clock): report
 * reads the first the recording asked for (whichever sampled first: page-faults often comes
 * before cpu-clock in time) and names every event with its samples in a warning; --event
 * chooses one (its
 * modifiers, as in cpu-clock:ppp, need not be typed); an event the file lacks is an error that
 * lists the file's events. The oracle is perf script's count of each event's samples. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"

static const char busy_src[] =
	"#include <time.h>\n"
	"static volatile unsigned long sink;\n"
	"int main(void) { time_t t0 = time(0); while (time(0) - t0 < 1)\n"
	" for (int i = 0; i < 100000; i++) sink += (unsigned long)i * i; return 0; }\n";

static char *dir, jp[4096];

static void sh(struct tu_result *r, const char *cmd)
{
	char full[16384];
	snprintf(full, sizeof(full), "cd '%s' && J='%s' && export DEBUGINFOD_URLS= && %s", dir, jp,
		 cmd);
	cr_assert_eq(tu_sh(r, full, 120), 0, "cannot run %s", cmd);
}

/* The sample count and event name of a perf-style table's header; -1 when absent. */
static long samples_of(const char *out, char *event, size_t len)
{
	const char *h = strstr(out, "# Samples: ");
	char name[128] = "";
	long n = -1;

	if (h && sscanf(h, "# Samples: %ld of event '%127[^']'", &n, name) != 2)
		n = -1;
	snprintf(event, len, "%s", name);
	return n;
}

/* perf's own count of the samples of event name (perf script prints it as "name:"). */
static long perf_count(const char *file, const char *name)
{
	struct tu_result r;
	char cmd[512];
	long n = 0;

	snprintf(cmd, sizeof(cmd), "perf script -i %s -F event 2>/dev/null | "
		 "grep -c '^ *%s[:]'", file, name);
	sh(&r, cmd);
	n = atol(r.out);
	tu_result_free(&r);
	return n;
}

Test(report_events, two_events_one_chosen, .timeout = 300)
{
	struct tu_result r;
	char event[128];

	if (!tu_have("perf") || !tu_have("cc"))
		cr_skip_test("perf or cc is not installed");
	cr_assert_not_null(realpath(tu_build("jitprof"), jp), "jitprof is not built");
	dir = tu_tmpdir("events");
	char src[4200];
	snprintf(src, sizeof(src), "%s/busy.c", dir);
	cr_assert_eq(tu_write_file(src, busy_src, sizeof(busy_src) - 1), 0);
	sh(&r, "cc -O1 -o busy busy.c && perf record -q -e cpu-clock,task-clock -o two.data "
	       "./busy 2>&1");
	if (r.status != 0) {
		tu_result_free(&r);
		cr_skip_test("perf record -e cpu-clock,task-clock fails here");
	}
	tu_result_free(&r);
	long cpu = perf_count("two.data", "cpu-clock"), task = perf_count("two.data", "task-clock");
	cr_assert(cpu > 0 && task > 0, "perf script counts %ld and %ld", cpu, task);

	/* The first event, and a warning that names both. */
	sh(&r, "$J report -i two.data");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(samples_of(r.out, event, sizeof(event)), cpu, "%.600s", r.out);
	cr_expect(!strncmp(event, "cpu-clock", 9), "%s", event);
	char want[256];
	snprintf(want, sizeof(want), "several events: cpu-clock (%ld samples), task-clock (%ld "
		 "samples); reporting cpu-clock only; --event NAME", cpu, task);
	cr_expect(strstr(r.err, want), "want '%s' in %s", want, r.err);
	tu_result_free(&r);

	/* The first asked for, even where the second's samples come first in time. */
	sh(&r, "perf record -q -e cpu-clock,page-faults -o pf.data ./busy 2>&1");
	cr_assert_eq(r.status, 0, "%s", r.out);
	tu_result_free(&r);
	long pf_cpu = perf_count("pf.data", "cpu-clock"), pf = perf_count("pf.data", "page-faults");
	sh(&r, "$J report -i pf.data");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(samples_of(r.out, event, sizeof(event)), pf_cpu, "%.600s", r.out);
	cr_expect(!strncmp(event, "cpu-clock", 9), "%s", event);
	snprintf(want, sizeof(want), "cpu-clock (%ld samples), page-faults (%ld samples)", pf_cpu,
		 pf);
	cr_expect(strstr(r.err, want), "want '%s' in %s", want, r.err);
	tu_result_free(&r);

	/* The second, chosen: its own count, no warning. */
	sh(&r, "$J report -i two.data --event task-clock");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(samples_of(r.out, event, sizeof(event)), task, "%.600s", r.out);
	cr_expect(!strncmp(event, "task-clock", 10), "%s", event);
	cr_expect_null(strstr(r.err, "several events"), "%s", r.err);
	tu_result_free(&r);

	/* One the file lacks. */
	sh(&r, "$J report -i two.data --event no-such-event");
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.err, "two.data has no event 'no-such-event'; its events: cpu-clock"),
		  "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
