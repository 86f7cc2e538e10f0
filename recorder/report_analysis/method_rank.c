/* method_rank.c - method-centric rows (issue 36 item 4): a jitted method is one row whatever
 * generation's ELF ran it, and a sample counts for its innermost method, the one a compiled
 * caller inlined included (marked _[i]), where the time is: perf's symbol of the ip is the
 * caller that holds the code. --split-generations, or a dso key, keeps perf's rows. */
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"

/* An inlined frame carries no load (the ip's frame after it does): it is a row's frame only
 * when rp_method_frame took it, that is when its code is a jitted method's. An interpreted
 * frame the unwinder named is a method's too, though its load is the interpreter's (runtime
 * code): a -Xint program's samples were all "JIT runtime code" and none a method's. */
int rp_frame_jitted(const struct rp_session *s, const struct rp_frame *f)
{
	if (f->flags & RP_METHOD_MARKS)
		return f->sym != NULL;
	return f->sym && f->load && f->load <= s->nr_loads && !s->loads[f->load - 1].runtime;
}

const struct rp_frame *rp_method_frame(const struct rp_session *s, const struct rp_sample *smp)
{
	/* Inlined frames come first, innermost first; only a jitted method's are methods (a C
	 * function's DWARF inlines keep perf's symbol of the ip). */
	const struct rp_frame *ip = rp_leaf(s, smp);
	if (smp->nr && rp_frame_jitted(s, ip)) {
		const struct rp_frame *f = rp_chain_frame(s, smp->first);
		if ((f->flags & RP_FRAME_INLINED) && f->sym)
			return f;
	}
	return ip;
}

int rp_method_cmp(const struct rp_session *s, const struct rp_frame *a, const struct rp_frame *b)
{
	int ja = rp_frame_jitted(s, a), jb = rp_frame_jitted(s, b);
	if (ja != jb)
		return ja ? -1 : 1;	/* never the same row; jitted first on equal periods */
	if (a->sym != b->sym) {
		int c = strcmp(a->sym, b->sym);
		if (c)
			return c;
	}
	return (int)(a->flags & RP_METHOD_MARKS) - (int)(b->flags & RP_METHOD_MARKS);
}

void rp_hist_method_mode(struct rp_hist *h)
{
	int sym = 0, own = 0, line = 0;
	for (int k = 0; k < h->nr_keys; k++) {
		sym |= h->keys[k] == RP_KEY_SYM;
		own |= h->keys[k] == RP_KEY_DSO || h->keys[k] == RP_KEY_GENERATION;
		line |= h->keys[k] == RP_KEY_SRCLINE;
	}
	/* With a dso or generation key every generation's ELF is its own row anyway, as perf's
	 * (and the generation is the ip's load's); with a srcline key the row's line stays the
	 * ip's (perf's sym,srcline pairs). */
	h->merge_gens = sym && !own && !rp_split_generations(h->s);
	h->innermost = h->merge_gens && !line;
}
