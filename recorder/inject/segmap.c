/* segmap.c - address -> code load, over time, for one dump. All ranges a dump can ever map
 * are known when it is read, so their ends cut the address space once into elementary
 * segments; mapping a load sets the owner of the few segments it spans, and "which parts does
 * this load still own" (for unloads) is a walk over the same segments. Flat arrays, no tree.
 * Also a set of segments emptied in O(1), for what one call chain has already kept. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* LSD radix sort, 16 bits a pass: a 200k-load dump has 400k bounds, which qsort's indirect
 * compares took 50 ms to order; passes whose digit is the same everywhere (the high bits of
 * addresses in one code heap) are skipped. A small dump sorts 8 bits a pass instead: clearing
 * a 64k-entry count table per pass would cost more than its few bounds (and was most of a
 * fuzzing execution). tmp holds n elements, cnt 1 << bits. */
static void radix_sort(uint64_t *v, uint64_t *tmp, size_t *cnt, size_t n, unsigned bits)
{
	uint64_t diff = 0, mask = (1u << bits) - 1;
	for (size_t i = 1; i < n; i++)
		diff |= v[i] ^ v[0];
	for (unsigned shift = 0; shift < 64; shift += bits) {
		if (!((diff >> shift) & mask))
			continue;
		memset(cnt, 0, ((size_t)1 << bits) * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(v[i] >> shift) & mask]++;
		size_t sum = 0;
		for (size_t d = 0; d <= mask; d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[cnt[(v[i] >> shift) & mask]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* Twice as many buckets as bounds (code heaps leave most of the hull empty, so the used part
 * still gets a few bounds a bucket); none for a handful of bounds or when memory is short
 * (the binary search then covers everything, as it would anyway). */
static void build_lut(struct inj_bounds *bd)
{
	if (bd->nb < 16 || bd->nb > UINT32_MAX)
		return;
	uint64_t span = bd->b[bd->nb - 1] - bd->b[0];
	size_t want = bd->nb * 2;
	unsigned shift = 0;
	while ((span >> shift) >= want)
		shift++;
	size_t nlut = (size_t)(span >> shift) + 1;
	uint32_t *lut = malloc((nlut + 1) * sizeof(*lut));
	if (!lut)
		return;
	/* lut[k]: the last segment starting at or before bucket k's first address. */
	size_t seg = 0;
	for (size_t k = 0; k < nlut; k++) {
		uint64_t a = bd->b[0] + ((uint64_t)k << shift);
		while (seg + 1 < bd->nb - 1 && bd->b[seg + 1] <= a)
			seg++;
		lut[k] = (uint32_t)seg;
	}
	lut[nlut] = (uint32_t)(bd->nb - 1);
	bd->lut = lut;
	bd->nlut = nlut;
	bd->shift = shift;
}

int inj_bounds_init(struct inj_bounds *bd, const struct inj_range *r, size_t n)
{
	memset(bd, 0, sizeof(*bd));
	if (n > SIZE_MAX / 2 / sizeof(uint64_t))
		return -EOVERFLOW;
	bd->b = malloc((2 * n + 1) * sizeof(uint64_t));
	if (!bd->b)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].end <= r[i].start)
			continue;
		bd->b[k++] = r[i].start;
		bd->b[k++] = r[i].end;
	}
	if (k > 1) {
		unsigned bits = k < (1u << 14) ? 8 : 16;
		uint64_t *tmp = malloc(k * sizeof(uint64_t));
		size_t *cnt = malloc(((size_t)1 << bits) * sizeof(size_t));
		if (!tmp || !cnt) {
			free(tmp);
			free(cnt);
			inj_bounds_fini(bd);
			return -ENOMEM;
		}
		radix_sort(bd->b, tmp, cnt, k, bits);
		free(tmp);
		free(cnt);
	}
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || bd->b[u - 1] != bd->b[i])
			bd->b[u++] = bd->b[i];
	bd->nb = u;
	build_lut(bd);
	return 0;
}

void inj_bounds_fini(struct inj_bounds *bd)
{
	free(bd->b);
	free(bd->lut);
	memset(bd, 0, sizeof(*bd));
}

