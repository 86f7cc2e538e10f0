/* jfr.c - `--jfr out.jfr`: the session as one Flight Recorder chunk that the JDK's `jfr` tool,
 * JDK Mission Control and IntelliJ open. Every sample is a jdk.ExecutionSample (its time in
 * ticks of the recording clock, 1 ns each, its thread, its stack trace); stack traces,
 * methods, classes, packages, symbols and threads are constant pools, each value once. Java
 * frames (the agent's names) are methods of their class with their source line; other frames
 * are Native methods named by their symbol, their DSO as the class, so nothing is lost.
 * Layout: header, events, the checkpoint (constant pools), the metadata (jfr_meta.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/jfr_int.h"
#include "recorder/report_views/views_int.h"

/* Distinct sequences of 32-bit words numbered from 1 in first-seen order: stack frames
 * (method, line, type) and stack traces (their frames' numbers). */
struct seqtab {
	struct rp_u64map idx;
	uint32_t *w;		/* all sequences, each as its length then its words */
	size_t nw, capw;
	size_t *at;		/* sequence id - 1 -> its length word in w */
	size_t n, cap;
};

static int seq_id(struct seqtab *t, const uint32_t *w, uint32_t n, uint32_t *id)
{
	uint64_t h = rp_hash_words(w, n * sizeof(*w)) ^ n;
	uint32_t v;
	for (h |= 1; rp_map_get(&t->idx, h, &v); h += 2)	/* odd keys: a collision's next */
		if (t->w[t->at[v - 1]] == n && !memcmp(&t->w[t->at[v - 1] + 1], w, n * sizeof(*w)))
			return *id = v, 0;
	if (rp_grow(&t->w, &t->capw, t->nw + n + 1, sizeof(*t->w)) ||
	    rp_grow(&t->at, &t->cap, t->n + 1, sizeof(*t->at)))
		return -ENOMEM;
	t->at[t->n] = t->nw;
	t->w[t->nw++] = n;
	memcpy(&t->w[t->nw], w, n * sizeof(*w));
	t->nw += n;
	if (rp_map_put(&t->idx, h, (uint32_t)t->n + 1) < 0)
		return -ENOMEM;
	return *id = (uint32_t)++t->n, 0;
}

static void seq_free(struct seqtab *t)
{
	rp_map_free(&t->idx);
	free(t->w);
	free(t->at);
}

struct thread { uint32_t pid, tid; const char *comm; };

struct jfr {
	const struct rp_session *s;
	struct rp_strtab sym, pkg, cls, meth;	/* ids from 0; pool keys are id + 1 */
	uint32_t *cls_pkg;			/* class id -> package key (0: none) */
	size_t cls_cap;
	struct seqtab frames, stacks;
	uint32_t *frame_of;			/* session frame -> frames' id (0: not yet) */
	struct thread *th;
	size_t nth, th_cap;
	struct rp_u64map th_of;			/* hash of a thread -> its key */
	struct rp_jfr_method m;			/* the method being keyed, */
	struct jp_str mk, pkg_name;		/* its key and its class's package */
};

/* The key of str in table t (its id + 1), or 0 with *rc set. */
static uint32_t key(struct rp_strtab *t, const char *str, int *rc)
{
	uint32_t id;
	if (!*rc && !(*rc = rp_strtab_id(t, str, 0, &id)))
		return id + 1;
	return 0;
}

/* The class key of cls (internal form), its package the part before the last '/'. */
static uint32_t class_key(struct jfr *j, const char *cls, int *rc)
{
	size_t before = j->cls.n;
	uint32_t k = key(&j->cls, cls, rc);
	if (!k || j->cls.n == before)
		return k;
	if ((*rc = rp_grow(&j->cls_pkg, &j->cls_cap, j->cls.n, sizeof(*j->cls_pkg))))
		return 0;
	const char *slash = strrchr(cls, '/');
	j->cls_pkg[k - 1] = 0;
	if (slash) {
		jp_str_clear(&j->pkg_name);
		jp_str_append(&j->pkg_name, cls, (size_t)(slash - cls));
		j->cls_pkg[k - 1] = key(&j->pkg, j->pkg_name.s, rc);
		if (j->pkg_name.nomem)
			*rc = -ENOMEM;
	}
	return *rc ? 0 : k;
}

