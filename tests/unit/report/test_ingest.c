/* test_ingest.c - recorder/report/ingest.c on a perf.data written here: a call chain deeper
 * than the 512 frames a sample keeps is cut there, and the cut said once with how many
 * samples it took (issue 34, finding 9), and the session keeps what was said (issue 38: the
 * HTML page lists it). */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/lib/testutil.h"

static char said[4096];
static int nsaid;

static void keep(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	if (level == JP_LOG_WARN && strstr(msg, "call chains")) {
		nsaid++;
		snprintf(said, sizeof(said), "%s", msg);
	}
}

/* A sample at time t with a chain of depth user addresses. */
static void deep_sample(struct pd_writer *w, uint64_t t, size_t depth)
{
	size_t size = 8 * 5 + 8 * depth;
	uint64_t *rec = calloc(1, size);
	struct perf_event_header *h = (void *)rec;
	*h = (struct perf_event_header){ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
					 (uint16_t)size };
	rec[1] = 0x400000;
	rec[2] = 9ull | 9ull << 32;
	rec[3] = t;
	rec[4] = depth;
	for (size_t k = 0; k < depth; k++)
		rec[5 + k] = 0x500000 + 16 * k;
	cr_assert_eq(pd_writer_write(w, rec, size), 0);
	free(rec);
}

Test(ingest, chains_past_the_frame_limit_are_cut_and_said_once)
{
	char *dir = tu_tmpdir("rpdeep"), data[4200];
	snprintf(data, sizeof(data), "%s/deep.data", dir);
	struct pd_writer *w;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN,
				     .sample_period = 1 };
	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	deep_sample(w, 10, 700);
	deep_sample(w, 11, 20);
	deep_sample(w, 12, 2000);
	cr_assert_eq(pd_writer_close(w), 0);

	struct rp_session *s;
	cr_assert_eq(rp_session_new(&s), 0);
	struct rp_ingest_opts o = { .sz = sizeof(o), .input = data, .want_callchain = 1,
				    .buildid_dir = "/nonexistent", .log = { keep, NULL } };
	nsaid = 0;
	cr_assert_eq(rp_ingest(s, &o), 0);
	cr_assert_eq(rp_nr_samples(s), 3);
	cr_assert_eq(rp_sample_at(s, 0)->nr, 512);
	cr_assert_eq(rp_sample_at(s, 1)->nr, 21);	/* the ip and its 20 callers */
	cr_assert_eq(rp_sample_at(s, 2)->nr, 512);
	cr_assert_eq(nsaid, 1, "%d", nsaid);
	cr_assert(strstr(said, "2 samples' call chains are deeper than 512 frames"), "%s", said);
	/* ... and kept in the session for the HTML page, as said (the caller's log still got
	 * it above). */
	size_t kept = 0;
	for (size_t i = 0; i < s->nr_warnings; i++)
		kept += !strcmp(s->warnings[i], said);
	cr_assert_eq(kept, 1, "%zu warnings kept, none is '%s'", s->nr_warnings, said);
	cr_assert_eq(s->more_warnings, 0);
	rp_session_free(s);
	tu_rmtree(dir);
	free(dir);
}
