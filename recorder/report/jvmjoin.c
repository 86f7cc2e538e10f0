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

#include "recorder/report/report_int.h"

static int i64_order(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

/* The one code the log installed at this entry address, or NULL if none or several. */
static const struct rp_jvm_code *by_entry(const struct rp_jvmlog *jl, uint64_t entry,
					  size_t *count)
{
	const struct rp_jvm_code *found = NULL;
	*count = 0;
	for (size_t i = 0; i < rp_jvmlog_nr_codes(jl); i++) {
		const struct rp_jvm_code *c = rp_jvmlog_code(jl, i);
		if (c->entry == entry && c->stamp >= 0)
			found = c, ++*count;
	}
	return *count == 1 ? found : NULL;
}

static const struct rp_jvm_code *nearest(const struct rp_jvmlog *jl, const struct rp_load *l,
					 int64_t offset)
{
	const struct rp_jvm_code *best = NULL;
	uint64_t bd = UINT64_MAX;
	for (size_t i = 0; i < rp_jvmlog_nr_codes(jl); i++) {
		const struct rp_jvm_code *c = rp_jvmlog_code(jl, i);
		if (c->entry != l->code_addr || c->stamp < 0)
			continue;
		int64_t t = offset + (int64_t)(c->stamp * 1e9);
		uint64_t d = t > (int64_t)l->load_time ? (uint64_t)t - l->load_time
						       : l->load_time - (uint64_t)t;
		if (d < bd)
			bd = d, best = c;
	}
	return best;
}

static const struct rp_jvm_code *direct(const struct rp_jvmlog *jl, const struct rp_load *l)
{
	size_t n;
	if (l->compile_id > 0) {
		const struct rp_jvm_code *c = rp_jvmlog_find(jl, l->compile_id);
		return c && c->entry == l->code_addr ? c : NULL;
	}
	return by_entry(jl, l->code_addr, &n);
}

int rp_session_join_jvmlog(struct rp_session *s, const struct rp_jvmlog *jl, char *err,
			   size_t errlen)
{
	uint32_t pid = rp_jvmlog_pid(jl);
	size_t of_pid = 0, nr_off = 0, joined = 0;
	int64_t *off = malloc((s->nr_loads + 1) * sizeof(*off)), offset;
	if (!off)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_loads; i++) {
		const struct rp_load *l = &s->loads[i];
		const struct rp_jvm_code *c;
		if (l->pid != pid)
			continue;
		of_pid++;
		if ((c = direct(jl, l)))
			off[nr_off++] = (int64_t)l->load_time - (int64_t)(c->stamp * 1e9);
	}
	if (!of_pid || !nr_off) {
		char pids[128] = "";
		size_t n = 0;
		/* loads come grouped by process: a change of pid starts the next one */
		for (size_t i = 0; i < s->nr_loads && n + 12 < sizeof(pids); i++)
			if (!i || s->loads[i].pid != s->loads[i - 1].pid)
				n += (size_t)snprintf(pids + n, sizeof(pids) - n, "%s%u", n ? "," : "",
						      s->loads[i].pid);
		if (!of_pid)
			snprintf(err, errlen, "the compilation log is of process %u, the recording "
				 "has jitted code of process%s %s only: not this run's log", pid,
				 strchr(pids, ',') ? "es" : "", n ? pids : "(none)");
		else
			snprintf(err, errlen, "no compile id or code address of the compilation log "
				 "(process %u, %zu nmethods) matches the recording's %zu loads of "
				 "that process: not this run's log", pid, rp_jvmlog_nr_codes(jl),
				 of_pid);
		free(off);
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
		c = direct(jl, l);
		if (!c && l->compile_id <= 0)
			c = nearest(jl, l, offset);
		if (!c)
			continue;
		joined++;
		l->jvm = c;
		if (c->not_entrant >= 0) {
			int64_t t = offset + (int64_t)(c->not_entrant * 1e9);
			/* The log's milliseconds must not end a generation before it began. */
			l->not_entrant_time = t > (int64_t)l->load_time ? (uint64_t)t : l->load_time;
		}
	}
	s->jvmlog = jl;
	return joined ? 0 : -ESRCH;
}

const struct rp_jvmlog *rp_session_jvmlog(const struct rp_session *s)
{
	return s->jvmlog;
}
