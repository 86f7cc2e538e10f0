/* jvmjoin.c - HotSpot's compilation log joined to the recording's loads of its process: by
 * compile id where the companion file has one (the entry address must agree), else by entry
 * address, the candidate nearest in time. The log's times are seconds since the JVM started;
 * the median distance between matched installs and loads maps them onto the recording's clock
 * (make-not-entrant times are only in the log). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report_analysis/analysis_int.h"

static int i64_order(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

/* The log's installed codes by entry address, for loads without a compile id. */
struct by_entry {
	const struct rp_jvm_code **v;
	size_t n;
};

static int entry_order(const void *pa, const void *pb)
{
	const struct rp_jvm_code *a = *(const struct rp_jvm_code *const *)pa;
	const struct rp_jvm_code *b = *(const struct rp_jvm_code *const *)pb;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

static int by_entry_build(struct by_entry *e, const struct rp_jvmlog *jl)
{
	e->n = 0;
	e->v = malloc((rp_jvmlog_nr_codes(jl) + 1) * sizeof(*e->v));
	if (!e->v)
		return -ENOMEM;
	for (size_t i = 0; i < rp_jvmlog_nr_codes(jl); i++)
		if (rp_jvmlog_code(jl, i)->stamp >= 0)
			e->v[e->n++] = rp_jvmlog_code(jl, i);
	if (e->n > 1)
		qsort(e->v, e->n, sizeof(*e->v), entry_order);
	return 0;
}

/* [*lo, return) = the codes installed at entry. */
static size_t at_entry(const struct by_entry *e, uint64_t entry, size_t *lo)
{
	size_t a = 0, b = e->n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (e->v[m]->entry < entry)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (b < e->n && e->v[b]->entry == entry)
		b++;
	return b;
}

/* offset + seconds (a log stamp, at most 1e9 s: jvmlog.c) in ns, saturated: the offset comes
 * from recorded times, which a damaged recording can put anywhere. */
static int64_t at_stamp(int64_t offset, double seconds)
{
	int64_t ns = (int64_t)(seconds * 1e9), r;
	if (__builtin_add_overflow(offset, ns, &r))
		return ns > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* Among the codes at the load's address, the one installed nearest the load in time. */
static const struct rp_jvm_code *nearest(const struct by_entry *e, const struct rp_load *l,
					 int64_t offset)
{
	const struct rp_jvm_code *best = NULL;
	uint64_t bd = UINT64_MAX;
	size_t i, end = at_entry(e, l->code_addr, &i);
	for (; i < end; i++) {
		int64_t t = at_stamp(offset, e->v[i]->stamp);
		uint64_t d = t > (int64_t)l->load_time ? (uint64_t)t - l->load_time
						       : l->load_time - (uint64_t)t;
		if (d < bd)
			bd = d, best = e->v[i];
	}
	return best;
}

/* The code for a load before the clocks are aligned: by compile id (and its address, where
 * the source knows it: a Flight Recording does not), or the only one at its address. */
static const struct rp_jvm_code *direct(const struct rp_jvmlog *jl, const struct by_entry *e,
					const struct rp_load *l)
{
	size_t lo, end;
	if (l->compile_id > 0) {
		const struct rp_jvm_code *c = rp_jvmlog_find(jl, l->compile_id);
		return c && (!c->entry || c->entry == l->code_addr) ? c : NULL;
	}
	end = at_entry(e, l->code_addr, &lo);
	return end - lo == 1 ? e->v[lo] : NULL;
}

int rp_session_join_jvmlog(struct rp_session *s, const struct rp_jvmlog *jl,
			   const struct jp_log *log)
{
	uint32_t pid = rp_jvmlog_pid(jl);
	size_t of_pid = 0, nr_off = 0, joined = 0;
	/* A source that names no process (a Flight Recording without jdk.JVMInformation) is
	 * of the recording's one JVM, if it has only one. */
	for (size_t i = 0; !rp_jvmlog_pid(jl) && i < s->nr_loads; i++) {
		if (pid && s->loads[i].pid != pid)
			return jp_logf(log, JP_LOG_ERROR, "the JVM's record names no process and "
				       "the recording has jitted code of several (%u, %u): cannot "
				       "tell which it is of", pid, s->loads[i].pid), -ESRCH;
		pid = s->loads[i].pid;
	}
	int64_t *off = malloc((s->nr_loads + 1) * sizeof(*off)), offset;
	struct by_entry e;
	if (!off || by_entry_build(&e, jl)) {
		free(off);
		return jp_logf(log, JP_LOG_ERROR, "out of memory joining the compilation log"),
		       -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_loads; i++) {
		const struct rp_load *l = &s->loads[i];
		const struct rp_jvm_code *c;
		if (l->pid != pid)
			continue;
		of_pid++;
		/* a back-filled load's time is the attach, not its install */
		if (!(l->flags & JD_LOAD_BACKFILLED) && (c = direct(jl, &e, l)))
			off[nr_off++] = at_stamp((int64_t)l->load_time, -c->stamp);
	}
	if (!of_pid || !nr_off) {
		struct jp_str pids = { 0 };	/* every process, however many */
		/* loads come grouped by process: a change of pid starts the next one */
		for (size_t i = 0; i < s->nr_loads; i++)
			if (!i || s->loads[i].pid != s->loads[i - 1].pid)
				jp_str_appendf(&pids, "%s%u", pids.len ? "," : "", s->loads[i].pid);
		if (pids.nomem) {
			jp_logf(log, JP_LOG_ERROR, "out of memory");
			jp_str_free(&pids);
			free(off);
			free(e.v);
			return -ENOMEM;
		}
		if (!of_pid)
			jp_logf(log, JP_LOG_ERROR, "the compilation log is of process %u, the "
				"recording has jitted code of process%s %s only: not this run's "
				"log", pid, pids.len && strchr(pids.s, ',') ? "es" : "",
				pids.len ? pids.s : "(none)");
		else
			jp_logf(log, JP_LOG_ERROR, "no compile id or code address of the "
				"compilation log (process %u, %zu nmethods) matches the recording's "
				"%zu loads of that process: not this run's log", pid,
				rp_jvmlog_nr_codes(jl), of_pid);
		jp_str_free(&pids);
		free(off);
		free(e.v);
		return -ESRCH;
	}
	qsort(off, nr_off, sizeof(*off), i64_order);
	offset = off[nr_off / 2];
	free(off);
	for (size_t i = 0; i < s->nr_loads; i++) {
		struct rp_load *l = &s->loads[i];
		const struct rp_jvm_code *c;
		if (l->pid != pid)
			continue;
		c = direct(jl, &e, l);
		if (!c && l->compile_id <= 0)
			c = nearest(&e, l, offset);
		if (!c)
			continue;
		joined++;
		l->jvm = c;
		if (c->stamp >= 0) {
			int64_t t = at_stamp(offset, c->stamp);
			l->install_time = t > 0 ? (uint64_t)t : 1;
		}
		if (c->not_entrant >= 0) {
			int64_t t = at_stamp(offset, c->not_entrant);
			/* The log's milliseconds must not end a generation before it began. */
			l->not_entrant_time = t > (int64_t)l->load_time ? (uint64_t)t : l->load_time;
		}
	}
	free(e.v);
	s->jvmlog = jl;
	return joined ? 0 : -ESRCH;
}

const struct rp_jvmlog *rp_session_jvmlog(const struct rp_session *s)
{
	return s->jvmlog;
}
