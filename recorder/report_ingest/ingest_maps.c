/* ingest_maps.c - the jitted ELFs' mappings as the replay meets them: each a load (a method
 * generation) with its live range, moved or ended by later mappings over it, or kept pending
 * until a frame lands in it or the replay is over (see ingest_int.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/nomem.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"

static void end_load(void *ctx, uint32_t idx)
{
	struct ingest *in = ctx;
	struct rp_load *l = &in->s->loads[idx - 1];
	if (!l->end_time && l->load_time <= in->end_time)
		l->end_time = in->end_time;
}

/* A load for the jitted ELF path mapped by pid at start..+len, and where it came from. Out of
 * memory is fatal: a load made without its source (or none made) was a crash or a sample
 * without its method. */
static uint32_t add_load(struct ingest *in, const char *path, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t load_time, uint64_t map_time)
{
	struct rp_load l = { .pid = pid, .load_time = load_time, .code_addr = start,
			     .code_size = len };
	if (rp_grow(&in->load_src, &in->load_src_cap, rp_nr_loads(in->s) + 1,
		    sizeof(*in->load_src)))
		jp_nomem("a jitted code load");
	uint32_t idx = rp_add_load(in->s, &l);
	if (!idx)
		jp_nomem("a jitted code load");
	in->load_src[idx - 1] = (struct rp_load_src){ path, map_time };
	if (rp_map_put(&in->path_load, (uintptr_t)path, idx) < 0)
		jp_nomem("a jitted code load");
	return idx;
}

/* A pending mapping's live range ended (sampled_methods_only): as end_load would end its
 * load, and that load too once one was made of it. */
static void end_pending(void *ctx, uint32_t id)
{
	struct ingest *in = ctx;
	struct rp_pending_map *pm = &in->pending.v[id - 1];
	if (!pm->end_time && pm->load_time <= in->end_time)
		pm->end_time = in->end_time;
	if (pm->load)
		end_load(in, pm->load);
}

/* A pending mapping made a load: the first frame in it, or (rp_ingest_loads) a generation of
 * a sampled method. Its end so far goes with it; later ones reach it through end_pending. */
uint32_t rp_ingest_load_of_pending(struct ingest *in, struct rp_pending_map *pm)
{
	uint32_t v = add_load(in, pm->path, pm->pid, pm->start, pm->len, pm->load_time,
			      pm->map_time);
	if (v && in->o->sampled_methods_only) {
		pm->load = v;
		in->s->loads[v - 1].end_time = pm->end_time;
	}
	return v;
}

uint32_t rp_ingest_promote(void *ctx, uint32_t id, const struct rp_load_src **src)
{
	struct ingest *in = ctx;
	uint32_t v = rp_ingest_load_of_pending(in, &in->pending.v[id - 1]);
	*src = in->load_src;
	return v;
}

/* m's range now load idx's: out of memory the load it replaces would never end (a wrong
 * end time in the generation views), so the report stops. */
static void live_claim(struct ingest *in, const struct pd_mmap *m, uint32_t idx,
		       void (*ended)(void *ctx, uint32_t idx))
{
	jp_nomem_check(rp_live_claim(&in->live, m->pid, m->start, m->len, idx, ended, in),
		       "a jitted mapping's live range");
}

/* sampled_methods_only: every jitted mapping pending (a Java start-up's 34k, of which the
 * flame graph and --html show a few thousand), with its live range and end kept as a load's
 * would be, and its dump indexed meanwhile. */
static void pending_with_ends(struct ingest *in, const struct pd_mmap *m, struct sym_dso *d,
			      uint64_t time)
{
	int moved;
	uint64_t old_start = 0;
	uint32_t id = rp_pending_note(&in->pending, d, m->pid, m->start, m->len, time, &moved,
				      &old_start);
	if (!id)
		return;
	struct rp_pending_map *pm = &in->pending.v[id - 1];
	if (moved) {	/* its old range is free now; the new one ends whatever was there */
		rp_live_remove(&in->live, m->pid, old_start, id);
		if (pm->load) {
			in->s->loads[pm->load - 1].code_addr = m->start;
			in->load_src[pm->load - 1].map_time = time;
		}
	} else {
		jp_nomem_check(rp_prefetch_dump(in->s, m->filename, m->pid), "a jitdump's index");
	}
	in->end_time = time;
	live_claim(in, m, id, end_pending);
}

void rp_ingest_on_mmap(struct ingest *in, const struct pd_event *ev, struct sym_dso *d,
		       uint64_t time)
{
	const struct pd_mmap *m = &ev->u.mmap;
	rp_checks_mmap(&in->checks, m->pid, m->filename);
	rp_note_process_event(in->s, ev);
	if (!in->o->want_loads || !rp_is_jitted_name(m->filename, NULL, NULL))
		return;
	struct rp_session *s = in->s;
	/* The ELF is known by its DSO's name, which the symbol session keeps: one pointer per
	 * DSO, no copy of 34k paths. */
	const char *path = d ? sym_dso_long_name(d) : NULL;
	uint32_t moved = 0;
	/* Outputs that name only sampled loads make one when a frame lands in it (load_of):
	 * no live ranges, no end times, which only the generation views show. */
	if (in->o->sampled_loads_only) {
		if (path && rp_map_get(&in->path_load, (uintptr_t)path, &moved) &&
		    s->loads[moved - 1].pid == m->pid) {	/* moved after a frame made it */
			s->loads[moved - 1].code_addr = m->start;
			in->load_src[moved - 1].map_time = time;
		} else {
			int unused_moved;
			uint64_t unused_start;
			rp_pending_note(&in->pending, d, m->pid, m->start, m->len, time,
					&unused_moved, &unused_start);
		}
		return;
	}
	if (in->o->sampled_methods_only) {
		pending_with_ends(in, m, d, time);
		return;
	}
	/* The same ELF mapped again in one process is a CODE_MOVE (both injects name the
	 * file by code_index): the same generation at a new address. */
	if (path && rp_map_get(&in->path_load, (uintptr_t)path, &moved) &&
	    s->loads[moved - 1].pid != m->pid)
		moved = 0;
	if (moved) {
		/* Its old range is free now; the new one ends whatever was there. */
		struct rp_load *l = &s->loads[moved - 1];
		rp_live_remove(&in->live, l->pid, l->code_addr, moved);
		in->end_time = time;
		live_claim(in, m, moved, end_load);
		l->code_addr = m->start;
		in->load_src[moved - 1].map_time = time;
		return;
	}
	/* its dump is indexed meanwhile, for rp_ingest_loads */
	jp_nomem_check(rp_prefetch_dump(s, m->filename, m->pid), "a jitdump's index");
	uint32_t idx = path ? add_load(in, path, m->pid, m->start, m->len, time, time) : 0;
	/* An earlier load at an overlapping address in this process ends here. */
	in->end_time = time;
	if (idx)
		live_claim(in, m, idx, end_load);
}