static enum rp_jfr_frame_type frame_type(const struct rp_session *s, const struct rp_frame *f)
{
	switch (rp_frame_kind(s, f)) {
	case RP_KIND_INTERP: return RP_JFR_FT_INTERPRETED;
	case RP_KIND_C1: case RP_KIND_C2: case RP_KIND_JIT: return RP_JFR_FT_JIT;
	case RP_KIND_JAVA: return RP_JFR_FT_JIT;	/* JFR has no "unknown tier" */
	case RP_KIND_INLINED: return RP_JFR_FT_INLINED;
	default: return RP_JFR_FT_NATIVE;
	}
}

/* The method of a frame: the load's own name as the agent wrote it when the frame is the
 * load's (not inlined), else its shown name; a non-Java one as its symbol in its DSO (or in
 * "[jit]" for runtime code in jitted loads, whose ELFs' names say nothing). */
static uint32_t method_key(struct jfr *j, const struct rp_frame *f, int *rc)
{
	const struct rp_session *s = j->s;
	const struct rp_load *l = f->load && f->load <= s->nr_loads ? &s->loads[f->load - 1]
								       : NULL;
	struct rp_jfr_method *m = &j->m;
	int jitted = l || (f->flags & RP_FRAME_JITTED_DSO) ||
		     (f->dso && rp_is_jitted_name(f->dso, NULL, NULL));
	int java = (l && !(f->flags & RP_FRAME_INLINED) && l->ident &&
		    f->sym == l->method && rp_jfr_split_java(l->ident, m)) ||
		   ((jitted || (f->flags & RP_FRAME_INLINED)) && rp_jfr_split_java(f->sym, m));
	if (!java) {
		jp_str_printf(&m->cls, "%s", jitted ? "[jit]" : f->dso ? f->dso : "[unknown]");
		rp_frame_name(s, f, 0, &m->name);
		jp_str_printf(&m->desc, "()V");	/* readers parse the parameters */
	}
	jp_str_printf(&j->mk, "%s\n%s\n%s", m->cls.s, m->name.s, m->desc.s);
	if (m->cls.nomem || m->name.nomem || m->desc.nomem || j->mk.nomem) {
		*rc = -ENOMEM;	/* a name that did not fit in memory */
		return 0;
	}
	size_t before = j->meth.n;
	uint32_t k = key(&j->meth, j->mk.s, rc);
	if (k && j->meth.n != before) {	/* new: its class, name and descriptor keyed now */
		class_key(j, m->cls.s, rc);
		key(&j->sym, m->name.s, rc);
		key(&j->sym, m->desc.s, rc);
	}
	return *rc ? 0 : k;
}

/* The stack frame (method, line, type) a session frame is, numbered once per session frame. */
static uint32_t frame_id(struct jfr *j, uint32_t ref, int *rc)
{
	if (j->frame_of[ref])
		return j->frame_of[ref];
	const struct rp_frame *f = &j->s->frames[ref];
	uint32_t line = f->call_line ? f->call_line : f->line;	/* its own function's */
	uint32_t w[3] = { method_key(j, f, rc), line ? line : UINT32_MAX, frame_type(j->s, f) };
	if (!*rc)
		*rc = seq_id(&j->frames, w, 3, &j->frame_of[ref]);
	return *rc ? 0 : j->frame_of[ref];
}

static uint32_t stack_key(struct jfr *j, const struct rp_sample *smp, uint32_t *buf, int *rc)
{
	uint32_t id = 0;
	for (uint32_t k = 0; k < smp->nr && !*rc; k++)	/* leaf first, as JFR's frames are */
		buf[k] = frame_id(j, j->s->chain[smp->first + k], rc);
	if (!*rc)
		*rc = seq_id(&j->stacks, buf, smp->nr, &id);
	return id;
}

