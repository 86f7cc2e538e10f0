/* ingest.c - fills a report session from a perf.data file: events in time order (perf's
 * FINISHED_ROUND discipline) feed the symbol session's maps, every sample's ip and callchain
 * are resolved, and each MMAP2 of a jitted-PID-N.so becomes a load (a generation). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/nomem.h"
#include "lib/opts.h"
#include "safeio/safeio.h"
#include "recorder/origins/origins.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"

#define MAX_FRAMES 512

/* A symbol session kept for the process's life (fast_exit), reachable from here so leak
 * checkers do not count it. */
static struct sym_session *volatile kept_ss;

/* The recorded build-id of every DSO a frame names, under that name (the exports' mappings:
 * pprof looks them up by frame). DSOs in the same order as before, so where two share a name
 * the same one wins; a DSO whose display name no frame carries is skipped without interning
 * its name (tens of thousands of unsampled jitted ELFs in a Java start-up). */
static int dso_build_ids(struct ingest *in)
{
	char hex[SYM_BUILD_ID_HEX];
	struct rp_name_set used = { 0 };
	int rc = rp_name_set_of_memo(&used, &in->m_dso);
	for (struct sym_dso *d = sym_dso_next(in->ss, NULL); !rc && d; d = sym_dso_next(in->ss, d)) {
		const struct sym_build_id *id = sym_dso_build_id(d);
		if (!id || !id->size)
			continue;
		const char *sn = sym_dso_short_name(d), *name;
		size_t slot;
		/* Known by pointer (a frame's DSO), else by string when the display name is the
		 * short name itself (no control characters to escape, not a perf-PID.map). */
		if (!rp_memo_get(&in->m_dso, sn, &name, &slot)) {
			const char *b = strrchr(sn, '/');
			b = b ? b + 1 : sn;
			if (strncmp(b, "perf-", 5) && !sio_has_controls(sn)) {
				if (!rp_name_set_find(&used, sn))
					continue;	/* no frame shows it */
			}
			name = rp_ingest_dso_display(in, sn);
		}
		rc = rp_set_dso_build_id(in->s, name, sym_build_id_hex(id, hex));
	}
	rp_name_set_free(&used);
	return rc;
}

/* The sample's command, interned. The symbol session's names stay put, so the last one's
 * copy is kept by pointer: most samples follow one of the same thread. */
static const char *comm_of(struct ingest *in, const struct pd_sample *ps)
{
	const char *raw = sym_comm_of(in->ss, ps->pid, ps->tid, ps->time);
	if (raw && raw == in->last_comm_raw)
		return in->last_comm;
	const char *c = rp_intern(in->s, raw);
	if (raw && c) {
		in->last_comm_raw = raw;
		in->last_comm = c;
	}
	return c;
}

/* Samples per event, for the line that names the events a report left out. */
static int count_evsel(struct ingest *in, const struct pd_evsel *e)
{
	size_t i = e && e->idx > 0 ? (size_t)e->idx : 0, had = in->n_evsel_samples;

	if (i >= had) {	/* every slot up to the capacity is a count (zeroed) */
		if (JP_GROW_FOR(in->evsel_samples, in->n_evsel_samples, i))
			return -ENOMEM;
		memset(in->evsel_samples + had, 0,
		       (in->n_evsel_samples - had) * sizeof(*in->evsel_samples));
	}
	in->evsel_samples[i]++;
	return 0;
}

