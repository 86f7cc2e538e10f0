/* run.c - the streaming driver of `jitprof inject --jit`: after the markers' dumps are found
 * (prescan of a file; as markers arrive in a pipe, then followed as they grow) their loads are
 * pending synthetic MMAP2s;
 * the recording streams through record by record, and at every FINISHED_ROUND the pending
 * records not newer than the newest time read so far are written before the round mark, so
 * perf's ordered reader sees them in time order while memory stays bounded by the dumps'
 * indexes, never by the recording. */
#include "lib/opts.h"
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_hit(void *ctx, struct inj_dump *d, uint32_t load, unsigned how)
{
	struct inj_run_state *s = ctx;
	struct inj_load *l = &d->loads[load];
	if (!(l->flags & (INJ_HIT_SAMPLE | INJ_HIT_CHAIN)))
		s->st->loads_hit++;
	l->flags |= how;
	if (!(l->flags & INJ_QUEUED) && s->pool) {	/* --all queued every load already */
		l->flags |= INJ_QUEUED;
		if (inj_pool_push(s->pool, d, load) < 0)
			l->flags &= ~INJ_QUEUED;
	}
}

static int start_writer(struct inj_run_state *s)
{
	/* Every attr is known here, a pipe's too: the first record that is not one has come. */
	int rc = inj_stacks_new(&s->stacks, s->r, s->o->keep_stacks);
	if (rc == 0 && s->stacks && (rc = inj_interp_new(&s->interp, s->pool, &s->o->log)) == 0)
		inj_stacks_set_interp(s->stacks, s->interp);
	if (rc == 0)
		rc = pd_writer_copy_attrs(s->w, s->r);
	if (rc == 0 && s->stacks)
		rc = inj_stacks_attrs(s->stacks, s->w);
	/* File-mode features become HEADER_FEATURE records at the start of a pipe; pipe-mode
	 * ones pass through as records, and a file output takes them all at close. */
	if (rc == 0 && s->o->out_pipe && !pd_reader_is_pipe(s->r))
		rc = pd_writer_copy_features(s->w, s->r);
	s->w_started = 1;
	return rc;
}

