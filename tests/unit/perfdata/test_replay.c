/* test_replay.c - pd_replay, the one read-order-dispatch loop: each record reaches the
 * callback for its type, in time order round by round, HEADER_BUILD_ID at once, and damage
 * ends the replay after what came before it was delivered. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"
#include "tests/unit/perfdata/pdtest.h"

static char *dir;
static char path[512];

static void setup(void)
{
	dir = tu_tmpdir("pdreplay");
	snprintf(path, sizeof(path), "%s/in.data", dir);
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(replay, .init = setup, .fini = teardown);

/* Pipe mode (build-ids come as records): round 1 out of order, a build-id record and one
 * more sample in round 2, then an MMAP2 and a sample after the last round. */
static void write_rounds(void)
{
	struct pd_writer *w;
	struct perf_event_attr a;
	uint64_t id = 7;
	static const uint8_t bid[20] = { 1, 2, 3 };

	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, PD_WRITER_PIPE), 0);
	cr_assert_eq(pd_writer_add_attr(w, &a, &id, 1, "cpu-clock"), 0);
	pdt_sample(w, id, 0x1000, 42, 3000);
	pdt_sample(w, id, 0x1000, 42, 1500);
	struct pd_sid sid = { .pid = 42, .tid = 42, .time = 1000, .id = id };
	cr_assert_eq(pd_writer_comm(w, 42, 42, "w", false, &sid), 0);
	cr_assert_eq(pd_writer_finished_round(w), 0);
	cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, bid, 20, "/x.so"), 0);
	pdt_sample(w, id, 0x1000, 42, 2000);
	cr_assert_eq(pd_writer_finished_round(w), 0);
	struct pd_mmap2_args m = { .pid = 42, .tid = 42, .cpumode = PERF_RECORD_MISC_USER,
				   .start = 0x1000, .len = 0x1000, .filename = "/x.so" };
	sid.time = 3500;
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	pdt_sample(w, id, 0x1000, 42, 4000);
	cr_assert_eq(pd_writer_close(w), 0);
}

struct trace {
	char log[512];
	int stop_at;	/* stop (return -ECANCELED) at this many callbacks; 0 = never */
	int calls;
};

static int note(struct trace *t, const char *what, uint64_t time)
{
	size_t n = strlen(t->log);
	snprintf(t->log + n, sizeof(t->log) - n, "%s%s%llu", n ? " " : "", what,
		 (unsigned long long)time);
	return ++t->calls == t->stop_at ? -ECANCELED : 0;
}

static int on_sample(void *ctx, const struct pd_event *ev)
{
	return note(ctx, "S", ev->u.sample.time);
}

static int on_other(void *ctx, const struct pd_event *ev)
{
	const char *what = ev->type == PERF_RECORD_COMM ? "C" :
			   ev->type == PERF_RECORD_MMAP2 ? "M" :
			   ev->type == PD_RECORD_HEADER_BUILD_ID ? "B" : "?";
	return note(ctx, what, pd_event_time(ev));
}

static int on_round(void *ctx)
{
	return note(ctx, "R", 0);
}

static struct pd_tool tool_for(struct trace *t)
{
	return (struct pd_tool){ .sz = sizeof(struct pd_tool), .sample = on_sample,
				 .mmap = on_other, .comm = on_other, .build_id = on_other,
				 .finished_round = on_round, .ctx = t };
}

Test(replay, time_order_per_round_build_id_at_once)
{
	struct pd_reader *r;
	struct trace t = { .log = "" };
	int damage = 1;

	write_rounds();
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	struct pd_tool tool = tool_for(&t);
	cr_assert_eq(pd_replay(r, &tool, &damage), 0);
	cr_assert_eq(damage, 0);
	cr_assert_str_eq(t.log, "R0 B0 C1000 S1500 S2000 S3000 R0 M3500 S4000");
	pd_reader_close(r);
}

/* The file written by write_rounds replayed with these flags (and the sample callback unless
 * no_sample): what the callbacks saw, in t->log; no damage. */
static void replay_flags(struct trace *t, uint64_t flags, int no_sample)
{
	struct pd_reader *r;
	int damage = 1;
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	struct pd_tool tool = tool_for(t);
	if (no_sample)
		tool.sample = NULL;
	tool.flags = flags;
	cr_assert_eq(pd_replay(r, &tool, &damage), 0);
	cr_assert_eq(damage, 0);
	pd_reader_close(r);
}

/* PD_TOOL_FILE_ORDER (inject's copy): no queue, every record where the file has it, each
 * round mark in place. */
Test(replay, file_order_delivers_as_written)
{
	struct trace t = { .log = "" };
	write_rounds();
	replay_flags(&t, PD_TOOL_FILE_ORDER, 0);
	cr_assert_str_eq(t.log, "S3000 S1500 C1000 R0 B0 S2000 R0 M3500 S4000");
}

/* PD_TOOL_SKIP_SAMPLES without a sample callback: the other records as before, samples read
 * past; with a sample callback the flag changes nothing. */
Test(replay, skip_samples_reads_past_them_without_a_sample_callback)
{
	struct trace t = { .log = "" }, t2 = { .log = "" };
	write_rounds();
	replay_flags(&t, PD_TOOL_FILE_ORDER | PD_TOOL_SKIP_SAMPLES, 1);
	cr_assert_str_eq(t.log, "C1000 R0 B0 R0 M3500");
	replay_flags(&t2, PD_TOOL_FILE_ORDER | PD_TOOL_SKIP_SAMPLES, 0);
	cr_assert_str_eq(t2.log, "S3000 S1500 C1000 R0 B0 S2000 R0 M3500 S4000");
}

Test(replay, callback_error_stops_and_is_returned)
{
	struct pd_reader *r;
	struct trace t = { .log = "", .stop_at = 3 };

	write_rounds();
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	struct pd_tool tool = tool_for(&t);
	cr_assert_eq(pd_replay(r, &tool, NULL), -ECANCELED);
	cr_assert_str_eq(t.log, "R0 B0 C1000");
	pd_reader_close(r);
}

Test(replay, damage_delivers_what_came_before_then_says_so)
{
	struct pd_reader *r;
	struct trace t = { .log = "" };
	size_t len;
	int damage = 0;

	write_rounds();
	uint8_t *buf = tu_read_file(path, &len);
	cr_assert_not_null(buf);
	cr_assert_eq(tu_write_file(path, buf, len - 5), 0);	/* the last sample cut */
	free(buf);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	struct pd_tool tool = tool_for(&t);
	cr_assert_eq(pd_replay(r, &tool, &damage), 0);
	cr_assert_lt(damage, 0);
	cr_assert_str_eq(t.log, "R0 B0 C1000 S1500 S2000 S3000 R0 M3500");
	cr_assert_not_null(strstr(pd_reader_error(r), "offset"), "%s", pd_reader_error(r));
	pd_reader_close(r);
}

Test(replay, tool_with_unknown_tail_refused)
{
	struct pd_reader *r;
	struct { struct pd_tool t; uint64_t newer; } big;

	write_rounds();
	memset(&big, 0, sizeof(big));
	big.t.sz = sizeof(big);
	big.newer = 1;
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert_eq(pd_replay(r, &big.t, NULL), -EINVAL);
	pd_reader_close(r);
}
