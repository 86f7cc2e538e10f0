/* sim.c - replays the output stream the way perf report will read it, to learn which
 * generation each sample lands in: mapping changes and samples go through a time-ordered queue
 * released with perf's FINISHED_ROUND rule (flush up to the newest time seen before the
 * previous round). Only samples of processes that have a dump, and only their ips inside a
 * dump's ranges, are queued, so memory follows the jitted samples of about one round. */
#include "lib/grow.h"
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

enum { ITEM_MAP, ITEM_SAMPLE };

struct item {
	uint64_t time, seq;
	uint32_t kind;
	uint32_t pid;		/* SAMPLE */
	uint32_t owner;		/* MAP */
	uint32_t nips;		/* SAMPLE: ips[0] is the sample ip when ip_hit */
	struct inj_dump *d;	/* MAP */
	uint64_t start, end;	/* MAP */
	uint64_t *ips;		/* SAMPLE: malloc'd, or NULL for the lone ip in ip0 */
	uint64_t ip0;
	int ip_hit;		/* SAMPLE: ips[0] is the sample's own ip */
	uint32_t one;		/* SAMPLE: 1 + the index of the process's only dump, whose code
				 * segments follow the ips in ips (seg0 for ip0); 0: none */
	uint32_t seg0;
};

/* The queue is a heap plus a FIFO per kind of item: an item not older than its kind's FIFO's
 * newest goes to that FIFO (mapping changes are emitted in time order, samples mostly come in
 * it) and the rest to the heap; the next item is the earliest of the three heads. Same order
 * as one heap, without a heap's log n moves per item (a tenth of `inject --no-elfs`). */
struct fifo {
	struct item *q;		/* q[h .. t), nondecreasing (time, seq) */
	size_t h, t, cap;
};

struct inj_sim {
	struct item *h;
	size_t n, cap;
	struct fifo f[2];	/* by kind */
	uint64_t seq;
	uint64_t max_ts, next_flush, last_flush;
	struct inj_dump **dumps;
	size_t nr_dumps, cap_dumps;
	inj_hit_fn fn;
	void *ctx;
	int lazy;		/* dumps may still arrive: keep samples of any process */
	uint64_t unresolved;	/* sample ips in a dump's code ranges no load covered then */
	uint64_t *scratch;	/* a chain's kept ips, before they are copied to their item */
	size_t scratch_cap;
	struct seg_memo *memo;	/* MEMO_SIZE entries once a chain is searched */
	struct tid_chain *tc;	/* TC_SLOTS entries once a chain is searched */
	struct inj_segset seen;	/* the segments one sample's chain has kept */
};

/* The last call chain of a thread, raw, with each entry's code segment in its process's only
 * dump (-1: outside it, or a context mark): the next sample of the thread mostly shares its
 * outer frames, whose segments are then copied instead of searched (dumps' bounds never
 * change once added, so an entry is right for as long as the dump is its process's only one). */
#define TC_BITS 6
#define TC_SLOTS (1u << TC_BITS)

struct tid_chain {
	uint32_t pid, tid;
	uint32_t dump;		/* index + 1; 0 = empty */
	size_t n, cap;
	uint64_t *raw;
	int64_t *seg;
};

/* The segment of a dump's code bounds an ip falls in, remembered: call chains repeat the same
 * return addresses sample after sample, and searching the bounds for each was a third of
 * `inject --no-elfs` on a deep-stacked program (javac). A dump's bounds never change once it
 * is added, so an entry never goes stale. */
#define MEMO_BITS 14
#define MEMO_SIZE (1u << MEMO_BITS)
#define MEMO_OUT UINT32_MAX

struct seg_memo {
	uint64_t ip;
	uint32_t dump;		/* index + 1; 0 = empty */
	uint32_t seg;		/* MEMO_OUT: outside the dump's code */
};

struct inj_sim *inj_sim_new(inj_hit_fn fn, void *ctx)
{
	struct inj_sim *s = calloc(1, sizeof(*s));
	if (s) {
		s->fn = fn;
		s->ctx = ctx;
	}
	return s;
}

static void item_free(struct item *it)
{
	if (it->kind == ITEM_SAMPLE)
		free(it->ips);
}

