/* maps.c - the maps of each process over time. A JIT reuses addresses: a later map over the
 * same range wins from its timestamp on, while earlier samples keep the earlier map. Maps sit
 * in a few sorted runs of geometrically decreasing size (each with a running maximum of ends,
 * so a lookup walks back only over maps that can reach the address) plus a small unsorted
 * batch of recent ones; a run of 34k JIT loads costs O(n log n), not a merge per batch. */
#include "recorder/symbols/symbols_int.h"
#include "lib/grow.h"
#include "lib/hash_seed.h"
#include "lib/nomem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RECENT_MAX 64
/* Lookups go through every recent map: once they have gone through this many since the last
 * merge, the recent ones are merged, as if the batch were full. A program past its start-up
 * maps a little now and then and is sampled 100k times meanwhile (Generations at 20 kHz: a
 * fifth of its call-graph replay walked the same few dozen recent maps); a start-up mapping
 * 34k generations between samples merges no more often than before. */
#define RECENT_SCAN_BUDGET 4096
/* A live run gives its replaced maps to the history once this share of it (1/N) is such */
#define SHADOW_DIV 4

/* A pid's bucket among cap (a power of two). Seeded: pids come from the recording, and with
 * the pid's own low bits as the bucket, pids that are multiples of 65536 (any u32 is taken)
 * all went down one chain. */
static size_t pid_bucket(uint32_t pid, size_t cap)
{
	return (size_t)jp_hash_bytes(&pid, sizeof(pid), jp_hash_seed()) & (cap - 1);
}

struct sym_proc *proc_get(struct sym_session *s, uint32_t pid, int create)
{
	if (s->proc_cap) {
		for (struct sym_proc *p = s->procs[pid_bucket(pid, s->proc_cap)]; p; p = p->hnext) {
			if (p->pid == pid)
				return p;
			s->proc_probes++;
		}
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
				p->hnext = nv[pid_bucket(p->pid, ncap)];
				nv[pid_bucket(p->pid, ncap)] = p;
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
	p->hnext = s->procs[pid_bucket(pid, s->proc_cap)];
	s->procs[pid_bucket(pid, s->proc_cap)] = p;
	s->n_procs++;
	return p;
}

static void runs_clear(struct sym_runs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->run[i].v);
		free(rs->run[i].max_end);
		free(rs->run[i].start);
	}
	rs->n = 0;
}

void proc_free(struct sym_proc *p)
{
	runs_clear(&p->live);
	runs_clear(&p->hist);
	free(p->recent);
	free(p->comms);
	free(p);
}

