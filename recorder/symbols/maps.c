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
	free(p->live.v);
	free(p->live.max_end);
	free(p->hist.v);
	free(p->hist.max_end);
	free(p->recent);
	free(p->comms);
	free(p);
}

/* Forgets every map (a pid reused after EXIT). */
void proc_clear_maps(struct sym_proc *p)
{
	p->live.n = p->hist.n = p->n_recent = 0;
	p->hist_until = 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Merges n maps (sorted here) into l, from the back, and recomputes the running ends. */
static int list_merge(struct sym_maplist *l, struct sym_map *add, size_t n_add)
{
	if (!n_add)
		return 0;
	size_t n = l->n + n_add;
	struct sym_map *nv = realloc(l->v, n * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	uint64_t *me = realloc(l->max_end, n * sizeof(*me));
	if (!me)
		return -ENOMEM;
	l->max_end = me;
	qsort(add, n_add, sizeof(*add), map_cmp);
	size_t i = l->n, j = n_add, k = n;
	while (j) {
		if (i && map_cmp(&nv[i - 1], &add[j - 1]) > 0)
			nv[--k] = nv[--i];
		else
			nv[--k] = add[--j];
	}
	l->n = n;
	for (size_t x = 0; x < n; x++)
		me[x] = x && me[x - 1] > nv[x].end ? me[x - 1] : nv[x].end;
	return 0;
}

/* Folds the recent batch into the live list and moves the maps later ones have wholly
 * replaced into the history: a JIT reusing one range for thousands of generations would
 * otherwise make every lookup there walk all of them. */
static int merge_recent(struct sym_proc *p)
{
	int rc = list_merge(&p->live, p->recent, p->n_recent);
	if (rc)
		return rc;
	p->n_recent = 0;
	size_t keep = 0, moved = 0;
	for (size_t i = 0; i < p->live.n; i++)
		if (p->live.v[i].shadowed_at != UINT64_MAX)
			moved++;
	if (!moved)
		return 0;
	struct sym_map *gone = malloc(moved * sizeof(*gone));
	if (!gone)
		return -ENOMEM;
	moved = 0;
	for (size_t i = 0; i < p->live.n; i++) {
		struct sym_map *m = &p->live.v[i];
		if (m->shadowed_at == UINT64_MAX) {
			p->live.v[keep++] = *m;
			continue;
		}
		if (m->shadowed_at > p->hist_until)
			p->hist_until = m->shadowed_at;
		gone[moved++] = *m;
	}
	p->live.n = keep;
	for (size_t x = 0; x < keep; x++)
		p->live.max_end[x] = x && p->live.max_end[x - 1] > p->live.v[x].end
					     ? p->live.max_end[x - 1]
					     : p->live.v[x].end;
	rc = list_merge(&p->hist, gone, moved);
	free(gone);
	return rc;
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

/* Marks the maps m wholly covers and outdates. */
static void shadow(struct sym_proc *p, const struct sym_map *m)
{
	/* the first map starting at or after m's start */
	size_t lo = m->start ? sym_upper_bound(p->live.v, p->live.n, sizeof(*p->live.v),
					       m->start - 1)
			     : 0;
	for (size_t i = lo; i < p->live.n && p->live.v[i].start < m->end; i++) {
		struct sym_map *o = &p->live.v[i];
		if (o->end <= m->end && later(m, o) && o->shadowed_at == UINT64_MAX)
			o->shadowed_at = m->time;
	}
	for (size_t i = 0; i < p->n_recent; i++) {
		struct sym_map *o = &p->recent[i];
		if (o->start >= m->start && o->end <= m->end && later(m, o) &&
		    o->shadowed_at == UINT64_MAX)
			o->shadowed_at = m->time;
	}
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
	shadow(p, m);
	p->recent[p->n_recent++] = *m;
	return 0;
}

int proc_copy_maps(struct sym_proc *dst, const struct sym_proc *src)
{
	const struct sym_maplist *lists[] = { &src->hist, &src->live };
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			int rc = proc_add_map(dst, &lists[l]->v[i]);
			if (rc)
				return rc;
		}
	for (size_t i = 0; i < src->n_recent; i++) {
		int rc = proc_add_map(dst, &src->recent[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static const struct sym_map *consider(const struct sym_map *m, const struct sym_map *best,
				      uint64_t addr, uint64_t time)
{
	if (addr >= m->start && addr < m->end && m->time <= time && later(m, best))
		return m;
	return best;
}

static const struct sym_map *list_find(const struct sym_maplist *l, const struct sym_map *best,
				       uint64_t addr, uint64_t time)
{
	size_t lo = sym_upper_bound(l->v, l->n, sizeof(*l->v), addr);
	for (size_t i = lo; i-- > 0;) {
		if (l->max_end[i] <= addr)
			break;
		best = consider(&l->v[i], best, addr, time);
	}
	return best;
}

const struct sym_map *proc_find_map(struct sym_proc *p, uint64_t addr, uint64_t time)
{
	const struct sym_map *best = NULL;
	for (size_t i = 0; i < p->n_recent; i++)
		best = consider(&p->recent[i], best, addr, time);
	best = list_find(&p->live, best, addr, time);
	/* a replaced map can be the answer only before its replacement appeared */
	if (time < p->hist_until)
		best = list_find(&p->hist, best, addr, time);
	return best;
}
