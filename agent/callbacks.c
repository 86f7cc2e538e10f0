/* callbacks.c - the JVMTI events turned into jitdump records: CompiledMethodLoad (code, name,
 * DEBUG_INFO from the innermost frame, the whole inline stack and generation/tier into the
 * companion file), CompiledMethodUnload and DynamicCodeGenerated. Per-thread scratch buffers
 * grow geometrically and are reused, so a compile allocates nothing per pc. */
#include "agent/agent_int.h"
#include "agent/ranges.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jvmticmlr.h>

struct slot {		/* jmethodID -> index in this load's method table */
	jmethodID id;
	uint32_t epoch, idx;
	const struct agent_method *m;
};

struct scratch {
	struct jd_line *lines;
	size_t lines_cap;
	struct jd_inline_pc *pcs;
	size_t pcs_cap;
	struct jd_inline_frame *frames;
	size_t frames_cap;
	struct jd_inline_method *methods;
	size_t methods_cap;
	struct slot *slots;
	size_t slots_cap;	/* power of two */
	uint32_t epoch;
};

_Thread_local int agent_backfilling;
static _Thread_local struct scratch *tls;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_made;

static void scratch_free(void *p)
{
	struct scratch *s = p;

	if (!s)
		return;
	free(s->lines);
	free(s->pcs);
	free(s->frames);
	free(s->methods);
	free(s->slots);
	free(s);
}

static void scratch_key_init(void)
{
	scratch_key_made = pthread_key_create(&scratch_key, scratch_free) == 0;
}

static struct scratch *scratch_get(void)
{
	if (!tls) {
		pthread_once(&scratch_once, scratch_key_init);
		tls = calloc(1, sizeof(*tls));
		if (tls && scratch_key_made)
			pthread_setspecific(scratch_key, tls);
	}
	return tls;
}

/* Grows *p to hold need elements; 0 or -ENOMEM. */
static int reserve(void *pp, size_t *cap, size_t need, size_t elem)
{
	void **p = pp;
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / elem || !(q = realloc(*p, n * elem)))
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Index of method id in this load's method table, adding it (and describing it) if new. */
static int method_index(struct scratch *s, uint32_t *nr_methods, jvmtiEnv *jvmti, jmethodID id,
			const struct agent_method **out)
{
	size_t mask = s->slots_cap - 1, i = ((uintptr_t)id >> 3) & mask;
	const struct agent_method *m;

	for (;; i = (i + 1) & mask) {
		struct slot *sl = &s->slots[i];

		if (sl->epoch != s->epoch) {	/* empty in this load */
			m = agent_method_get(jvmti, id, 1);
			if (!m)
				return -ENOMEM;
			sl->id = id;
			sl->epoch = s->epoch;
			sl->idx = (*nr_methods)++;
			sl->m = m;
			s->methods[sl->idx].name = m->name;
			s->methods[sl->idx].file = m->file;
		} else if (sl->id != id) {
			continue;
		}
		*out = sl->m;
		return (int)sl->idx;
	}
}

