/* live.c - the code loads currently mapped, per process, as disjoint address intervals
 * sorted by (pid, start): a new load ends exactly the loads it overlaps, found by binary
 * search instead of a scan of every load so far (a 30k-method run maps 30k loads). The
 * intervals are kept in chunks (RP_LIVE_CHUNK each), so placing one moves at most a chunk:
 * one sorted array moved a good part of itself per load, a Java start-up's code cache handing
 * out addresses in no order (StartupHeavy's 34k loads: 9-17 ms of claims, 2.4-3.4 ms in
 * chunks of 128, which measured faster than 64, 256 or 512). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/report_ingest/ingest_int.h"

/* A place among the intervals: chunk k, entry i (i == that chunk's n: just after its last;
 * k == nc: after everything). */
struct pos { size_t k, i; };

static int before(const struct rp_live_ent *e, uint32_t pid, uint64_t start)
{
	return e->pid < pid || (e->pid == pid && e->start < start);
}

/* The first interval not before (pid, start); {nc, 0} when there is none. */
static struct pos lower_bound(const struct rp_live *lv, uint32_t pid, uint64_t start)
{
	size_t lo = 0, hi = lv->nc;	/* the first chunk whose last entry is not before */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct rp_live_chunk *c = lv->c[mid];
		if (before(&c->v[c->n - 1], pid, start))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == lv->nc)
		return (struct pos){ lv->nc, 0 };
	const struct rp_live_chunk *c = lv->c[lo];
	size_t a = 0, b = c->n;
	while (a < b) {
		size_t mid = (a + b) / 2;
		if (before(&c->v[mid], pid, start))
			a = mid + 1;
		else
			b = mid;
	}
	return (struct pos){ lo, a };
}

/* The interval just before p, or NULL; *q its place. */
static struct rp_live_ent *prev(const struct rp_live *lv, struct pos p, struct pos *q)
{
	if (p.k < lv->nc && p.i > 0) {
		*q = (struct pos){ p.k, p.i - 1 };
		return &lv->c[p.k]->v[p.i - 1];
	}
	if (p.k == 0)
		return NULL;
	struct rp_live_chunk *c = lv->c[p.k - 1];
	*q = (struct pos){ p.k - 1, c->n - 1 };
	return &c->v[c->n - 1];
}

static void drop_chunk(struct rp_live *lv, size_t k)
{
	free(lv->c[k]);
	memmove(&lv->c[k], &lv->c[k + 1], (lv->nc - k - 1) * sizeof(*lv->c));
	lv->nc--;
}

/* Removes the interval at p (a real one). */
static void erase(struct rp_live *lv, struct pos p)
{
	struct rp_live_chunk *c = lv->c[p.k];
	memmove(&c->v[p.i], &c->v[p.i + 1], (c->n - p.i - 1) * sizeof(*c->v));
	lv->n--;
	if (!--c->n)
		drop_chunk(lv, p.k);
}

static int insert_chunk(struct rp_live *lv, size_t k, struct rp_live_chunk *c)
{
	if (jp_grow(&lv->c, &lv->capc, lv->nc + 1, sizeof(*lv->c), 16))
		return -ENOMEM;
	memmove(&lv->c[k + 1], &lv->c[k], (lv->nc - k) * sizeof(*lv->c));
	lv->c[k] = c;
	lv->nc++;
	return 0;
}

/* Puts e at p: before the interval there, or after the last one. */
static int insert(struct rp_live *lv, struct pos p, struct rp_live_ent e)
{
	if (p.k == lv->nc) {	/* after everything: the last chunk, or a first one */
		if (!lv->nc || lv->c[lv->nc - 1]->n == RP_LIVE_CHUNK) {
			struct rp_live_chunk *c = malloc(sizeof(*c));
			if (!c || insert_chunk(lv, lv->nc, c)) {
				free(c);
				return -ENOMEM;
			}
			c->n = 0;
		}
		p = (struct pos){ lv->nc - 1, lv->c[lv->nc - 1]->n };
	}
	struct rp_live_chunk *c = lv->c[p.k];
	if (c->n == RP_LIVE_CHUNK) {	/* full: its upper half goes to a new chunk after it */
		struct rp_live_chunk *h = malloc(sizeof(*h));
		if (!h || insert_chunk(lv, p.k + 1, h)) {
			free(h);
			return -ENOMEM;
		}
		h->n = RP_LIVE_CHUNK / 2;
		memcpy(h->v, &c->v[RP_LIVE_CHUNK / 2], h->n * sizeof(*h->v));
		c->n = RP_LIVE_CHUNK / 2;
		if (p.i > c->n) {
			p = (struct pos){ p.k + 1, p.i - c->n };
			c = h;
		}
	}
	memmove(&c->v[p.i + 1], &c->v[p.i], (c->n - p.i) * sizeof(*c->v));
	c->v[p.i] = e;
	c->n++;
	lv->n++;
	return 0;
}

int rp_live_claim(struct rp_live *lv, uint32_t pid, uint64_t start, uint64_t len, uint32_t idx,
		  void (*ended)(void *ctx, uint32_t idx), void *ctx)
{
	uint64_t end = start + (len ? len : 1);
	if (end < start)
		end = UINT64_MAX;
	/* Intervals are disjoint, so the ones overlapping [start, end) are contiguous and end
	 * just before the first interval starting at or after end: [lo, that one). */
	struct pos lo = lower_bound(lv, pid, end), q;
	const struct rp_live_ent *e;
	size_t n = 0;
	while ((e = prev(lv, lo, &q)) && e->pid == pid && e->end > start) {
		lo = q;
		n++;
	}
	struct pos r = lo;	/* each ended, in address order */
	for (size_t j = 0; j < n; j++, r.i++) {
		if (r.i == lv->c[r.k]->n)
			r = (struct pos){ r.k + 1, 0 };
		ended(ctx, lv->c[r.k]->v[r.i].idx);
	}
	for (size_t j = 0; j < n; j++) {	/* and taken out: the next slides into lo */
		if (lo.i == lv->c[lo.k]->n)
			lo = (struct pos){ lo.k + 1, 0 };
		erase(lv, lo);		/* lo's chunk gone: lo is the next one's start */
	}
	return insert(lv, lo, (struct rp_live_ent){ .pid = pid, .idx = idx, .start = start,
						    .end = end });
}

void rp_live_remove(struct rp_live *lv, uint32_t pid, uint64_t start, uint32_t idx)
{
	struct pos p = lower_bound(lv, pid, start);
	if (p.k < lv->nc) {
		const struct rp_live_ent *e = &lv->c[p.k]->v[p.i];
		if (e->pid == pid && e->start == start && e->idx == idx)
			erase(lv, p);
	}
}

void rp_live_free(struct rp_live *lv)
{
	for (size_t k = 0; k < lv->nc; k++)
		free(lv->c[k]);
	free(lv->c);
	memset(lv, 0, sizeof(*lv));
}
