/* jvmlog_jfr.c - the JVM's account of its code from a Flight Recording instead of
 * -XX:+LogCompilation: what a JVM reports while it is profiled (the agent's `jfr` option
 * records it, and a JVM we attach to was not started with the log). jdk.Compilation gives each
 * compile's id, level, method and install time (its end); jdk.Deoptimization each uncommon
 * trap's compile id, reason, action, method and bci. A trap whose action makes the code not
 * entrant (reinterpret, make_not_entrant, invalidate) ends its generation there, as the log's
 * make_not_entrant after a trap does; the other actions leave the code running (a
 * recompile then replaces it). What the recording cannot say: entry addresses (the join goes
 * by compile id alone), OSR bcis, inlining decisions and broken dependencies (no event has
 * them). Times are seconds since the recording's first chunk, mapped onto the recording's
 * clock by the join like the log's. The file holds events in the order the JVM flushed its
 * threads' buffers, not in time order: the events are read first, sorted by time, then
 * applied, so what "the first trap" and "a later trap" mean does not depend on the file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/jfr/jfr.h"
#include "safeio/safeio.h"
#include "recorder/report_analysis/jvmlog_int.h"

#define MAX_JFR_BYTES (1ull << 30)	/* a recording of compiles and traps is far smaller */

/* One jdk.Compilation or jdk.Deoptimization event as read, applied once all are in time
 * order. Absent fields are kept as absent (has_*), so applying does what reading did. */
struct jfr_rec {
	int64_t t_ns;		/* the event's start, -1 none (sorted last) */
	size_t seq;		/* file order: ties keep it, so the sort is stable */
	int64_t id;		/* compile id as read: checked when applied */
	int64_t end_ns;		/* a compile's install time (start plus duration) */
	int64_t level, osr, bci;
	unsigned has_level : 1, has_osr : 1, has_bci : 1;
	const char *method, *reason, *action;
};

struct recs {
	struct jfr_rec *r;
	size_t n, cap;
};

struct from_jfr {
	struct rp_jvmlog *jl;
	int64_t base_ns;	/* the first event's time: stamps count from it */
	int nomem;
	size_t bad_ids;		/* events with no valid compile id, skipped */
	struct recs compiles, traps;
	double *first_trap;	/* per code index: its first trap's stamp, -1 none */
	uint8_t *osr;		/* per code index: an OSR compile */
	size_t cap;
};

/* Room for the per-code facts of code index i. */
static int facts_for(struct from_jfr *x, size_t i)
{
	if (i < x->cap)
		return 0;
	size_t n = x->cap ? x->cap : 256;
	while (n <= i)
		n *= 2;
	double *t = realloc(x->first_trap, n * sizeof(*t));
	if (t)
		x->first_trap = t;
	uint8_t *o = t ? realloc(x->osr, n) : NULL;
	if (!o)
		return x->nomem = 1, -1;
	x->osr = o;
	for (size_t k = x->cap; k < n; k++) {
		x->first_trap[k] = -1;
		x->osr[k] = 0;
	}
	x->cap = n;
	return 0;
}

static double stamp_of(const struct from_jfr *x, int64_t ns)
{
	return ns < 0 ? -1 : (double)(ns - x->base_ns) / 1e9;
}

/* The string at path appended to b whole (measured, then read): 0, -ENOMEM, or the reader's
 * -ENOENT / -EINVAL with b as it was. */
static int get_str(const struct jfr_event *ev, const char *path, struct jp_str *b)
{
	size_t full;
	int rc = jfr_get_str(ev, path, NULL, 0, &full);
	char *p = rc ? NULL : jp_str_reserve(b, full);
	if (rc || !p)
		return rc ? rc : -ENOMEM;
	if (!(rc = jfr_get_str(ev, path, p, full + 1, &full)))
		b->len += full;
	b->s[b->len] = 0;
	return rc;
}

