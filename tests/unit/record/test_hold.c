/* test_hold.c - recorder/record/hold.c: a pipe-mode drain pass is held with the DSOs whose
 * build-id is still being read; only those are waited for, each once, and the pass goes out
 * whole and in order when flushed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/record/record_int.h"
#include "tests/lib/testutil.h"

Test(hold, waits_only_for_dsos_being_read)
{
	struct rec_hold h = { 0 };
	struct rec_dso reading = { .state = BID_REQUESTED }, known = { .state = BID_KNOWN },
		       none = { .state = BID_NONE }, unasked = { .state = BID_UNKNOWN };
	cr_assert_eq(rec_hold_need(&h, NULL), 0);
	cr_assert_eq(rec_hold_need(&h, &known), 0);
	cr_assert_eq(rec_hold_need(&h, &none), 0);
	cr_assert_eq(rec_hold_need(&h, &unasked), 0);
	cr_assert_eq(h.nwait, 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(rec_hold_need(&h, &reading), 0);
	cr_assert_eq(h.nwait, 1, "one DSO noted once");
	cr_assert_eq(rec_hold_pending(&h), 1);
	reading.state = BID_KNOWN;	/* the side thread answered */
	cr_assert_eq(rec_hold_pending(&h), 0);
	rec_hold_free(&h);
}

Test(hold, a_dso_that_outlasted_the_hold_is_not_waited_for_again)
{
	struct rec_hold h = { 0 };
	struct rec_dso hung = { .state = BID_REQUESTED }, other = { .state = BID_REQUESTED };
	cr_assert_eq(rec_hold_need(&h, &hung), 0);
	rec_hold_give_up(&h);
	cr_assert(hung.late);
	cr_assert_eq(rec_hold_flush(&h, NULL), 0, "nothing held: nothing written");
	cr_assert_eq(rec_hold_need(&h, &hung), 0);
	cr_assert_eq(rec_hold_need(&h, &other), 0);
	cr_assert_eq(h.nwait, 1, "only the other one");
	cr_assert_eq(rec_hold_pending(&h), 1);
	rec_hold_free(&h);
}

Test(hold, flush_writes_the_pass_whole_and_in_order)
{
	char *dir = tu_tmpdir("hold");
	char path[600];
	snprintf(path, sizeof(path), "%s/p.data", dir);
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = PERF_SAMPLE_IP };
	struct pd_writer *w = NULL;
	cr_assert_eq(pd_writer_open(&w, path, PD_WRITER_PIPE), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, NULL), 0);
	struct rec_hold h = { 0 };
	struct { struct perf_event_header h; uint64_t ip; } s[3000];
	for (unsigned i = 0; i < 3000; i++) {	/* 48 KiB: the buffer grows */
		s[i].h = (struct perf_event_header){ PERF_RECORD_SAMPLE, 0, sizeof(s[i]) };
		s[i].ip = 0x1000 + i;
		cr_assert_eq(rec_hold_record(&h, &s[i].h), 0);
	}
	cr_assert_eq(h.len, sizeof(s));
	cr_assert_eq(rec_hold_flush(&h, w), 0);
	cr_assert_eq(h.len, 0);
	cr_assert_eq(h.nwait, 0);
	cr_assert_geq(pd_writer_bytes(w), sizeof(s));
	cr_assert_eq(pd_writer_close(w), 0);

	struct pd_reader *r = NULL;
	struct pd_event ev;
	unsigned n = 0;
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	while (pd_reader_next(r, &ev) > 0)
		if (ev.type == PERF_RECORD_SAMPLE)
			cr_assert_eq(ev.u.sample.ip, 0x1000 + n++, "sample %u", n);
	cr_assert_eq(n, 3000);
	pd_reader_close(r);
	rec_hold_free(&h);
	tu_rmtree(dir);
	free(dir);
}
