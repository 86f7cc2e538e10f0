/* ingest.c - fills a report session from a perf.data file: events in time order (perf's
 * FINISHED_ROUND discipline) feed the symbol session's maps, every sample's ip and callchain
 * are resolved, and each MMAP2 of a jitted-PID-N.so becomes a load (a generation). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opts.h"
#include "recorder/inject/inject.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/report/report_int.h"
#include "recorder/symbols/symbols.h"

#define MAX_FRAMES 512

/* A symbol session kept for the process's life (fast_exit), reachable from here so leak
 * checkers do not count it. */
static struct sym_session *volatile kept_ss;

struct ingest {
	struct rp_session *s;
	struct sym_session *ss;
	const struct rp_ingest_opts *o;
	struct pd_reader *r;
	const struct pd_evsel *evsel;	/* the event reported (the first with samples) */
	int other_evsels;
	struct rp_u64map path_load;	/* interned jitted path -> load index */
	struct rp_u64map dso_load;		/* struct sym_dso * -> load index + 1 (0 = not jitted) */
	struct rp_load_src *load_src;	/* per load: interned recorded path, mapping time */
	size_t load_src_cap;
	uint64_t first_time, last_time;
	unsigned res_flags;
	struct rp_live live;		/* mapped jitted loads per process */
	uint64_t end_time;		/* when the loads end_load() ends, end */
	struct rp_checks checks;	/* forgotten prerequisites (checks.c) */
};

/* "jitted-<pid>-<n>.so": what both perf inject and jitprof inject name a code load. */
int rp_is_jitted_name(const char *path, uint32_t *pid, uint64_t *idx)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	unsigned long long p, n;
	int end = 0;
	if (sscanf(b, "jitted-%llu-%llu.so%n", &p, &n, &end) != 2 || b[end])
		return 0;
	if (pid)
		*pid = (uint32_t)p;
	if (idx)
		*idx = n;
	return 1;
}

static void end_load(void *ctx, uint32_t idx)
{
	struct ingest *in = ctx;
	struct rp_load *l = &in->s->loads[idx - 1];
	if (!l->end_time && l->load_time <= in->end_time)
		l->end_time = in->end_time;
}

static void on_mmap(struct ingest *in, const struct pd_event *ev, uint64_t time)
{
	const struct pd_mmap *m = &ev->u.mmap;
	rp_checks_mmap(&in->checks, m->filename);
	if (!in->o->want_loads || !rp_is_jitted_name(m->filename, NULL, NULL))
		return;
	struct rp_session *s = in->s;
	const char *path = rp_intern(s, m->filename);
	uint32_t moved = 0;
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
		rp_live_claim(&in->live, m->pid, m->start, m->len, moved, end_load, in);
		l->code_addr = m->start;
		in->load_src[moved - 1].map_time = time;
		return;
	}
	struct rp_load l = { .pid = m->pid, .load_time = time, .code_addr = m->start,
			     .code_size = m->len };
	uint32_t idx = rp_add_load(s, &l);
	if (!idx)
		return;
	/* An earlier load at an overlapping address in this process ends here. */
	in->end_time = time;
	rp_live_claim(&in->live, m->pid, m->start, m->len, idx, end_load, in);
	if (idx > in->load_src_cap) {
		size_t cap = in->load_src_cap ? in->load_src_cap * 2 : 256;
		struct rp_load_src *p = realloc(in->load_src, cap * sizeof(*p));
		if (!p)
			return;
		in->load_src = p;
		in->load_src_cap = cap;
	}
	in->load_src[idx - 1] = (struct rp_load_src){ path, time };
	rp_map_put(&in->path_load, (uintptr_t)path, idx);
}

/* The load a resolved frame belongs to (0 = not jitted code). */
static uint32_t load_of(struct ingest *in, struct sym_dso *d)
{
	uint32_t v;
	if (!d || !in->o->want_loads)
		return 0;
	if (rp_map_get(&in->dso_load, (uintptr_t)d, &v))
		return v;
	v = 0;
	const char *p = rp_intern(in->s, sym_dso_long_name(d));
	if (p)
		rp_map_get(&in->path_load, (uintptr_t)p, &v);
	rp_map_put(&in->dso_load, (uintptr_t)d, v);
	return v;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path;
}

/* The name perf shows for a process's anonymous executable memory (and its perf-PID.map):
 * "[JIT] tid PID". */
static const char *dso_display(struct ingest *in, const char *name)
{
	unsigned pid;
	int end = 0;
	char buf[64];
	if (!name)
		return rp_intern(in->s, "[unknown]");
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	if (sscanf(b, "perf-%u.map%n", &pid, &end) == 1 && !b[end]) {
		snprintf(buf, sizeof(buf), "[JIT] tid %u", pid);
		return rp_intern(in->s, buf);
	}
	return rp_intern(in->s, name);
}

