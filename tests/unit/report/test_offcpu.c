/* test_offcpu.c - recorder/report_ingest/offcpu.c on an off-CPU recording written here: the
 * warning about the threads that never ran while recording lists every one of them (issue
 * 39: the list was cut at 512 bytes, with "..."). */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

#define PID 100
#define NEVER 60	/* threads PID + 1 .. PID + NEVER: named, never switched in */

static void comm_of(char *buf, size_t len, int i)
{
	snprintf(buf, len, "worker-%02d", i);
}

/* One record of the switches' event: its fixed words (the header first), then the sid. */
static void write_with_sid(struct pd_writer *w, const struct perf_event_attr *a, uint16_t type,
			   uint16_t misc, const uint64_t *words, size_t n, uint64_t time)
{
	struct pd_sid sid = { .pid = PID, .tid = PID, .time = time, .id = 1 };
	uint64_t rec[16] = { 0 };
	size_t size = 8 * (n + 1);

	if (n)	/* words may be NULL then */
		memcpy(rec + 1, words, 8 * n);
	if (type != PERF_RECORD_SAMPLE)
		size += pd_sid_write(a, &sid, (uint8_t *)rec + size);
	struct perf_event_header h = { type, misc, (uint16_t)size };
	memcpy(rec, &h, sizeof(h));
	cr_assert_eq(pd_writer_write(w, rec, size), 0);
}

Test(offcpu, every_thread_that_never_ran_is_listed)
{
	char *dir = tu_tmpdir("rpoffcpu"), data[4200], comm[32];
	struct pd_writer *w;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CONTEXT_SWITCHES, .sample_period = 1,
				     .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						    PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
				     .sample_id_all = 1, .context_switch = 1 };
	uint64_t id = 1;
	int rc;

	snprintf(data, sizeof(data), "%s/offcpu.data", dir);
	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, &id, 1, "context-switches"), 0);
	for (int i = 0; i <= NEVER; i++) {
		struct pd_sid sid = { .pid = PID, .tid = PID + (uint32_t)i, .time = 5, .id = 1 };
		comm_of(comm, sizeof(comm), i);
		cr_assert_eq(pd_writer_comm(w, PID, PID + (uint32_t)i, comm, false, &sid), 0);
	}
	/* the main thread waits from 500 to 600 */
	uint64_t smp[4] = { 1, 0x400000, PID | (uint64_t)PID << 32, 500 };
	write_with_sid(w, &a, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, smp, 4, 500);
	write_with_sid(w, &a, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, NULL, 0, 500);
	write_with_sid(w, &a, PERF_RECORD_SWITCH, 0, NULL, 0, 600);
	cr_assert_eq(pd_writer_set_sample_time(w, 1, 1000), 0);
	cr_assert_eq(pd_writer_close(w), 0);

	char *said = rt_ingest_said(data, "offcpu", JP_LOG_WARN, &rc);
	cr_assert_eq(rc, 0, "%s", said);
	cr_assert_not_null(strstr(said, "60 thread(s) never ran while recording"), "%s", said);
	const char *at = said;
	for (int i = 1; i <= NEVER; i++) {
		char item[64];
		comm_of(comm, sizeof(comm), i);
		snprintf(item, sizeof(item), "%u (%s)%s", PID + i, comm, i < NEVER ? ", " : "\n");
		const char *p = strstr(at, item);
		cr_assert_not_null(p, "thread %d (%s) is not listed after the ones before: %s",
				   i, item, said);
		at = p + strlen(item);
	}
	free(said);
	tu_rmtree(dir);
	free(dir);
}
