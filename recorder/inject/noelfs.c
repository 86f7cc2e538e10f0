/* noelfs.c - `inject --no-elfs`: instead of writing an ELF per sampled generation, records
 * where each would come from (the INJ_FEAT_ORIGINS section, origins.c) so readers build it in
 * memory when they need it; and `inject --elfs-for`, which writes those files later through
 * the same ELF writer pool the file-writing path uses. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nomem.h"
#include "synth/synth.h"

/* Which loads get an origin: exactly those the file-writing path would write. */
static int wanted(const struct inj_run_state *s, const struct inj_load *l)
{
	if (l->flags & INJ_BAD)
		return 0;
	return s->o->all || (l->flags & (INJ_HIT_SAMPLE | INJ_HIT_CHAIN));
}

/* An input injected before with --no-elfs keeps its origins (its markers are gone, so this
 * run cannot recreate them): they go first, this run's after them. */
static int take_previous(struct inj_run_state *s, struct inj_origins *o, size_t more_dumps,
			 size_t more, const struct jp_log *log)
{
	struct inj_origins prev;
	int rc = inj_origins_read(s->r, s->o->input, &prev, log);
	if (rc == -ENOENT)
		memset(&prev, 0, sizeof(prev));
	else if (rc < 0)
		return rc;
	o->dumps = calloc(prev.nr_dumps + more_dumps + 1, sizeof(*o->dumps));
	o->v = calloc(prev.n + more + 1, sizeof(*o->v));
	if (!o->dumps || !o->v) {
		inj_origins_free(&prev);
		return -ENOMEM;
	}
	if (prev.nr_dumps)	/* an empty prev has NULL arrays: no memcpy from NULL */
		memcpy(o->dumps, prev.dumps, prev.nr_dumps * sizeof(*o->dumps));
	if (prev.n)
		memcpy(o->v, prev.v, prev.n * sizeof(*o->v));
	o->nr_dumps = prev.nr_dumps;
	o->n = prev.n;
	free(prev.dumps);	/* the paths now belong to o */
	free(prev.v);
	return 0;
}

int inj_emit_origins(struct inj_run_state *s)
{
	struct inj_origins o = { 0 };
	char comp[4096 + 16];
	size_t n = 0;
	int rc;
	/* the run's first error: inj_run says it at the end */
	const struct jp_log *log = inj_run_errlog(s);
	for (size_t k = 0; k < s->nr_dumps; k++)
		for (uint32_t i = 0; i < s->dumps[k]->nr_loads; i++)
			n += wanted(s, &s->dumps[k]->loads[i]);
	if ((rc = take_previous(s, &o, s->nr_dumps, n, log)) < 0)
		goto out;
	size_t base = o.nr_dumps;
	for (size_t k = 0; k < s->nr_dumps; k++) {
		const struct inj_dump *d = s->dumps[k];
		char abs[4096];
		struct inj_origin_dump *od = &o.dumps[o.nr_dumps++];
		if ((rc = inj_abspath(d->path, abs, sizeof(abs))) < 0 ||
		    (rc = jd_ext_path(abs, comp, sizeof(comp))) < 0) {
			inj_run_fail(s, "%s: path too long", d->path);
			goto out;
		}
		if (!(od->path = strdup(abs))) {
			rc = -ENOMEM;
			goto out;
		}
		if ((rc = inj_file_id_get(abs, &od->dump, log)) < 0 ||
		    (rc = inj_file_id_get(comp, &od->comp, log)) < 0)
			goto out;
		for (uint32_t i = 0; i < d->nr_loads; i++) {
			const struct inj_load *l = &d->loads[i];
			if (!wanted(s, l))
				continue;
			const struct jd_load_entry *e = jd_index_load(d->x, i);
			struct inj_origin *v = &o.v[o.n++];
			memcpy(v->build_id, l->build_id, sizeof(v->build_id));
			v->dump = (uint32_t)(base + k);
			v->file_seq = d->file_seqs ? d->file_seqs[i] : 0;
			v->flags = (l->flags & INJ_NOLINES) ? INJ_ORIGIN_NOLINES : 0;
			v->offset = e->offset;
			v->code_index = e->load.code_index;
			v->generation = e->generation;
			v->debug_offset = e->debug_offset;
			v->unwind_offset = e->unwind_offset;
			v->info_offset = e->info_offset;
			v->inl_offset = e->inl_offset;
		}
	}
	void *buf;
	size_t size;
	if ((rc = inj_origins_encode(&o, &buf, &size)) < 0)
		goto out;
	rc = pd_writer_set_feature(s->w, INJ_FEAT_ORIGINS, buf, size);
	free(buf);
	s->st->origins = n;
out:
	if (rc < 0 && !s->err)
		inj_run_fail(s, "%s: origins section: %s", s->o->output, strerror(-rc));
	inj_origins_free(&o);
	return rc;
}

/* An inj_dump with just what the ELF writer pool reads: the index, where its ELFs go, and
 * per load the build-id and .text offset the MMAP2 carried, the flags, the file_seq. */
