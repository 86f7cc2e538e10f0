/* live.c - the code loads currently mapped, per process, as disjoint address intervals
 * sorted by (pid, start): a new load ends exactly the loads it overlaps, found by binary
 * search instead of a scan of every load so far (a 30k-method run maps 30k loads). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report/report_int.h"

static int before(const struct rp_live_ent *e, uint32_t pid, uint64_t start)
{
	return e->pid < pid || (e->pid == pid && e->start < start);
}

/* First entry not before (pid, start). */
static size_t lower_bound(const struct rp_live *lv, uint32_t pid, uint64_t start)
{
	size_t lo = 0, hi = lv->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (before(&lv->v[mid], pid, start))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rp_live_claim(struct rp_live *lv, uint32_t pid, uint64_t start, uint64_t len, uint32_t idx,
		  void (*ended)(void *ctx, uint32_t idx), void *ctx)
{
	uint64_t end = start + (len ? len : 1);
	if (end < start)
		end = UINT64_MAX;
	/* Intervals are disjoint, so the ones overlapping [start, end) are contiguous and end
	 * just before the first interval starting at or after end. */
	size_t hi = lower_bound(lv, pid, end), lo = hi;
	while (lo > 0 && lv->v[lo - 1].pid == pid && lv->v[lo - 1].end > start)
		lo--;
	for (size_t i = lo; i < hi; i++)
		ended(ctx, lv->v[i].idx);
	if (hi == lo && lv->n + 1 > lv->cap) {
		size_t cap = lv->cap ? lv->cap * 2 : 1024;
		struct rp_live_ent *v = realloc(lv->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		lv->v = v;
		lv->cap = cap;
	}
	/* Replace [lo, hi) by the one new interval. */
	memmove(&lv->v[lo + 1], &lv->v[hi], (lv->n - hi) * sizeof(*lv->v));
	lv->n = lv->n - (hi - lo) + 1;
	lv->v[lo] = (struct rp_live_ent){ .pid = pid, .idx = idx, .start = start, .end = end };
	return 0;
}

void rp_live_remove(struct rp_live *lv, uint32_t pid, uint64_t start, uint32_t idx)
{
	size_t i = lower_bound(lv, pid, start);
	if (i < lv->n && lv->v[i].pid == pid && lv->v[i].start == start && lv->v[i].idx == idx) {
		memmove(&lv->v[i], &lv->v[i + 1], (lv->n - i - 1) * sizeof(*lv->v));
		lv->n--;
	}
}

void rp_live_free(struct rp_live *lv)
{
	free(lv->v);
	memset(lv, 0, sizeof(*lv));
}