static int handle(struct inj_run_state *s, const struct pd_event *ev)
{
	int rc;
	uint64_t t = pd_event_time(ev);
	if (t > s->max_seen)
		s->max_seen = t;
	/* A runtime's anonymous code map is left out of the stacks' maps as of the output: it
	 * would cover the generations' MMAP2s made before it (a code cache growing after its
	 * first loads), and their CFI with it. */
	int is_map = ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2;
	if (s->stacks && ev->type != PERF_RECORD_SAMPLE && !is_map &&
	    (rc = inj_stacks_event(s->stacks, ev)) < 0)
		goto nomem;
	switch (ev->type) {
	case PD_RECORD_HEADER_ATTR:
		if (!s->w_started)
			return 0;	/* copied with all the others when the first record comes */
		if (!s->o->out_pipe) {
			inj_run_fail(s, "%s: event attr at offset %llu after data "
				     "cannot go to a file-mode output", s->o->input,
				     (unsigned long long)ev->offset);
			return -EINVAL;
		}
		break;
	case PD_RECORD_HEADER_FEATURE:
		if (!s->o->out_pipe)
			return 0;	/* taken from the reader at close */
		break;
	case PD_RECORD_TIME_CONV:
		inj_time_conv_parse(&s->tc, ev->raw, ev->size);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		rc = inj_marker_take(s, s->r, ev, !s->prescanned);
		if (rc < 0)
			return rc;
		int marker = rc > 0;
		if (!marker && inj_marker_drop_anon(s, ev)) {
			s->st->anon_dropped++;
			return 0;
		}
		if (s->stacks && inj_stacks_event(s->stacks, ev) < 0)
			goto nomem;
		if (marker) {
			s->st->markers_consumed++;
			return 0;
		}
		break;
	case PERF_RECORD_SAMPLE: {
		const struct pd_sample *sm = &ev->u.sample;
		const uint64_t *chain = sm->callchain;
		uint64_t nr_chain = chain ? sm->nr_callchain : 0;
		const void *rec = NULL;
		size_t size = 0;
		s->st->samples++;
		int user = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
		/* The generations loaded by the sample's time are mapped before its stack is
		 * walked, not at the round's end: a return address into code loaded earlier in
		 * the same round would otherwise end the walk (javac: 1 Java walk in 30).
		 * Their MMAP2s go out here, inside the round, at times perf has not flushed yet. */
		if (s->stacks && s->prescanned && (rc = inj_emit_pending(s, t, 0)) < 0)
			return rc;
		if (s->stacks && (rc = inj_stacks_sample(s->stacks, ev, &rec, &size, &chain,
							 &nr_chain)) < 0)
			goto nomem;
		/* The ELF of interpreted methods a chain names now is mapped before it. */
		if ((rc = inj_interp_emit(s, s->interp)) < 0)
			return rc;
		if (s->nr_dumps || !s->prescanned) {
			/* Without a prescan (pipe input) a marker may still come later in the
			 * file than samples it explains: the replay holds those too. */
			rc = inj_sim_sample(s->sim, sm->pid, sm->tid, sm->time, sm->ip, chain,
					    nr_chain, user);
			if (rc < 0)
				return rc;
		}
		if (rec && rec != ev->raw) {	/* its call chain unwound (stacks.c) */
			inj_sim_seen(s->sim, t);
			if ((rc = pd_writer_write(s->w, rec, size)) < 0)
				goto werr;
			s->st->records_out++;
			return 0;
		}
		break;
	}
	default:
		break;
	}
	inj_sim_seen(s->sim, t);
	if ((rc = pd_writer_write_event(s->w, ev)) < 0)
		goto werr;
	s->st->records_out++;
	return 0;
werr:
	inj_run_fail(s, "%s: writing: %s", s->o->output, strerror(-rc));
	return rc;
nomem:	/* inj_stacks_* fail for want of memory only */
	inj_run_fail(s, "%s: unwinding the user stacks: out of memory", s->o->input);
	return rc;
}

/* A FINISHED_ROUND where the recording has it: the pending synthetic records up to the newest
 * time read so far go out before the round mark. */
static int round_end(struct inj_run_state *s)
{
	int rc;
	/* A pipe may be live: each dump must be read up to this round before its loads are
	 * merged and the round's samples released. */
	if (!s->prescanned && (rc = inj_follow(s, s->r, s->max_seen)) < 0)
		return rc;
	if ((rc = inj_emit_pending(s, s->max_seen, 0)) < 0)
		return rc;
	if ((rc = pd_writer_finished_round(s->w)) < 0) {
		inj_run_fail(s, "%s: writing: %s", s->o->output, strerror(-rc));
		return rc;
	}
	s->st->records_out++;
	inj_sim_round(s->sim);
	return 0;
}

/* The stream goes through perfdata's one replay driver (pd_replay), in its file-order mode:
 * inject copies the recording, so every record is written where the file has it (time
 * ordering is perf's job when it reads our output), and the merge of the synthetic MMAP2s
 * hangs on the recording's own FINISHED_ROUND marks, in place. A time-ordered replay would
 * reorder the copy and move the round marks (docs/ARCHITECTURE.md, "One replay driver"). */
struct stream_ctx {
	struct inj_run_state *s;
	uint64_t base, total;	/* the data section, for progress */
	uint64_t last_off;	/* of the last record (a round mark has no event) */
};

/* Counts a record in and starts the output at the first record that is not an attr. */
static int record_in(struct stream_ctx *c, uint32_t type)
{
	struct inj_run_state *s = c->s;
	int rc;
	s->st->records_in++;
	if (!s->w_started && type != PD_RECORD_HEADER_ATTR && (rc = start_writer(s)) < 0) {
		inj_run_fail(s, "%s: %s", s->o->output, strerror(-rc));
		return rc;
	}
	return 0;
}

