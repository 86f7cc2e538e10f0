/* ordered.c - perf's ordered-events discipline for consumers that need time order: events
 * are queued in a min-heap keyed by (time, arrival), each left in the reader's window where
 * it was read (pd_reader_hold) or else copied; a FINISHED_ROUND releases everything
 * not newer than the newest time seen before the previous round (the ring buffers of all CPUs
 * have been drained past it by then), and the end of input releases the rest. Memory is
 * bounded: past PD_ORDERED_MAX_BYTES the oldest half is released early, as perf does. The heap
 * holds each event's key beside its pointer: a sift compares without touching the events
 * (a report of 200k samples in one round spent half its pops on those cache misses). */
#include <errno.h>
#include <stdlib.h>

#include "lib/grow.h"
#include "recorder/perfdata/perfdata_int.h"

struct qev {
	uint64_t time, seq, offset;
	size_t size;		/* raw bytes, then extra bytes */
	uint64_t extra_size;
	struct slab *slab;	/* where it lives; NULL: malloc'd alone */
	const uint8_t *raw;	/* in block, or bytes (then extra bytes follow) */
	struct pd_block *block;	/* the reader's window it stays in; NULL: copied into bytes */
	uint8_t bytes[];
};

/* Queued events are carved from slabs in arrival order, not malloc'd one by one: a report of
 * 200k samples spent a tenth of its instructions in malloc and free for them. A slab is
 * freed when its last event is; the current one is reused from the start once all its
 * events are gone (a stream in time order keeps writing into the same few cache-warm KB).
 * Events too large for a slab's quarter are malloc'd alone (AUXTRACE, TRACING_DATA), and so
 * is every event while the slabs alive hold PD_ORDERED_MAX_BYTES: one event held back (a
 * timestamp far ahead) keeps its whole slab, and a recording full of such must not make
 * the queue's memory a multiple of its bytes. */
#define SLAB_BYTES (256u << 10)
struct slab {
	size_t live, used;
	_Alignas(8) uint8_t data[];
};

struct hent {
	uint64_t time, seq;
	struct qev *e;
};

/* Events that arrive in time order (a file jitprof inject wrote, one CPU's stretch of a
 * round) need no heap: each is appended to a run kept in arrival order while it is not older
 * than the run's last, and only the others go to the heap. A pop takes the earlier of the two
 * heads, so the order is the heap-only order; in-order input costs O(1) a pop instead of a
 * sift down the whole heap. A ring buffer. */
struct run {
	struct hent *v;
	size_t head, n, cap;	/* cap a power of two */
};

