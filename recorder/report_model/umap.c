/* umap.c - a small open-addressing hash map from non-zero u64 keys (pointers, pids, code
 * indexes) to u32 values: ingest looks up loads by dso and path for every resolved frame.
 * Keys come from the recording (pids, indexes): the hash is seeded (lib/hash_seed.h), so a
 * crafted file cannot put them all in one probe sequence. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_seed.h"
#include "recorder/report_model/model.h"

/* A multiply-xorshift mix of the whole key at once (keys are pointers and small indexes):
 * looked up for every resolved frame, where a bytewise hash cost eight dependent multiplies. */
static size_t slot_of(uint64_t key, uint64_t seed)
{
	key ^= seed;
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key;
}

static struct rp_u64slot *find(const struct rp_u64map *m, uint64_t key)
{
	size_t j = slot_of(key, m->seed) & (m->cap - 1);
	while (m->slot[j].k && m->slot[j].k != key)
		j = (j + 1) & (m->cap - 1);
	return &m->slot[j];
}

int rp_map_put(struct rp_u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct rp_u64map g = { .cap = m->cap ? m->cap * 2 : 256,
				       .seed = m->cap ? m->seed : jp_hash_seed() };
		g.slot = calloc(g.cap, sizeof(*g.slot));
		if (!g.slot)
			return -ENOMEM;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slot[i].k)
				*find(&g, m->slot[i].k) = m->slot[i];
		g.n = m->n;
		free(m->slot);
		*m = g;
	}
	struct rp_u64slot *e = find(m, key);
	if (!e->k)
		m->n++;
	e->k = key;
	e->v = val;
	return 0;
}

int rp_map_get(const struct rp_u64map *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return 0;
	const struct rp_u64slot *e = find(m, key);
	if (!e->k)
		return 0;
	*val = e->v;
	return 1;
}

void rp_map_free(struct rp_u64map *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}

void rp_idxmap_init(struct rp_idxmap *m, uint64_t max_key, size_t n)
{
	memset(m, 0, sizeof(*m));
	if (n && max_key < 4 * (uint64_t)n + 1024 &&
	    (m->dense = calloc(max_key + 1, sizeof(*m->dense))))
		m->nr_dense = max_key + 1;	/* else (or no memory) the map */
}

int rp_idxmap_put(struct rp_idxmap *m, uint64_t key, uint32_t val)
{
	if (m->dense) {
		if (key >= m->nr_dense)
			return -EINVAL;
		m->dense[key] = val;
		return 0;
	}
	return key == UINT64_MAX ? -EINVAL : rp_map_put(&m->map, key + 1, val);
}

uint32_t rp_idxmap_get(const struct rp_idxmap *m, uint64_t key)
{
	uint32_t v = 0;
	if (m->dense)
		return key < m->nr_dense ? m->dense[key] : 0;
	return key != UINT64_MAX && rp_map_get(&m->map, key + 1, &v) ? v : 0;
}

void rp_idxmap_free(struct rp_idxmap *m)
{
	free(m->dense);
	rp_map_free(&m->map);
	memset(m, 0, sizeof(*m));
}