static void progress(struct stream_ctx *c)
{
	struct inj_run_state *s = c->s;
	if (s->o->progress_bytes && (s->st->records_in & 0xffff) == 0)
		s->o->progress_bytes(s->o->ctx, c->last_off - c->base, c->total);
}

static int on_record(void *ctx, const struct pd_event *ev)
{
	struct stream_ctx *c = ctx;
	int rc = record_in(c, ev->type);
	if (rc == 0)
		rc = handle(c->s, ev);
	c->last_off = ev->offset;
	if (rc == 0)
		progress(c);
	return rc;
}

static int on_round(void *ctx)
{
	struct stream_ctx *c = ctx;
	int rc = record_in(c, PD_RECORD_FINISHED_ROUND);
	if (rc == 0)
		rc = round_end(c->s);
	if (rc == 0)
		progress(c);
	return rc;
}

static int stream(struct inj_run_state *s)
{
	struct stream_ctx c = { .s = s, .total = pd_reader_data_size(s->r),
				.base = pd_reader_data_offset(s->r) };
	c.last_off = c.base;
	const struct pd_tool tool = {
		.sz = sizeof(tool), .sample = on_record, .mmap = on_record, .comm = on_record,
		.fork = on_record, .exit = on_record, .lost = on_record, .build_id = on_record,
		.other = on_record, .finished_round = on_round, .ctx = &c,
		.flags = PD_TOOL_FILE_ORDER,
	};
	int damage, rc = pd_replay(s->r, &tool, &damage);
	if (rc < 0)
		return rc;
	if (damage < 0) {
		/* Everything before the damage has been merged; say where it stopped. */
		inj_warnf(s, "%s; the %llu records before it are injected, the rest is dropped",
			  pd_reader_error(s->r), (unsigned long long)s->st->records_in);
	}
	if (!s->w_started && (rc = start_writer(s)) < 0) {
		inj_run_fail(s, "%s: %s", s->o->output, strerror(-rc));
		return rc;
	}
	return 0;
}