void inj_sim_free(struct inj_sim *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		item_free(&s->h[i]);
	for (int k = 0; k < 2; k++) {
		for (size_t i = s->f[k].h; i < s->f[k].t; i++)
			item_free(&s->f[k].q[i]);
		free(s->f[k].q);
	}
	free(s->h);
	free(s->scratch);
	free(s->memo);
	for (size_t i = 0; s->tc && i < TC_SLOTS; i++) {
		free(s->tc[i].raw);
		free(s->tc[i].seg);
	}
	free(s->tc);
	inj_segset_fini(&s->seen);
	free(s->dumps);
	free(s);
}

int inj_sim_add_dump(struct inj_sim *s, struct inj_dump *d)
{
	if (JP_GROW_FOR(s->dumps, s->cap_dumps, s->nr_dumps))
		return -ENOMEM;
	s->dumps[s->nr_dumps++] = d;
	return 0;
}

static int before(const struct item *a, const struct item *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static int heap_push(struct inj_sim *s, struct item *it)
{
	if (jp_grow(&s->h, &s->cap, s->n + 1, sizeof(*s->h), 1024))
		return -ENOMEM;
	it->seq = s->seq++;
	size_t i = s->n++;
	while (i > 0 && before(it, &s->h[(i - 1) / 2])) {
		s->h[i] = s->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->h[i] = *it;
	return 0;
}

static void heap_pop(struct inj_sim *s, struct item *out);

static int fifo_push(struct inj_sim *s, struct fifo *f, struct item *it)
{
	if (f->t == f->cap && f->h > 0) {	/* slide the live part down */
		memmove(f->q, f->q + f->h, (f->t - f->h) * sizeof(*f->q));
		f->t -= f->h;
		f->h = 0;
	}
	if (jp_grow(&f->q, &f->cap, f->t + 1, sizeof(*f->q), 1024))
		return -ENOMEM;
	it->seq = s->seq++;
	f->q[f->t++] = *it;
	return 0;
}

/* Takes the earliest queued item into *out; 0 when the queue is empty or (all unset) the
 * earliest is newer than limit. */
static int take(struct inj_sim *s, uint64_t limit, int all, struct item *out)
{
	const struct item *best = s->n ? &s->h[0] : NULL;
	struct fifo *bf = NULL;
	for (int k = 0; k < 2; k++) {
		struct fifo *f = &s->f[k];
		if (f->h < f->t && (!best || before(&f->q[f->h], best))) {
			best = &f->q[f->h];
			bf = f;
		}
	}
	if (!best || (!all && best->time > limit))
		return 0;
	if (!bf) {
		heap_pop(s, out);
		return 1;
	}
	*out = bf->q[bf->h++];
	if (bf->h == bf->t)
		bf->h = bf->t = 0;
	return 1;
}

static void heap_pop(struct inj_sim *s, struct item *out)
{
	*out = s->h[0];
	struct item last = s->h[--s->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->n)
			break;
		if (c + 1 < s->n && before(&s->h[c + 1], &s->h[c]))
			c++;
		if (!before(&s->h[c], &last))
			break;
		s->h[i] = s->h[c];
		i = c;
	}
	if (s->n)
		s->h[i] = last;
}

/* inj_bounds_find on dump i's bounds, through the memo (none when it cannot be had). */
static long seg_of(struct inj_sim *s, size_t i, uint64_t ip)
{
	const struct inj_bounds *bd = &s->dumps[i]->bounds;
	/* Most frames of a chain are in the runtime's own code, outside every jitted range:
	 * two compares, not a memo slot that is seldom in cache. */
	if (bd->nb < 2 || ip < bd->b[0] || ip >= bd->b[bd->nb - 1])
		return -1;
	int fits = bd->nb < MEMO_OUT && i < MEMO_OUT - 1;	/* segment and dump in 32 bits */
	if (fits && !s->memo)
		s->memo = calloc(MEMO_SIZE, sizeof(*s->memo));
	if (!fits || !s->memo)
		return inj_bounds_find(bd, ip);
	uint64_t h = (ip ^ (uint64_t)i << 48) * 0x9e3779b97f4a7c15ull >> (64 - MEMO_BITS);
	struct seg_memo *m = &s->memo[h];
	if (m->ip == ip && m->dump == i + 1)
		return m->seg == MEMO_OUT ? -1 : (long)m->seg;
	long seg = inj_bounds_find(bd, ip);
	m->ip = ip;
	m->dump = (uint32_t)i + 1;
	m->seg = seg < 0 ? MEMO_OUT : (uint32_t)seg;
	return seg;
}

static int in_some_dump(struct inj_sim *s, uint32_t pid, uint64_t ip)
{
	for (size_t i = 0; i < s->nr_dumps; i++)
		if (s->dumps[i]->pid == pid && seg_of(s, i, ip) >= 0)
			return 1;
	return 0;
}

static void resolve(struct inj_sim *s, uint32_t pid, uint64_t ip, unsigned how)
{
	struct inj_dump *best = NULL;
	uint32_t best_owner = INJ_NONE;
	uint64_t best_when = 0;
	int found = 0;
	for (size_t i = 0; i < s->nr_dumps; i++) {
		struct inj_dump *d = s->dumps[i];
		uint32_t o;
		uint64_t w;
		if (d->pid != pid || !inj_segmap_at(&d->sim_map, seg_of(s, i, ip), &o, &w))
			continue;
		if (!found || w >= best_when) {	/* the newest mapping wins, as in perf */
			best = d;
			best_owner = o;
			best_when = w;
			found = 1;
		}
	}
	if (found && best_owner != INJ_NONE)
		s->fn(s->ctx, best, best_owner, how);
	else if (how == INJ_HIT_SAMPLE && in_some_dump(s, pid, ip))
		s->unresolved++;	/* jitted code perf will show as [unknown] */
}

static void apply(struct inj_sim *s, struct item *it)
{
	if (it->kind == ITEM_MAP) {
		inj_segmap_assign(&it->d->sim_map, it->start, it->end, it->owner, it->time);
		return;
	}
	const uint64_t *ips = it->ips ? it->ips : &it->ip0;
	if (it->one) {	/* the segments were found when it was queued */
		struct inj_dump *d = s->dumps[it->one - 1];
		const uint64_t *segs = it->ips ? it->ips + it->nips : NULL;
		for (uint32_t i = 0; i < it->nips; i++) {
			unsigned how = i == 0 && it->ip_hit ? INJ_HIT_SAMPLE : INJ_HIT_CHAIN;
			uint32_t o;
			uint64_t w;
			if (inj_segmap_at(&d->sim_map, segs ? (long)segs[i] : (long)it->seg0, &o,
					  &w) && o != INJ_NONE)
				s->fn(s->ctx, d, o, how);
			else if (how == INJ_HIT_SAMPLE)
				s->unresolved++;	/* in the dump's code, no load's then */
		}
		item_free(it);
		return;
	}
	for (uint32_t i = 0; i < it->nips; i++)
		resolve(s, it->pid, ips[i],
			i == 0 && it->ip_hit ? INJ_HIT_SAMPLE : INJ_HIT_CHAIN);
	item_free(it);
}

static void drain(struct inj_sim *s, uint64_t limit, int all)
{
	struct item it;
	while (take(s, limit, all, &it))
		apply(s, &it);
}

static int queue(struct inj_sim *s, struct item *it)
{
	inj_sim_seen(s, it->time);
	if (it->time == 0) {	/* perf delivers untimed events at once */
		apply(s, it);
		return 0;
	}
	struct fifo *f = &s->f[it->kind == ITEM_SAMPLE];
	int rc = f->h == f->t || it->time >= f->q[f->t - 1].time ? fifo_push(s, f, it)
								 : heap_push(s, it);
	if (rc < 0)
		item_free(it);
	return rc;
}

int inj_sim_map(struct inj_sim *s, struct inj_dump *d, uint64_t time, uint64_t start,
		uint64_t end, uint32_t owner)
{
	struct item it = { .time = time, .kind = ITEM_MAP, .owner = owner, .d = d,
			   .start = start, .end = end };
	return queue(s, &it);
}


/* Whether pid's dumps say which of its addresses can matter: it has one, and (pipe input) no
 * dump of it may still grow, since a load read later may cover any address. */
static int pid_has_dump(const struct inj_sim *s, uint32_t pid)
{
	int has = 0;
	for (size_t i = 0; i < s->nr_dumps; i++) {
		const struct inj_dump *d = s->dumps[i];
		if (d->pid != pid)
			continue;
		if (s->lazy && !d->closed && !d->superseded)
			return 0;
		has = 1;
	}
	return has;
}

/* Whether ip can matter: inside a dump's ranges, or anything while pid has no dump yet. */
static int keep_ip(struct inj_sim *s, uint32_t pid, int known, uint64_t ip)
{
	return !known || in_some_dump(s, pid, ip);
}

/* 1 when chain entry v is an address in user context; a context mark sets *user instead. */
static int user_entry(uint64_t v, int *user)
{
	if (v >= (uint64_t)PERF_CONTEXT_MAX) {
		*user = v == (uint64_t)PERF_CONTEXT_USER;
		return 0;
	}
	return *user;
}

/* The callchain entries that can matter: user context, kept by keep_ip, into out (room for
 * nr). */
static size_t chain_ips(struct inj_sim *s, uint32_t pid, int known, const uint64_t *chain,
			uint64_t nr, uint64_t *out)
{
	size_t k = 0;
	int user = 1;
	for (uint64_t i = 0; i < nr; i++)
		if (user_entry(chain[i], &user) && keep_ip(s, pid, known, chain[i]))
			out[k++] = chain[i];
	return k;
}

/* The only dump of pid (index), or -1 when it has none or several. */
static long only_dump(const struct inj_sim *s, uint32_t pid)
{
	long one = -1;
	for (size_t i = 0; i < s->nr_dumps; i++) {
		if (s->dumps[i]->pid != pid)
			continue;
		if (one >= 0)
			return -1;
		one = (long)i;
	}
	return one;
}

/* Each entry's segment in dump di (-1: outside, or a context mark), the part shared with the
 * thread's previous chain copied from it; NULL without memory (the caller searches each). */
static const int64_t *chain_segs(struct inj_sim *s, size_t di, uint32_t pid, uint32_t tid,
				 const uint64_t *chain, size_t nr)
{
	if (!s->tc && !(s->tc = calloc(TC_SLOTS, sizeof(*s->tc))))
		return NULL;
	struct tid_chain *c = &s->tc[(uint32_t)(tid * 0x9e3779b1u) >> (32 - TC_BITS)];
	size_t same = 0;
	if (c->dump == di + 1 && c->pid == pid && c->tid == tid)
		while (same < nr && same < c->n && chain[nr - 1 - same] == c->raw[c->n - 1 - same])
			same++;
	else
		c->n = 0;
	if (nr > c->cap) {
		uint64_t *raw = realloc(c->raw, nr * sizeof(*raw));
		if (raw)
			c->raw = raw;
		int64_t *seg = raw ? realloc(c->seg, nr * sizeof(*seg)) : NULL;
		if (!seg) {
			c->dump = 0;
			c->n = 0;
			return NULL;
		}
		c->seg = seg;
		c->cap = nr;
	}
	memmove(c->seg + nr - same, c->seg + c->n - same, same * sizeof(*c->seg));
	memcpy(c->raw, chain, nr * sizeof(*chain));
	for (size_t i = 0; i < nr - same; i++)
		c->seg[i] = chain[i] >= (uint64_t)PERF_CONTEXT_MAX ? -1 : seg_of(s, di, chain[i]);
	c->n = nr;
	c->pid = pid;
	c->tid = tid;
	c->dump = (uint32_t)di + 1;
	return c->seg;
}

static int scratch_room(struct inj_sim *s, uint64_t n)
{
	if (n <= s->scratch_cap)
		return 0;
	if (n > SIZE_MAX / sizeof(uint64_t))
		return -ENOMEM;
	uint64_t *p = realloc(s->scratch, n * sizeof(uint64_t));
	if (!p)
		return -ENOMEM;
	s->scratch = p;
	s->scratch_cap = n;
	return 0;
}

/* A sample of a process with one dump (every dump known): its ips are kept with their
 * segments, so the replay does not search them again. */
static int sample_one(struct inj_sim *s, struct item *it, size_t di, uint32_t tid, uint64_t ip,
		      const uint64_t *chain, uint64_t nr_chain, int ip_user)
{
	/* a sample ip straight to the bounds: sampled addresses repeat far less than a chain's return
	 * addresses, and a memo miss costs as much as the search (a sample-dense run misses always) */
	long ipseg = ip_user ? inj_bounds_find(&s->dumps[di]->bounds, ip) : -1;
	int ip_in = ipseg >= 0, rc;
	if ((rc = scratch_room(s, 2 * nr_chain)) < 0)
		return rc;
	const int64_t *cseg = nr_chain ? chain_segs(s, di, it->pid, tid, chain, nr_chain) : NULL;
	uint64_t *kip = s->scratch, *kseg = kip ? kip + nr_chain : NULL;	/* none: no chain */
	size_t keep = 0;
	int user = 1;
	/* A hit only sets a load's flag, and a deep recursive chain (javac's tree walks: 16
	 * jitted frames a sample, 5 distinct) names the same few segments again and again. */
	if (nr_chain)
		inj_segset_clear(&s->seen);
	for (uint64_t i = 0; i < nr_chain; i++) {
		if (!user_entry(chain[i], &user))
			continue;
		long seg = cseg ? (long)cseg[i] : seg_of(s, di, chain[i]);
		if (seg >= 0 && inj_segset_add(&s->seen, (uint32_t)seg)) {	/* each once */
			kip[keep] = chain[i];
			kseg[keep++] = (uint64_t)seg;
		}
	}
	if (!ip_in && !keep)
		return 0;
	it->one = (uint32_t)di + 1;
	it->nips = (uint32_t)(ip_in + keep);
	it->ip_hit = ip_in;
	if (!keep) {
		it->ip0 = ip;
		it->seg0 = (uint32_t)ipseg;
		return queue(s, it);
	}
	if (!(it->ips = malloc(2 * (size_t)it->nips * sizeof(uint64_t))))
		return -ENOMEM;
	if (ip_in) {
		it->ips[0] = ip;
		it->ips[it->nips] = (uint64_t)ipseg;
	}
	memcpy(it->ips + ip_in, kip, keep * sizeof(uint64_t));
	memcpy(it->ips + it->nips + ip_in, kseg, keep * sizeof(uint64_t));
	return queue(s, it);
}

int inj_sim_sample(struct inj_sim *s, uint32_t pid, uint32_t tid, uint64_t time, uint64_t ip,
		   const uint64_t *chain, uint64_t nr_chain, int ip_user)
{
	struct item it = { .time = time, .kind = ITEM_SAMPLE, .pid = pid };
	inj_sim_seen(s, time);
	int known = pid_has_dump(s, pid);
	if (!known && !s->lazy)
		return 0;
	long one = s->lazy ? -1 : only_dump(s, pid);
	if (one >= 0)	/* segments fit 32 bits: the memo's own condition */
		if (s->dumps[one]->bounds.nb < MEMO_OUT)
			return sample_one(s, &it, (size_t)one, tid, ip, chain, nr_chain, ip_user);
	int ip_in = ip_user && keep_ip(s, pid, known, ip);
	/* One pass over the chain (each kept ip is a search of the dumps' code bounds) into
	 * scratch; the item then gets a copy of just what was kept. */
	int rc = scratch_room(s, nr_chain);
	if (rc < 0)
		return rc;
	size_t keep = nr_chain ? chain_ips(s, pid, known, chain, nr_chain, s->scratch) : 0;
	if (!ip_in && !keep)
		return 0;
	it.nips = (uint32_t)(ip_in + keep);
	it.ip_hit = ip_in;
	if (!keep) {
		it.ip0 = ip;
	} else {
		it.ips = malloc(it.nips * sizeof(uint64_t));
		if (!it.ips)
			return -ENOMEM;
		if (ip_in)
			it.ips[0] = ip;
		memcpy(it.ips + ip_in, s->scratch, keep * sizeof(uint64_t));
	}
	return queue(s, &it);
}

void inj_sim_set_lazy(struct inj_sim *s, int lazy)
{
	s->lazy = lazy;
}

void inj_sim_seen(struct inj_sim *s, uint64_t time)
{
	if (time > s->max_ts)
		s->max_ts = time;
}

void inj_sim_round(struct inj_sim *s)
{
	drain(s, s->next_flush, 0);
	s->last_flush = s->next_flush;
	s->next_flush = s->max_ts;
}

void inj_sim_flush(struct inj_sim *s)
{
	drain(s, 0, 1);
	s->last_flush = s->max_ts;
}

size_t inj_sim_queued(const struct inj_sim *s)
{
	return s->n + (s->f[0].t - s->f[0].h) + (s->f[1].t - s->f[1].h);
}

uint64_t inj_sim_unresolved(const struct inj_sim *s)
{
	return s->unresolved;
}

uint64_t inj_sim_flush_limit(const struct inj_sim *s)
{
	return s->last_flush;
}