/* Forgets every map (a pid reused after EXIT). */
void proc_clear_maps(struct sym_proc *p)
{
	runs_clear(&p->live);
	runs_clear(&p->hist);
	p->n_recent = 0;
	p->hist_until = 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void run_ends(struct sym_maplist *l)
{
	for (size_t x = 0; x < l->n; x++) {
		l->max_end[x] = x && l->max_end[x - 1] > l->v[x].end ? l->max_end[x - 1]
								      : l->v[x].end;
		l->start[x] = l->v[x].start;
	}
}

/* The number of maps in l starting at or before key (branch-free: the probes' outcomes are
 * random when samples land all over a JIT's code). */
static size_t run_upper_bound(const struct sym_maplist *l, uint64_t key)
{
	const uint64_t *base = l->start;
	size_t len = l->n;
	if (!len)
		return 0;
	while (len > 1) {
		size_t half = len / 2;
		base = base[half] <= key ? base + half : base;
		len -= half;
	}
	return (size_t)(base - l->start) + (*base <= key);
}

/* Merges b (the later, smaller run) into a, from the back; b is freed. */
static int run_merge(struct sym_maplist *a, struct sym_maplist *b)
{
	size_t n = a->n + b->n;
	struct sym_map *nv = realloc(a->v, n * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	a->v = nv;
	uint64_t *me = realloc(a->max_end, n * sizeof(*me));
	if (!me)
		return -ENOMEM;
	a->max_end = me;
	uint64_t *st = realloc(a->start, n * sizeof(*st));
	if (!st)
		return -ENOMEM;
	a->start = st;
	size_t i = a->n, j = b->n, k = n;
	while (j) {
		if (i && map_cmp(&nv[i - 1], &b->v[j - 1]) > 0)
			nv[--k] = nv[--i];
		else
			nv[--k] = b->v[--j];
	}
	a->n = n;
	a->n_shadowed += b->n_shadowed;
	run_ends(a);
	free(b->v);
	free(b->max_end);
	free(b->start);
	memset(b, 0, sizeof(*b));
	return 0;
}

/* Merges the last two runs while the last is at least half the one before it. */
static int runs_settle(struct sym_runs *rs, int force)
{
	while (rs->n >= 2 &&
	       (force || rs->run[rs->n - 2].n <= 2 * rs->run[rs->n - 1].n)) {
		int rc = run_merge(&rs->run[rs->n - 2], &rs->run[rs->n - 1]);
		if (rc)
			return rc;
		rs->n--;
		force = 0;
	}
	return 0;
}

/* By start, then feed order (seq): sorting 16-byte keys and moving each map once is much
 * cheaper than qsort moving 56-byte maps through a callback. */
static int sort_maps(struct sym_map *v, size_t n)
{
	struct sym_key keys[RECENT_MAX], *k = n <= RECENT_MAX ? keys : malloc(n * sizeof(*k));
	struct sym_map tmp[RECENT_MAX], *t = n <= RECENT_MAX ? tmp : malloc(n * sizeof(*t));
	int rc = k && t ? 0 : -ENOMEM;
	if (!rc) {
		for (size_t i = 0; i < n; i++)
			k[i] = (struct sym_key){ v[i].start, i };
		sym_sort_keys(k, n);
		memcpy(t, v, n * sizeof(*t));
		for (size_t i = 0; i < n; i++)
			v[i] = t[k[i].idx];
		/* equal starts (rare, few): into feed order */
		for (size_t i = 1; i < n; i++) {
			if (v[i].start != v[i - 1].start || v[i].seq > v[i - 1].seq)
				continue;
			struct sym_map x = v[i];
			size_t j = i;
			for (; j && v[j - 1].start == x.start && v[j - 1].seq > x.seq; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	}
	if (k != keys)
		free(k);
	if (t != tmp)
		free(t);
	return rc;
}

/* Adds n maps (add, malloc'd: taken over, also on failure) as a new run. */
static int runs_push(struct sym_runs *rs, struct sym_map *add, size_t n, size_t n_shadowed)
{
	uint64_t *me = n ? malloc(n * sizeof(*me)) : NULL;
	uint64_t *st = n ? malloc(n * sizeof(*st)) : NULL;
	if (!me || !st) {
		free(add);
		free(me);
		free(st);
		return n ? -ENOMEM : 0;
	}
	if ((rs->n == SYM_MAX_RUNS && runs_settle(rs, 1)) || sort_maps(add, n)) {
		free(add);
		free(me);
		free(st);
		return -ENOMEM;
	}
	struct sym_maplist *l = &rs->run[rs->n++];
	*l = (struct sym_maplist){ add, me, st, n, n_shadowed };
	run_ends(l);
	return runs_settle(rs, 0);
}

/* Moves the maps later ones have wholly replaced from live run i into the history: a JIT
 * reusing one range for thousands of generations would otherwise make every lookup there
 * walk all of them. */
static int run_retire(struct sym_proc *p, size_t i)
{
	struct sym_maplist *l = &p->live.run[i];
	struct sym_map *gone = malloc(l->n_shadowed * sizeof(*gone));
	if (!gone)
		return -ENOMEM;
	size_t keep = 0, moved = 0;
	for (size_t x = 0; x < l->n; x++) {
		struct sym_map *m = &l->v[x];
		if (m->shadowed_at == UINT64_MAX) {
			l->v[keep++] = *m;
			continue;
		}
		if (m->shadowed_at > p->hist_until)
			p->hist_until = m->shadowed_at;
		gone[moved++] = *m;
	}
	l->n = keep;
	l->n_shadowed = 0;
	run_ends(l);
	if (!keep) {
		free(l->v);
		free(l->max_end);
		free(l->start);
		memmove(l, l + 1, (p->live.n - i - 1) * sizeof(*l));
		p->live.n--;
	}
	return runs_push(&p->hist, gone, moved, 0);
}

/* The recent batch becomes a live run (its replaced maps go straight to the history). */
static int flush_recent(struct sym_proc *p)
{
	size_t n = p->n_recent, n_gone = 0;
	for (size_t i = 0; i < n; i++)
		n_gone += p->recent[i].shadowed_at != UINT64_MAX;
	struct sym_map *keep = malloc((n - n_gone) * sizeof(*keep) + 1);
	struct sym_map *gone = malloc(n_gone * sizeof(*gone) + 1);
	if (!keep || !gone) {
		free(keep);
		free(gone);
		return -ENOMEM;
	}
	size_t k = 0, g = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sym_map *m = &p->recent[i];
		if (m->shadowed_at == UINT64_MAX) {
			keep[k++] = *m;
			continue;
		}
		if (m->shadowed_at > p->hist_until)
			p->hist_until = m->shadowed_at;
		gone[g++] = *m;
	}
	p->n_recent = 0;
	p->recent_scanned = 0;
	int rc = runs_push(&p->hist, gone, g, 0);
	int rc2 = runs_push(&p->live, keep, k, 0);
	if (rc || rc2)
		return rc ? rc : rc2;
	/* a merge may have gathered enough replaced maps to retire */
	for (size_t i = p->live.n; i-- > 0;) {
		const struct sym_maplist *l = &p->live.run[i];
		if (l->n_shadowed && l->n_shadowed * SHADOW_DIV >= l->n && (rc = run_retire(p, i)))
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

/* Marks the maps m wholly covers and outdates. */
static int shadow(struct sym_proc *p, const struct sym_map *m)
{
	for (size_t r = p->live.n; r-- > 0;) {
		struct sym_maplist *l = &p->live.run[r];
		/* a run starting at or after m's end, or ending before m, holds nothing m covers
		 * (a JIT's new code mostly lies past all older code) */
		if (!l->n || l->v[0].start >= m->end || l->max_end[l->n - 1] <= m->start)
			continue;
		/* the first map starting at or after m's start */
		size_t lo = m->start ? run_upper_bound(l, m->start - 1) : 0;
		for (size_t i = lo; i < l->n && l->v[i].start < m->end; i++) {
			struct sym_map *o = &l->v[i];
			if (o->end <= m->end && later(m, o) && o->shadowed_at == UINT64_MAX) {
				o->shadowed_at = m->time;
				l->n_shadowed++;
			}
		}
		if (l->n_shadowed && l->n_shadowed * SHADOW_DIV >= l->n) {
			int rc = run_retire(p, r);
			if (rc)
				return rc;
		}
	}
	for (size_t i = 0; i < p->n_recent; i++) {
		struct sym_map *o = &p->recent[i];
		if (o->start >= m->start && o->end <= m->end && later(m, o) &&
		    o->shadowed_at == UINT64_MAX)
			o->shadowed_at = m->time;
	}
	return 0;
}

int proc_add_map(struct sym_proc *p, const struct sym_map *m)
{
	int rc;
	if (p->n_recent == RECENT_MAX && (rc = flush_recent(p)))
		return rc;
	if (JP_GROW_FOR(p->recent, p->cap_recent, p->n_recent))
		return -ENOMEM;
	if ((rc = shadow(p, m)))
		return rc;
	p->recent[p->n_recent++] = *m;
	return 0;
}

int proc_copy_maps(struct sym_proc *dst, const struct sym_proc *src)
{
	const struct sym_runs *lists[] = { &src->hist, &src->live };
	for (size_t l = 0; l < 2; l++)
		for (size_t r = 0; r < lists[l]->n; r++)
			for (size_t i = 0; i < lists[l]->run[r].n; i++) {
				int rc = proc_add_map(dst, &lists[l]->run[r].v[i]);
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
	size_t lo = run_upper_bound(l, addr);
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
	/* The answer is the same either way: a merge only sorts the maps (and retires replaced
	 * ones, which flush_recent at RECENT_MAX does at any point too). Out of memory for it
	 * is fatal: the recent maps are already out of their batch, and a lookup has no error
	 * path (an allocation sweep of inject found answers without them). */
	if (p->n_recent && (p->recent_scanned += p->n_recent) > RECENT_SCAN_BUDGET &&
	    jp_nomem_check(flush_recent(p), "merging a process's maps"))
		p->recent_scanned = 0;
	for (size_t i = 0; i < p->n_recent; i++)
		best = consider(&p->recent[i], best, addr, time);
	for (size_t r = 0; r < p->live.n; r++)
		best = list_find(&p->live.run[r], best, addr, time);
	/* a replaced map can be the answer only before its replacement appeared */
	for (size_t r = 0; time < p->hist_until && r < p->hist.n; r++)
		best = list_find(&p->hist.run[r], best, addr, time);
	return best;
}
