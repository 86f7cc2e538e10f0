/* sites.c - where a compile inlined what, from the agent's inline stacks: each pc's frames
 * pair a callee with its caller and the caller's line, i.e. the call site's source line.
 * HotSpot's compilation log names call sites by bytecode index only; these lines are what
 * the generations view shows for its inlining decisions. With bcis (INLINE version 2) every
 * frame is also a (method, bci, line) triple: the exact line of a call site's or a deopt
 * trap's bci, where the log has only the bci. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "lib/nomem.h"
#include "lib/strbuf.h"
#include "recorder/report_model/model.h"

/* "Lpkg/Cls;name(sig)R" (JVMTI's class signature + method) -> "pkg.Cls.name", the log's form,
 * whole (buf: the caller's, reused). */
static const char *log_name(struct rp_session *s, const char *jvm, struct jp_str *buf)
{
	const char *p = jvm && jvm[0] == 'L' ? jvm + 1 : jvm;
	if (!p)
		return NULL;
	jp_str_clear(buf);
	jp_str_append(buf, p, strcspn(p, "("));
	for (char *q = buf->s; *q; q++)
		if (*q == '/' || *q == ';')
			*q = '.';
	return rp_intern(s, buf->s);
}

/* Appends x (size bytes) to *v unless an equal element is there; -ENOMEM. */
static int add_once(void **v, size_t *n, size_t *cap, const void *x, size_t size)
{
	for (size_t j = 0; j < *n; j++)
		if (!memcmp((char *)*v + j * size, x, size))
			return 0;	/* seen at another pc */
	if (jp_grow(v, cap, *n + 1, size, 16))
		return -ENOMEM;
	memcpy((char *)*v + (*n)++ * size, x, size);
	return 0;
}

static void keep_bci_lines(struct rp_session *s, const struct jd_ext_inline *in,
			   const char **names, struct rp_load *l)
{
	struct rp_bci_line *v = NULL;
	size_t n = 0, cap = 0;
	for (uint32_t i = 0; (in->flags & JD_INLINE_BCI) && i < in->nr_pcs; i++) {
		const struct jd_inline_pc *pc = &in->pcs[i];
		for (uint32_t k = 0; k < pc->depth; k++) {
			const struct jd_inline_frame *f = &pc->frames[k];
			if (f->method >= in->nr_methods || f->bci < 0 || f->line <= 0)
				continue;
			struct rp_bci_line b = { names[f->method], f->bci, (uint32_t)f->line };
			if (add_once((void **)&v, &n, &cap, &b, sizeof(b)))
				goto out;
		}
	}
	if (n) {
		l->bci_lines = (const void *)rp_keep_bytes(s, v, n * sizeof(*v));
		l->nr_bci_lines = l->bci_lines ? n : 0;
	}
out:
	free(v);
}

void rp_keep_call_sites(struct rp_session *s, const struct jd_ext_inline *in, struct rp_load *l)
{
	struct rp_call_site *v = NULL;
	const char **names;
	size_t n = 0, cap = 0;
	if (!in || !in->nr_methods || !(names = calloc(in->nr_methods, sizeof(*names))))
		return;
	struct jp_str buf = { 0 };
	for (uint32_t m = 0; m < in->nr_methods; m++)
		names[m] = log_name(s, in->methods[m].name, &buf);
	if (jp_str_free(&buf))
		jp_nomem("an inlined method's name");	/* no error path: no site is no answer */
	keep_bci_lines(s, in, names, l);
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		const struct jd_inline_pc *pc = &in->pcs[i];
		for (uint32_t k = 0; k + 1 < pc->depth; k++) {
			const struct jd_inline_frame *callee = &pc->frames[k], *caller = &pc->frames[k + 1];
			if (callee->method >= in->nr_methods || caller->method >= in->nr_methods ||
			    caller->line <= 0)
				continue;
			struct rp_call_site c;
			memset(&c, 0, sizeof(c));	/* padding too: add_once compares bytes */
			c.callee = names[callee->method];
			c.caller = names[caller->method];
			c.line = (uint32_t)caller->line;
			if (add_once((void **)&v, &n, &cap, &c, sizeof(c)))
				goto out;
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

static int dot_char(char c)
{
	return c == '/' || c == ';' || c == ' ' ? '.' : c;
}

/* Whether m ("pkg.Cls name (sig)" / "pkg/Cls.name" / "Lpkg/Cls;name(sig)") is dotted, the
 * log's "pkg.Cls.name": compared in place, so no copy can cut a long name. */
static int dotted_eq(const char *m, const char *dotted)
{
	if (m[0] == 'L' && strchr(m, ';'))
		m++;
	size_t n = strcspn(m, "(");
	while (n > 0 && dot_char(m[n - 1]) == '.')	/* the space before " (sig)" */
		n--;
	for (size_t i = 0; i < n; i++)
		if (dot_char(m[i]) != dotted[i])
			return 0;
	return !dotted[n];
}

uint32_t rp_bci_line(const struct rp_load *l, const char *method, int32_t bci)
{
	uint32_t line = 0;
	if (!method || bci < 0 || !l->nr_bci_lines)
		return 0;
	for (size_t i = 0; i < l->nr_bci_lines; i++) {
		const struct rp_bci_line *b = &l->bci_lines[i];
		if (b->bci != bci || !dotted_eq(method, b->method))
			continue;
		if (line && line != b->line)
			return 0;	/* overloads sharing a name: which one is unknown */
		line = b->line;
	}
	return line;
}

uint32_t rp_call_site_line(const struct rp_load *l, const char *callee, const char *caller,
			   int32_t bci)
{
	/* The caller's frame at the callee's pcs stands at the call's bci: exact. */
	uint32_t line = rp_bci_line(l, caller, bci);
	if (line)
		return line;
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