static int on_sample(struct ingest *in, const struct pd_event *ev)
{
	const struct pd_sample *ps = &ev->u.sample;
	int rc;
	if (in->jv.kind)	/* --event alloc|lock: the JVM's samples, not perf's */
		return count_evsel(in, ev->evsel);
	if ((rc = count_evsel(in, ev->evsel)) < 0 ||
	    (in->offcpu.cs && (rc = rp_offcpu_ran(in, ps->tid, ps->time)) < 0))
		return rc;
	if (ev->evsel && in->evsel && ev->evsel != in->evsel && ev->evsel != in->offcpu.cs) {
		in->other_evsels = 1;
		return 0;
	}
	if (!in->evsel)
		in->evsel = ev->evsel;
	struct rp_frame frames[MAX_FRAMES];
	uint32_t nr = 0;
	int cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	nr += rp_ingest_resolve(in, ps->pid, ps->ip, ps->time, cpumode, frames, MAX_FRAMES);
	uint32_t leaf_frames = nr;
	/* The chain's user part (inject wrote it from the stack copy) is taken unless the copy
	 * is still there (inject --keep-stacks): then report unwinds it again itself, since
	 * only report names HotSpot's interpreted frames (the agent's method table). */
	int own_unwind = ps->regs && ps->stack_size;
	int user_chain = 0;
	if (in->o->want_callchain && ps->callchain) {
		int ctx_mode = cpumode;
		int skipped_self = 0;
		uint64_t i = 0;
		for (; i < ps->nr_callchain && nr < MAX_FRAMES; i++) {
			uint64_t a = ps->callchain[i];
			if (a >= PERF_CONTEXT_MAX) {
				if (a == PERF_CONTEXT_KERNEL)
					ctx_mode = PERF_RECORD_MISC_KERNEL;
				else if (a == PERF_CONTEXT_USER) {
					if (own_unwind)
						break;
					ctx_mode = PERF_RECORD_MISC_USER, user_chain = 1;
				}
				continue;
			}
			/* The kernel repeats the sampled ip as the first entry. */
			if (!skipped_self && a == ps->ip) {
				skipped_self = 1;
				continue;
			}
			skipped_self = 1;
			nr += rp_ingest_resolve(in, ps->pid, a, ps->time, ctx_mode, frames + nr,
				      MAX_FRAMES - nr);
		}
		in->chains_cut += i < ps->nr_callchain && !own_unwind;
	}
	if (ps->regs && !user_chain) {
		/* --call-graph dwarf: the kernel's chain stops where the user stack starts.
		 * Without call chains wanted, the leaf's step alone: an interpreter leaf's name. */
		int full = in->o->want_callchain;
		struct unw_frame uf[UNW_MAX_FRAMES];
		int early, n = rp_ingest_unwind(in, ps, uf, full ? UNW_MAX_FRAMES : 2, &early);
		if (n < 0)
			return n;
		/* The sampled ip's frame is frames[0] already; an interpreter leaf is named on it. */
		int user_leaf = cpumode == PERF_RECORD_MISC_USER;
		if (user_leaf && n && uf[0].method && leaf_frames &&
		    (rc = rp_interp_name(in, &uf[0], ps->time, &frames[leaf_frames - 1])) < 0)
			return rc;
		for (int i = user_leaf; full && i < n && nr < MAX_FRAMES; i++) {
			uint32_t k = rp_ingest_resolve(in, ps->pid, uf[i].pc - (i > 0), ps->time,
					     PERF_RECORD_MISC_USER, frames + nr, MAX_FRAMES - nr);
			if (k && uf[i].method &&
			    (rc = rp_interp_name(in, &uf[i], ps->time, &frames[nr + k - 1])) < 0)
				return rc;
			nr += k;
		}
		if (full && early && nr < MAX_FRAMES)	/* no map at 0: an [unknown] frame */
			nr += rp_ingest_resolve(in, ps->pid, 0, ps->time, PERF_RECORD_MISC_USER,
				      frames + nr, MAX_FRAMES - nr);
	}
	rp_checks_sample(&in->checks, ps->pid, ps->sample_type, cpumode == PERF_RECORD_MISC_USER,
			 frames, leaf_frames, nr);
	uint64_t period = ps->period;
	if (!(ps->sample_type & PERF_SAMPLE_PERIOD) && ev->evsel)
		period = ev->evsel->attr.sample_period;
	struct rp_sample smp = {
		.time = ps->time, .period = period ? period : 1, .pid = ps->pid, .tid = ps->tid,
		.comm = comm_of(in, ps),
	};
	if (!smp.comm)
		smp.comm = rp_comm_unknown(in->s, ps->pid, ps->tid);
	if (in->offcpu.cs)
		return rp_offcpu_take(in, ev, &smp, frames, nr);
	return rp_add_sample(in->s, &smp, frames, nr);
}

