/* methods.c - what the agent remembers between callbacks: per jmethodID its name, source file
 * and sorted line table (so a compile costs JVMTI calls only for methods never seen before, not
 * one call per pc as perf's agent does), the load counter behind generations, stub name counts
 * and the live code address -> code_index map used to tie unloads to loads. */
#include "agent/agent_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define METHOD_BUCKETS (1u << 16)
#define STUB_BUCKETS   (1u << 10)
#define ADDR_BUCKETS   (1u << 16)

struct stub_name {
	struct stub_name *next;
	uint32_t count;
	char name[];
};

struct addr_ent {
	struct addr_ent *next;
	uint64_t addr, code_index;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct agent_method **methods;
static struct stub_name **stubs;
static struct addr_ent **addrs;
static struct addr_ent *addr_free;

static uint32_t hash_ptr(uint64_t p, uint32_t buckets)
{
	p ^= p >> 29;
	p *= 0xbf58476d1ce4e5b9ull;
	p ^= p >> 32;
	return (uint32_t)p & (buckets - 1);
}

static uint32_t hash_str(const char *s, uint32_t buckets)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h & (buckets - 1);
}

/* Lazily allocates a bucket array; call with mu held. */
static int ensure(void *pp, uint32_t buckets)
{
	void **p = pp;

	if (!*p)
		*p = calloc(buckets, sizeof(void *));
	return *p ? 0 : -1;
}

static struct agent_method *find_locked(jmethodID id)
{
	struct agent_method *m;

	if (!methods)
		return NULL;
	for (m = methods[hash_ptr((uintptr_t)id, METHOD_BUCKETS)]; m; m = m->next)
		if (m->id == id)
			return m;
	return NULL;
}

static void jvmti_free(jvmtiEnv *jvmti, void *p)
{
	if (p)
		(*jvmti)->Deallocate(jvmti, p);
}

char *agent_source_path(const char *csig, const char *srcfile)
{
	const char *pkg = csig[0] == 'L' ? csig + 1 : csig;
	const char *slash = strrchr(pkg, '/');
	size_t pn = slash ? (size_t)(slash - pkg) + 1 : 0;
	size_t fn = strlen(srcfile);
	char *out = malloc(pn + fn + 1);

	if (!out)
		return NULL;
	memcpy(out, pkg, pn);
	memcpy(out + pn, srcfile, fn + 1);
	return out;
}

static int cmp_line(const void *a, const void *b)
{
	const struct agent_line *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void load_lines(jvmtiEnv *jvmti, jmethodID id, struct agent_method *m)
{
	jvmtiLineNumberEntry *tab = NULL;
	jint n = 0;

	if ((*jvmti)->GetLineNumberTable(jvmti, id, &n, &tab) != JVMTI_ERROR_NONE || n <= 0)
		goto out;
	m->lines = malloc((size_t)n * sizeof(*m->lines));
	if (!m->lines)
		goto out;
	for (jint i = 0; i < n; i++) {
		m->lines[i].start = tab[i].start_location;
		m->lines[i].line = tab[i].line_number;
	}
	m->nr_lines = (uint32_t)n;
	qsort(m->lines, m->nr_lines, sizeof(*m->lines), cmp_line);
out:
	jvmti_free(jvmti, tab);
}

/* Asks the JVM about one method. Never fails outright: unknown parts stay "?" / "". */
static struct agent_method *describe(jvmtiEnv *jvmti, jmethodID id, int want_lines)
{
	struct agent_method *m = calloc(1, sizeof(*m));
	char *mname = NULL, *msig = NULL, *csig = NULL, *src = NULL;
	jclass klass = NULL;
	JNIEnv *env = NULL;

	if (!m)
		return NULL;
	m->id = id;
	(*jvmti)->GetMethodName(jvmti, id, &mname, &msig, NULL);
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, id, &klass) == JVMTI_ERROR_NONE && klass) {
		(*jvmti)->GetClassSignature(jvmti, klass, &csig, NULL);
		if (csig && (*jvmti)->GetSourceFileName(jvmti, klass, &src) == JVMTI_ERROR_NONE && src)
			m->file = agent_source_path(csig, src);
		/* Compiles with deep inlining would pile up local refs on the posting thread. */
		if (agent_g.vm && (*agent_g.vm)->GetEnv(agent_g.vm, (void **)&env, JNI_VERSION_1_6) ==
		    JNI_OK && env)
			(*env)->DeleteLocalRef(env, klass);
	}
	if (asprintf(&m->name, "%s%s%s", csig ? csig : "?", mname ? mname : "?",
		     msig ? msig : "") < 0)
		m->name = NULL;
	if (!m->file)
		m->file = strdup("");
	if (want_lines)
		load_lines(jvmti, id, m);
	jvmti_free(jvmti, mname);
	jvmti_free(jvmti, msig);
	jvmti_free(jvmti, csig);
	jvmti_free(jvmti, src);
	if (!m->name || !m->file) {
		free(m->name);
		free(m->file);
		free(m->lines);
		free(m);
		return NULL;
	}
	return m;
}