/* A thread by its process, id and name then: a thread renamed while recorded (a JVM's
 * threads start as "java") is one thread per name, each sample under the name it had. */
static uint32_t thread_key(struct jfr *j, const struct rp_sample *smp, int *rc)
{
	struct thread t = { smp->pid, smp->tid, smp->comm };
	uint64_t h = rp_hash_words(&t, sizeof(t)) | 1;
	uint32_t v;
	for (; rp_map_get(&j->th_of, h, &v); h += 2)	/* odd keys: a collision's next */
		if (!memcmp(&j->th[v - 1], &t, sizeof(t)))
			return v;
	if ((*rc = rp_grow(&j->th, &j->th_cap, j->nth + 1, sizeof(*j->th))))
		return 0;
	j->th[j->nth++] = t;
	if (rp_map_put(&j->th_of, h, (uint32_t)j->nth) < 0)
		return *rc = -ENOMEM, 0;
	return (uint32_t)j->nth;
}

static int by_time(const void *a, const void *b, void *ctx)
{
	const struct rp_sample *s = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (s[x].time != s[y].time)
		return s[x].time < s[y].time ? -1 : 1;
	return x < y ? -1 : 1;
}

/* Every sample as a jdk.ExecutionSample, in time order. */
static int samples(struct jfr *j, struct rp_jfr_buf *out)
{
	const struct rp_session *s = j->s;
	uint32_t *order = malloc((s->nr_samples + 1) * sizeof(*order));
	uint32_t *buf = NULL;
	uint32_t maxnr = 0;
	int rc = 0;
	for (size_t i = 0; order && i < s->nr_samples; i++) {
		order[i] = (uint32_t)i;
		maxnr = s->samples[i].nr > maxnr ? s->samples[i].nr : maxnr;
	}
	if (!order || !(buf = malloc((maxnr + 1) * sizeof(*buf)))) {
		free(order);
		return -ENOMEM;
	}
	qsort_r(order, s->nr_samples, sizeof(*order), by_time, s->samples);
	struct rp_jfr_buf ev = { 0 };
	for (size_t i = 0; i < s->nr_samples && !rc; i++) {
		const struct rp_sample *smp = &s->samples[order[i]];
		uint32_t th = thread_key(j, smp, &rc), st = stack_key(j, smp, buf, &rc);
		ev.n = 0;
		rp_jfr_varint(&ev, RP_JFR_T_EXECUTION_SAMPLE);
		rp_jfr_varint(&ev, smp->time);
		rp_jfr_varint(&ev, th);
		rp_jfr_varint(&ev, st);
		rp_jfr_varint(&ev, 1);	/* STATE_RUNNABLE: sampled on a CPU */
		rp_jfr_event(out, &ev);
	}
	rp_jfr_buf_free(&ev);
	free(order);
	free(buf);
	return rc ? rc : out->err;
}

/* The pools' entries, in the types' field order (jfr_meta.c). */
static void pool_head(struct rp_jfr_buf *b, enum rp_jfr_type t, size_t n)
{
	rp_jfr_varint(b, t);
	rp_jfr_varint(b, n);
}

static void strtab_pool(struct rp_jfr_buf *b, enum rp_jfr_type t, const struct rp_strtab *st,
			struct rp_strtab *sym, int *rc)
{
	pool_head(b, t, st->n);
	for (size_t i = 0; i < st->n; i++) {
		rp_jfr_varint(b, i + 1);
		if (t == RP_JFR_T_SYMBOL)
			rp_jfr_str(b, st->str[i]);
		else	/* packages: their name's symbol */
			rp_jfr_varint(b, key(sym, st->str[i], rc));
	}
}

