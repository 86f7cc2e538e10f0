/* index_ext.c - a dump's companion read on a thread of its own while index.c reads the dump:
 * its records decoded, and what the index keeps of them copied into an arena of their own, in
 * file order; index.c then joins them to the dump's loads exactly as if it had read them after
 * the dump (the join needs every load first). A Java compile's companion (inline stacks, 12 MB
 * for javac) took a third of the index's time, after the dump's; beside it, on the second
 * core, the wall clock pays only for the join. Where no thread can be started the same
 * function runs in place. */
#include "jitdump/jd_int.h"
#include "jitdump/index_int.h"

#include <stdio.h>
#include <stdlib.h>

static const struct jd_ext_inline *copy_inline(struct jd_arena *a, const struct jd_ext_inline *in)
{
	struct jd_ext_inline *c = jd_arena_dup(a, in, sizeof(*in));
	struct jd_inline_method *m = jd_arena_dup(a, in->methods, in->nr_methods * sizeof(*m));
	struct jd_inline_pc *pcs = jd_arena_dup(a, in->pcs, in->nr_pcs * sizeof(*pcs));
	if (!c || !m || !pcs)
		return NULL;
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		pcs[i].frames = jd_arena_dup(a, in->pcs[i].frames,
					     in->pcs[i].depth * sizeof(*pcs[i].frames));
		if (!pcs[i].frames)
			return NULL;
	}
	c->methods = m;
	c->pcs = pcs;
	return c;
}

/* The record as the join needs it; 0 skipped (an id the index does not keep), 1 kept, or
 * -ENOMEM. */
static int keep(struct jd_ext_read *e, const struct jd_record *r, struct jd_ext_rec *out)
{
	*out = (struct jd_ext_rec){ .id = r->id, .offset = r->offset, .timestamp = r->timestamp };
	switch (r->id) {
	case JD_EXT_LOAD_INFO:
		out->u.info = jd_arena_dup(&e->arena, &r->u.load_info, sizeof(r->u.load_info));
		return out->u.info ? 1 : -ENOMEM;
	case JD_EXT_INLINE:
		out->u.inl = copy_inline(&e->arena, &r->u.inl);
		return out->u.inl ? 1 : -ENOMEM;
	case JD_EXT_UNLOAD:
		out->u.unload = r->u.unload;
		return 1;
	case JD_EXT_AGENT_STATS:
		out->u.stats = jd_arena_dup(&e->arena, &r->u.stats, sizeof(r->u.stats));
		return out->u.stats ? 1 : -ENOMEM;
	case JD_EXT_METHOD:
		out->u.method = jd_method_copy(&e->arena, &r->u.method);
		return out->u.method ? 1 : -ENOMEM;
	case JD_EXT_VM:
		out->u.vm = jd_arena_dup(&e->arena, &r->u.vm, sizeof(r->u.vm));
		return out->u.vm ? 1 : -ENOMEM;
	}
	return 0;
}

static void *read_ext(void *arg)
{
	struct jd_ext_read *e = arg;
	int orc = jd_reader_open_flags(&e->r, e->dirfd, e->name, e->display, e->reader_flags,
				       e->why, sizeof(e->why));
	if (orc) {
		e->rc = orc == -ENOMEM ? orc : 0;	/* no memory is no missing companion */
		return NULL;
	}
	if (e->no_inline)
		jd_reader_skip_id(e->r, JD_EXT_INLINE);
	struct jd_record rec;
	int rc;
	while ((rc = jd_reader_next(e->r, &rec)) > 0) {
		if (e->n == e->cap) {
			size_t cap = e->cap ? 2 * e->cap : 256;
			void *v = realloc(e->v, cap * sizeof(*e->v));
			if (!v) {
				e->rc = -ENOMEM;
				return NULL;
			}
			e->v = v;
			e->cap = cap;
		}
		int k = keep(e, &rec, &e->v[e->n]);
		if (k < 0) {
			e->rc = k;
			return NULL;
		}
		e->n += (size_t)k;
	}
	if (rc == -ENOMEM)
		e->rc = rc;	/* not damage: the file is fine */
	e->damaged = rc < 0;
	return NULL;
}

void jd_ext_read_start(struct jd_ext_read *e)
{
	e->threaded = pthread_create(&e->thread, NULL, read_ext, e) == 0;
	if (!e->threaded)
		read_ext(e);
}

void jd_ext_read_wait(struct jd_ext_read *e)
{
	if (e->threaded)
		pthread_join(e->thread, NULL);
	e->threaded = 0;
}