static void note_time(struct ingest *in, uint64_t time)
{
	if (time) {
		if (!in->first_time || time < in->first_time)
			in->first_time = time;
		if (time > in->last_time)
			in->last_time = time;
	}
}

/* Only running out of memory stops a report: a refused map or comm loses one record. */
static int keep_going(int e)
{
	return e == -ENOMEM ? e : 0;
}

static int ev_mmap(void *ctx, const struct pd_event *ev)
{
	struct ingest *in = ctx;
	uint64_t time = pd_event_time(ev);
	note_time(in, time);
	struct sym_dso *d;
	sym_feed_mmap(in->ss, ev, &d);
	rp_ingest_on_mmap(in, ev, d, time);
	return rp_jvmsamples_mmap(in, ev);
}

/* COMM, FORK, EXIT, HEADER_BUILD_ID: the symbol session's alone (symbols/feed.c). */
static int ev_feed(void *ctx, const struct pd_event *ev)
{
	struct ingest *in = ctx;
	note_time(in, pd_event_time(ev));
	if (rp_offcpu_event(in, ev) == -ENOMEM)
		return -ENOMEM;
	return keep_going(sym_feed_event(in->ss, ev));
}

/* COMM and FORK: also which program a process runs (procs.c). */
static int ev_task(void *ctx, const struct pd_event *ev)
{
	rp_note_process_event(((struct ingest *)ctx)->s, ev);
	return ev_feed(ctx, ev);
}

static int ev_lost(void *ctx, const struct pd_event *ev)
{
	struct ingest *in = ctx;
	note_time(in, pd_event_time(ev));
	if (ev->type == PERF_RECORD_LOST_SAMPLES)
		in->s->lost += ev->u.lost.lost;
	return 0;
}

static int ev_sample(void *ctx, const struct pd_event *ev)
{
	struct ingest *in = ctx;
	note_time(in, pd_event_time(ev));
	return keep_going(on_sample(in, ev));
}

static int ev_other(void *ctx, const struct pd_event *ev)
{
	note_time(ctx, pd_event_time(ev));
	return rp_offcpu_event(ctx, ev);
}

static void ev_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct ingest *in = ctx;
	in->o->progress(in->o->ctx, done, total);
}

static int read_events(struct ingest *in)
{
	const struct pd_tool tool = {
		.sz = sizeof(tool), .sample = ev_sample, .mmap = ev_mmap, .comm = ev_task,
		.fork = ev_task, .exit = ev_feed, .build_id = ev_feed, .lost = ev_lost,
		.other = ev_other, .progress = in->o->progress ? ev_progress : NULL, .ctx = in,
	};
	int damage;
	int rc = pd_replay(in->r, &tool, &damage);
	if (rc < 0)
		return jp_logf(&in->o->log, JP_LOG_ERROR, "%s: %s", in->o->input,
			       strerror(-rc)), rc;
	if (damage < 0)	/* everything before the damage was delivered: report on it, say so */
		jp_logf(&in->o->log, JP_LOG_ERROR, "%s", pd_reader_error(in->r));
	return 0;
}

/* The frames the replay made while their DSO's DWARF was still being read (on the symbols'
 * worker) have no lines: each such sample's frames are made again now, as the replay would
 * have made them, the cut at MAX_FRAMES included. Only the samples of the replay's first
 * moments, before the read finished, are touched. */
static const struct rp_frame *nth(const struct rp_session *s, const struct rp_sample *smp,
				  uint32_t k)
{
	return rp_chain_frame(s, smp->first + k);
}

