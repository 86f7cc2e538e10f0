/* methods_groups.c - `report --methods`' second table: the samples outside jitted methods,
 * one group per kind of code (kernel, the JVM, the runtime's stubs and interpreter, code in
 * no mapping, then each library), with the heaviest symbols of each; and the names a method
 * row uses (the runtime's noun, V8's tier marks). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report_views/methods_view.h"

const struct mv_v8_mark mv_v8_marks[MV_NR_V8] = {
	{ "JS:*", "optimized by V8's TurboFan" }, { "JS:~", "interpreted (V8's Ignition bytecode)" },
	{ "JS:^", "baseline code (V8's Sparkplug)" }, { "JS:+", "mid-tier code (V8's Maglev)" },
};

static const char K_KERNEL[] = "kernel", K_STUBS[] = "stubs",
		  K_UNKNOWN[] = "unknown";

/* V8 names its own code "Kind:name" ("Builtin:LoadIC", "BytecodeHandler:Add"), a function
 * "JS:*name" (a tier mark after the kind): the former is the runtime's, not a method. */
static int v8_runtime_name(const char *n)
{
	const char *p = n;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
		p++;
	return p != n && *p == ':' && p[1] && !strchr("~^+*", p[1]);
}

int mv_is_method(const struct rp_session *s, const struct rp_frame *f)
{
	return rp_frame_jitted(s, f) && !v8_runtime_name(f->sym);
}

/* The group of a row's frame: a kind's fixed key, else its DSO. */
static const char *group_key(const struct rp_session *s, const struct rp_frame *f)
{
	if (f->flags & RP_FRAME_KERNEL)
		return K_KERNEL;
	if (f->load && f->load <= s->nr_loads)
		return K_STUBS;	/* a load not a method's: runtime code (V8's builtins too) */
	if (f->sym && !strcmp(f->sym, "Interpreter"))
		return K_STUBS;
	if (!f->dso || !strcmp(f->dso, "[unknown]"))
		return K_UNKNOWN;
	return f->dso;
}

/* A group's fixed label, or NULL for a library's ("native: LIB", made whole by the caller). */
static const char *group_label(const char *key)
{
	if (key == K_KERNEL)
		return "kernel";
	if (key == K_STUBS)
		return "JIT runtime code: interpreter, stubs, builtins";
	if (key == K_UNKNOWN)
		return "code in no known mapping (unknown)";
	if (!strcmp(key, "libjvm.so"))
		return "JVM (libjvm.so)";
	if (!strcmp(key, "node"))
		return "node (V8 and its runtime)";
	return NULL;
}

static int by_period(const void *a, const void *b)
{
	const struct mv_group *x = a, *y = b;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->label, y->label);
}

int mv_groups_build(struct mv_groups *g, const struct rp_session *s, const struct rp_hist *h)
{
	memset(g, 0, sizeof(*g));
	size_t cap = 0;
	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct rp_entry *e = &h->entries[i];
		if (mv_is_method(s, e->leaf))
			continue;
		const char *key = group_key(s, e->leaf);
		size_t k = 0;
		while (k < g->n && g->v[k].key != key)	/* DSO names are interned */
			k++;
		if (k == g->n) {
			if (rp_grow(&g->v, &cap, g->n + 1, sizeof(*g->v))) {
				mv_groups_free(g);
				return -ENOMEM;
			}
			memset(&g->v[k], 0, sizeof(g->v[k]));
			g->v[k].key = key;
			g->n++;
		}
		struct mv_group *gr = &g->v[k];
		gr->period += e->period;
		gr->samples += e->samples;
		if (gr->nr_top < sizeof(gr->top) / sizeof(gr->top[0]))
			gr->top[gr->nr_top++] = e;	/* entries come heaviest first */
	}
	/* Labels made once the groups stopped moving: a library's is its own buffer. */
	for (size_t k = 0; k < g->n; k++) {
		const char *l = group_label(g->v[k].key);
		char *own = NULL;
		g->v[k].owned = !l;
		g->v[k].label = l ? l : asprintf(&own, "native: %s", g->v[k].key) < 0 ? NULL : own;
		if (!g->v[k].label) {
			mv_groups_free(g);
			return -ENOMEM;
		}
	}
	if (g->n > 1)
		qsort(g->v, g->n, sizeof(*g->v), by_period);
	return 0;
}

void mv_groups_free(struct mv_groups *g)
{
	for (size_t k = 0; k < g->n; k++)
		if (g->v[k].owned)
			free((char *)g->v[k].label);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

const char *mv_runtime_noun(const struct rp_session *s, const struct rp_frame *f)
{
	for (size_t i = 0; i < MV_NR_V8; i++)
		if (f->sym && !strncmp(f->sym, mv_v8_marks[i].prefix, 4))
			return "JavaScript function";
	const struct rp_load *l = f->load && f->load <= s->nr_loads ? &s->loads[f->load - 1]
								       : NULL;
	if (f->flags & RP_FRAME_INTERPRETED)	/* named from HotSpot's interpreter frames */
		return "Java method";
	if (l && (l->tier == JD_TIER_C1 || l->tier == JD_TIER_C2 ||
		  l->tier == JD_TIER_INTERPRETER))
		return "Java method";
	return "jitted method";
}

unsigned mv_name_tag(const struct rp_session *s)
{
	return RP_NAME_IMARK | (rp_split_generations(s) ? RP_NAME_GEN : 0);
}
