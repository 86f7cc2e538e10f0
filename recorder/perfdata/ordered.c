/* ordered.c - perf's ordered-events discipline for consumers that need time order: events
 * are copied into a min-heap keyed by (time, arrival); a FINISHED_ROUND releases everything
 * not newer than the newest time seen before the previous round (the ring buffers of all CPUs
 * have been drained past it by then), and the end of input releases the rest. Memory is
 * bounded: past PD_ORDERED_MAX_BYTES the oldest half is released early, as perf does. The heap
 * holds each event's key beside its pointer: a sift compares without touching the events
 * (a report of 200k samples in one round spent half its pops on those cache misses). */
#include <errno.h>
#include <stdlib.h>

#include "recorder/perfdata/perfdata_int.h"

struct qev {
	uint64_t time, seq, offset;
	size_t size;		/* raw bytes, then extra bytes */
	uint64_t extra_size;
	uint8_t bytes[];
};

struct hent {
	uint64_t time, seq;
	struct qev *e;
};

struct pd_ordered {
	const struct pd_reader *r;
	struct hent *heap;
	size_t n, cap;
	uint64_t seq;
	uint64_t max_time;	/* newest time pushed */
	uint64_t round_max;	/* max_time at the last round */
	uint64_t limit;		/* poppable: time <= limit */
	bool all;		/* flushed: everything poppable */
	uint64_t bytes;		/* queued, headers included */
	size_t force;		/* events poppable whatever their time (over the byte cap) */
	uint64_t forced;	/* such flushes */
	struct qev *last;	/* the popped event, alive until the next pop */
};

struct pd_ordered *pd_ordered_new(const struct pd_reader *r)
{
	struct pd_ordered *q = calloc(1, sizeof(*q));
	if (q)
		q->r = r;
	return q;
}

void pd_ordered_free(struct pd_ordered *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		free(q->heap[i].e);
	free(q->heap);
	free(q->last);
	free(q);
}

static bool before(const struct hent *a, const struct hent *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void swap_at(struct hent *h, size_t i, size_t j)
{
	struct hent t = h[i];
	h[i] = h[j];
	h[j] = t;
}

int pd_ordered_push(struct pd_ordered *q, const struct pd_event *ev, uint64_t time)
{
	size_t extra = ev->extra ? (size_t)ev->extra_size : 0;
	struct qev *e;

	if (q->n == q->cap) {
		size_t n = q->cap ? 2 * q->cap : 1024;
		struct hent *h = realloc(q->heap, n * sizeof(*h));
		if (!h)
			return -ENOMEM;
		q->heap = h;
		q->cap = n;
	}
	e = malloc(sizeof(*e) + ev->size + extra);
	if (!e)
		return -ENOMEM;
	e->time = time;
	e->seq = q->seq++;
	e->offset = ev->offset;
	e->size = ev->size;
	e->extra_size = extra;
	memcpy(e->bytes, ev->raw, ev->size);
	if (extra)
		memcpy(e->bytes + ev->size, ev->extra, extra);
	if (time > q->max_time)
		q->max_time = time;
	q->bytes += sizeof(*e) + ev->size + extra;
	if (q->bytes > PD_ORDERED_MAX_BYTES && !q->force) {
		q->force = (q->n + 1) / 2;
		q->forced++;
	}
	/* sift up */
	size_t i = q->n++;
	q->heap[i] = (struct hent){ e->time, e->seq, e };
	while (i && before(&q->heap[i], &q->heap[(i - 1) / 2])) {
		swap_at(q->heap, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

void pd_ordered_round(struct pd_ordered *q)
{
	q->limit = q->round_max;
	q->round_max = q->max_time;
}

void pd_ordered_flush(struct pd_ordered *q)
{
	q->all = true;
}

size_t pd_ordered_queued(const struct pd_ordered *q)
{
	return q->n;
}

int pd_ordered_must_drain(const struct pd_ordered *q)
{
	return q->force != 0;
}

uint64_t pd_ordered_forced(const struct pd_ordered *q)
{
	return q->forced;
}

int pd_ordered_pop(struct pd_ordered *q, struct pd_event *ev)
{
	struct qev *e;
	size_t i = 0;
	int err;

	if (!q->n || (!q->all && !q->force && q->heap[0].time > q->limit))
		return 0;
	if (q->force)
		q->force--;
	e = q->heap[0].e;
	q->bytes -= sizeof(*e) + e->size + e->extra_size;
	q->heap[0] = q->heap[--q->n];
	for (;;) {	/* sift down */
		size_t l = 2 * i + 1, m = i;
		if (l < q->n && before(&q->heap[l], &q->heap[m]))
			m = l;
		if (l + 1 < q->n && before(&q->heap[l + 1], &q->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		swap_at(q->heap, i, m);
		i = m;
	}
	free(q->last);
	q->last = e;
	memset(ev, 0, sizeof(*ev));
	err = pd_decode(q->r, e->bytes, e->size, ev);
	ev->offset = e->offset;
	ev->extra = e->extra_size ? e->bytes + e->size : NULL;
	ev->extra_size = e->extra_size;
	return err ? err : 1;
}