static int fill_lines_later(struct ingest *in)
{
	struct rp_session *s = in->s;
	struct rp_frame buf[MAX_FRAMES];
	in->res_flags &= ~SYM_RES_NO_WAIT;
	/* last_later names the sample being made when a frame came out without its lines; an
	 * off-CPU switch-out's frames wait in their thread's record for the switch-in, so that
	 * sample may not be made yet (nor ever): never past the samples there are. */
	size_t upto = in->last_later < s->nr_samples ? in->last_later : s->nr_samples;
	for (size_t i = 0; i < upto; i++) {
		const struct rp_sample *smp = &s->samples[i];
		uint32_t k = 0, nr = 0;
		while (k < smp->nr && !(nth(s, smp, k)->flags & RP_FRAME_LINES_LATER))
			k++;
		if (k == smp->nr)
			continue;
		/* One address at a time: its inlined frames, then its own (the last of the run). */
		for (k = 0; k < smp->nr && nr < MAX_FRAMES; k++) {
			if (nth(s, smp, k)->flags & RP_FRAME_LINES_LATER) {
				/* Read ahead only for user-space DSOs: the mode is the frame's. */
				int mode = nth(s, smp, k)->flags & RP_FRAME_KERNEL ? PERF_RECORD_MISC_KERNEL
									: PERF_RECORD_MISC_USER;
				nr += rp_ingest_resolve(in, smp->pid, nth(s, smp, k)->ip, smp->time, mode, buf + nr,
					      MAX_FRAMES - nr);
				continue;
			}
			uint32_t end = k;
			while (end + 1 < smp->nr && (nth(s, smp, end)->flags & RP_FRAME_INLINED))
				end++;
			/* As resolve() cuts a run that does not fit: inlined frames first. */
			for (; k < end && nr + 1 < MAX_FRAMES; k++)
				buf[nr++] = *nth(s, smp, k);
			k = end;
			buf[nr++] = *nth(s, smp, k);
		}
		int rc = rp_set_sample_frames(s, i, buf, nr);
		if (rc)
			return rc;
	}
	return 0;
}

/* The build-id table names the DSOs samples hit: the DWARF of those with a separate debug file
 * (libc's takes libdw 50 ms to inflate) is read on a worker while the replay runs, not at
 * their first frame. Jitted ELFs carry a few KB of DWARF each and are left to the replay. */
