/* test_events.c - recorder/report_ingest/events.c on a recording of 60 events written here:
 * an --event the file lacks is an error listing every one of its events, and the warning
 * that names the events beside the one reported lists them all with their samples (issue 39:
 * both were cut at 512 and 1024 bytes). */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

#define NEVENTS 60

static char *dir, data[4200];

static void setup(void)
{
	dir = tu_tmpdir("rpevents");
	snprintf(data, sizeof(data), "%s/many.data", dir);
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(events, .init = setup, .fini = teardown);

static void event_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "a-software-event-with-a-long-name-%02d", i);
}

/* NEVENTS cpu-clock events (id i + 1), and i + 1 samples of event i for the first three. */
static void write_many(void)
{
	struct pd_writer *w;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1,
				     .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						    PERF_SAMPLE_TID | PERF_SAMPLE_TIME };
	char name[64];

	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	for (int i = 0; i < NEVENTS; i++) {
		uint64_t id = (uint64_t)i + 1;
		event_name(name, sizeof(name), i);
		cr_assert_geq(pd_writer_add_attr(w, &a, &id, 1, name), 0);
	}
	uint64_t t = 10;
	for (int i = 0; i < 3; i++)
		for (int k = 0; k <= i; k++) {
			struct perf_event_header h = { PERF_RECORD_SAMPLE,
							PERF_RECORD_MISC_USER, 40 };
			uint64_t rec[5] = { 0, (uint64_t)i + 1, 0x400000, 9ull | 9ull << 32, t++ };
			memcpy(rec, &h, sizeof(h));
			cr_assert_eq(pd_writer_write(w, rec, sizeof(rec)), 0);
		}
	cr_assert_eq(pd_writer_close(w), 0);
}

/* Every event named in said, in file order, each followed by tail(i) (NULL: nothing). */
static void assert_lists_all(const char *said, const char *(*tail)(int i, char *buf))
{
	char name[128], buf[64];
	const char *at = said;

	for (int i = 0; i < NEVENTS; i++) {
		event_name(name, sizeof(name), i);
		if (tail)
			strcat(name, tail(i, buf));
		const char *p = strstr(at, name);
		cr_assert_not_null(p, "event %d (%s) is not listed after the ones before: %s", i,
				   name, said);
		at = p + strlen(name);
	}
}

Test(events, an_event_the_file_lacks_lists_every_event)
{
	int rc;

	write_many();
	char *said = rt_ingest_said(data, "no-such-event", JP_LOG_ERROR, &rc);
	cr_assert_eq(rc, -ENOENT);
	cr_assert_not_null(strstr(said, "has no event 'no-such-event'; its events: "), "%s", said);
	assert_lists_all(said, NULL);
	/* ... and the rest of the message after the list */
	cr_assert_not_null(strstr(said, "-59 (and the reports of time or of the JVM's samples: "
				  "offcpu, wall, alloc, lock)\n"), "%s", said);
	free(said);
}

static const char *samples_of(int i, char *buf)
{
	sprintf(buf, " (%d samples)", i < 3 ? i + 1 : 0);
	return buf;
}

Test(events, the_other_events_are_all_named_with_their_samples)
{
	int rc;

	write_many();
	char *said = rt_ingest_said(data, NULL, JP_LOG_WARN, &rc);
	cr_assert_eq(rc, 0, "%s", said);
	cr_assert_not_null(strstr(said, "the recording has several events: "), "%s", said);
	assert_lists_all(said, samples_of);
	cr_assert_not_null(strstr(said, "-59 (0 samples); reporting "
				  "a-software-event-with-a-long-name-00 only"), "%s", said);
	free(said);

	said = rt_ingest_said(data, "a-software-event-with-a-long-name-02", JP_LOG_WARN, &rc);
	cr_assert_eq(rc, 0, "%s", said);
	cr_assert_not_null(strstr(said, "reporting a-software-event-with-a-long-name-02 "
				  "(--event); the recording's events: "), "%s", said);
	assert_lists_all(said, samples_of);
	free(said);
}
