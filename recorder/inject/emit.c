/* emit.c - the synthetic records inject adds to the stream: one MMAP2 per code load (build-id
 * variant, PROT_READ|PROT_EXEC, MAP_PRIVATE, pgoff where synth puts .text), one per CODE_MOVE
 * (same ELF at the new address), and for our agent's unloads an MMAP2 of the placeholder
 * INJ_UNLOADED_NAME over whatever part of the range the unloaded load still owned. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "synth/synth.h"

/* The writer's pid as the recording knows it: a dump written inside a pid namespace names the
 * namespace pid; the marker's MMAP carries the host one. */
static uint32_t host_pid(const struct inj_dump *d, uint32_t pid)
{
	return pid == d->nspid ? d->pid : pid;
}

int inj_write_mmap2(struct inj_run_state *s, struct inj_dump *d, uint32_t load, uint32_t pid,
		    uint32_t tid, uint64_t time, uint64_t start, uint64_t len, uint64_t pgoff,
		    const uint8_t *build_id, const char *filename)
{
	struct pd_mmap2_args a = {
		.pid = pid, .tid = tid, .cpumode = PERF_RECORD_MISC_USER,
		.start = start, .len = len, .pgoff = pgoff,
		.build_id = build_id, .build_id_size = build_id ? SYNTH_BUILD_ID_SIZE : 0,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = filename,
	};
	/* id 0 is "the first event" for perf; the cpu is the marker's. */
	struct pd_sid sid = { .pid = pid, .tid = tid, .time = time, .cpu = d->marker_cpu };
	int rc = pd_writer_mmap2(s->w, &a, &sid);
	if (rc == 0 && s->stacks &&
	    (rc = inj_stacks_mmap(s->stacks, d, load, pid, tid, start, len, pgoff, filename,
				  build_id, time)) < 0) {
		inj_run_fail(s, "%s: unwinding the user stacks: out of memory",
			     s->o->input);
		return rc;
	}
	if (rc < 0) {
		inj_run_fail(s, "%s: writing: %s", s->o->output, strerror(-rc));
		return rc;
	}
	s->st->records_out++;
	return 0;
}

static int emit_load(struct inj_run_state *s, struct inj_dump *d, uint32_t i, uint64_t t,
		     uint64_t start, uint64_t len)
{
	const struct jd_load_entry *e = jd_index_load(d->x, i);
	char path[4096 + 64];
	int rc = inj_load_path(d, i, path, sizeof(path));
	if (rc < 0)
		return rc;
	const uint8_t *id = s->hasher && d->df ? inj_hasher_id(s->hasher, d->df, i) :
			    d->loads[i].build_id;
	if (!id) {
		inj_run_fail(s, "%s: code load at offset %llu: its build-id could not "
			     "be computed (SHA-1 failed in libcrypto)", d->path,
			     (unsigned long long)e->offset);
		return -EIO;
	}
	rc = inj_write_mmap2(s, d, i, host_pid(d, e->load.pid), host_pid(d, e->load.tid), t, start,
			 len, d->loads[i].text_off, id, path);
	if (rc < 0)
		return rc;
	s->st->mmaps_emitted++;
	inj_segmap_assign(&d->emit_map, start, start + len, i, t);
	return inj_sim_map(s->sim, d, t, start, start + len, i);
}

struct unload_ctx {
	struct inj_run_state *s;
	struct inj_dump *d;
	uint64_t t;
	int rc;
};

static void unload_run(void *ctx, uint64_t start, uint64_t end)
{
	struct unload_ctx *u = ctx;
	if (u->rc < 0)
		return;
	u->rc = inj_write_mmap2(u->s, u->d, INJ_NONE, u->d->pid, u->d->pid, u->t, start, end - start,
			    0, NULL, INJ_UNLOADED_NAME);
	if (u->rc == 0) {
		u->s->st->placeholders++;
		u->rc = inj_sim_map(u->s->sim, u->d, u->t, start, end, INJ_NONE);
	}
}

/* An unload ends every range the load still owns: its own and those it was moved to. */
static int emit_unload(struct inj_run_state *s, struct inj_dump *d, uint32_t i, uint64_t t)
{
	const struct jd_load_entry *e = jd_index_load(d->x, i);
	struct unload_ctx u = { s, d, t, 0 };
	uint64_t a = e->load.code_addr;
	inj_segmap_release(&d->emit_map, a, a + inj_load_map_len(e), i, t, unload_run, &u);
	for (uint32_t m = d->loads[i].move_idx; m != INJ_NONE && m < d->nr_moves && !u.rc; m++) {
		if (d->move_load[m] != i)
			continue;
		const struct jd_move_entry *mv = jd_index_move(d->x, m);
		uint64_t na = mv->move.new_code_addr;
		inj_segmap_release(&d->emit_map, na, na + mv->move.code_size, i, t, unload_run, &u);
	}
	s->st->unloads++;
	return u.rc;
}

static int emit_one(struct inj_run_state *s, struct inj_dump *d, const struct inj_ev *ev)
{
	if (ev->kind == INJ_EV_LOAD) {
		const struct jd_load_entry *e = jd_index_load(d->x, ev->idx);
		s->st->loads++;
		return emit_load(s, d, ev->idx, ev->time, e->load.code_addr, inj_load_map_len(e));
	}
	if (ev->kind == INJ_EV_MOVE) {
		const struct jd_move_entry *m = jd_index_move(d->x, ev->idx);
		s->st->moves++;
		return emit_load(s, d, d->move_load[ev->idx], ev->time, m->move.new_code_addr,
				 m->move.code_size);
	}
	return emit_unload(s, d, ev->idx, ev->time);
}

int inj_emit_pending(struct inj_run_state *s, uint64_t limit, int all)
{
	for (;;) {
		struct inj_dump *best = NULL;
		for (size_t i = 0; i < s->nr_dumps; i++) {
			struct inj_dump *d = s->dumps[i];
			if (d->next_ev < d->nr_evs &&
			    (!best || d->evs[d->next_ev].time < best->evs[best->next_ev].time))
				best = d;
		}
		if (!best || (!all && best->evs[best->next_ev].time > limit))
			return 0;
		int rc = emit_one(s, best, &best->evs[best->next_ev++]);
		if (rc < 0)
			return rc;
	}
}

int inj_add_build_id(struct inj_run_state *s, const uint8_t *id, const char *path)
{
	int rc = pd_writer_add_build_id(s->w, -1, PERF_RECORD_MISC_USER, id, SYNTH_BUILD_ID_SIZE,
					path);
	if (rc < 0)
		inj_run_fail(s, "%s: build-id table: %s", s->o->output,
			     strerror(-rc));
	return rc;
}

int inj_emit_build_ids(struct inj_run_state *s)
{
	char path[4096 + 64];
	for (size_t k = 0; k < s->nr_dumps; k++) {
		struct inj_dump *d = s->dumps[k];
		for (uint32_t i = 0; i < d->nr_loads; i++) {
			if (!(d->loads[i].flags & (INJ_HIT_SAMPLE | INJ_HIT_CHAIN)))
				continue;
			int rc = inj_load_path(d, i, path, sizeof(path));
			if (rc < 0) {
				inj_run_fail(s, "%s: build-id table: %s",
					     s->o->output, strerror(-rc));
				return rc;
			}
			if ((rc = inj_add_build_id(s, d->loads[i].build_id, path)) < 0)
				return rc;
		}
	}
	return inj_interp_build_ids(s, s->interp);
}