static int read_dwarf_ahead(struct ingest *in)
{
	for (struct sym_dso *d = sym_dso_next(in->ss, NULL); d; d = sym_dso_next(in->ss, d)) {
		if (sym_dso_is_kernel(d) || rp_is_jitted_name(sym_dso_long_name(d), NULL, NULL))
			continue;
		int rc = sym_dso_read_dwarf_ahead(in->ss, d);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The DSOs the build-id table names that only debuginfod may have are asked for all at once,
 * a few requests in flight, not one by one at their first frame (50 build-ids against a
 * server taking 1 s each cost 50 s). Jitted ELFs are left out, as for the DWARF: no server
 * has them. */
static int debuginfod_ahead(struct ingest *in)
{
	struct sym_dso **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (struct sym_dso *d = sym_dso_next(in->ss, NULL); d; d = sym_dso_next(in->ss, d)) {
		if (sym_dso_is_kernel(d) || !sym_dso_build_id(d)->size ||
		    rp_is_jitted_name(sym_dso_long_name(d), NULL, NULL))
			continue;
		if (jp_grow(&v, &cap, n + 1, sizeof(*v), 64)) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = d;
	}
	if (n)
		rc = sym_session_debuginfod_ahead(in->ss, v, n);
	free(v);
	return rc;
}

/* A step that failed without a word (out of memory, the caller's finish): its errno said,
 * as the error the ingest returns. */
static int say_rc(const struct ingest *in, int rc)
{
	jp_logf(&in->o->log, JP_LOG_ERROR, "%s", strerror(-rc));
	return rc;
}

static int ondemand_attach(struct ingest *in)
{
	const struct rp_ingest_opts *o = in->o;
	/* `inject --no-elfs`: its jitted ELFs are built in memory when first needed; not at
	 * all when their symbols are all that is read (the loads read each ELF's note). */
	unsigned flags = (!o->jitted_symbols_only ? 0
			  : o->want_loads ? INJ_OD_SYMBOLS_ONLY
					  : INJ_OD_SYMBOLS_ONLY | INJ_OD_NO_ELF) |
			 (o->force ? INJ_OD_FORCE : 0);
	/* its first error held, said only when the attach fails (the origins' damage it goes
	 * past is the injected ELFs' to say, as they are built) */
	struct jp_held held = { 0 };
	int rc = inj_ondemand_attach(in->ss, in->r, o->input, flags,
				     &(struct jp_log){ jp_log_hold, &held });
	if (held.nomem)
		jp_nomem("an error message");
	if (rc < 0 && held.msg && o->log.fn)
		o->log.fn(o->log.ctx, JP_LOG_ERROR, held.msg);	/* formatted by jp_logf already */
	else if (rc < 0)
		say_rc(in, rc);
	free(held.msg);
	return rc < 0 ? rc : 0;
}

/* Each failing step logs why through o->log at JP_LOG_ERROR, last. */
static int ingest(struct rp_session *s, const struct rp_ingest_opts *o)
{
	struct ingest in = { .s = s, .o = o };
	struct sym_opts so = {
		.sz = sizeof(so), .symfs = o->symfs, .vmlinux = o->vmlinux,
		.kallsyms = o->kallsyms, .no_demangle = o->no_demangle,
		.no_lines = !o->want_lines, .log = o->log,
		.buildid_dir = o->buildid_dir, .force = o->force,
		.debuginfod_timeout = o->debuginfod_timeout,
	};
	in.res_flags = o->want_lines ? SYM_RES_LINES | SYM_RES_NO_WAIT : 0;
	struct pd_reader_opts ro = { .sz = sizeof(ro), .log = o->log };
	int rc = pd_reader_open(&in.r, o->input, &ro);	/* its message names file and offset */
	if (rc < 0)
		return rc;
	pd_reader_log_header(in.r, o->input, &o->log);
	if (o->want_callchain)	/* stacks repeat a few thousand frames over and over */
		rp_session_share_frames(s);
	s->dump_inline = o->want_sites;
	/* every jitted MMAP2 is a load unless only sampled ones are made */
	rp_session_reserve(s, pd_reader_data_size(in.r), o->want_callchain,
			   o->want_loads && !o->sampled_loads_only && !o->sampled_methods_only);
	in.ss = sym_session_new(&so);
	if (!in.ss) {
		rc = say_rc(&in, -ENOMEM);
		goto out;
	}
	if ((rc = ondemand_attach(&in)) < 0)
		goto out;
	for (size_t i = 0; o->archives && o->archives[i]; i++) {
		rc = sym_session_add_source(in.ss, o->archives[i]);
		if (rc < 0) {
			jp_logf(&o->log, JP_LOG_ERROR, "%s: cannot use as a symbol source: %s",
				o->archives[i], strerror(-rc));
			goto out;
		}
	}
	if ((rc = rp_dumps_set_dirs(s, in.ss)) < 0) {
		say_rc(&in, rc);
		goto out;
	}
	if ((rc = sym_feed_build_ids(in.ss, in.r)) < 0) {
		jp_logf(&o->log, JP_LOG_ERROR, "%s: %s", o->input, strerror(-rc));
		goto out;
	}
	if ((rc = debuginfod_ahead(&in)) < 0 ||
	    (o->want_lines && !o->jitted_lines_only && (rc = read_dwarf_ahead(&in)) < 0)) {
		say_rc(&in, rc);
		goto out;
	}
	rc = 0;
	if (rp_offcpu_wanted(o->event))
		rc = rp_offcpu_pick(&in, o->event);
	else if (rp_jvmsamples_wanted(o->event))
		rp_jvmsamples_pick(&in, o->event);
	else if (o->event)
		rc = rp_pick_event(in.r, o->event, o->input, &in.evsel, &o->log);
	if (rc)
		goto out;
	if (!o->event)
		in.evsel = rp_first_event(in.r);
	if ((rc = read_events(&in)) < 0 ||
	    (in.jv.kind && (rc = rp_jvmsamples_finish(&in)) < 0) ||
	    (!in.jv.kind && (rc = rp_jvmsamples_count(&in)) < 0))
		goto out;
	rp_set_jvm_samples(s, in.jv.any[0], in.jv.any[1]);
	sym_say_not_found(in.ss);
	if ((rc = fill_lines_later(&in)) < 0) {
		say_rc(&in, rc);
		goto out;
	}
	uint64_t first = 0, last = 0;
	if (pd_reader_feat_sample_time(in.r, &first, &last) < 0 || !first) {
		first = in.first_time;
		last = in.last_time;
	}
	rp_set_span(s, first, last);
	struct pd_clock_data cd;
	if (!pd_reader_feat_clock_data(in.r, &cd))
		rp_set_wall_clock(s, cd.tod_ns, cd.clockid_ns);
	if (in.offcpu.cs && (rc = rp_offcpu_finish(&in, first, last)) < 0) {
		say_rc(&in, rc);
		goto out;
	}
	if (in.offcpu.cs || in.jv.kind)
		rp_set_event_name(s, o->event);
	else if (in.evsel && in.evsel->name)
		rp_set_event_name(s, in.evsel->name);
	if ((in.other_evsels || in.jv.any[0] || in.jv.any[1]) && !in.jv.kind)
		rp_warn_other_events(in.r, in.evsel, in.evsel_samples, in.n_evsel_samples,
				     in.jv.any, o->event, &o->log);
	rp_checks_report(&in.checks, o);
	rp_ingest_unwind_report(&in);
	if (in.chains_cut)
		jp_logf(&o->log, JP_LOG_WARN, "%" PRIu64 " samples' call chains are deeper than %u "
			"frames: cut there, their outermost callers left out", in.chains_cut,
			MAX_FRAMES);
	if (o->want_callchain)
		rc = dso_build_ids(&in);
	struct rp_promote pr = { &in.pending, rp_ingest_promote, &in };
	if (!rc && o->want_loads)
		rc = rp_ingest_loads(s, in.ss, in.load_src, o->sampled_methods_only ? &pr : NULL,
				     o);
	rp_session_finish(s);
	if (!rc && o->finish)
		rc = o->finish(o->ctx, in.ss);
	if (rc < 0)	/* out of memory in the build-ids or the loads, or the caller's finish */
		say_rc(&in, rc);
out:
	rp_prefetch_end(s);	/* a worker left running (an error before the loads) */
	rp_checks_free(&in.checks);
	rp_map_free(&in.path_load);
	rp_pending_free(&in.pending);
	rp_map_free(&in.dso_load);
	rp_res_memo_free(&in.res_memo);
	rp_memo_free(&in.m_dso);
	rp_memo_free(&in.m_sym);
	rp_memo_free(&in.m_file);
	free(in.dso_frames);
	free(in.evsel_samples);
	rp_ingest_unwind_free(&in);
	rp_offcpu_free(&in.offcpu);
	rp_jvmsamples_free(&in.jv);
	free(in.load_src);
	rp_live_free(&in.live);
	if (o->fast_exit && !rc && !kept_ss) {
		kept_ss = in.ss;
		sym_session_remove_files(in.ss);	/* what it unpacked must not outlive us */
	} else
		sym_session_free(in.ss);
	pd_reader_close(in.r);
	return rc;
}

/* The caller's log, with each warning also kept in the session (the HTML page lists them). */
struct warn_tee {
	struct jp_log next;
	struct rp_session *s;
};

static void warn_tee(void *ctx, enum jp_level level, const char *msg)
{
	struct warn_tee *t = ctx;
	struct rp_session *s = t->s;
	if (level == JP_LOG_WARN) {
		const char *m = rp_intern(s, msg);	/* interned: equal ones compare equal */
		size_t i = 0;
		while (i < s->nr_warnings && s->warnings[i] != m)
			i++;
		if (i < s->nr_warnings)
			;	/* said already */
		else if (m && s->nr_warnings < RP_MAX_WARNINGS)
			s->warnings[s->nr_warnings++] = m;
		else
			s->more_warnings++;
	}
	if (t->next.fn)
		t->next.fn(t->next.ctx, level, msg);
}

int rp_ingest(struct rp_session *s, const struct rp_ingest_opts *opts)
{
	struct rp_ingest_opts oc;
	struct warn_tee tee = { .s = s };
	if (JP_OPTS_TAKE(&oc, opts)) {
		jp_opts_copy(&oc, sizeof(oc), opts);	/* the log is in the part we know */
		jp_logf(&oc.log, JP_LOG_ERROR, "report: unknown ingest options");
		return -EINVAL;
	}
	tee.next = oc.log;
	oc.log = (struct jp_log){ warn_tee, &tee };
	return ingest(s, &oc);
}
