/* index_methods.c - the companion's method table (JD_EXT_METHOD records) as the index keeps
 * it: an array sorted by (method pointer, time) for a binary search per interpreter frame,
 * and the runtime's frame layout (JD_EXT_VM, the last one read). */
#include "jitdump/jd_int.h"
#include "jitdump/index_int.h"

#include <stdlib.h>

const struct jd_ext_method *jd_method_copy(struct jd_arena *a, const struct jd_ext_method *m)
{
	struct jd_ext_method *c = jd_arena_dup(a, m, sizeof(*m));
	const char *n = jd_arena_dup(a, m->name, strlen(m->name) + 1);
	const char *f = jd_arena_dup(a, m->file, strlen(m->file) + 1);
	if (!c || !n || !f)
		return NULL;
	c->lines = m->nr_lines ? jd_arena_dup(a, m->lines, m->nr_lines * sizeof(*m->lines)) : NULL;
	if (m->nr_lines && !c->lines)
		return NULL;
	c->name = n;
	c->file = f;
	return c;
}

int jd_method_tab_add(struct jd_method_tab *t, const struct jd_ext_method *m, uint64_t time)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		void *v = realloc(t->v, cap * sizeof(*t->v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct jd_method_slot){ m->method, time, t->n, m };
	return 0;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct jd_method_slot *x = a, *y = b;
	if (x->method != y->method)
		return x->method < y->method ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;	/* file order among equal times */
}

void jd_method_tab_finish(struct jd_method_tab *t)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_slot);
}

const struct jd_ext_method *jd_method_tab_find(const struct jd_method_tab *t, uint64_t method,
					       uint64_t time)
{
	size_t lo = 0, hi = t->n;
	/* The first slot of method, then the last of its run at or before time. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].method < method)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->n || t->v[lo].method != method)
		return NULL;
	size_t best = lo;
	for (size_t i = lo + 1; i < t->n && t->v[i].method == method && t->v[i].time <= time; i++)
		best = i;
	return t->v[best].m;
}

void jd_method_tab_free(struct jd_method_tab *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
