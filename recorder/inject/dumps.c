/* dumps.c - one jitdump as inject sees it: the build-id of every load (computed in parallel
 * without building ELFs), and the time-ordered list of what the dump does to the address space
 * (loads, moves, our agent's unloads) that run.c merges into the recording. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/nomem.h"
#include "lib/pool.h"
#include "safeio/safeio.h"
#include "synth/synth.h"

uint64_t inj_load_map_len(const struct jd_load_entry *e)
{
	/* perf maps the unwind tables with the code when the runtime says they are in memory. */
	if (e->unwind && e->unwind->mapped_size)
		return ((e->load.code_size + 7) & ~7ull) + e->unwind->mapped_size;
	return e->load.code_size;
}

int inj_load_path(const struct inj_dump *d, uint32_t i, char *buf, size_t len)
{
	struct synth_input in;
	char name[SYNTH_FILE_NAME_MAX];
	inj_load_input(d, i, &in);
	if (synth_file_name(&in, name, sizeof(name)) < 0)
		return -ENAMETOOLONG;
	size_t dl = strlen(d->dir), nl = strlen(name);
	if (dl + 1 + nl >= len)
		return -ENAMETOOLONG;
	memcpy(buf, d->dir, dl);	/* one MMAP2 name per load: no snprintf */
	buf[dl] = '/';
	memcpy(buf + dl + 1, name, nl + 1);
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct inj_ev *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int evs_sorted(const struct inj_ev *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_ev(&v[i - 1], &v[i]) > 0)
			return 0;
	return 1;
}

struct ci_pair { uint64_t code_index; uint32_t load; };

static int cmp_ci(const void *a, const void *b)
{
	const struct ci_pair *x = a, *y = b;
	if (x->code_index != y->code_index)
		return x->code_index < y->code_index ? -1 : 1;
	return x->load < y->load ? -1 : x->load > y->load;
}

/* The latest load with this code_index (code_index is unique per writer, but be tolerant). */
static uint32_t find_ci(const struct ci_pair *p, size_t n, uint64_t ci)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid].code_index <= ci)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && p[lo - 1].code_index == ci ? p[lo - 1].load : INJ_NONE;
}

/* The synth input of load i exactly as its build-id was computed: perf's file name made unique
 * for a repeated code_index, and the bad parts of its debug data dropped when synth refused
 * them (the load still gets a symbol-only ELF, as perf would still map it). */
void inj_load_input(const struct inj_dump *d, uint32_t i, struct synth_input *in)
{
	synth_input_from_load(in, jd_index_header(d->x), jd_index_load(d->x, i));
	in->file_seq = d->file_seqs ? d->file_seqs[i] : 0;
	if (d->loads[i].flags & INJ_NOLINES)
		synth_input_drop_bad_debug(in, NULL);
}

/* Build-id and .text offset of one load of a file, without building its ELF; with a hasher
 * (later), only what the timeline needs: whether synth takes the load, its .text offset and
 * whether rows of its line table are dropped or renamed, the hash itself queued. */
struct hash_job {
	struct inj_dfile *f;
	const uint32_t *idx;
	int later;
	uint32_t failed;	/* 1 + a load whose hash failed (the first to fail); 0 none */
};