struct pd_ordered {
	const struct pd_reader *r;
	struct slab *slab;	/* the one events are carved from */
	uint64_t slab_bytes;	/* of the slabs alive */
	uint64_t held_bytes;	/* of the reader's blocks events stay in */
	struct hent *heap;
	size_t n, cap;
	struct run run;
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

static struct qev *qev_alloc(struct pd_ordered *q, size_t bytes)
{
	size_t need = (sizeof(struct qev) + bytes + 7) & ~(size_t)7;
	struct slab *s = q->slab;
	if (s && !s->live)
		s->used = 0;	/* every event carved from it is gone */
	int fits = s && s->used + need <= SLAB_BYTES;
	if (need > SLAB_BYTES / 4 ||
	    (!fits && q->slab_bytes + SLAB_BYTES > PD_ORDERED_MAX_BYTES)) {
		struct qev *e = malloc(sizeof(*e) + bytes);
		if (e)
			e->slab = NULL;
		return e;
	}
	if (!fits) {
		struct slab *n = malloc(sizeof(*n) + SLAB_BYTES);
		if (!n)
			return NULL;
		n->live = n->used = 0;
		q->slab_bytes += SLAB_BYTES;
		q->slab = s = n;	/* the one before holds events: its last one frees it */
	}
	struct qev *e = (struct qev *)(void *)(s->data + s->used);
	s->used += need;
	s->live++;
	e->slab = s;
	return e;
}

static void qev_free(struct pd_ordered *q, struct qev *e)
{
	if (!e)
		return;
	if (e->block) {
		if (!--e->block->held)
			q->held_bytes -= e->block->cap;
		pd_block_release(e->block);
	}
	struct slab *s = e->slab;
	if (!s) {
		free(e);
	} else if (!--s->live && s != q->slab) {
		free(s);
		q->slab_bytes -= SLAB_BYTES;
	}
}

void pd_ordered_free(struct pd_ordered *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		qev_free(q, q->heap[i].e);
	for (size_t i = 0; i < q->run.n; i++)
		qev_free(q, q->run.v[(q->run.head + i) & (q->run.cap - 1)].e);
	free(q->run.v);
	free(q->heap);
	qev_free(q, q->last);
	free(q->slab);
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

static struct hent *run_at(const struct run *r, size_t i)
{
	return &r->v[(r->head + i) & (r->cap - 1)];
}

/* Appends h to the run: 0, or -ENOMEM (nothing changed). */
static int run_push(struct run *r, struct hent h)
{
	if (r->n == r->cap) {
		size_t n = r->cap ? 2 * r->cap : 1024;
		struct hent *v = malloc(n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < r->n; i++)	/* unwrapped into the new ring */
			v[i] = *run_at(r, i);
		free(r->v);
		r->v = v;
		r->head = 0;
		r->cap = n;
	}
	*run_at(r, r->n++) = h;
	return 0;
}

/* Whether h joins the run: it is not older than the run's last event. */
static bool joins_run(const struct run *r, const struct hent *h)
{
	return !r->n || !before(h, run_at(r, r->n - 1));
}

/* The reader's block the event can stay in (its bytes, none beside them), while the blocks so
 * held stay within PD_ORDERED_MAX_BYTES; NULL: the event is copied. */
static struct pd_block *hold(struct pd_ordered *q, const struct pd_event *ev, size_t extra)
{
	struct pd_block *b = extra ? NULL : pd_reader_hold(q->r, ev->raw, ev->size);
	if (b && !b->held && q->held_bytes + b->cap > PD_ORDERED_MAX_BYTES) {
		pd_block_release(b);
		return NULL;
	}
	if (b && !b->held++)
		q->held_bytes += b->cap;
	return b;
}

int pd_ordered_push(struct pd_ordered *q, const struct pd_event *ev, uint64_t time)
{
	size_t extra = ev->extra ? (size_t)ev->extra_size : 0;
	struct qev *e;
	struct hent h = { time, q->seq, NULL };

	if (!joins_run(&q->run, &h) && jp_grow(&q->heap, &q->cap, q->n + 1, sizeof(*q->heap), 1024))
		return -ENOMEM;
	struct pd_block *b = hold(q, ev, extra);
	e = qev_alloc(q, b ? 0 : ev->size + extra);
	if (!e) {
		if (b && !--b->held)
			q->held_bytes -= b->cap;
		pd_block_release(b);
		return -ENOMEM;
	}
	e->time = time;
	e->seq = q->seq++;
	e->offset = ev->offset;
	e->size = ev->size;
	e->extra_size = extra;
	e->block = b;
	e->raw = b ? ev->raw : e->bytes;
	if (!b)
		memcpy(e->bytes, ev->raw, ev->size);
	if (extra)
		memcpy(e->bytes + ev->size, ev->extra, extra);
	if (time > q->max_time)
		q->max_time = time;
	q->bytes += sizeof(*e) + ev->size + extra;
	if (q->bytes > PD_ORDERED_MAX_BYTES && !q->force) {
		q->force = (q->n + q->run.n + 1) / 2;
		q->forced++;
	}
	h.e = e;
	if (joins_run(&q->run, &h)) {
		if (run_push(&q->run, h) == 0)
			return 0;
		q->bytes -= sizeof(*e) + ev->size + extra;
		qev_free(q, e);
		return -ENOMEM;
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
	return q->n + q->run.n;
}

int pd_ordered_must_drain(const struct pd_ordered *q)
{
	return q->force != 0;
}

uint64_t pd_ordered_forced(const struct pd_ordered *q)
{
	return q->forced;
}

/* Removes the heap's top. */
static void heap_pop(struct pd_ordered *q)
{
	size_t i = 0;

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
}

int pd_ordered_pop(struct pd_ordered *q, struct pd_event *ev)
{
	struct qev *e;
	int err;

	/* the earlier of the heap's top and the run's head */
	const struct hent *top = q->n ? &q->heap[0] : NULL;
	bool from_run = q->run.n && (!top || before(run_at(&q->run, 0), top));
	if (from_run)
		top = run_at(&q->run, 0);
	if (!top || (!q->all && !q->force && top->time > q->limit))
		return 0;
	if (q->force)
		q->force--;
	e = top->e;
	q->bytes -= sizeof(*e) + e->size + e->extra_size;
	if (from_run) {
		q->run.head = (q->run.head + 1) & (q->run.cap - 1);
		q->run.n--;
	} else {
		heap_pop(q);
	}
	qev_free(q, q->last);
	q->last = e;
	memset(ev, 0, sizeof(*ev));
	err = pd_decode(q->r, e->raw, e->size, ev);
	ev->offset = e->offset;
	ev->extra = e->extra_size ? e->bytes + e->size : NULL;
	ev->extra_size = e->extra_size;
	return err ? err : 1;
}