/* s kept by the log, or NULL: x->nomem when b or the keeping ran out of memory. */
static const char *keep_str(struct from_jfr *x, struct jp_str *b, int rc)
{
	const char *s = rc || b->nomem ? NULL : rp_jvmlog_keep(x->jl, b->s);
	x->nomem |= rc == -ENOMEM || b->nomem || (!rc && !s);
	jp_str_free(b);
	return s;
}

/* "pkg/Class name (sig)ret", as the compilation log writes a method, whole. */
static const char *method_of(struct from_jfr *x, const struct jfr_event *ev)
{
	struct jp_str b = { 0 };
	int rc = get_str(ev, "method.type.name", &b);
	if (!rc) {
		jp_str_append(&b, " ", 1);
		rc = get_str(ev, "method.name", &b);
	}
	if (!rc) {
		jp_str_append(&b, " ", 1);
		int d = get_str(ev, "method.descriptor", &b);	/* none: the name alone */
		rc = d == -ENOMEM ? d : 0;
	}
	return keep_str(x, &b, rc);
}

static const char *str_of(struct from_jfr *x, const struct jfr_event *ev, const char *path)
{
	struct jp_str b = { 0 };
	return keep_str(x, &b, get_str(ev, path, &b));
}

/* A trap that only asks for a recompile (maybe_recompile) ends the code when the method is
 * compiled again after it: HotSpot makes the trapping code not entrant once its traps pass
 * the limits, and the new compile is the answer, as the compilation log shows (the trap's
 * thread making the code not entrant). So a code with such traps whose method has a later
 * compile of the same kind (OSR or not), installed after its first trap, ended by them. */
/* 1 when codes a and b are of different methods or kinds (a new group in the order). */
static int by_method_group(const struct from_jfr *x, size_t a, size_t b)
{
	return strcmp(x->jl->codes[a].method, x->jl->codes[b].method) || x->osr[a] != x->osr[b];
}

/* Codes ordered by method, kind (OSR or not), then compile id: a method's compiles in order. */
static const struct from_jfr *order_x;

static int by_method(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct rp_jvm_code *ca = &order_x->jl->codes[a], *cb = &order_x->jl->codes[b];
	int c = strcmp(ca->method, cb->method);
	if (c)
		return c;
	if (order_x->osr[a] != order_x->osr[b])
		return order_x->osr[a] - order_x->osr[b];
	return (ca->compile_id > cb->compile_id) - (ca->compile_id < cb->compile_id);
}

static void recompiled_after_traps(struct from_jfr *x)
{
	struct rp_jvmlog *jl = x->jl;
	size_t n = 0, *ix = malloc((jl->nr + 1) * sizeof(*ix));
	if (!ix) {
		x->nomem = 1;
		return;
	}
	for (size_t i = 0; i < jl->nr && i < x->cap; i++)
		if (jl->codes[i].method)
			ix[n++] = i;
	order_x = x;
	qsort(ix, n, sizeof(*ix), by_method);
	/* from each group's end: the latest install among the compiles after this one */
	double later = -1;
	for (size_t k = n; k-- > 0;) {
		struct rp_jvm_code *c = &jl->codes[ix[k]];
		if (k + 1 < n && by_method_group(x, ix[k], ix[k + 1]))
			later = -1;
		if (c->end == RP_END_RUNNING && x->first_trap[ix[k]] >= 0 &&
		    later >= x->first_trap[ix[k]])
			c->end = RP_END_DEOPT;
		if (c->stamp > later)
			later = c->stamp;
	}
	free(ix);
}

static int pid_of(const struct jfr_event *ev, void *arg)
{
	int64_t pid;
	if (!jfr_get_int(ev, "pid", &pid) && pid > 0 && pid <= UINT32_MAX)
		*(uint32_t *)arg = (uint32_t)pid;
	return 1;	/* the first one says it */
}