static void bid_one(void *ctx, size_t k)
{
	struct hash_job *j = ctx;
	struct inj_dfile *f = j->f;
	uint32_t i = j->idx[k];
	struct inj_load *l = &f->loads[i];
	struct synth_input in;
	synth_input_from_load(&in, jd_index_header(f->x), jd_index_load(f->x, i));
	in.file_seq = f->file_seqs[i];
	int rc = synth_input_drop_bad_debug(&in, NULL);
	uint8_t fl = INJ_HASHED;	/* each thread touches only its own load */
	if (rc > 0)
		fl |= INJ_NOLINES;
	size_t dropped = 0, renamed = 0;
	uint64_t off = synth_text_offset(&in);
	if (rc < 0 || off > UINT32_MAX)
		fl |= INJ_BAD;
	else if (j->later)	/* the same walk of the rows as the hash's (synth.h) */
		dropped = synth_lines_count(&in, &renamed);
	else if (synth_build_id_counted(&in, l->build_id, &dropped, &renamed) < 0) {
		uint32_t none = 0;	/* libcrypto failed: the run fails, no load is dropped */
		__atomic_compare_exchange_n(&j->failed, &none, i + 1, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		fl |= INJ_BAD;
	}
	if (!(fl & INJ_BAD))
		l->text_off = (uint32_t)off;
	if (dropped || renamed)
		fl |= INJ_TRIMMED;
	l->flags = fl;
}

int inj_dfile_hash_load(struct inj_dfile *f, uint32_t i)
{
	struct synth_input in;
	size_t dropped, renamed;
	synth_input_from_load(&in, jd_index_header(f->x), jd_index_load(f->x, i));
	in.file_seq = f->file_seqs[i];
	if (f->loads[i].flags & INJ_NOLINES)	/* as bid_one judged it */
		synth_input_drop_bad_debug(&in, NULL);
	return synth_build_id_counted(&in, f->loads[i].build_id, &dropped, &renamed);
}

int inj_dfile_hash_error(const struct inj_dfile *f, uint32_t i, const char *path,
			 const struct jp_log *log)
{
	jp_logf(log, JP_LOG_ERROR, "%s%scode load at offset %llu: its build-id could not be "
		"computed (SHA-1 failed in libcrypto)", path ? path : "", path ? ": " : "",
		(unsigned long long)jd_index_load(f->x, i)->offset);
	return -EIO;
}

/* Hashes the loads of f that d maps and nobody hashed yet: each load once per file, however
 * many processes and parts map it; with a hasher, judges them here and queues their hashes.
 * A hash libcrypto failed is an error (logged: which load). */
static int hash_needed(struct inj_dump *d, const struct inj_dump_opts *o,
		       const struct jp_log *log)
{
	struct inj_dfile *f = d->df;
	uint32_t *idx = malloc((d->nr_loads + 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < d->nr_loads; i++)
		if (!(d->loads[i].flags & INJ_OLD) && !(f->loads[i].flags & INJ_HASHED))
			idx[n++] = (uint32_t)i;
	struct hash_job j = { f, idx, o->hasher != NULL, 0 };
	jp_parallel_for(n, o->threads, bid_one, &j);
	int rc = 0;
	if (j.failed) {
		rc = inj_dfile_hash_error(f, j.failed - 1, d->path, log);
	} else if (o->hasher) {	/* refused loads have no MMAP2: nothing to hash */
		size_t m = 0;
		for (size_t k = 0; k < n; k++)
			if (!(f->loads[idx[k]].flags & INJ_BAD))
				idx[m++] = idx[k];
		rc = inj_hasher_queue(o->hasher, f, idx, m);
	}
	free(idx);
	return rc;
}

void inj_dump_take_ids(struct inj_dump *d)
{
	for (size_t i = 0; d->df && d->df->id_state && i < d->nr_loads; i++)
		if (!(d->loads[i].flags & (INJ_OLD | INJ_BAD)))
			memcpy(d->loads[i].build_id, d->df->loads[i].build_id,
			       sizeof(d->loads[i].build_id));
}

/* The message of the first refused load (or refused line table), asked again serially. */
static void first_bad_message(struct inj_dump *d, unsigned flag)
{
	for (size_t i = d->first_load; i < d->nr_loads; i++) {
		if (!(d->loads[i].flags & flag))
			continue;
		struct synth_input in;
		struct synth_elf e = { 0 };
		struct jp_held why = { 0 };	/* synth's first reason, whole */
		const struct jp_log hold = { jp_log_hold, &why };
		const struct jd_load_entry *ent = jd_index_load(d->x, i);
		synth_input_from_load(&in, jd_index_header(d->x), ent);
		int ok = synth_validate(&in, &hold) == 0 && synth_build(&in, &e, &hold) == 0;
		synth_elf_free(&e);
		free(d->bad_msg);
		if (why.nomem || asprintf(&d->bad_msg, "code load at offset %llu: %s",
					  (unsigned long long)ent->offset,
					  ok ? "refused once, accepted now"
					     : why.msg ? why.msg : "refused") < 0)
			jp_nomem("the message of a refused code load");
		free(why.msg);
		return;
	}
}


/* The newest CODE_LOAD or CODE_MOVE of the whole file read so far, on perf's clock: what a
 * followed dump is known to cover. */
static uint64_t newest_record(const struct inj_dump *d, const struct inj_dump_opts *o)
{
	uint64_t t = 0;
	for (size_t i = 0; i < d->nr_loads; i++)
		if (jd_index_load(d->x, i)->timestamp > t)
			t = jd_index_load(d->x, i)->timestamp;
	for (size_t i = 0; i < d->nr_moves; i++)
		if (jd_index_move(d->x, i)->timestamp > t)
			t = jd_index_move(d->x, i)->timestamp;
	return o->arch_time && t ? inj_tsc_to_perf_time(o->tc, t) : t;
}

static int build_timeline(struct inj_dump *d, const struct inj_dump_opts *o)
{
	size_t nr_unl = 0;
	for (size_t i = 0; i < d->nr_loads; i++)
		nr_unl += jd_index_load(d->x, i)->unload_time != 0;
	size_t cap = d->nr_loads + d->nr_moves + nr_unl;
	d->evs = calloc(cap ? cap : 1, sizeof(*d->evs));
	struct inj_range *r = calloc(d->nr_loads + d->nr_moves + 1, sizeof(*r));
	if (!d->evs || !r) {
		free(r);
		return -ENOMEM;
	}
	size_t k = 0, nr = 0;
	for (size_t i = d->first_load; i < d->nr_loads; i++) {
		const struct jd_load_entry *e = jd_index_load(d->x, i);
		uint64_t len = inj_load_map_len(e);
		if (d->loads[i].flags & INJ_BAD)
			continue;
		if (e->load.code_addr + len > e->load.code_addr)
			r[nr++] = (struct inj_range){ e->load.code_addr, e->load.code_addr + len };
		d->evs[k++] = (struct inj_ev){ e->timestamp, (uint32_t)i, INJ_EV_LOAD };
		if (e->unload_time)
			d->evs[k++] = (struct inj_ev){ e->unload_time, (uint32_t)i, INJ_EV_UNLOAD };
	}
	for (size_t i = d->first_move; i < d->nr_moves; i++) {
		const struct jd_move_entry *m = jd_index_move(d->x, i);
		uint32_t l = d->move_load[i];
		if (l == INJ_NONE || (d->loads[l].flags & (INJ_BAD | INJ_OLD)))
			continue;
		uint64_t a = m->move.new_code_addr, len = m->move.code_size;
		if (a + len > a)
			r[nr++] = (struct inj_range){ a, a + len };
		d->evs[k++] = (struct inj_ev){ m->timestamp, (uint32_t)i, INJ_EV_MOVE };
	}
	d->nr_evs = k;
	if (o->arch_time)
		for (size_t i = 0; i < k; i++)
			d->evs[i].time = inj_tsc_to_perf_time(o->tc, d->evs[i].time);
	d->newest = newest_record(d, o);
	if (k > 1 && !evs_sorted(d->evs, k))	/* loads alone come in time order */
		qsort(d->evs, k, sizeof(*d->evs), cmp_ev);
	int rc = inj_bounds_init(&d->bounds, r, nr);
	free(r);
	if (rc < 0)
		return rc;
	if ((rc = inj_segmap_init(&d->emit_map, &d->bounds)) < 0 ||
	    (rc = inj_segmap_init(&d->sim_map, &d->bounds)) < 0)
		return rc;
	return 0;
}

static int link_moves(struct inj_dfile *f, size_t nr_loads, size_t nr_moves)
{
	struct ci_pair *p = calloc(nr_loads + 1, sizeof(*p));
	f->move_load = calloc(nr_moves + 1, sizeof(uint32_t));
	if (!p || !f->move_load) {
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr_loads; i++)
		f->loads[i].move_idx = INJ_NONE;
	if (!nr_moves) {	/* nothing to link: no sort of every load by code_index */
		free(p);
		return 0;
	}
	for (size_t i = 0; i < nr_loads; i++)
		p[i] = (struct ci_pair){ jd_index_load(f->x, i)->load.code_index, (uint32_t)i };
	if (nr_loads > 1)
		qsort(p, nr_loads, sizeof(*p), cmp_ci);
	for (size_t i = 0; i < nr_moves; i++) {
		uint32_t l = find_ci(p, nr_loads, jd_index_move(f->x, i)->move.code_index);
		f->move_load[i] = l;
		if (l != INJ_NONE && f->loads[l].move_idx == INJ_NONE)
			f->loads[l].move_idx = (uint32_t)i;
	}
	free(p);
	return 0;
}

int inj_dfile_new(struct inj_dfile **out, struct jd_index *x)
{
	size_t nl = jd_index_nr_loads(x), nm = jd_index_nr_moves(x);
	struct inj_dfile *f = calloc(1, sizeof(*f));
	*out = NULL;
	if (!f) {
		jd_index_close(x);
		return -ENOMEM;
	}
	f->x = x;
	f->refs = 1;
	f->loads = calloc(nl + 1, sizeof(*f->loads));
	f->file_seqs = calloc(nl + 1, sizeof(*f->file_seqs));
	if (!f->loads || !f->file_seqs || synth_index_file_seqs(x, f->file_seqs) < 0 ||
	    link_moves(f, nl, nm) < 0) {
		inj_dfile_put(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void inj_dfile_put(struct inj_dfile *f)
{
	if (!f || --f->refs)
		return;
	free(f->loads);
	free(f->id_state);
	free(f->file_seqs);
	free(f->move_load);
	if (f->x)
		jd_index_close(f->x);
	free(f);
}

int inj_dump_init(struct inj_dump *d, struct jd_index *x, const char *path,
		  const struct inj_dump_opts *o, const struct jp_log *log)
{
	char dir[4096], abs[4096];
	int rc;
	memset(d, 0, sizeof(*d));
	d->dirfd = -1;
	if (o->file) {
		d->df = o->file;
		d->df->refs++;
	} else if (inj_dfile_new(&d->df, x) < 0) {
		goto nomem;
	}
	d->x = d->df->x;
	d->file_seqs = d->df->file_seqs;
	d->move_load = d->df->move_load;
	d->nr_loads = jd_index_nr_loads(d->x);
	d->nr_moves = jd_index_nr_moves(d->x);
	d->e_machine = (uint16_t)jd_index_header(d->x)->elf_mach;
	if (d->nr_loads > UINT32_MAX - 1 || d->nr_moves > UINT32_MAX - 1) {
		jp_logf(log, JP_LOG_ERROR, "%s: too many records", path);
		return -EOVERFLOW;
	}
	if ((rc = inj_dirname(path, dir, sizeof(dir))) < 0 ||
	    (rc = inj_abspath(dir, abs, sizeof(abs))) < 0) {
		jp_logf(log, JP_LOG_ERROR, "%s: directory name too long", path);
		return rc;
	}
	d->path = strdup(path);
	d->dir = strdup(abs);
	d->loads = calloc(d->nr_loads + 1, sizeof(*d->loads));
	if (!d->path || !d->dir || !d->loads)
		goto nomem;
	/* A later part of a followed dump: what earlier parts read is theirs, except the loads
	 * this part's moves map again. */
	d->first_load = o->first_load < d->nr_loads ? o->first_load : d->nr_loads;
	d->first_move = o->first_move < d->nr_moves ? o->first_move : d->nr_moves;
	for (size_t i = 0; i < d->first_load; i++)
		d->loads[i].flags |= INJ_OLD;
	for (size_t i = d->first_move; i < d->nr_moves; i++)
		if (d->move_load[i] != INJ_NONE)
			d->loads[d->move_load[i]].flags &= (uint8_t)~INJ_OLD;
	d->closed = jd_index_stats(d->x)->per_id[JD_CODE_CLOSE] > 0;
	if ((rc = hash_needed(d, o, log)) == -ENOMEM)
		goto nomem;
	if (rc < 0)
		return rc;
	d->ids_hashed_here = 1;
	for (size_t i = 0; i < d->nr_loads; i++) {
		struct inj_load *l = &d->loads[i];
		if (l->flags & INJ_OLD) {	/* an earlier part of the dump has it */
			l->move_idx = d->df->loads[i].move_idx;
			continue;
		}
		const struct inj_load *f = &d->df->loads[i];
		l->flags = f->flags & (INJ_BAD | INJ_NOLINES | INJ_TRIMMED);
		l->text_off = f->text_off;
		l->move_idx = f->move_idx;
		/* hashed behind the stream: a worker may be writing it now (inj_dump_take_ids) */
		if (!d->df->id_state)
			memcpy(l->build_id, f->build_id, sizeof(l->build_id));
	}
	for (size_t i = d->first_load; i < d->nr_loads; i++) {
		d->nr_bad += (d->loads[i].flags & INJ_BAD) != 0;
		d->nr_nolines += (d->loads[i].flags & (INJ_BAD | INJ_NOLINES)) == INJ_NOLINES;
		if ((d->loads[i].flags & (INJ_BAD | INJ_TRIMMED)) == INJ_TRIMMED) {
			struct synth_input in;
			inj_load_input(d, (uint32_t)i, &in);
			size_t renamed, dropped = synth_lines_count(&in, &renamed);
			d->nr_trimmed += dropped != 0;
			d->nr_rows_dropped += dropped;
			d->nr_renamed += renamed != 0;
			d->nr_rows_renamed += renamed;
		}
	}
	if (d->nr_bad || d->nr_nolines)
		first_bad_message(d, d->nr_bad ? INJ_BAD : INJ_NOLINES);
	if (build_timeline(d, o) < 0)
		goto nomem;
	return 0;
nomem:	/* a resource, not the dump: no run goes on without it */
	jp_nomem("reading a jitdump");
}

int inj_dump_trust_dir(struct inj_dump *d, char *why, size_t whylen)
{
	char dir[4096];
	d->beside = 0;
	if (d->dirfd <= 0) {
		if (inj_dirname(d->path, dir, sizeof(dir)) < 0 ||
		    (d->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
			snprintf(why, whylen, "not to be opened (%s)", strerror(errno));
			return 0;
		}
	}
	d->beside = sio_dir_check(d->dirfd, geteuid(), SIO_DIR_OWNER_ONLY | SIO_DIR_STICKY_OK,
				  why, whylen) == 0;
	return d->beside;
}

void inj_dump_fini(struct inj_dump *d)
{
	inj_segmap_fini(&d->emit_map);
	inj_segmap_fini(&d->sim_map);
	inj_bounds_fini(&d->bounds);
	free(d->evs);
	free(d->loads);
	free(d->path);
	free(d->dir);
	free(d->marker);
	free(d->bad_msg);
	if (d->dirfd > 0)	/* 0: a zeroed inj_dump that never had one, not stdin */
		close(d->dirfd);
	if (d->df) {
		inj_dfile_put(d->df);	/* x, file_seqs and move_load are the file's */
	} else {
		free(d->file_seqs);
		free(d->move_load);
		if (d->x)
			jd_index_close(d->x);
	}
	memset(d, 0, sizeof(*d));
	d->dirfd = -1;
}

size_t inj_dump_clamp(struct inj_dump *d, uint64_t floor)
{
	size_t n = 0;
	for (size_t i = d->next_ev; i < d->nr_evs && d->evs[i].time < floor; i++, n++)
		d->evs[i].time = floor;	/* sorted: the prefix below floor is contiguous */
	d->clamped += n;
	return n;
}
