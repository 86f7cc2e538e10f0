/* sites.c - where a compile inlined what, from the agent's inline stacks: each pc's frames
 * pair a callee with its caller and the caller's line, i.e. the call site's source line.
 * HotSpot's compilation log names call sites by bytecode index only; these lines are what
 * the generations view shows for its inlining decisions. */
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report/report_int.h"

/* "Lpkg/Cls;name(sig)R" (JVMTI's class signature + method) -> "pkg.Cls.name", the log's form. */
static const char *log_name(struct rp_session *s, const char *jvm)
{
	char buf[1024];
	size_t n = 0;
	const char *p = jvm && jvm[0] == 'L' ? jvm + 1 : jvm;
	if (!p)
		return NULL;
	for (; *p && *p != '(' && n + 1 < sizeof(buf); p++)
		buf[n++] = *p == '/' || *p == ';' ? '.' : *p;
	buf[n] = '\0';
	return rp_intern(s, buf);
}

void rp_keep_call_sites(struct rp_session *s, const struct jd_ext_inline *in, struct rp_load *l)
{
	struct rp_call_site *v = NULL;
	const char **names;
	size_t n = 0, cap = 0;
	if (!in || !in->nr_methods || !(names = calloc(in->nr_methods, sizeof(*names))))
		return;
	for (uint32_t m = 0; m < in->nr_methods; m++)
		names[m] = log_name(s, in->methods[m].name);
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		const struct jd_inline_pc *pc = &in->pcs[i];
		for (uint32_t k = 0; k + 1 < pc->depth; k++) {
			const struct jd_inline_frame *callee = &pc->frames[k], *caller = &pc->frames[k + 1];
			if (callee->method >= in->nr_methods || caller->method >= in->nr_methods ||
			    caller->line <= 0)
				continue;
			struct rp_call_site c = { names[callee->method], names[caller->method],
						  (uint32_t)caller->line };
			size_t j = 0;
			while (j < n && memcmp(&v[j], &c, sizeof(c)))
				j++;
			if (j < n)
				continue;	/* seen at another pc */
			if (n == cap) {
				struct rp_call_site *g = realloc(v, (cap ? 2 * cap : 16) * sizeof(*v));
				if (!g)
					goto out;
				v = g;
				cap = cap ? 2 * cap : 16;
			}
			v[n++] = c;
		}
	}
	if (n) {
		l->sites = (const void *)rp_keep_bytes(s, v, n * sizeof(*v));
		l->nr_sites = l->sites ? n : 0;
	}
out:
	free(v);
	free(names);
}

uint32_t rp_call_site_line(const struct rp_load *l, const char *callee, const char *caller)
{
	uint32_t line = 0;
	for (size_t i = 0; callee && caller && i < l->nr_sites; i++) {
		const struct rp_call_site *c = &l->sites[i];
		if (strcmp(c->callee, callee) || strcmp(c->caller, caller))
			continue;
		if (line && line != c->line)
			return 0;	/* called from two lines: which one the bci is, is unknown */
		line = c->line;
	}
	return line;
}