long inj_bounds_find(const struct inj_bounds *bd, uint64_t addr)
{
	if (bd->nb < 2 || addr < bd->b[0] || addr >= bd->b[bd->nb - 1])
		return -1;
	size_t lo = 0, hi = bd->nb - 1;	/* invariant: b[lo] <= addr < b[hi] */
	if (bd->lut) {
		size_t k = (size_t)((addr - bd->b[0]) >> bd->shift);
		lo = bd->lut[k];
		if (bd->lut[k + 1] + 1 < hi)
			hi = bd->lut[k + 1] + 1;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (bd->b[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

int inj_segmap_init(struct inj_segmap *m, const struct inj_bounds *bd)
{
	size_t ns = bd->nb ? bd->nb - 1 : 0;
	m->bd = bd;
	m->owner = malloc((ns + 1) * sizeof(uint32_t));
	m->when = calloc(ns + 1, sizeof(uint64_t));
	if (!m->owner || !m->when) {
		inj_segmap_fini(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ns; i++)
		m->owner[i] = INJ_NONE;
	return 0;
}

void inj_segmap_fini(struct inj_segmap *m)
{
	free(m->owner);
	free(m->when);
	m->owner = NULL;
	m->when = NULL;
}

void inj_segmap_assign(struct inj_segmap *m, uint64_t start, uint64_t end, uint32_t owner,
		       uint64_t t)
{
	long i = inj_bounds_find(m->bd, start);
	if (i < 0)
		return;
	for (size_t s = (size_t)i; s + 1 < m->bd->nb && m->bd->b[s] < end; s++) {
		m->owner[s] = owner;
		m->when[s] = t;
	}
}

size_t inj_segmap_release(struct inj_segmap *m, uint64_t start, uint64_t end, uint32_t owner,
			  uint64_t t, void (*fn)(void *ctx, uint64_t s, uint64_t e), void *ctx)
{
	long i = inj_bounds_find(m->bd, start);
	size_t runs = 0;
	uint64_t run_start = 0;
	int in_run = 0;
	if (i < 0)
		return 0;
	size_t s = (size_t)i;
	for (; s + 1 < m->bd->nb && m->bd->b[s] < end; s++) {
		if (m->owner[s] == owner) {
			m->owner[s] = INJ_NONE;
			m->when[s] = t;
			if (!in_run)
				run_start = m->bd->b[s];
			in_run = 1;
		} else if (in_run) {
			if (fn)
				fn(ctx, run_start, m->bd->b[s]);
			runs++;
			in_run = 0;
		}
	}
	if (in_run) {
		if (fn)
			fn(ctx, run_start, m->bd->b[s]);
		runs++;
	}
	return runs;
}

int inj_segmap_at(const struct inj_segmap *m, long seg, uint32_t *owner, uint64_t *when)
{
	if (seg < 0 || (m->owner[seg] == INJ_NONE && !m->when[seg]))
		return 0;
	*owner = m->owner[seg];
	*when = m->when[seg];
	return 1;
}

/* 256 slots, 16 probes: a chain keeps a few dozen distinct segments at most in practice;
 * more still work, some of them then kept twice. */
#define SET_BITS 8
#define SET_SLOTS (1u << SET_BITS)
#define SET_PROBES 16

struct inj_segset_slot {
	uint32_t stamp, seg;	/* live when stamp is the set's */
};

void inj_segset_clear(struct inj_segset *set)
{
	if (!set->slot && !(set->slot = calloc(SET_SLOTS, sizeof(*set->slot))))
		return;
	if (++set->stamp == 0) {	/* wrapped: stamps of 4G clears ago would look live */
		memset(set->slot, 0, SET_SLOTS * sizeof(*set->slot));
		set->stamp = 1;
	}
}

int inj_segset_add(struct inj_segset *set, uint32_t seg)
{
	if (!set->slot)
		return 1;
	uint32_t j = (seg * 0x9e3779b1u) >> (32 - SET_BITS);
	for (unsigned p = 0; p < SET_PROBES; p++, j = (j + 1) & (SET_SLOTS - 1)) {
		struct inj_segset_slot *e = &set->slot[j];
		if (e->stamp != set->stamp) {
			*e = (struct inj_segset_slot){ set->stamp, seg };
			return 1;
		}
		if (e->seg == seg)
			return 0;
	}
	return 1;
}

void inj_segset_fini(struct inj_segset *set)
{
	free(set->slot);
	set->slot = NULL;
	set->stamp = 0;
}
