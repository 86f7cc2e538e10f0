/* segmap.c - address -> code load, over time, for one dump. All ranges a dump can ever map
 * are known when it is read, so their ends cut the address space once into elementary
 * segments; mapping a load sets the owner of the few segments it spans, and "which parts does
 * this load still own" (for unloads) is a walk over the same segments. Flat arrays, no tree. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* LSD radix sort, 16 bits a pass: a 200k-load dump has 400k bounds, which qsort's indirect
 * compares took 50 ms to order; passes whose digit is the same everywhere (the high bits of
 * addresses in one code heap) are skipped. tmp holds n elements, cnt 1 << 16. */
static void radix_sort(uint64_t *v, uint64_t *tmp, size_t *cnt, size_t n)
{
	uint64_t diff = 0;
	for (size_t i = 1; i < n; i++)
		diff |= v[i] ^ v[0];
	for (unsigned shift = 0; shift < 64; shift += 16) {
		if (!((diff >> shift) & 0xffff))
			continue;
		memset(cnt, 0, (1u << 16) * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(v[i] >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t d = 0; d < (1u << 16); d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[cnt[(v[i] >> shift) & 0xffff]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
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
		uint64_t *tmp = malloc(k * sizeof(uint64_t));
		size_t *cnt = malloc((1u << 16) * sizeof(size_t));
		if (!tmp || !cnt) {
			free(tmp);
			free(cnt);
			inj_bounds_fini(bd);
			return -ENOMEM;
		}
		radix_sort(bd->b, tmp, cnt, k);
		free(tmp);
		free(cnt);
	}
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || bd->b[u - 1] != bd->b[i])
			bd->b[u++] = bd->b[i];
	bd->nb = u;
	return 0;
}

void inj_bounds_fini(struct inj_bounds *bd)
{
	free(bd->b);
	memset(bd, 0, sizeof(*bd));
}

long inj_bounds_find(const struct inj_bounds *bd, uint64_t addr)
{
	if (bd->nb < 2 || addr < bd->b[0] || addr >= bd->b[bd->nb - 1])
		return -1;
	size_t lo = 0, hi = bd->nb - 1;	/* invariant: b[lo] <= addr < b[hi] */
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

int inj_segmap_lookup(const struct inj_segmap *m, uint64_t addr, uint32_t *owner,
		      uint64_t *when)
{
	long i = inj_bounds_find(m->bd, addr);
	if (i < 0 || (m->owner[i] == INJ_NONE && !m->when[i]))
		return 0;
	*owner = m->owner[i];
	*when = m->when[i];
	return 1;
}
