/* test_jvmsamples.c - recorder/report_ingest/jvmsamples.c on a recording written here that
 * maps a jitdump in a directory of some 900 bytes which is gone: report --event alloc says
 * which companion it could not open with the whole path (issue 39: the path was cut to fit
 * a 512-byte buffer), then that the JVM wrote no samples. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

Test(jvmsamples, a_companion_that_cannot_be_opened_is_named_whole)
{
	char *dir = tu_tmpdir("rpjvm"), data[4200], gone[1024], marker[1100], want[1300];
	struct pd_writer *w;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1,
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME, .sample_id_all = 1 };
	int rc, n = snprintf(gone, sizeof(gone), "%s/", dir);

	for (int i = 0; n < 900; i++)
		n += snprintf(gone + n, sizeof(gone) - (size_t)n, "gone-%03d/", i);
	gone[n - 1] = 0;
	snprintf(marker, sizeof(marker), "%s/jit-4242.dump", gone);
	snprintf(data, sizeof(data), "%s/alloc.data", dir);
	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	struct pd_mmap2_args m = { .pid = 4242, .tid = 4242, .cpumode = PERF_RECORD_MISC_USER,
				   .start = 0x7f0000000000, .len = 4096,
				   .prot = PROT_READ | PROT_EXEC,
				   .filename = marker };
	struct pd_sid sid = { .pid = 4242, .tid = 4242, .time = 5 };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	cr_assert_eq(pd_writer_close(w), 0);

	char *said = rt_ingest_said(data, "alloc", JP_LOG_WARN, &rc);
	cr_assert_eq(rc, -ENOENT, "%s", said);
	snprintf(want, sizeof(want), "no alloc samples from process 4242: %s/jit-4242.dump"
		 ".jitprof: No such file or directory\n", gone);
	cr_assert_not_null(strstr(said, want), "%s", said);
	cr_assert_not_null(strstr(said, "its JVM wrote no alloc samples"), "%s", said);
	free(said);
	tu_rmtree(dir);
	free(dir);
}