/* Resolves one address into frames (inlined frames first when asked), returns how many. */
static uint32_t resolve(struct ingest *in, uint32_t pid, uint64_t ip, uint64_t time,
			int cpumode, struct rp_frame *out, uint32_t room)
{
	struct sym_result res;
	struct rp_session *s = in->s;
	if (!room)
		return 0;
	memset(&res, 0, sizeof(res));
	if (sym_resolve(in->ss, pid, ip, time, cpumode, in->res_flags, &res) < 0)
		res.dso = NULL;
	uint32_t n = 0;
	if (in->o->want_inline && res.n_inline > 1) {
		for (unsigned i = 0; i + 1 < res.n_inline && n + 1 < room; i++) {
			out[n++] = (struct rp_frame){
				.dso = dso_display(in, res.dso_name),
				.sym = rp_intern(s, res.inl[i].func),
				.srcfile = rp_intern(s, base_name(res.inl[i].file)),
				.line = res.inl[i].line, .flags = RP_FRAME_INLINED, .ip = ip,
			};
		}
	}
	struct rp_frame *f = &out[n++];
	*f = (struct rp_frame){
		.dso = dso_display(in, res.dso_name),
		.sym = rp_intern(s, res.sym),
		.srcfile = rp_intern(s, base_name(res.srcfile)),
		.line = res.line, .ip = ip, .symoff = res.sym_off,
		.addr = res.dso && !res.kernel ? res.dso_addr : ip,
	};
	if (res.kernel || cpumode == PERF_RECORD_MISC_KERNEL)
		f->flags |= RP_FRAME_KERNEL;
	const char *dn = res.dso_name ? res.dso_name : "";
	/* Anonymous executable memory no jitdump described is "unknown code". */
	if (!res.dso || !strncmp(dn, "//anon", 6) || !strncmp(dn, "[anon", 5) ||
	    !strncmp(f->dso, "[JIT] tid ", 10))
		f->flags |= RP_FRAME_UNKNOWN;
	f->load = load_of(in, res.dso);
	if (f->load) {
		const struct rp_load *l = &s->loads[f->load - 1];
		if (l->end_time && time >= l->end_time)
			f->flags |= RP_FRAME_UNLOADED;
	}
	return n;
}

/* The recorded build-id of every DSO, under the name frames give it (the exports' mappings). */
static int dso_build_ids(struct ingest *in)
{
	char hex[SYM_BUILD_ID_HEX];
	for (struct sym_dso *d = sym_dso_next(in->ss, NULL); d; d = sym_dso_next(in->ss, d)) {
		const struct sym_build_id *id = sym_dso_build_id(d);
		if (!id || !id->size)
			continue;
		int rc = rp_set_dso_build_id(in->s, dso_display(in, sym_dso_short_name(d)),
					     sym_build_id_hex(id, hex));
		if (rc)
			return rc;
	}
	return 0;
}

static int on_sample(struct ingest *in, const struct pd_event *ev)
{
	const struct pd_sample *ps = &ev->u.sample;
	if (ev->evsel && in->evsel && ev->evsel != in->evsel) {
		in->other_evsels = 1;
		return 0;
	}
	if (!in->evsel)
		in->evsel = ev->evsel;
	struct rp_frame frames[MAX_FRAMES];
	uint32_t nr = 0;
	int cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	nr += resolve(in, ps->pid, ps->ip, ps->time, cpumode, frames, MAX_FRAMES);
	uint32_t leaf_frames = nr;
	if (in->o->want_callchain && ps->callchain) {
		int ctx_mode = cpumode;
		int skipped_self = 0;
		for (uint64_t i = 0; i < ps->nr_callchain && nr < MAX_FRAMES; i++) {
			uint64_t a = ps->callchain[i];
			if (a >= PERF_CONTEXT_MAX) {
				if (a == PERF_CONTEXT_KERNEL)
					ctx_mode = PERF_RECORD_MISC_KERNEL;
				else if (a == PERF_CONTEXT_USER)
					ctx_mode = PERF_RECORD_MISC_USER;
				continue;
			}
			/* The kernel repeats the sampled ip as the first entry. */
			if (!skipped_self && a == ps->ip) {
				skipped_self = 1;
				continue;
			}
			skipped_self = 1;
			nr += resolve(in, ps->pid, a, ps->time, ctx_mode, frames + nr,
				      MAX_FRAMES - nr);
		}
	}
	rp_checks_sample(&in->checks, ps->pid, (ps->sample_type & PERF_SAMPLE_CALLCHAIN) != 0,
			 cpumode == PERF_RECORD_MISC_USER, frames, leaf_frames, nr);
	uint64_t period = ps->period;
	if (!(ps->sample_type & PERF_SAMPLE_PERIOD) && ev->evsel)
		period = ev->evsel->attr.sample_period;
	struct rp_sample smp = {
		.time = ps->time, .period = period ? period : 1, .pid = ps->pid, .tid = ps->tid,
		.comm = rp_intern(in->s, sym_comm_of(in->ss, ps->pid, ps->tid, ps->time)),
	};
	if (!smp.comm)
		smp.comm = rp_intern(in->s, ":-1");
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
	sym_feed_event(in->ss, ev);
	on_mmap(in, ev, time);
	return 0;
}