static int pool_dump(struct inj_dump *d, struct jd_index *x, const char *path)
{
	char dir[4096], why[160];
	memset(d, 0, sizeof(*d));
	d->dirfd = -1;
	d->x = x;
	d->nr_loads = jd_index_nr_loads(x);
	if (inj_dirname(path, dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	d->path = strdup(path);
	d->dir = strdup(dir);
	d->loads = calloc(d->nr_loads + 1, sizeof(*d->loads));
	d->file_seqs = calloc(d->nr_loads + 1, sizeof(*d->file_seqs));
	if (!d->path || !d->dir || !d->loads || !d->file_seqs)
		return -ENOMEM;
	inj_dump_trust_dir(d, why, sizeof(why));	/* issue 16: beside only in our own dir */
	return 0;
}

static int elfs_for(const char *injected, const char *cache_root, int threads, int force,
		    struct inj_pool_stats *st, int *moved, const struct jp_log *log)
{
	struct pd_reader *r = NULL;
	struct inj_origins o;
	struct inj_pool *pool = NULL;
	struct inj_dump *dumps = NULL;
	struct pd_reader_opts ro = { .sz = sizeof(ro), .log = *log };
	memset(st, 0, sizeof(*st));
	int rc = pd_reader_open(&r, injected, &ro);	/* its message names file and offset */
	if (rc < 0)
		return rc;
	rc = inj_origins_read(r, injected, &o, log);
	pd_reader_close(r);
	if (rc == -ENOENT)
		jp_logf(log, JP_LOG_ERROR, "%s has no origins section: it was not written by "
			"jitprof inject --no-elfs", injected);
	if (rc < 0)
		return rc;
	if (!(dumps = calloc(o.nr_dumps + 1, sizeof(*dumps))))
		jp_nomem("writing the ELFs of an origins section");
	if ((rc = jp_nomem_check(inj_pool_new(&pool, threads, cache_root),
				 "starting the ELF writers")) < 0) {
		jp_logf(log, JP_LOG_ERROR, "%s", strerror(-rc));
		goto out;
	}
	/* A dump moved with the recording (a profile directory moved) is read, and its ELFs are
	 * written, where it is now. */
	char *input_dir = inj_input_dir(injected);
	for (size_t k = 0; k < o.nr_dumps; k++) {
		struct jd_index *x;
		char *path = inj_origin_dump_path(&o, k, input_dir);
		if (!path)
			jp_nomem("writing the ELFs of an origins section");
		rc = inj_origins_open_dump(&o, k, path, force ? INJ_ID_FORCE : 0, &x, log);
		*moved += strcmp(path, o.dumps[k].path) != 0;
		if (rc == 0 && (rc = jp_nomem_check(pool_dump(&dumps[k], x, path),
						    "writing the ELFs of an origins section")) < 0)
			jp_logf(log, JP_LOG_ERROR, "%s: %s", path, strerror(-rc));
		free(path);
		if (rc < 0) {
			free(input_dir);
			goto out;
		}
	}
	free(input_dir);
	for (size_t i = 0; i < o.n; i++) {
		const struct inj_origin *e = &o.v[i];
		struct inj_dump *d = &dumps[e->dump];
		uint32_t l = inj_load_at_offset(d->x, e->offset);
		if (l == INJ_NONE || jd_index_load(d->x, l)->load.code_index != e->code_index) {
			jp_logf(log, JP_LOG_ERROR,
				"%s: no code load %llu at offset %llu, as %s says",
				d->path, (unsigned long long)e->code_index,
				(unsigned long long)e->offset, injected);
			rc = -ESTALE;
			goto out;
		}
		struct synth_input in;
		memcpy(d->loads[l].build_id, e->build_id, sizeof(e->build_id));
		d->loads[l].flags = (e->flags & INJ_ORIGIN_NOLINES) ? INJ_NOLINES : 0;
		d->file_seqs[l] = e->file_seq;
		inj_load_input(d, l, &in);
		d->loads[l].text_off = (uint32_t)synth_text_offset(&in);
		/* The pool checks the built ELF's build-id against this one. */
		if ((rc = inj_pool_push(pool, d, l)) < 0) {
			jp_logf(log, JP_LOG_ERROR, "%s", strerror(-rc));
			goto out;
		}
	}
out:
	if (pool) {	/* failed ELFs fail the command: writing them is all it does */
		inj_pool_finish(pool, st, rc < 0 ? NULL : log, JP_LOG_ERROR);
		if (rc == 0 && st->failed)
			rc = -EIO;
	}
	for (size_t k = 0; dumps && k < o.nr_dumps; k++)
		inj_dump_fini(&dumps[k]);
	free(dumps);
	inj_origins_free(&o);
	return rc;
}

/* A log passed on that notes whether an error was said: a failure nobody worded (a reader's
 * bare -errno) gets its strerror once, no failure two messages. */
struct said {
	const struct jp_log *to;
	int error;
};

static void said_fn(void *ctx, enum jp_level level, const char *msg)
{
	struct said *sd = ctx;
	sd->error |= level == JP_LOG_ERROR;
	if (sd->to && sd->to->fn)
		sd->to->fn(sd->to->ctx, level, msg);
}

int inj_elfs_for(const char *injected, const char *cache_root, int threads, int force,
		 struct inj_pool_stats *st, const struct jp_log *log)
{
	struct said sd = { log, 0 };
	int moved = 0;
	int rc = elfs_for(injected, cache_root, threads, force, st, &moved,
			  &(struct jp_log){ said_fn, &sd });
	if (rc < 0 && !sd.error)
		jp_logf(log, JP_LOG_ERROR, "%s", strerror(-rc));
	else if (rc >= 0 && moved && !cache_root)	/* its MMAP2s name the old directory */
		jp_logf(log, JP_LOG_WARN, "%s was moved since inject: its mappings name the old "
			"directory, so perf report finds the ELFs written beside it only in the "
			"build-id cache: add --cache", injected);
	return rc;
}