static void method_pool(struct jfr *j, struct rp_jfr_buf *b, int *rc)
{
	pool_head(b, RP_JFR_T_METHOD, j->meth.n);
	for (size_t i = 0; i < j->meth.n; i++) {
		char *cls = j->meth.str[i], *name = strchr(cls, '\n'), *desc;
		*name++ = '\0';	/* split in place: the table is not looked up again */
		*(desc = strchr(name, '\n')) = '\0';
		desc++;
		rp_jfr_varint(b, i + 1);
		rp_jfr_varint(b, key(&j->cls, cls, rc));
		rp_jfr_varint(b, key(&j->sym, name, rc));
		rp_jfr_varint(b, key(&j->sym, desc, rc));
		rp_jfr_int(b, 0);	/* modifiers: not recorded */
		rp_jfr_u8(b, 0);	/* hidden */
	}
	pool_head(b, RP_JFR_T_CLASS, j->cls.n);
	for (size_t i = 0; i < j->cls.n; i++) {
		rp_jfr_varint(b, i + 1);
		rp_jfr_varint(b, 0);	/* the class loader: not recorded */
		rp_jfr_varint(b, key(&j->sym, j->cls.str[i], rc));
		rp_jfr_varint(b, j->cls_pkg[i]);
		rp_jfr_int(b, 0);
	}
}

static void stack_pool(struct jfr *j, struct rp_jfr_buf *b)
{
	pool_head(b, RP_JFR_T_STACK_TRACE, j->stacks.n);
	for (size_t i = 0; i < j->stacks.n; i++) {
		const uint32_t *w = &j->stacks.w[j->stacks.at[i]];
		rp_jfr_varint(b, i + 1);
		rp_jfr_u8(b, 0);	/* not truncated */
		rp_jfr_varint(b, w[0]);
		for (uint32_t k = 1; k <= w[0]; k++) {
			const uint32_t *fr = &j->frames.w[j->frames.at[w[k] - 1] + 1];
			rp_jfr_varint(b, fr[0]);
			rp_jfr_int(b, (int32_t)fr[1]);	/* UINT32_MAX: -1, no line */
			rp_jfr_int(b, -1);		/* bytecode index: not recorded */
			rp_jfr_varint(b, fr[2]);
		}
	}
}

static void thread_pool(struct jfr *j, struct rp_jfr_buf *b)
{
	pool_head(b, RP_JFR_T_THREAD, j->nth);
	for (size_t i = 0; i < j->nth; i++) {
		rp_jfr_varint(b, i + 1);
		rp_jfr_str(b, j->th[i].comm ? j->th[i].comm : "");
		rp_jfr_varint(b, j->th[i].tid);
		rp_jfr_str(b, j->th[i].comm ? j->th[i].comm : "");
		rp_jfr_varint(b, 0);	/* no Java thread id: readers show the OS thread */
	}
}

/* The checkpoint event: every pool that has entries (an empty pool is refused). */
static int checkpoint(struct jfr *j, struct rp_jfr_buf *out, uint64_t ticks)
{
	struct rp_jfr_buf b = { 0 };
	int rc = 0;
	rp_jfr_varint(&b, 1);		/* the checkpoint event's type */
	rp_jfr_varint(&b, ticks);
	rp_jfr_varint(&b, 0);		/* duration */
	rp_jfr_varint(&b, 0);		/* delta to the next checkpoint: none */
	rp_jfr_u8(&b, 0);		/* no flush */
	/* symbols last: the other pools key the names they refer to first */
	size_t pools = 2 + !!j->nth + !!j->stacks.n + 2 * !!j->meth.n + !!j->pkg.n + 1;
	rp_jfr_varint(&b, pools);
	pool_head(&b, RP_JFR_T_FRAME_TYPE, RP_JFR_FT__END - 1);
	for (int t = 1; t < RP_JFR_FT__END; t++) {
		rp_jfr_varint(&b, (uint64_t)t);
		rp_jfr_str(&b, rp_jfr_frame_type_name((enum rp_jfr_frame_type)t));
	}
	pool_head(&b, RP_JFR_T_THREAD_STATE, 1);
	rp_jfr_varint(&b, 1);
	rp_jfr_str(&b, "STATE_RUNNABLE");
	if (j->nth)
		thread_pool(j, &b);
	if (j->stacks.n)
		stack_pool(j, &b);
	if (j->meth.n)
		method_pool(j, &b, &rc);
	if (j->pkg.n)
		strtab_pool(&b, RP_JFR_T_PACKAGE, &j->pkg, &j->sym, &rc);
	if (!j->sym.n)	/* a pool is never empty */
		key(&j->sym, "", &rc);
	strtab_pool(&b, RP_JFR_T_SYMBOL, &j->sym, NULL, &rc);
	rp_jfr_event(out, &b);
	rp_jfr_buf_free(&b);
	return rc ? rc : out->err;
}