static int cmp_pc(const void *a, const void *b)
{
	const struct jd_inline_pc *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Fills s->pcs/frames/methods from compile_info; returns the pc count or -errno. */
static long build_stacks(struct scratch *s, jvmtiEnv *jvmti, const void *compile_info,
			 uint64_t lo, uint64_t hi, uint32_t *nr_methods)
{
	const jvmtiCompiledMethodLoadRecordHeader *h;
	size_t npcs = 0, nframes = 0, np = 0, nf = 0;
	int sorted = 1;

	for (h = compile_info; h; h = h->next) {
		const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;

		if (h->kind != JVMTI_CMLR_INLINE_INFO || h->majorinfoversion != JVMTI_CMLR_MAJOR_VERSION)
			continue;
		for (jint i = 0; i < r->numpcs; i++) {
			npcs++;
			if (r->pcinfo[i].numstackframes > 0)
				nframes += (size_t)r->pcinfo[i].numstackframes;
		}
	}
	/* Worst case every frame is a distinct method; slots stay at most half full. */
	if (reserve(&s->pcs, &s->pcs_cap, npcs, sizeof(*s->pcs)) ||
	    reserve(&s->frames, &s->frames_cap, nframes, sizeof(*s->frames)) ||
	    reserve(&s->methods, &s->methods_cap, nframes, sizeof(*s->methods)))
		return -ENOMEM;
	if (s->slots_cap < 2 * nframes) {
		size_t n = s->slots_cap ? s->slots_cap : 64;

		while (n < 2 * nframes)
			n *= 2;
		free(s->slots);
		s->slots = calloc(n, sizeof(*s->slots));
		s->slots_cap = s->slots ? n : 0;
		s->epoch = 0;
		if (!s->slots)
			return -ENOMEM;
	}
	if (++s->epoch == 0) {	/* wrapped: old stamps could look current */
		memset(s->slots, 0, s->slots_cap * sizeof(*s->slots));
		s->epoch = 1;
	}
	*nr_methods = 0;
	for (h = compile_info; h; h = h->next) {
		const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;

		if (h->kind != JVMTI_CMLR_INLINE_INFO || h->majorinfoversion != JVMTI_CMLR_MAJOR_VERSION)
			continue;
		for (jint i = 0; i < r->numpcs; i++) {
			const PCStackInfo *p = &r->pcinfo[i];
			uint64_t pc = (uintptr_t)p->pc;
			struct jd_inline_pc *out = &s->pcs[np];

			if (pc < lo || pc >= hi || p->numstackframes <= 0)
				continue;
			out->addr = pc;
			out->depth = 0;
			out->frames = NULL;
			for (jint f = 0; f < p->numstackframes; f++) {
				const struct agent_method *m;
				int idx = method_index(s, nr_methods, jvmti, p->methods[f], &m);

				if (idx < 0)
					return idx;
				s->frames[nf + out->depth].method = (uint32_t)idx;
				s->frames[nf + out->depth].line = agent_method_line(m, p->bcis[f]);
				/* kept so a bci the JVM names elsewhere (a deopt trap in its
				 * compilation log) can be put on this line */
				s->frames[nf + out->depth].bci = (int32_t)p->bcis[f];
				out->depth++;
			}
			/* frames[] is final now: pointers into it stay valid. */
			out->frames = &s->frames[nf];
			nf += out->depth;
			if (np > 0 && s->pcs[np - 1].addr > pc)
				sorted = 0;
			np++;
		}
	}
	if (!sorted)
		qsort(s->pcs, np, sizeof(*s->pcs), cmp_pc);
	return (long)np;
}

/* DEBUG_INFO rows from the ranges: per range the innermost frame that has a file and a line (a
 * frame without one, e.g. a hidden class, falls back to its caller's call site), consecutive
 * repeats dropped, one row per address. A range with no line at all (the method-entry
 * descriptor, bci -1) joins the previous row, or the first row when it leads, so the code
 * before the first real line (the prologue) is on the method's first line. */
static size_t build_lines(struct scratch *s, size_t np)
{
	size_t n = 0;

	if (reserve(&s->lines, &s->lines_cap, np, sizeof(*s->lines)))
		return 0;
	for (size_t i = 0; i < np; i++) {
		const struct jd_inline_pc *p = &s->pcs[i];
		const char *file = NULL;
		int32_t line = 0;
		struct jd_line *l;

		for (uint32_t f = 0; f < p->depth; f++) {
			const struct jd_inline_method *m = &s->methods[p->frames[f].method];

			if (p->frames[f].line > 0 && m->file[0]) {
				file = m->file;
				line = p->frames[f].line;
				break;
			}
		}
		if (!file)
			continue;
		if (n > 0 && s->lines[n - 1].addr == p->addr)
			n--;	/* the later scope at one pc wins */
		if (n > 0 && s->lines[n - 1].line == line && strcmp(s->lines[n - 1].file, file) == 0)
			continue;
		l = &s->lines[n++];
		l->addr = n == 1 ? s->pcs[0].addr : p->addr;
		l->line = line;
		l->discrim = 0;
		l->file = file;
	}
	return n;
}

static void write_failed(const char *what, int rc)
{
	agent_fail("cannot write %s to %s: %s", what, jd_writer_path(agent_g.w), strerror(-rc));
}

void JNICALL agent_on_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				    const void *code_addr, jint map_length,
				    const jvmtiAddrLocationMap *map, const void *compile_info)
{
	uint64_t t0 = agent_now_ns(), lo = (uintptr_t)code_addr, code_index = 0;
	struct jd_ext_load_info info = { .tier = JD_TIER_UNKNOWN, .level = -1, .compile_id = -1,
					 .osr_bci = -1, .flags = JD_LOAD_IDS };
	struct agent_nmethod nm;
	struct jd_ext_inline inl = { 0 };
	struct jd_load_desc d = { 0 };
	const struct agent_options *o = &agent_g.opt;
	struct agent_method *m;
	struct scratch *s;
	unsigned loads;
	int rc;

	(void)map_length;
	(void)map;
	if (code_size <= 0 || !agent_enter())
		return;
	m = agent_method_get(jvmti, method, o->lines || o->inline_stacks);
	s = scratch_get();
	if (!m || !s) {
		atomic_fetch_add(&agent_g.st.dropped, 1);
		goto out;
	}
	loads = atomic_fetch_add(&m->loads, 1) + 1;
	info.generation = agent_backfilling ? 0 : loads;
	info.flags |= agent_backfilling ? JD_LOAD_BACKFILLED : 0;
	if (agent_tier_lookup(code_addr, (uint64_t)code_size, &nm) == 0) {
		info.level = nm.level;
		info.compile_id = nm.compile_id;
		info.osr_bci = nm.osr_bci;
		/* level 0: a native wrapper or method-handle intrinsic, no compiler tier */
		info.tier = info.level >= 4 ? JD_TIER_C2 : info.level >= 1 ? JD_TIER_C1
					    : JD_TIER_OTHER;
		if (nm.osr_bci >= 0)
			info.flags |= JD_LOAD_OSR;
	}
	d.name = m->name;
	d.code_addr = lo;
	d.code = code_addr;
	d.code_size = (uint64_t)code_size;
	d.info = &info;
	if ((o->lines || o->inline_stacks) && compile_info) {
		uint32_t nr_methods = 0;
		long np = build_stacks(s, jvmti, compile_info, lo, lo + (uint64_t)code_size,
				       &nr_methods);

		if (np > 0)
			np = (long)agent_pcs_to_ranges(s->pcs, (size_t)np, lo);
		if (np > 0 && o->lines) {
			d.nr_lines = build_lines(s, (size_t)np);	/* may move s->lines */
			d.lines = s->lines;
		}
		if (np > 0 && o->inline_stacks) {
			inl.nr_methods = nr_methods;
			inl.nr_pcs = (uint32_t)np;
			inl.methods = s->methods;
			inl.pcs = s->pcs;
			inl.flags = JD_INLINE_BCI;
			d.inl = &inl;
		}
	}
	rc = jd_write_load(agent_g.w, &d, &code_index);
	if (rc < 0) {
		write_failed(m->name, rc);
		goto out;
	}
	atomic_fetch_add(&agent_g.st.loads, 1);
	atomic_fetch_add(&agent_g.st.records, 2u + (d.nr_lines > 0) + (d.inl != NULL));
	if (o->unload)
		agent_addr_put(lo, code_index);
out:
	agent_leave(t0);
}

