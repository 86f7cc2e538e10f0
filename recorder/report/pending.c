/* pending.c - jitted mappings not yet loads. The outputs that name only sampled loads (-g,
 * the folded stacks, pprof, speedscope) make a load when the first frame lands in its ELF: a
 * Java start-up maps 34k generations and a few thousand are sampled, and each load is 200-odd
 * bytes, a live range and a name to look up. Until then only where and when it was mapped is
 * kept here, by the ELF's path. */
#include "recorder/report/report_int.h"

#include <stdlib.h>

uint32_t rp_pending_note(struct rp_pending *p, const char *path, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t time, int *moved, uint64_t *old_start)
{
	uint32_t v;

	*moved = 0;
	if (!path)
		return 0;
	/* The same ELF mapped again in its process: a CODE_MOVE, the same generation at a new
	 * place (it was first mapped, so loaded, at the earlier time). */
	if (rp_map_get(&p->by_path, (uintptr_t)path, &v) && p->v[v - 1].pid == pid) {
		*moved = 1;
		*old_start = p->v[v - 1].start;
		p->v[v - 1].start = start;
		p->v[v - 1].map_time = time;
		return v;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct rp_pending_map *n = realloc(p->v, cap * sizeof(*n));
		if (!n)
			return 0;
		p->v = n;
		p->cap = cap;
	}
	p->v[p->n++] = (struct rp_pending_map){ .pid = pid, .start = start, .len = len,
						.load_time = time, .map_time = time,
						.path = path };
	if (rp_map_put(&p->by_path, (uintptr_t)path, (uint32_t)p->n) < 0) {
		p->n--;
		return 0;
	}
	return (uint32_t)p->n;
}

struct rp_pending_map *rp_pending_get(const struct rp_pending *p, const char *path)
{
	uint32_t v;

	return path && rp_map_get(&p->by_path, (uintptr_t)path, &v) ? &p->v[v - 1] : NULL;
}

void rp_pending_free(struct rp_pending *p)
{
	rp_map_free(&p->by_path);
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
