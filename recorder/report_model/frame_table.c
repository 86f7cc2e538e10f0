/* frame_table.c - the session's frames: each distinct frame once in a table, each sample's
 * stack a run of 4-byte indexes into it (the chain). A call-graph recording repeats a few
 * thousand frames hundreds of thousands of times (Generations at 20 kHz: 650k frames, 7.5k
 * distinct): kept whole at 64 bytes each they were 40 MB to fault in and to walk for every
 * view. Frames are looked up in the table only when the session shares them
 * (rp_session_share_frames: call chains kept); without call chains nearly every frame is new
 * and the lookup would cost more than it saves, so each is appended. The lookup keeps a table
 * of its own rather than lib's jp_hindex: it runs for every frame of every sample, and here a
 * slot is 4 bytes (jp_hindex's 16) and the comparison is inlined (jp_hindex calls back). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_seed.h"
#include "recorder/report_model/model.h"

/* Field by field: a frame's padding is never compared or hashed. Looked up once per frame
 * of every sample: a few multiplications, not a byte hash. addr and symoff follow from ip
 * and the symbol, and are left to the comparison. */
static uint64_t frame_hash(const struct rp_frame *f)
{
	/* seeded: the addresses come from the recording (lib/hash_seed.h) */
	uint64_t h = (f->ip ^ jp_hash_seed()) * 0x9e3779b97f4a7c15ull;
	h ^= ((uintptr_t)f->sym + ((uint64_t)f->load << 20)) * 0xc2b2ae3d27d4eb4full;
	h ^= ((uintptr_t)f->srcfile ^ ((uint64_t)f->line << 32 | f->flags)) * 0x165667b19e3779f9ull;
	h ^= (uintptr_t)f->dso;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ h >> 32;
}

static int frame_eq(const struct rp_frame *a, const struct rp_frame *b)
{
	return a->ip == b->ip && a->sym == b->sym && a->dso == b->dso && a->load == b->load &&
	       a->flags == b->flags && a->line == b->line && a->srcfile == b->srcfile &&
	       a->addr == b->addr && a->symoff == b->symoff && a->call_line == b->call_line;
}

/* The slot of f in the lookup table: where it is, or the free slot it would take. */
static size_t slot_of(const struct rp_session *s, const struct rp_frame *f)
{
	size_t mask = s->fslots_cap - 1, j = frame_hash(f) & mask;
	while (s->fslots[j] && !frame_eq(&s->frames[s->fslots[j] - 1], f))
		j = (j + 1) & mask;
	return j;
}

/* The lookup table of every frame in the table, at least twice its size. 0 or -ENOMEM. */
static int reindex(struct rp_session *s, size_t cap)
{
	uint32_t *v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	free(s->fslots);
	s->fslots = v;
	s->fslots_cap = cap;
	for (size_t i = 0; i < s->nr_frames; i++) {
		size_t j = slot_of(s, &s->frames[i]);
		if (!s->fslots[j])	/* an edited table may hold equal frames: the first wins */
			s->fslots[j] = (uint32_t)i + 1;
	}
	return 0;
}

void rp_session_share_frames(struct rp_session *s)
{
	s->share_frames = 1;
}

/* f's index in the table, added when new. 0 and *idx, or -ENOMEM. */
static int frame_put(struct rp_session *s, const struct rp_frame *f, uint32_t *idx)
{
	size_t j = 0;
	if (s->share_frames) {
		if (2 * (s->nr_frames + 1) > s->fslots_cap &&
		    reindex(s, s->fslots_cap ? 2 * s->fslots_cap : 1024))
			return -ENOMEM;
		j = slot_of(s, f);
		if (s->fslots[j]) {
			*idx = s->fslots[j] - 1;
			return 0;
		}
	}
	if (s->nr_frames >= UINT32_MAX ||
	    rp_grow(&s->frames, &s->frames_cap, s->nr_frames + 1, sizeof(*s->frames)))
		return -ENOMEM;
	s->frames[s->nr_frames] = *f;
	*idx = (uint32_t)s->nr_frames++;
	if (s->share_frames)
		s->fslots[j] = *idx + 1;
	return 0;
}

int rp_chain_push(struct rp_session *s, const struct rp_frame *frames, uint32_t nr,
		  uint32_t *first)
{
	if (s->nr_chain + nr > UINT32_MAX ||
	    rp_grow(&s->chain, &s->chain_cap, s->nr_chain + nr, sizeof(*s->chain)))
		return -ENOMEM;
	*first = (uint32_t)s->nr_chain;
	for (uint32_t k = 0; k < nr; k++)
		if (frame_put(s, &frames[k], &s->chain[s->nr_chain + k]))
			return -ENOMEM;
	s->nr_chain += nr;
	return 0;
}

int rp_chain_set(struct rp_session *s, size_t pos, const struct rp_frame *f)
{
	uint32_t idx;
	int rc = frame_put(s, f, &idx);
	if (!rc)
		s->chain[pos] = idx;
	return rc;
}

int rp_frames_edited(struct rp_session *s)
{
	return s->share_frames ? reindex(s, s->fslots_cap) : 0;
}

void rp_frames_reserve(struct rp_session *s, size_t refs)
{
	/* shared: a few thousand distinct frames; else one per reference */
	size_t distinct = s->share_frames ? 0 : refs;
	void *p;
	if (refs > s->chain_cap && (p = realloc(s->chain, refs * sizeof(*s->chain)))) {
		s->chain = p;
		s->chain_cap = refs;
	}
	if (distinct > s->frames_cap && (p = realloc(s->frames, distinct * sizeof(*s->frames)))) {
		s->frames = p;
		s->frames_cap = distinct;
	}
}

void rp_frames_free(struct rp_session *s)
{
	free(s->frames);
	free(s->chain);
	free(s->fslots);
}

const struct rp_frame *rp_sample_frame(const struct rp_session *s, const struct rp_sample *smp,
				       uint32_t k)
{
	return rp_chain_frame(s, smp->first + k);
}
