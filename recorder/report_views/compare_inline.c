/* compare_inline.c - the part of --compare that reads the JVM's log: the inlining decisions
 * two compiles of one method made differently (compare.c prints the rest). */
#include <string.h>

#include "recorder/report_views/views_int.h"

static int same_site(const struct rp_jvm_inline *x, const struct rp_jvm_inline *y)
{
	return x->bci == y->bci && !strcmp(x->callee ? x->callee : "", y->callee ? y->callee : "") &&
	       !strcmp(x->caller ? x->caller : "", y->caller ? y->caller : "");
}

static const struct rp_jvm_inline *find_site(const struct rp_jvm_code *c,
					     const struct rp_jvm_inline *x)
{
	for (size_t i = 0; c && i < c->nr_inl; i++)
		if (same_site(&c->inl[i], x))
			return &c->inl[i];
	return NULL;
}

static void print_decision(FILE *out, const char *side, const struct rp_jvm_inline *d)
{
	fprintf(out, "     %s %s at %s bci %d: %s (%s)\n", side, d->callee ? d->callee : "?",
		d->caller ? d->caller : "?", d->bci, d->ok ? "inlined" : "not inlined",
		d->why ? d->why : "");
}

void rp_compare_inline_diff(FILE *out, const struct rp_load *la, const struct rp_load *lb)
{
	const struct rp_jvm_code *a = la->jvm, *b = lb->jvm;
	size_t n = 0;
	fprintf(out, "\n# Inlining decisions that differ\n");
	if (!a || !b) {
		fprintf(out, "  (need the JVM's compilation log: --jvm-log FILE%s)\n",
			a || b ? "; one generation was not found in it" : "");
		return;
	}
	for (size_t i = 0; i < a->nr_inl; i++) {
		const struct rp_jvm_inline *x = &a->inl[i], *y = find_site(b, x);
		if (y && x->ok == y->ok)
			continue;
		print_decision(out, "A:", x);
		if (y)
			print_decision(out, "B:", y);
		else
			fprintf(out, "     B: no such call site\n");
		n++;
	}
	for (size_t i = 0; i < b->nr_inl; i++) {
		if (find_site(a, &b->inl[i]))
			continue;
		fprintf(out, "     A: no such call site\n");
		print_decision(out, "B:", &b->inl[i]);
		n++;
	}
	if (!n)
		fprintf(out, "  none (%zu and %zu decisions)\n", a->nr_inl, b->nr_inl);
}
