/* test_ordered.c - recorder/perfdata/ordered.c: FINISHED_ROUND windows release events in time
 * order, and nothing newer than the previous round's maximum leaves early. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"

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
