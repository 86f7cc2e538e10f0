/* hindex.c - see hindex.h. Linear probing: the full hash beside the index lets a probe skip
 * most non-matching slots without touching the owner's items, and lets growing re-place
 * every slot without re-hashing a key. */
#include "lib/hindex.h"

#include "lib/hash_seed.h"

#include <errno.h>
#include <stdlib.h>

#define MIN_CAP 64

uint64_t jp_hindex_hash(const void *key, size_t len)
{
	return jp_hash_bytes(key, len, jp_hash_seed());
}

int64_t jp_hindex_find(struct jp_hindex *x, uint64_t hash, const void *key, jp_hindex_eq_fn eq,
		       const void *ctx)
{
	if (!x->cap)
		return -1;
	for (size_t j = hash & (x->cap - 1); x->slot[j].item; j = (j + 1) & (x->cap - 1)) {
		if (x->slot[j].hash == hash && eq(key, x->slot[j].item - 1, ctx))
			return x->slot[j].item - 1;
		x->probes++;
	}
	return -1;
}

static void place(struct jp_hindex_slot *v, size_t cap, struct jp_hindex_slot s)
{
	size_t j = s.hash & (cap - 1);
	while (v[j].item)
		j = (j + 1) & (cap - 1);
	v[j] = s;
}

static int grow(struct jp_hindex *x)
{
	size_t cap = x->cap ? x->cap * 2 : MIN_CAP;
	if (cap < x->cap)
		return -ENOMEM;
	struct jp_hindex_slot *v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < x->cap; i++)
		if (x->slot[i].item)
			place(v, cap, x->slot[i]);
	free(x->slot);
	x->slot = v;
	x->cap = cap;
	return 0;
}

int jp_hindex_add(struct jp_hindex *x, uint64_t hash, size_t idx)
{
	if (idx >= UINT32_MAX - 1)
		return -EOVERFLOW;
	int rc;
	if ((x->n + 1) * 2 > x->cap && (rc = grow(x)))
		return rc;
	place(x->slot, x->cap, (struct jp_hindex_slot){ hash, (uint32_t)idx + 1 });
	x->n++;
	return 0;
}

void jp_hindex_free(struct jp_hindex *x)
{
	free(x->slot);
	*x = (struct jp_hindex){ 0 };
}
