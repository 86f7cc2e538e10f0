/* name_set.c - the display names a memo's values hold, as a set of (hash, interned string):
 * ingest's dso_build_ids asks it of every DSO of the symbol session, most of which (unsampled
 * jitted code) no frame names, so that their names need not be interned to be skipped. */
#include "recorder/report_ingest/ingest_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t name_hash(const char *str)
{
	return rp_hash_seeded(str, strlen(str), 0) | 1;	/* 0 marks an empty slot */
}

const char *rp_name_set_find(const struct rp_name_set *ns, const char *str)
{
	uint64_t h = name_hash(str);
	size_t *probes = (size_t *)&ns->probes;	/* a count, not the set's content */
	for (size_t j = h & (ns->cap - 1); ns->h[j]; j = (j + 1) & (ns->cap - 1), (*probes)++)
		if (ns->h[j] == h && !strcmp(ns->v[j], str))
			return ns->v[j];
	return NULL;
}

int rp_name_set_of_memo(struct rp_name_set *ns, const struct rp_memo *m)
{
	ns->cap = 64;
	while (ns->cap < 2 * m->n + 2)
		ns->cap *= 2;
	ns->h = calloc(ns->cap, sizeof(*ns->h));
	ns->v = calloc(ns->cap, sizeof(*ns->v));
	if (!ns->h || !ns->v)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		const char *d = m->k[i] ? m->v[i] : NULL;
		if (!d || rp_name_set_find(ns, d))
			continue;
		uint64_t h = name_hash(d);
		size_t j = h & (ns->cap - 1);
		while (ns->h[j]) {
			j = (j + 1) & (ns->cap - 1);
			ns->probes++;
		}
		ns->h[j] = h;
		ns->v[j] = d;
	}
	return 0;
}

void rp_name_set_free(struct rp_name_set *ns)
{
	free(ns->h);
	free(ns->v);
	ns->h = NULL;
	ns->v = NULL;
	ns->cap = 0;
}
