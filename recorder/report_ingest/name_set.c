/* name_set.c - the display names a memo's values hold, as a set of (hash, interned string):
 * ingest's dso_build_ids asks it of every DSO of the symbol session, most of which (unsampled
 * jitted code) no frame names, so that their names need not be interned to be skipped. */
#include "recorder/report_ingest/ingest_int.h"
#include "lib/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int name_eq(const void *key, uint32_t idx, const void *ctx)
{
	return !strcmp(((const struct rp_name_set *)ctx)->v[idx], key);
}

const char *rp_name_set_find(struct rp_name_set *ns, const char *str)
{
	int64_t i = jp_hindex_find(&ns->ix, rp_hash_seeded(str, strlen(str), 0), str, name_eq, ns);
	return i < 0 ? NULL : ns->v[i];
}

int rp_name_set_of_memo(struct rp_name_set *ns, const struct rp_memo *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		const char *d = m->k[i] ? m->v[i] : NULL;
		if (!d || rp_name_set_find(ns, d))
			continue;
		if (JP_GROW_FOR(ns->v, ns->cap, ns->n) ||
		    jp_hindex_add(&ns->ix, rp_hash_seeded(d, strlen(d), 0), ns->n))
			return -ENOMEM;
		ns->v[ns->n++] = d;
	}
	return 0;
}

void rp_name_set_free(struct rp_name_set *ns)
{
	free(ns->v);
	jp_hindex_free(&ns->ix);
	memset(ns, 0, sizeof(*ns));
}
