/* test_ordered.c - recorder/perfdata/ordered.c: FINISHED_ROUND windows release events in time
 * order, and nothing newer than the previous round's maximum leaves early. */
#include <criterion/criterion.h>
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