static void method_free(struct agent_method *m)
{
	free(m->name);
	free(m->file);
	free(m->lines);
	free(m);
}

struct agent_method *agent_method_get(jvmtiEnv *jvmti, jmethodID id, int want_lines)
{
	struct agent_method *m, *fresh;

	pthread_mutex_lock(&mu);
	m = find_locked(id);
	pthread_mutex_unlock(&mu);
	if (m)
		return m;
	/* JVMTI calls outside our lock: they may wait for a safepoint. */
	fresh = describe(jvmti, id, want_lines);
	if (!fresh)
		return NULL;
	pthread_mutex_lock(&mu);
	m = find_locked(id);
	if (!m && ensure(&methods, METHOD_BUCKETS) == 0) {
		uint32_t b = hash_ptr((uintptr_t)id, METHOD_BUCKETS);

		fresh->next = methods[b];
		methods[b] = fresh;
		m = fresh;
		fresh = NULL;
	}
	pthread_mutex_unlock(&mu);
	if (fresh)
		method_free(fresh);
	return m;
}

int32_t agent_method_line(const struct agent_method *m, jlocation bci)
{
	uint32_t lo = 0, hi = m->nr_lines;

	if (hi == 0 || bci < m->lines[0].start)
		return 0;
	while (hi - lo > 1) {	/* last entry with start <= bci */
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->lines[mid].start <= bci)
			lo = mid;
		else
			hi = mid;
	}
	return m->lines[lo].line;
}

uint32_t agent_stub_generation(const char *name)
{
	struct stub_name *s;
	uint32_t b, gen = 0;

	pthread_mutex_lock(&mu);
	if (ensure(&stubs, STUB_BUCKETS))
		goto out;
	b = hash_str(name, STUB_BUCKETS);
	for (s = stubs[b]; s; s = s->next)
		if (strcmp(s->name, name) == 0)
			break;
	if (!s) {
		size_t n = strlen(name);

		s = malloc(sizeof(*s) + n + 1);
		if (!s)
			goto out;
		memcpy(s->name, name, n + 1);
		s->count = 0;
		s->next = stubs[b];
		stubs[b] = s;
	}
	gen = ++s->count;
out:
	pthread_mutex_unlock(&mu);
	return gen;
}

void agent_addr_put(uint64_t addr, uint64_t code_index)
{
	struct addr_ent *e;
	uint32_t b;

	pthread_mutex_lock(&mu);
	if (ensure(&addrs, ADDR_BUCKETS))
		goto out;
	b = hash_ptr(addr, ADDR_BUCKETS);
	for (e = addrs[b]; e; e = e->next)
		if (e->addr == addr) {	/* reused before its unload was posted */
			e->code_index = code_index;
			goto out;
		}
	e = addr_free;
	if (e)
		addr_free = e->next;
	else if (!(e = malloc(sizeof(*e))))
		goto out;
	e->addr = addr;
	e->code_index = code_index;
	e->next = addrs[b];
	addrs[b] = e;
out:
	pthread_mutex_unlock(&mu);
}

uint64_t agent_addr_take(uint64_t addr)
{
	struct addr_ent **pp, *e;
	uint64_t idx = 0;

	pthread_mutex_lock(&mu);
	if (!addrs)
		goto out;
	for (pp = &addrs[hash_ptr(addr, ADDR_BUCKETS)]; (e = *pp); pp = &e->next)
		if (e->addr == addr) {
			idx = e->code_index;
			*pp = e->next;
			e->next = addr_free;
			addr_free = e;
			break;
		}
out:
	pthread_mutex_unlock(&mu);
	return idx;
}

static void free_chains(void **arr, uint32_t buckets, int is_method)
{
	if (!arr)
		return;
	for (uint32_t i = 0; i < buckets; i++) {
		void *p = arr[i];

		while (p) {
			void *next = is_method ? (void *)((struct agent_method *)p)->next
					       : *(void **)p;	/* next is first in the others */
			if (is_method)
				method_free(p);
			else
				free(p);
			p = next;
		}
	}
	free(arr);
}

void agent_methods_free(void)
{
	struct addr_ent *e;

	pthread_mutex_lock(&mu);
	free_chains((void **)methods, METHOD_BUCKETS, 1);
	free_chains((void **)stubs, STUB_BUCKETS, 0);
	free_chains((void **)addrs, ADDR_BUCKETS, 0);
	while ((e = addr_free)) {
		addr_free = e->next;
		free(e);
	}
	methods = NULL;
	stubs = NULL;
	addrs = NULL;
	pthread_mutex_unlock(&mu);
}
