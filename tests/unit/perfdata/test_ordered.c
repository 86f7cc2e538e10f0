/* test_ordered.c - recorder/perfdata/ordered.c: FINISHED_ROUND windows release events in time
 * order, and nothing newer than the previous round's maximum leaves early. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"
#include "tests/unit/perfdata/pdtest.h"

static void push(struct pd_ordered *q, uint64_t t)
{
	uint64_t rec[2] = { 0, t };
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev = { 0 };

	h->type = 99;	/* an unknown kernel type: raw bytes only */
	h->size = sizeof(rec);
	ev.raw = rec;
	ev.size = sizeof(rec);
	ev.type = 99;
	ev.offset = t;
	cr_assert_eq(pd_ordered_push(q, &ev, t), 0);
}

static uint64_t pop_time(struct pd_ordered *q, int *got)
{
	struct pd_event ev;
	*got = pd_ordered_pop(q, &ev);
	if (*got <= 0)
		return 0;
	uint64_t t;
	memcpy(&t, (const uint8_t *)ev.raw + 8, 8);
	cr_assert_eq(ev.offset, t);
	return t;
}

Test(ordered, rounds_release_in_time_order)
{
	struct pd_ordered *q = pd_ordered_new(NULL);
	int got;

	/* Round 1: two CPUs' buffers interleaved out of order. */
	push(q, 30);
	push(q, 10);
	push(q, 20);
	pd_ordered_round(q);
	pop_time(q, &got);
	cr_assert_eq(got, 0, "first round: nothing is safe yet");
	/* Round 2: events older than round 1's max may still arrive. */
	push(q, 25);
	push(q, 50);
	pd_ordered_round(q);	/* releases <= 30 */
	uint64_t want[] = { 10, 20, 25, 30 };
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(pop_time(q, &got), want[i]);
	pop_time(q, &got);
	cr_assert_eq(got, 0);
	cr_assert_eq(pd_ordered_queued(q), 1);
	pd_ordered_flush(q);
	cr_assert_eq(pop_time(q, &got), 50);
	pd_ordered_free(q);
}

Test(ordered, equal_times_keep_arrival_order)
{
	struct pd_ordered *q = pd_ordered_new(NULL);
	struct pd_event ev;
	uint64_t seen[3];

	for (int i = 0; i < 3; i++) {
		uint64_t rec[2] = { 0, (uint64_t)i };
		struct perf_event_header *h = (void *)rec;
		struct pd_event e = { .raw = rec, .size = 16, .type = 99, .offset = (uint64_t)i };
		h->type = 99;
		h->size = 16;
		pd_ordered_push(q, &e, 5);
	}
	pd_ordered_flush(q);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(pd_ordered_pop(q, &ev), 1);
		seen[i] = ev.offset;
	}
	cr_assert(seen[0] == 0 && seen[1] == 1 && seen[2] == 2);
	pd_ordered_free(q);
}

Test(ordered, many_events_sorted)
{
	struct pd_ordered *q = pd_ordered_new(NULL);
	unsigned seed = 7;
	uint64_t prev = 0;
	int got;

	for (int i = 0; i < 5000; i++) {
		seed = seed * 1103515245u + 12345u;
		push(q, seed % 100000);
	}
	pd_ordered_flush(q);
	for (int i = 0; i < 5000; i++) {
		uint64_t t = pop_time(q, &got);
		cr_assert_eq(got, 1);
		cr_assert_geq(t, prev);
		prev = t;
	}
	pd_ordered_free(q);
}

/* Issue 16 finding 8: with no FINISHED_ROUND at all the queue does not grow past
 * PD_ORDERED_MAX_BYTES: the oldest half comes out early, oldest first. */
Test(ordered, queue_is_bounded_without_rounds, .timeout = 60)
{
	struct pd_ordered *q = pd_ordered_new(NULL);
	size_t extra_n = 4u << 20;
	uint8_t *extra = calloc(1, extra_n);
	uint64_t rec[2];
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev = { 0 };
	size_t pushed = 0, popped = 0;
	uint64_t last = 0;

	h->type = 99;
	h->size = sizeof(rec);
	ev.raw = rec;
	ev.size = sizeof(rec);
	ev.type = 99;
	ev.extra = extra;
	ev.extra_size = extra_n;
	for (uint64_t t = 1000; pushed < 3 * (PD_ORDERED_MAX_BYTES / extra_n); t--) {
		rec[1] = t;	/* newest first: time order must still hold when forced */
		ev.offset = t;
		cr_assert_eq(pd_ordered_push(q, &ev, t), 0);
		pushed++;
		while (pd_ordered_must_drain(q)) {
			int got;
			uint64_t pt = pop_time(q, &got);
			cr_assert_eq(got, 1);
			popped++;
			last = pt;
		}
		cr_assert_leq(pd_ordered_queued(q) * extra_n, PD_ORDERED_MAX_BYTES + extra_n);
	}
	cr_assert_gt(popped, 0);
	cr_assert_gt(pd_ordered_forced(q), 0);
	cr_assert_gt(last, 0);
	pd_ordered_free(q);
	free(extra);
}

