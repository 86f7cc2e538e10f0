/* umap.c - a small open-addressing hash map from non-zero u64 keys (pointers, code indexes)
 * to u32 values: ingest looks up loads by dso and path for every resolved frame. */
#include <errno.h>
#include <stdlib.h>

#include "recorder/report/report_int.h"

/* A multiply-xorshift mix of the whole key at once (keys are pointers and small indexes):
 * looked up for every resolved frame, where a bytewise hash cost eight dependent multiplies. */
static size_t slot_of(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key;
}

int rp_map_put(struct rp_u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct rp_u64map g = { .cap = m->cap ? m->cap * 2 : 256 };
		g.k = calloc(g.cap, sizeof(*g.k));
		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.k || !g.v) {
			free(g.k);
			free(g.v);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->k[i])
				rp_map_put(&g, m->k[i], m->v[i]);
		free(m->k);
		free(m->v);
		*m = g;
	}
	size_t j = slot_of(key) & (m->cap - 1);
	while (m->k[j] && m->k[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->k[j])
		m->n++;
	m->k[j] = key;
	m->v[j] = val;
	return 0;
}

int rp_map_get(const struct rp_u64map *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return 0;
	size_t j = slot_of(key) & (m->cap - 1);
	for (; m->k[j]; j = (j + 1) & (m->cap - 1))
		if (m->k[j] == key) {
			*val = m->v[j];
			return 1;
		}
	return 0;
}

void rp_map_free(struct rp_u64map *m)
{
	free(m->k);
	free(m->v);
}

