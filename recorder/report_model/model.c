/* model.c - the report's in-memory model: interned strings (so aggregation compares
 * pointers), loads of jitted code, samples and their frames in flat arrays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "lib/hash_seed.h"
#include "lib/nomem.h"
#include "recorder/report_model/model.h"
#include "safeio/safeio.h"

/* Code bytes go into big chunks: millions of small mallocs would dominate. */
static void *arena_alloc(struct rp_session *s, size_t len)
{
	len = (len + 7) & ~(size_t)7;
	if (!s->arena || s->arena->used + len > s->arena->cap) {
		size_t cap = len > RP_CHUNK ? len : RP_CHUNK;
		struct rp_chunk *c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = s->arena;
		c->used = 0;
		c->cap = cap;
		s->arena = c;
	}
	void *p = s->arena->data + s->arena->used;
	s->arena->used += len;
	return p;
}

uint64_t rp_hash_bytes(const void *buf, size_t len, uint64_t h)
{
	const unsigned char *p = buf;
	h ^= 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t rp_hash_seeded(const void *buf, size_t len, uint64_t tag)
{
	return jp_hash_bytes(buf, len, jp_hash_seed() ^ tag);
}

/* Eight bytes a step: folded stacks are a kilobyte or more per sample of a deep Java stack,
 * and a sample's frame references are hashed per sample by the outputs that fold them.
 * Seeded: the stacks come from the recording. */
uint64_t rp_hash_words(const void *buf, size_t len)
{
	const char *p = buf;
	uint64_t h = (0xcbf29ce484222325ull ^ len) * jp_hash_seed();
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
	return h ^ h >> 32;
}

int rp_session_new(struct rp_session **out)
{
	*out = NULL;
	struct rp_session *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->event = "cpu-clock";
	*out = s;
	return 0;
}

void rp_session_free(struct rp_session *s)
{
	if (!s)
		return;
	while (s->arena) {
		struct rp_chunk *n = s->arena->next;
		free(s->arena);
		s->arena = n;
	}
	jp_strset_free(&s->strs);
	for (size_t i = 0; i < s->nr_dump_dirs; i++)
		free(s->dump_dirs[i]);
	free(s->dump_dirs);
	free(s->loads);
	free(s->samples);
	rp_frames_free(s);
	rp_map_free(&s->dso_bid);
	free(s->bids);
	free(s->exes);
	rp_map_free(&s->exe_of);
	free(s);
}

const char *rp_intern(struct rp_session *s, const char *str)
{
	/* Names and paths come from the recording and its files: a control character (an escape
	 * sequence for the terminal the table is printed on) is kept as the text "\xNN", a
	 * bidirectional control or line separator as "\uXXXX" (safeio's one escaping path). */
	const char *r;
	if (str && sio_has_controls(str)) {
		char *esc = sio_escape_controls(str);
		r = esc ? jp_strset_add(&s->strs, esc) : NULL;
		free(esc);
	} else {
		r = jp_strset_add(&s->strs, str);
	}
	/* every caller reads NULL as "no name": a name lost would be another answer */
	if (str && !r)
		jp_nomem("the report's names");
	return r;
}

const uint8_t *rp_keep_bytes(struct rp_session *s, const void *buf, size_t len)
{
	uint8_t *p = arena_alloc(s, len ? len : 1);
	if (p && len)
		memcpy(p, buf, len);
	return p;
}

int rp_grow(void *arrp, size_t *cap, size_t need, size_t elem)
{
	return jp_grow(arrp, cap, need, elem, 256);
}

/* Room for about as many samples and frames as a recording of data_size bytes can hold, made
 * before the first: grown by doubling instead, each array is copied and its pages faulted in
 * about twice over. Pages never touched cost nothing, so the bound may be generous; it is
 * capped, and a recording with more grows as before. */
#define RESERVE_MAX (1u << 24)
void rp_session_reserve(struct rp_session *s, uint64_t data_size, int callchains, int loads)
{
	/* a sample record is at least its header and a few fields: 32 bytes; with call chains
	 * a frame is at least an 8-byte address in the file; a load is made from an MMAP2
	 * record, at least 72 bytes with its file name (a Java start-up's 34k loads were 15 MB
	 * of doubling copies, a tenth of the flame graph's time) */
	uint64_t ns = data_size / 32, nf = callchains ? data_size / 8 : ns, nl = data_size / 72;
	ns = ns < RESERVE_MAX ? ns : RESERVE_MAX;
	nf = nf < RESERVE_MAX ? nf : RESERVE_MAX;
	nl = nl < RESERVE_MAX / 16 ? nl : RESERVE_MAX / 16;
	void *p;
	if (ns > s->samples_cap && (p = realloc(s->samples, ns * sizeof(*s->samples)))) {
		s->samples = p;
		s->samples_cap = ns;
	}
	if (loads && nl > s->loads_cap && (p = realloc(s->loads, nl * sizeof(*s->loads)))) {
		s->loads = p;
		s->loads_cap = nl;
	}
	rp_frames_reserve(s, nf);
}

uint32_t rp_add_load(struct rp_session *s, const struct rp_load *l)
{
	if (rp_grow(&s->loads, &s->loads_cap, s->nr_loads + 1, sizeof(*s->loads)))
		return 0;
	s->loads[s->nr_loads++] = *l;
	return (uint32_t)s->nr_loads;
}

struct rp_load *rp_load_at(struct rp_session *s, uint32_t idx)
{
	return idx && idx <= s->nr_loads ? &s->loads[idx - 1] : NULL;
}

size_t rp_nr_loads(const struct rp_session *s)
{
	return s->nr_loads;
}

int rp_add_sample(struct rp_session *s, const struct rp_sample *smp,
		  const struct rp_frame *frames, uint32_t nr)
{
	if (rp_grow(&s->samples, &s->samples_cap, s->nr_samples + 1, sizeof(*s->samples)))
		return -ENOMEM;
	struct rp_sample d = *smp;
	d.nr = nr;
	if (rp_chain_push(s, frames, nr, &d.first))
		return -ENOMEM;
	s->samples[s->nr_samples++] = d;
	return 0;
}

int rp_set_sample_frames(struct rp_session *s, size_t i, const struct rp_frame *frames,
			 uint32_t nr)
{
	/* The old references stay behind, reached by no sample. */
	struct rp_sample *d = &s->samples[i];
	uint32_t first;
	if (rp_chain_push(s, frames, nr, &first))
		return -ENOMEM;
	d->first = first;
	d->nr = nr;
	return 0;
}

size_t rp_nr_samples(const struct rp_session *s)
{
	return s->nr_samples;
}

const struct rp_sample *rp_sample_at(const struct rp_session *s, size_t i)
{
	return &s->samples[i];
}


void rp_set_span(struct rp_session *s, uint64_t start, uint64_t end)
{
	s->start = start;
	s->end = end;
}

void rp_get_span(const struct rp_session *s, uint64_t *start, uint64_t *end)
{
	*start = s->start;
	*end = s->end;
}

void rp_set_wall_clock(struct rp_session *s, uint64_t tod_ns, uint64_t clock_ns)
{
	s->tod_ns = tod_ns;
	s->tod_clock_ns = clock_ns;
}

int rp_wall_clock(const struct rp_session *s, uint64_t t, uint64_t *tod)
{
	if (!s->tod_ns)
		return 0;
	*tod = t >= s->tod_clock_ns ? s->tod_ns + (t - s->tod_clock_ns)
				    : s->tod_ns - (s->tod_clock_ns - t);
	return 1;
}

void rp_set_event_name(struct rp_session *s, const char *name)
{
	s->event = rp_intern(s, name);
}

const char *rp_session_event(const struct rp_session *s)
{
	return s->event;
}

void rp_set_jvm_samples(struct rp_session *s, uint64_t alloc, uint64_t lock)
{
	s->jvm_alloc = alloc;
	s->jvm_lock = lock;
}

void rp_get_jvm_samples(const struct rp_session *s, uint64_t *alloc, uint64_t *lock)
{
	*alloc = s->jvm_alloc;
	*lock = s->jvm_lock;
}

int rp_period_is_ns(const struct rp_session *s)
{
	return s->weigh_time ||
	       (s->event && (strstr(s->event, "cpu-clock") || strstr(s->event, "task-clock")));
}

void rp_set_lost(struct rp_session *s, uint64_t lost)
{
	s->lost = lost;
}

static int load_order(const void *a, const void *b)
{
	const struct rp_load *x = *(const struct rp_load *const *)a;
	const struct rp_load *y = *(const struct rp_load *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	const char *ix = rp_load_ident(x), *iy = rp_load_ident(y);
	if (ix != iy)
		return strcmp(ix ? ix : "", iy ? iy : "");
	if (x->load_time != y->load_time)
		return x->load_time < y->load_time ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int u32_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Two loads of v[0..n) with the same non-zero generation number (sorted in scratch: a group
 * can hold every unnamed load of a process, tens of thousands). */
static int numbers_clash(struct rp_load *const *v, size_t n, uint32_t *scratch)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (v[k]->generation)
			scratch[m++] = v[k]->generation;
	if (m > 1)
		qsort(scratch, m, sizeof(*scratch), u32_order);
	for (size_t k = 1; k < m; k++)
		if (scratch[k] == scratch[k - 1])
			return 1;
	return 0;
}

/* Succession among loads of one method when some were back-filled (an agent attached late
 * reports the code already there, all at the attach and in the code cache's order, C2 before
 * C1): those first, by compile id (the order the JVM compiled them; unknown ids last, in load
 * order), then the loads since the attach in load order. */
static int succession_order(const void *a, const void *b)
{
	const struct rp_load *x = *(const struct rp_load *const *)a;
	const struct rp_load *y = *(const struct rp_load *const *)b;
	int bx = !!(x->flags & JD_LOAD_BACKFILLED), by = !!(y->flags & JD_LOAD_BACKFILLED);
	if (bx != by)
		return by - bx;
	if (bx && (x->compile_id > 0) != (y->compile_id > 0))
		return x->compile_id > 0 ? -1 : 1;
	if (bx && x->compile_id > 0 && x->compile_id != y->compile_id)
		return x->compile_id < y->compile_id ? -1 : 1;
	return load_order(a, b);
}

static int has_backfilled(struct rp_load *const *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (v[k]->flags & JD_LOAD_BACKFILLED)
			return 1;
	return 0;
}

/* Generations for loads that carried none (no note, no dump): the order of loads of the
 * same method identity (rp_load_ident) in one process, which is what contract 3
 * (docs/ARCHITECTURE.md) defines; a method with back-filled loads is numbered in its
 * succession (succession_order) whatever its notes say. */
static void number_generations(struct rp_session *s)
{
	if (!s->nr_loads)
		return;
	struct rp_load **v = malloc(s->nr_loads * sizeof(*v));
	uint32_t *scratch = malloc(s->nr_loads * sizeof(*scratch));
	if (!v || !scratch) {
		free(v);
		free(scratch);
		return;
	}
	for (size_t i = 0; i < s->nr_loads; i++)
		v[i] = &s->loads[i];
	if (s->nr_loads > 1)
		qsort(v, s->nr_loads, sizeof(*v), load_order);
	for (size_t i = 0; i < s->nr_loads;) {
		size_t j = i;
		while (j < s->nr_loads && v[j]->pid == v[i]->pid &&
		       rp_load_ident(v[j]) == rp_load_ident(v[i]))
			j++;
		/* Numbers from notes or dumps are kept unless two loads of the group share one
		 * (a name the dump spelled differently from the ELF symbol): then load order. */
		int clash = numbers_clash(v + i, j - i, scratch), bf = has_backfilled(v + i, j - i);
		if (bf && j - i > 1)
			qsort(v + i, j - i, sizeof(*v), succession_order);
		for (size_t k = i; k < j; k++)
			if (clash || bf || !v[k]->generation)
				v[k]->generation = (uint32_t)(k - i + 1);
		i = j;
	}
	free(scratch);
	free(v);
}

void rp_session_finish(struct rp_session *s)
{
	number_generations(s);
	for (size_t i = 0; i < s->nr_loads; i++) {
		s->loads[i].samples = 0;
		s->loads[i].period = 0;
	}
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		if (!smp->nr)
			continue;
		const struct rp_frame *leaf = rp_leaf(s, smp);
		struct rp_load *l = rp_load_at(s, leaf->load);
		if (l && !(leaf->flags & RP_FRAME_UNLOADED)) {
			l->samples++;
			l->period += smp->period;
		}
	}
}