/* Pushes an event of time t whose offset is its arrival number n. */
static void push_nth(struct pd_ordered *q, uint64_t t, uint64_t n)
{
	uint64_t rec[2] = { 0, t };
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev = { .raw = rec, .size = sizeof(rec), .type = 99, .offset = n };
	h->type = 99;
	h->size = sizeof(rec);
	cr_assert_eq(pd_ordered_push(q, &ev, t), 0);
}

static int by_time_then_arrival(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;	/* {time, arrival} */
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The reference: what a queue holding qn events (time, arrival) releases up to limit (all of
 * them when flush), in (time, arrival) order, appended to ref; the rest stay in q. */
static void ref_release(uint64_t (*q)[2], size_t *qn, uint64_t limit, int flush,
			uint64_t (*ref)[2], size_t *nref)
{
	qsort(q, *qn, sizeof(q[0]), by_time_then_arrival);
	size_t k = 0;
	for (size_t i = 0; i < *qn; i++) {
		if (flush || q[i][0] <= limit) {
			ref[*nref][0] = q[i][0];
			ref[*nref][1] = q[i][1];
			(*nref)++;
		} else {
			q[k][0] = q[i][0];
			q[k][1] = q[i][1];
			k++;
		}
	}
	*qn = k;
}

/* In-order stretches (which skip the heap) mixed with stragglers, equal times and rounds:
 * the events come out exactly as a queue sorted by (time, arrival) releases them, round by
 * round and at the end. */
Test(ordered, in_order_stretches_and_stragglers_pop_as_a_sorted_queue)
{
	enum { N = 20000 };
	static uint64_t held[N][2], ref[N][2], out[N][2];
	struct pd_ordered *q = pd_ordered_new(NULL);
	unsigned seed = 11;
	uint64_t t = 1000, max_time = 0, round_max = 0;
	size_t np = 0, no = 0, nheld = 0, nref = 0;
	int got;
	struct pd_event ev;

	while (np < N) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = seed >> 16;
		uint64_t when;
		if (r % 8 == 0)
			when = t > 500 ? t - r % 500 : t;	/* a straggler from another CPU */
		else if (r % 8 == 1)
			when = t;			/* an equal time */
		else
			when = t += r % 7;		/* in order */
		push_nth(q, when, np);
		held[nheld][0] = when;
		held[nheld][1] = np;
		nheld++;
		np++;
		max_time = when > max_time ? when : max_time;
		if (r % 97 == 0) {	/* a round: what is not newer than the last one's max goes */
			pd_ordered_round(q);
			ref_release(held, &nheld, round_max, 0, ref, &nref);
			round_max = max_time;
			while ((got = pd_ordered_pop(q, &ev)) == 1) {
				memcpy(&out[no][0], (const uint8_t *)ev.raw + 8, 8);
				out[no][1] = ev.offset;
				no++;
			}
			cr_assert_eq(no, nref, "round after event %zu: %zu released, %zu expected",
				     np, no, nref);
		}
	}
	pd_ordered_flush(q);
	ref_release(held, &nheld, 0, 1, ref, &nref);
	while ((got = pd_ordered_pop(q, &ev)) == 1) {
		memcpy(&out[no][0], (const uint8_t *)ev.raw + 8, 8);
		out[no][1] = ev.offset;
		no++;
	}
	cr_assert_eq(no, N);
	cr_assert_eq(nref, N);
	for (size_t i = 0; i < N; i++)
		cr_assert(out[i][0] == ref[i][0] && out[i][1] == ref[i][1],
			  "event %zu: time %llu #%llu, the sorted queue gives %llu #%llu", i,
			  (unsigned long long)out[i][0], (unsigned long long)out[i][1],
			  (unsigned long long)ref[i][0], (unsigned long long)ref[i][1]);
	pd_ordered_free(q);
}

/* Queued events live in slabs carved in arrival order, reused once emptied, and big ones
 * alone: over many rounds of events of every size (some with 100 KB of extra payload, past a
 * slab's quarter), each pops whole, with its own bytes, in time order. Under ASan this is
 * also the check that no event is read after its slab was reused or freed. */
static void push_sized(struct pd_ordered *q, uint64_t t, size_t words, size_t extra)
{
	uint64_t rec[1 + 64];
	uint8_t *big = extra ? malloc(extra) : NULL;
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev = { 0 };

	cr_assert(words >= 1 && words <= 64 && (!extra || big));
	for (size_t w = 1; w <= words; w++)
		rec[w] = t ^ (w << 40);
	h->type = 99;
	h->size = (uint16_t)(8 * (1 + words));
	for (size_t k = 0; k < extra; k++)
		big[k] = (uint8_t)(t + k);
	ev.raw = rec;
	ev.size = h->size;
	ev.type = 99;
	ev.offset = t;
	ev.extra = big;
	ev.extra_size = extra;
	cr_assert_eq(pd_ordered_push(q, &ev, t), 0);
	free(big);
}