/* The next record of rs, numbered in file order; NULL out of memory (said through nomem). */
static struct jfr_rec *add_rec(struct from_jfr *x, struct recs *rs, const struct jfr_event *ev)
{
	if (JP_GROW_FOR(rs->r, rs->cap, rs->n))
		return x->nomem = 1, NULL;
	struct jfr_rec *r = &rs->r[rs->n];
	*r = (struct jfr_rec){ .t_ns = jfr_event_time_ns(ev), .seq = rs->n, .id = -1 };
	rs->n++;
	if (jfr_get_int(ev, "compileId", &r->id))
		r->id = -1;	/* counted as invalid when applied */
	return r;
}

static int read_compile(const struct jfr_event *ev, void *arg)
{
	struct from_jfr *x = arg;
	int64_t ok = 1, dur = 0;
	if (!jfr_get_int(ev, "succeded", &ok) && !ok)	/* sic: the JDK's field name */
		return 0;	/* a failed compile made no code */
	struct jfr_rec *r = add_rec(x, &x->compiles, ev);
	if (!r)
		return 1;
	r->has_osr = !jfr_get_int(ev, "isOsr", &r->osr);
	r->has_level = !jfr_get_int(ev, "compileLevel", &r->level);
	/* installed when the compile ended: its start plus its duration (in ticks; the
	 * recording's ticks are nanoseconds on HotSpot, its time is converted already) */
	r->end_ns = r->t_ns;
	if (!jfr_get_int(ev, "duration", &dur) && dur > 0 && r->t_ns >= 0)
		r->end_ns += dur;
	r->method = method_of(x, ev);
	return x->nomem;
}

static int read_trap(const struct jfr_event *ev, void *arg)
{
	struct from_jfr *x = arg;
	struct jfr_rec *r = add_rec(x, &x->traps, ev);
	if (!r)
		return 1;
	r->reason = str_of(x, ev, "reason");
	r->action = str_of(x, ev, "action");
	r->method = method_of(x, ev);
	r->has_bci = !jfr_get_int(ev, "bci", &r->bci);
	return x->nomem;
}