/* COMM, FORK, EXIT, HEADER_BUILD_ID: the symbol session's alone (symbols/feed.c). */
static int ev_feed(void *ctx, const struct pd_event *ev)
{
	struct ingest *in = ctx;
	note_time(in, pd_event_time(ev));
	return keep_going(sym_feed_event(in->ss, ev));
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
	return 0;
}

static void ev_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct ingest *in = ctx;
	in->o->progress(in->o->ctx, done, total);
}

static int read_events(struct ingest *in, char *err, size_t errlen)
{
	const struct pd_tool tool = {
		.sz = sizeof(tool), .sample = ev_sample, .mmap = ev_mmap, .comm = ev_feed,
		.fork = ev_feed, .exit = ev_feed, .build_id = ev_feed, .lost = ev_lost,
		.other = ev_other, .progress = in->o->progress ? ev_progress : NULL, .ctx = in,
	};
	int damage;
	int rc = pd_replay(in->r, &tool, &damage);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", in->o->input, strerror(-rc));
		return rc;
	}
	if (damage < 0) {
		snprintf(err, errlen, "%s", pd_reader_error(in->r));
		if (in->o->log.fn) {
			/* Everything before the damage was delivered: report on it, but say so. */
			jp_logf(&in->o->log, JP_LOG_ERROR, "%s", err);
			err[0] = 0;
		}
	}
	return 0;
}

int rp_ingest(struct rp_session *s, const struct rp_ingest_opts *opts, char *err, size_t errlen)
{
	struct rp_ingest_opts oc;
	if (JP_OPTS_TAKE(&oc, opts))
		return snprintf(err, errlen, "report: unknown ingest options"), -EINVAL;
	const struct rp_ingest_opts *o = &oc;
	struct ingest in = { .s = s, .o = o };
	struct sym_opts so = {
		.sz = sizeof(so), .symfs = o->symfs, .vmlinux = o->vmlinux,
		.kallsyms = o->kallsyms, .no_demangle = o->no_demangle,
		.no_lines = !o->want_lines, .log = o->log,
		.buildid_dir = o->buildid_dir,
	};
	in.res_flags = o->want_lines ? SYM_RES_LINES : 0;
	struct jp_errbuf eb = { err, errlen };
	struct pd_reader_opts ro = { .sz = sizeof(ro), .log = { jp_log_errbuf, &eb } };
	if (errlen)
		err[0] = 0;
	int rc = pd_reader_open(&in.r, o->input, &ro);	/* its message names file and offset */
	if (rc < 0)
		return rc;
	if (pd_reader_nr_features_dropped(in.r))
		jp_logf(&o->log, JP_LOG_WARN, "%s: %u header feature section(s) cut off or outside "
			"the file are left out", o->input, pd_reader_nr_features_dropped(in.r));
	in.ss = sym_session_new(&so);
	if (!in.ss) {
		rc = -ENOMEM;
		goto out;
	}
	/* `inject --no-elfs`: its jitted ELFs are built in memory when first needed. */
	if ((rc = inj_ondemand_attach(in.ss, in.r, o->input, err, errlen)) < 0)
		goto out;
	rc = 0;
	for (size_t i = 0; o->archives && o->archives[i]; i++) {
		rc = sym_session_add_source(in.ss, o->archives[i]);
		if (rc < 0) {
			snprintf(err, errlen, "%s: cannot use as a symbol source: %s",
				 o->archives[i], strerror(-rc));
			goto out;
		}
	}
	if ((rc = sym_feed_build_ids(in.ss, in.r)) < 0) {
		snprintf(err, errlen, "%s: %s", o->input, strerror(-rc));
		goto out;
	}
	if ((rc = read_events(&in, err, errlen)) < 0)
		goto out;
	uint64_t first = 0, last = 0;
	if (pd_reader_feat_sample_time(in.r, &first, &last) < 0 || !first) {
		first = in.first_time;
		last = in.last_time;
	}
	rp_set_span(s, first, last);
	if (in.evsel && in.evsel->name)
		rp_set_event_name(s, in.evsel->name);
	if (in.other_evsels)
		jp_logf(&o->log, JP_LOG_WARN,
			"more than one event has samples: reporting the first only");
	rp_checks_report(&in.checks, o);
	if (o->want_callchain)
		rc = dso_build_ids(&in);
	if (!rc && o->want_loads)
		rc = rp_ingest_loads(s, in.ss, in.load_src, o, err, errlen);
	rp_session_finish(s);
	if (!rc && o->finish)
		rc = o->finish(o->ctx, in.ss);
out:
	rp_map_free(&in.path_load);
	rp_map_free(&in.dso_load);
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
