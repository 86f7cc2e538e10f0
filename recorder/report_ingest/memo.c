/* memo.c - a pointer-keyed memo (open addressing, grown at half load): ingest remembers what
 * each of the symbol session's interned strings becomes in the report session, so a frame
 * costs pointer lookups instead of hashing its strings again. A value may be NULL ("none"). */
#include <stdint.h>
#include <stdlib.h>

#include "recorder/report_ingest/ingest_int.h"

void rp_memo_put(struct rp_memo *m, const void *key, const char *val, size_t slot)
{
	if ((m->n + 1) * 2 > m->cap) {	/* grow, then find the slot again */
		struct rp_memo g = { .cap = m->cap ? m->cap * 2 : 1024 };
		g.k = calloc(g.cap, sizeof(*g.k));
		g.v = malloc(g.cap * sizeof(*g.v));
		if (!g.k || !g.v) {
			free(g.k);
			free(g.v);
			return;		/* not remembered: computed again next time */
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->k[i]) {
				const char *unused;
				size_t at = 0;
				rp_memo_get(&g, m->k[i], &unused, &at);
				g.k[at] = m->k[i], g.v[at] = m->v[i], g.n++;
			}
		free(m->k);
		free(m->v);
		*m = g;
		const char *unused;
		rp_memo_get(m, key, &unused, &slot);
	}
	m->k[slot] = key;
	m->v[slot] = val;
	m->n++;
}

void rp_memo_free(struct rp_memo *m)
{
	free(m->k);
	free(m->v);
}