static void check_popped(const struct pd_event *ev, uint64_t *prev)
{
	const struct perf_event_header *h = ev->raw;
	uint64_t t = ev->offset;
	cr_assert_geq(t, *prev, "popped in time order");
	*prev = t;
	size_t words = h->size / 8 - 1;
	for (size_t w = 1; w <= words; w++) {
		uint64_t v;
		memcpy(&v, (const uint8_t *)ev->raw + 8 * w, 8);
		cr_assert_eq(v, t ^ (w << 40), "event %llu word %zu", (unsigned long long)t, w);
	}
	const uint8_t *x = ev->extra;
	for (size_t k = 0; k < ev->extra_size; k++)
		cr_assert_eq(x[k], (uint8_t)(t + k), "event %llu extra byte %zu",
			     (unsigned long long)t, k);
}

Test(ordered, events_of_every_size_keep_their_bytes_through_rounds, .timeout = 60)
{
	struct pd_ordered *q = pd_ordered_new(NULL);
	struct pd_event ev;
	uint64_t prev = 0, popped = 0, pushed = 0;
	int got;

	for (uint64_t r = 1; r <= 300; r++) {
		for (uint64_t i = 0; i < 60; i++, pushed++) {
			uint64_t t = r * 1000 + (i * 37) % 60;	/* out of order within the round */
			size_t extra = pushed % 97 == 5 ? 100 << 10 : 0;
			push_sized(q, t, 1 + (i * r) % 64, extra);
		}
		pd_ordered_round(q);
		while ((got = pd_ordered_pop(q, &ev)) == 1) {
			check_popped(&ev, &prev);
			popped++;
		}
		cr_assert_eq(got, 0);
	}
	pd_ordered_flush(q);
	while ((got = pd_ordered_pop(q, &ev)) == 1) {
		check_popped(&ev, &prev);
		popped++;
	}
	cr_assert_eq(popped, pushed, "every event came out once");
	pd_ordered_free(q);
}

/* Events queued where the reader read them (pd_reader_hold) stay whole while the reader moves
 * on: 3,000 samples in one round, newest first, read through a 4 KiB window (each window
 * refill starts a new block while queued events hold the old one), all popped after the
 * whole file was read: every sample comes out once, in time order, its fields intact; the
 * same from a pipe, and with every event copied (a queue without a reader). */
static void queued_events_outlive_the_window(int pipe)
{
	char *dir = tu_tmpdir("pdqueue"), path[600];
	snprintf(path, sizeof(path), "%s/in.data", dir);
	struct pd_writer *w;
	struct perf_event_attr a;
	uint64_t id = 7;
	enum { N = 3000 };
	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, pipe ? PD_WRITER_PIPE : 0), 0);
	cr_assert_eq(pd_writer_add_attr(w, &a, &id, 1, "cpu-clock"), 0);
	for (int i = 0; i < N; i++)
		pdt_sample(w, id, 0x400000u + 16u * (unsigned)i, 42, 100000u - 10u * (unsigned)i);
	cr_assert_eq(pd_writer_close(w), 0);

	struct pd_reader_opts o = { .sz = sizeof(o), .window = 4096 };
	struct pd_reader *r;
	cr_assert_eq(pd_reader_open(&r, path, &o), 0);
	struct pd_ordered *q = pd_ordered_new(r);
	struct pd_event ev;
	int got, queued = 0;
	while ((got = pd_reader_next(r, &ev)) == 1)
		if (ev.type == PERF_RECORD_SAMPLE) {
			cr_assert_eq(pd_ordered_push(q, &ev, ev.u.sample.time), 0);
			queued++;
		}
	cr_assert_eq(got, 0, "%s", pd_reader_error(r));
	cr_assert_eq(queued, N);
	pd_ordered_flush(q);
	for (int i = N - 1; i >= 0; i--) {
		cr_assert_eq(pd_ordered_pop(q, &ev), 1, "sample %d", i);
		cr_assert_eq(ev.type, PERF_RECORD_SAMPLE);
		cr_assert_eq(ev.u.sample.time, 100000u - 10u * (unsigned)i);
		cr_assert_eq(ev.u.sample.ip, 0x400000u + 16u * (unsigned)i);
		cr_assert_eq(ev.u.sample.pid, 42);
		cr_assert_eq(ev.u.sample.nr_callchain, 3);
		cr_assert_eq(ev.u.sample.callchain[2], ev.u.sample.ip + 0x10);
	}
	cr_assert_eq(pd_ordered_pop(q, &ev), 0);
	pd_ordered_free(q);
	pd_reader_close(r);
	tu_rmtree(dir);
	free(dir);
}

Test(ordered, queued_events_outlive_the_window_file)
{
	queued_events_outlive_the_window(0);
}

Test(ordered, queued_events_outlive_the_window_pipe)
{
	queued_events_outlive_the_window(1);
}