static int finish(struct inj_run_state *s)
{
	int rc = s->prescanned ? 0 : inj_follow(s, s->r, s->max_seen);
	if (rc == 0)
		rc = inj_emit_pending(s, 0, 1);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < s->nr_dumps; i++)
		inj_dump_warn_salvaged(s, s->dumps[i]);
	inj_sim_flush(s->sim);
	s->st->unresolved = inj_sim_unresolved(s->sim);
	for (uint64_t done, queued; s->o->progress_elfs && s->pool;) {
		inj_pool_progress(s->pool, &done, &queued);
		s->o->progress_elfs(s->o->ctx, done, queued);
		if (done == queued)
			break;
		usleep(100000);
	}
	if (s->pool)
		inj_pool_finish(s->pool, &s->st->pool, &s->o->log, JP_LOG_WARN);
	s->pool = NULL;
	if (s->hasher) {	/* every load's id, before the dumps' sizes are checked */
		if ((rc = inj_hasher_finish(s->hasher, inj_run_errlog(s))) < 0)
			return rc;
		for (size_t i = 0; i < s->nr_dumps; i++)
			inj_dump_take_ids(s->dumps[i]);
	}
	if ((rc = inj_dumps_shrunk(s)) < 0)
		return rc;
	if (!s->o->out_pipe) {
		if ((rc = pd_writer_copy_features(s->w, s->r)) < 0 ||
		    (rc = inj_emit_build_ids(s)) < 0 ||
		    (s->o->no_elfs && (rc = inj_emit_origins(s)) < 0)) {
			if (!s->err)
				inj_run_fail(s, "%s: features: %s", s->o->output,
					     strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* The run's message (inj_run_fail), or rc's errno, through the log, last. */
static int say_failure(struct inj_run_state *s, int rc)
{
	const struct jp_log *log = &s->o->log;
	if (s->err && log->fn)
		log->fn(log->ctx, JP_LOG_ERROR, s->err);	/* formatted by jp_logf already */
	else if (!s->err)
		jp_logf(log, JP_LOG_ERROR, "%s", strerror(-rc));
	free(s->err);
	s->err = NULL;
	return rc;
}

/* The run's pieces (emit.c, markers.c, noelfs.c ...) leave the fatal message in s->err; it
 * goes out through the log once, last, after every warning. */
int inj_run(const struct inj_opts *opts, struct inj_stats *st)
{
	struct inj_opts oc;
	if (JP_OPTS_TAKE(&oc, opts)) {
		/* The log sits inside the part of the struct we know: say why before refusing. */
		jp_opts_copy(&oc, sizeof(oc), opts);
		jp_logf(&oc.log, JP_LOG_ERROR, "inject: unknown options");
		return -EINVAL;
	}
	const struct inj_opts *o = &oc;
	struct inj_run_state s = { .o = o, .st = st };
	int rc;
	memset(st, 0, sizeof(*st));
	if ((rc = inj_reader_open(&s, &s.r)) < 0)
		return say_failure(&s, rc);
	pd_reader_log_header(s.r, o->input, &o->log);
	rc = pd_writer_open_fd(&s.w, o->out_fd, o->output, o->out_pipe ? PD_WRITER_PIPE : 0);
	if (rc == 0 && !(s.sim = inj_sim_new(on_hit, &s)))
		rc = -ENOMEM;
	if (rc == 0 && o->no_elfs && o->out_pipe) {
		inj_run_fail(&s, "--no-elfs needs a file output: the origins section is written "
			     "at its end");
		rc = -EINVAL;
		goto out;
	}
	if (rc == 0 && !o->no_elfs) {
		rc = inj_pool_new(&s.pool, o->threads, o->cache_root);
		if (rc == 0)
			inj_pool_set_fallback_cache(s.pool, o->fallback_cache_root);
	}
	if (rc < 0) {
		inj_run_fail(&s, "%s: %s", o->output, strerror(-rc));
		goto out;
	}
	/* --no-elfs on a file: the SHA-1s run behind the stream. --threads 1 hashes them all
	 * before it, on the one thread. */
	if (rc == 0 && o->no_elfs && !pd_reader_is_pipe(s.r) && o->threads != 1 &&
	    (rc = inj_hasher_new(&s.hasher, o->threads)) < 0)
		inj_run_fail(&s, "out of memory");
	if (rc == 0 && !pd_reader_is_pipe(s.r))
		rc = inj_prescan(&s);
	inj_sim_set_lazy(s.sim, !s.prescanned);
	if (rc == 0)
		rc = stream(&s);
	if (rc == 0)
		rc = finish(&s);
out:
	inj_hasher_free(s.hasher);	/* its threads read the dumps: stopped first */
	if (s.pool)
		inj_pool_finish(s.pool, &st->pool, NULL, JP_LOG_WARN);	/* failed: its error
										 * alone */
	if (s.w) {
		int wrc = pd_writer_close(s.w);
		if (rc == 0 && wrc < 0) {
			rc = wrc;
			inj_run_fail(&s, "%s: %s", o->output, strerror(-wrc));
		}
	}
	inj_sim_free(s.sim);
	if (s.stacks)
		st->stacks = *inj_stacks_stats(s.stacks);
	inj_stacks_free(s.stacks);
	inj_interp_free(s.interp);
	for (size_t i = 0; i < s.nr_dumps; i++) {
		inj_dump_fini(s.dumps[i]);
		free(s.dumps[i]);
	}
	free(s.dumps);
	pd_reader_close(s.r);
	if (rc < 0)
		return say_failure(&s, rc);
	free(s.err);	/* an error a piece logged but went past */
	return rc;
}
