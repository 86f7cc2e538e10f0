/* maps.c - the maps of each process over time. A JIT reuses addresses: a later map over the
 * same range wins from its timestamp on, while earlier samples keep the earlier map. Maps are
 * kept sorted by start (with a running maximum of ends, so a lookup walks back only over maps
 * that can reach the address) plus a small unsorted batch of recent ones merged in bulk. */
#include "recorder/symbols/symbols_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RECENT_MAX 64

struct sym_proc *proc_get(struct sym_session *s, uint32_t pid, int create)
{
	if (s->proc_cap) {
		for (struct sym_proc *p = s->procs[pid & (s->proc_cap - 1)]; p; p = p->hnext)
			if (p->pid == pid)
				return p;
	}
	if (!create)
		return NULL;
	if (s->n_procs >= s->proc_cap) {
		size_t ncap = s->proc_cap ? s->proc_cap * 2 : 256;
		struct sym_proc **nv = calloc(ncap, sizeof(*nv));
		if (!nv)
			return NULL;
		for (size_t i = 0; i < s->proc_cap; i++)
			for (struct sym_proc *p = s->procs[i], *n; p; p = n) {
				n = p->hnext;
				p->hnext = nv[p->pid & (ncap - 1)];
				nv[p->pid & (ncap - 1)] = p;
			}
		free(s->procs);
		s->procs = nv;
		s->proc_cap = ncap;
	}
	struct sym_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->exit_time = UINT64_MAX;
	p->hnext = s->procs[pid & (s->proc_cap - 1)];
	s->procs[pid & (s->proc_cap - 1)] = p;
	s->n_procs++;
	return p;
}

void proc_free(struct sym_proc *p)
{
	free(p->sorted);
	free(p->max_end);
	free(p->recent);
	free(p->comms);
	free(p);
}

static int map_cmp(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Folds the recent batch into the sorted array: sort the batch, merge from the back. */
static int merge_recent(struct sym_proc *p)
{
	if (!p->n_recent)
		return 0;
	size_t n = p->n_sorted + p->n_recent;
	struct sym_map *nv = realloc(p->sorted, n * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->sorted = nv;
	uint64_t *me = realloc(p->max_end, n * sizeof(*me));
	if (!me)
		return -ENOMEM;
	p->max_end = me;
	qsort(p->recent, p->n_recent, sizeof(*p->recent), map_cmp);
	size_t i = p->n_sorted, j = p->n_recent, k = n;
	while (j) {
		if (i && map_cmp(&nv[i - 1], &p->recent[j - 1]) > 0)
			nv[--k] = nv[--i];
		else
			nv[--k] = p->recent[--j];
	}
	p->n_sorted = n;
	p->n_recent = 0;
	for (size_t x = 0; x < n; x++)
		me[x] = x && me[x - 1] > nv[x].end ? me[x - 1] : nv[x].end;
	return 0;
}

int proc_add_map(struct sym_proc *p, const struct sym_map *m)
{
	if (p->n_recent == RECENT_MAX) {
		int rc = merge_recent(p);
		if (rc)
			return rc;
	}
	if (sym_grow(&p->recent, &p->cap_recent, p->n_recent, sizeof(*p->recent)))
		return -ENOMEM;
	p->recent[p->n_recent++] = *m;
	return 0;
}

int proc_copy_maps(struct sym_proc *dst, const struct sym_proc *src)
{
	size_t n = src->n_sorted + src->n_recent;
	for (size_t i = 0; i < n; i++) {
		const struct sym_map *m = i < src->n_sorted ? &src->sorted[i]
							     : &src->recent[i - src->n_sorted];
		int rc = proc_add_map(dst, m);
		if (rc)
			return rc;
	}
	return 0;
}

/* Of two maps covering an address, the one that appeared later (by time, then feed order). */
static int later(const struct sym_map *a, const struct sym_map *b)
{
	if (!b)
		return 1;
	if (a->time != b->time)
		return a->time > b->time;
	return a->seq > b->seq;
}

static const struct sym_map *consider(const struct sym_map *m, const struct sym_map *best,
				      uint64_t addr, uint64_t time)
{
	if (addr >= m->start && addr < m->end && m->time <= time && later(m, best))
		return m;
	return best;
}

const struct sym_map *proc_find_map(struct sym_proc *p, uint64_t addr, uint64_t time)
{
	const struct sym_map *best = NULL;
	for (size_t i = 0; i < p->n_recent; i++)
		best = consider(&p->recent[i], best, addr, time);
	/* last sorted map starting at or before addr */
	size_t lo = 0, hi = p->n_sorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->sorted[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (p->max_end[i] <= addr)
			break;
		best = consider(&p->sorted[i], best, addr, time);
	}
	return best;
}