/* By time, an event without one last; equal times in file order. */
static int by_time(const void *pa, const void *pb)
{
	const struct jfr_rec *a = pa, *b = pb;
	uint64_t ta = (uint64_t)a->t_ns, tb = (uint64_t)b->t_ns;	/* -1: the largest */
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The code a record names with room for its facts; NULL when it names none (counted) or out
 * of memory (nomem). */
static struct rp_jvm_code *code_of(struct from_jfr *x, const struct jfr_rec *r)
{
	struct rp_jvm_code *c;
	int rc = rp_jvmlog_code_of(x->jl, r->id, &c);
	if (rc == -EINVAL)
		x->bad_ids++;
	else if (rc || facts_for(x, (size_t)(c - x->jl->codes)))
		x->nomem = 1, c = NULL;
	return c;
}

static void apply_compile(struct from_jfr *x, const struct jfr_rec *r)
{
	struct rp_jvm_code *c = code_of(x, r);
	if (!c)
		return;
	if (r->has_osr)
		x->osr[c - x->jl->codes] = r->osr != 0;
	if (r->has_level)
		c->level = (int32_t)r->level;
	c->stamp = stamp_of(x, r->end_ns);
	if (!c->method)
		c->method = r->method;
}

static int ends_code(const char *action)
{
	return action && (!strcmp(action, "reinterpret") || !strcmp(action, "make_not_entrant") ||
			  !strcmp(action, "invalidate"));
}

/* Traps in time order: each overwrites the why of its code until one ends it. */
static void apply_trap(struct from_jfr *x, const struct jfr_rec *r)
{
	struct rp_jvm_code *c = code_of(x, r);
	if (!c || c->not_entrant >= 0)	/* the code already ended: later traps are activations */
		return;
	double *first = &x->first_trap[c - x->jl->codes];
	if (*first < 0)
		*first = stamp_of(x, r->t_ns);
	c->reason = r->reason;
	c->action = r->action;
	c->trap_method = r->method;
	c->trap_bci = r->has_bci ? (int32_t)r->bci : -1;
	if (ends_code(c->action)) {
		c->end = RP_END_DEOPT;
		c->not_entrant = stamp_of(x, r->t_ns);
	}
}

/* The earliest event's time, from which stamps count. */
static int64_t first_time(const struct recs *a, const struct recs *b)
{
	int64_t t = -1;
	/* sorted: each one's first is its earliest (an event without a time sorts last) */
	if (a->n && a->r[0].t_ns >= 0)
		t = a->r[0].t_ns;
	if (b->n && b->r[0].t_ns >= 0 && (t < 0 || b->r[0].t_ns < t))
		t = b->r[0].t_ns;
	return t < 0 ? 0 : t;
}

/* Reads both kinds of event, then applies them in time order (compiles before traps: a trap
 * reads nothing a compile sets, and recompiled_after_traps looks at both afterwards). */
static void read_events(struct from_jfr *x, const struct jfr_file *f)
{
	if (jfr_each_event(f, "jdk.Compilation", read_compile, x) ||
	    jfr_each_event(f, "jdk.Deoptimization", read_trap, x) || x->nomem)
		return;
	/* (none of a kind: no array, and qsort's base may not be NULL) */
	if (x->compiles.n > 1)
		qsort(x->compiles.r, x->compiles.n, sizeof(*x->compiles.r), by_time);
	if (x->traps.n > 1)
		qsort(x->traps.r, x->traps.n, sizeof(*x->traps.r), by_time);
	x->base_ns = first_time(&x->compiles, &x->traps);
	for (size_t i = 0; i < x->compiles.n && !x->nomem; i++)
		apply_compile(x, &x->compiles.r[i]);
	for (size_t i = 0; i < x->traps.n && !x->nomem; i++)
		apply_trap(x, &x->traps.r[i]);
	if (!x->nomem)
		recompiled_after_traps(x);
}

int rp_jvmlog_open_jfr(struct rp_jvmlog **out, int fd, const char *path,
		       const struct jp_log *log)
{
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct jfr_file *f = NULL;
	struct from_jfr x = { .base_ns = -1 };
	int rc;

	*out = NULL;
	if ((rc = sio_read_all(fd, MAX_JFR_BYTES, &bytes, &len)))
		return jp_logf(log, JP_LOG_ERROR, "%s: %s", path, sio_strerror(rc)), rc;
	if ((rc = jfr_open_mem(bytes, len, path, log, &f)))	/* says why, but out of memory */
		goto out;
	if (!(x.jl = calloc(1, sizeof(*x.jl)))) {
		rc = -ENOMEM;
		goto out;
	}
	x.jl->bytes = len;
	x.jl->jfr = 1;
	jfr_each_event(f, "jdk.JVMInformation", pid_of, &x.jl->pid);
	read_events(&x, f);
	if (x.nomem) {
		rc = -ENOMEM;
		goto out;
	}
	if (!x.jl->nr) {
		jp_logf(log, JP_LOG_ERROR, "%s: a Flight Recording without jdk.Compilation or "
			"jdk.Deoptimization events (record them: the agent's jfr option, or "
			"JFR.start with those events enabled)", path);
		rc = -ENOENT;
		goto out;
	}
	if ((x.bad_ids && jp_str_printf(&x.jl->notes, "%s: %zu events with an invalid compile "
					"id skipped", path, x.bad_ids) && x.jl->notes.nomem) ||
	    (jfr_truncated(f) && jp_str_printf(&x.jl->cut, "%s: its last chunk is unfinished "
						 "or cut short: the chunks before it are read",
						 path) && x.jl->cut.nomem)) {
		rc = -ENOMEM;
		goto out;
	}
	*out = x.jl;
	x.jl = NULL;
out:
	if (rc == -ENOMEM)
		jp_logf(log, JP_LOG_ERROR, "%s: out of memory", path);
	rp_jvmlog_free(x.jl);
	free(x.first_trap);
	free(x.osr);
	free(x.compiles.r);
	free(x.traps.r);
	jfr_close(f);
	free(bytes);
	return rc;
}