void JNICALL agent_on_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
	uint64_t t0 = agent_now_ns();
	struct jd_ext_unload u = { .code_addr = (uintptr_t)code_addr, .pid = (uint32_t)getpid() };
	int rc;

	(void)jvmti;
	(void)method;
	if (!agent_enter())
		return;
	u.code_index = agent_addr_take(u.code_addr);
	rc = jd_write_unload(agent_g.w, &u, jd_writer_now(agent_g.w));
	if (rc < 0)
		write_failed("an unload", rc);
	else {
		atomic_fetch_add(&agent_g.st.unloads, 1);
		atomic_fetch_add(&agent_g.st.records, 1);
	}
	agent_leave(t0);
}

void JNICALL agent_on_dynamic_code(jvmtiEnv *jvmti, const char *name, const void *address,
				   jint length)
{
	uint64_t t0 = agent_now_ns();
	struct jd_ext_load_info info = { .tier = JD_TIER_STUB, .level = -1 };
	struct jd_load_desc d = { 0 };
	int rc;

	(void)jvmti;
	if (length <= 0 || !name || !agent_enter())
		return;
	info.generation = agent_backfilling ? 0 : agent_stub_generation(name);
	info.flags = agent_backfilling ? JD_LOAD_BACKFILLED : 0;
	d.name = name;
	d.code_addr = (uintptr_t)address;
	d.code = address;
	d.code_size = (uint64_t)length;
	d.info = &info;
	rc = jd_write_load(agent_g.w, &d, NULL);
	if (rc < 0)
		write_failed(name, rc);
	else {
		atomic_fetch_add(&agent_g.st.loads, 1);
		atomic_fetch_add(&agent_g.st.records, 2);
	}
	agent_leave(t0);
}

void agent_callbacks_free(void)
{
	scratch_free(tls);	/* the calling thread's; others go with their threads */
	tls = NULL;
	if (scratch_key_made)
		pthread_setspecific(scratch_key, NULL);
}