static void header(struct rp_jfr_buf *h, const struct rp_session *s, uint64_t start,
		   uint64_t end, uint64_t size, uint64_t cp_pos, uint64_t meta_pos)
{
	uint64_t start_ns = start;	/* the recording clock itself when no wall clock is known */
	rp_wall_clock(s, start, &start_ns);
	rp_jfr_put(h, "FLR", 4);	/* with its NUL */
	rp_jfr_be16(h, 2);
	rp_jfr_be16(h, 0);
	rp_jfr_be64(h, size);
	rp_jfr_be64(h, cp_pos);
	rp_jfr_be64(h, meta_pos);
	rp_jfr_be64(h, start_ns);
	rp_jfr_be64(h, end - start);	/* duration, ns */
	rp_jfr_be64(h, start);		/* start ticks */
	rp_jfr_be64(h, 1000000000);	/* ticks per second */
	/* flags: compressed integers (bit 0: every int above is one) and the final chunk */
	static const uint8_t state[4] = { 0, 0, 0, 3 };
	rp_jfr_put(h, state, 4);
}

#define JFR_HEADER_SIZE 68

int rp_write_jfr(FILE *out, const struct rp_session *s)
{
	struct jfr j = { .s = s };
	struct rp_jfr_buf ev = { 0 }, cp = { 0 }, meta = { 0 }, h = { 0 };
	uint64_t start = s->start, end = s->end;
	for (size_t i = 0; i < s->nr_samples; i++) {	/* a span that holds every sample */
		start = !i && !start ? s->samples[i].time : start;
		start = s->samples[i].time < start ? s->samples[i].time : start;
		end = s->samples[i].time > end ? s->samples[i].time : end;
	}
	end = end < start ? start : end;
	int rc = -ENOMEM;
	if (!(j.frame_of = calloc(s->nr_frames + 1, sizeof(*j.frame_of))))
		goto out;
	if ((rc = samples(&j, &ev)) || (rc = checkpoint(&j, &cp, start)))
		goto out;
	rp_jfr_metadata(&meta, start);
	uint64_t cp_pos = JFR_HEADER_SIZE + ev.n, meta_pos = cp_pos + cp.n;
	header(&h, s, start, end, meta_pos + meta.n, cp_pos, meta_pos);
	if ((rc = meta.err ? meta.err : h.err))
		goto out;
	const struct rp_jfr_buf *parts[] = { &h, &ev, &cp, &meta };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i]->n)	/* no events: no buffer at all */
			fwrite(parts[i]->p, 1, parts[i]->n, out);
	rc = ferror(out) ? -EIO : 0;
out:
	rp_strtab_free(&j.sym);
	rp_strtab_free(&j.pkg);
	rp_strtab_free(&j.cls);
	rp_strtab_free(&j.meth);
	rp_jfr_method_free(&j.m);
	jp_str_free(&j.mk);
	jp_str_free(&j.pkg_name);
	free(j.cls_pkg);
	seq_free(&j.frames);
	seq_free(&j.stacks);
	free(j.frame_of);
	free(j.th);
	rp_map_free(&j.th_of);
	rp_jfr_buf_free(&ev);
	rp_jfr_buf_free(&cp);
	rp_jfr_buf_free(&meta);
	rp_jfr_buf_free(&h);
	return rc;
}
