/* pending.c - jitted mappings not yet loads. The outputs that name only sampled loads (-g,
 * the folded stacks, pprof, speedscope) make a load when the first frame lands in its ELF: a
 * Java start-up maps 34k generations and a few thousand are sampled, and each load is 200-odd
 * bytes, a live range and a name to look up. Until then only where and when it was mapped is
 * kept here. An entry is found from its ELF's DSO, whose tag in the symbol session holds its
 * id: no name interned and no table of 34k paths (those were 16-45 ms of a 200 ms report,
 * mostly first touches of their memory). */
#include "lib/grow.h"
#include "lib/nomem.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"

#include <stdlib.h>

/* d's entry (id = index + 1), or 0. The tag is only ever set here, but checked anyway. */
static uint32_t id_of(const struct rp_pending *p, const struct sym_dso *d)
{
	uint32_t v = d ? sym_dso_tag(d) : 0;
	return v && v <= p->n && p->v[v - 1].dso == d ? v : 0;
}

uint32_t rp_pending_note(struct rp_pending *p, struct sym_dso *d, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t time, int *moved, uint64_t *old_start)
{
	uint32_t v = id_of(p, d);

	*moved = 0;
	if (!d)
		return 0;
	/* The same ELF mapped again in its process: a CODE_MOVE, the same generation at a new
	 * place (it was first mapped, so loaded, at the earlier time). */
	if (v && p->v[v - 1].pid == pid) {
		*moved = 1;
		*old_start = p->v[v - 1].start;
		p->v[v - 1].start = start;
		p->v[v - 1].map_time = time;
		return v;
	}
	/* 0 reads as "not jitted": its samples would go to no load, the report exit 0 */
	if (jp_grow(&p->v, &p->cap, p->n + 1, sizeof(*p->v), 256))
		jp_nomem("a pending jitted mapping");
	p->v[p->n++] = (struct rp_pending_map){ .pid = pid, .start = start, .len = len,
						.load_time = time, .map_time = time,
						.path = sym_dso_long_name(d), .dso = d };
	sym_dso_set_tag(d, (uint32_t)p->n);
	return (uint32_t)p->n;
}

struct rp_pending_map *rp_pending_get(const struct rp_pending *p, const struct sym_dso *d)
{
	uint32_t v = id_of(p, d);

	return v ? &p->v[v - 1] : NULL;
}

void rp_pending_free(struct rp_pending *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
