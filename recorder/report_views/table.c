/* table.c - the human table, headed and aligned like `perf report --stdio --no-children`,
 * with an optional call graph under each row (callee or caller order, perf's graph style:
 * absolute percentages, branches under a threshold hidden). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/report_views/views_int.h"

static const char *const headers[RP_KEY__MAX] = {
	[RP_KEY_COMM] = "Command", [RP_KEY_PID] = "Pid:Command", [RP_KEY_DSO] = "Shared Object",
	[RP_KEY_SYM] = "Symbol", [RP_KEY_SRCLINE] = "Source:Line",
	[RP_KEY_GENERATION] = "Generation",
};

/* ---- call graph: a trie of frames per entry ---------------------------------------- */

struct cg_node {
	const struct rp_frame *f;	/* representative frame */
	uint64_t period;
	uint32_t child, sibling;	/* node indexes, 0 = none */
};

struct cg_tree {
	struct cg_node *n;
	size_t nr, cap;
};

/* perf's CCKEY_FUNCTION: one symbol of one DSO, else one address; except for jitted code,
 * where every load is its own ELF (so perf splits them): a method's generations are one
 * frame, as in every stack view, unless --split-generations; runtime stubs always one; an
 * inlined function is one frame whichever code inlined it (the next frame tells). */
static int same_frame(const struct rp_session *s, const struct rp_frame *a,
		      const struct rp_frame *b)
{
	if (!a->sym && !b->sym)
		return a->ip == b->ip;
	if (a->sym != b->sym || ((a->flags ^ b->flags) & RP_FRAME_INLINED))
		return 0;
	if ((a->load && b->load) || (a->flags & RP_FRAME_INLINED))
		return rp_frame_split_load(s, a) == rp_frame_split_load(s, b);
	return a->dso == b->dso && a->load == b->load;
}

/* Names as perf's, inlined frames marked; " [gen N]" only when generations are split. */
static unsigned graph_tag(const struct rp_session *s)
{
	return rp_split_generations(s) ? RP_NAME_GRAPH : RP_NAME_IMARK;
}

static uint32_t cg_child(const struct rp_session *s, struct cg_tree *t, uint32_t parent,
			 const struct rp_frame *f)
{
	uint32_t *link = &t->n[parent].child;
	for (uint32_t c = *link; c; c = t->n[c].sibling) {
		if (same_frame(s, t->n[c].f, f))
			return c;
		link = &t->n[c].sibling;
	}
	if (t->nr == t->cap) {
		if (JP_GROW_FOR(t->n, t->cap, t->nr))
			return 0;
		link = NULL;	/* the array moved: find the tail again */
	}
	uint32_t idx = (uint32_t)t->nr++;
	t->n[idx] = (struct cg_node){ .f = f };
	if (!link) {
		link = &t->n[parent].child;
		while (*link)
			link = &t->n[*link].sibling;
	}
	*link = idx;
	return idx;
}

static int cg_by_period(const void *a, const void *b, void *ctx)
{
	const struct cg_tree *t = ctx;
	uint64_t x = t->n[*(const uint32_t *)a].period, y = t->n[*(const uint32_t *)b].period;
	return x > y ? -1 : x < y;
}

/* Children of a node, heaviest first (perf sorts each level by period). */
static size_t cg_children(struct cg_tree *t, uint32_t node, uint32_t **out)
{
	size_t n = 0;
	for (uint32_t c = t->n[node].child; c; c = t->n[c].sibling)
		n++;
	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out)
		return 0;
	n = 0;
	for (uint32_t c = t->n[node].child; c; c = t->n[c].sibling)
		(*out)[n++] = c;
	qsort_r(*out, n, sizeof(**out), cg_by_period, t);
	return n;
}

struct cg_print {
	FILE *out;
	const struct rp_session *s;
	struct cg_tree *t;
	uint64_t total;
	double min_pct;
	struct jp_str prefix;		/* the graph's indentation, grown with its depth */
	struct jp_str name;
};

/* The prefix cut back to plen and one level's indentation appended: its new length. */
static size_t cg_indent(struct cg_print *p, size_t plen, int last)
{
	if (p->prefix.nomem)
		return plen;	/* said by print_graph's -ENOMEM */
	p->prefix.len = plen;
	jp_str_append(&p->prefix, last ? "           " : "|          ", 11);
	return p->prefix.len;
}

/* perf's graph printer (callchain__fprintf_graph): a node whose only child carries all of its
 * weight continues the chain on the next line; otherwise each child at or above the threshold
 * is a branch, "|" line then "|--P%--name" (" --" for the last), and the chains under it are
 * drawn one level further right. No blank lines inside a graph. */
static void cg_print_node(struct cg_print *p, uint32_t node, size_t plen)
{
	uint32_t *kids;
	size_t n = cg_children(p->t, node, &kids);
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		if (100.0 * p->t->n[kids[i]].period / p->total >= p->min_pct)
			shown++;
	if (n == 1 && p->t->n[kids[0]].period == p->t->n[node].period) {
		uint32_t c = kids[0];
		fprintf(p->out, "%.*s%s\n", (int)plen, p->prefix.s,
			rp_frame_name(p->s, p->t->n[c].f, graph_tag(p->s), &p->name));
		free(kids);
		cg_print_node(p, c, plen);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = kids[i];
		double pct = 100.0 * p->t->n[c].period / p->total;
		if (pct < p->min_pct)
			continue;
		int last = ++k == shown;
		fprintf(p->out, "%.*s|          \n", (int)plen, p->prefix.s);
		fprintf(p->out, "%.*s%s--%.2f%%--%s\n", (int)plen, p->prefix.s, last ? " " : "|",
			pct, rp_frame_name(p->s, p->t->n[c].f, graph_tag(p->s), &p->name));
		cg_print_node(p, c, cg_indent(p, plen, last));
	}
	free(kids);
}

static int print_graph(FILE *out, const struct rp_hist *h, const struct rp_entry *e,
		       const struct rp_table_opts *o)
{
	const struct rp_session *s = h->s;
	/* Under the threshold every branch would be hidden: perf prints no graph at all. */
	if (!h->total_period || 100.0 * e->period / h->total_period < o->graph_min_percent)
		return 0;
	struct cg_tree t = { .cap = 64, .nr = 1 };	/* node 0: the root */
	t.n = calloc(t.cap, sizeof(*t.n));
	if (!t.n)
		return -ENOMEM;
	for (uint32_t m = 0; m < e->nr_members; m++) {
		const struct rp_sample *smp = &s->samples[e->members[m]];
		uint32_t node = 0;
		t.n[0].period += smp->period;
		for (uint32_t i = 0; i < smp->nr; i++) {
			uint32_t fi = o->graph == RP_GRAPH_CALLER ? smp->nr - 1 - i : i;
			node = cg_child(s, &t, node, rp_chain_frame(s, smp->first + fi));
			if (!node) {
				free(t.n);
				return -ENOMEM;
			}
			t.n[node].period += smp->period;
		}
	}
	struct cg_print p = { .out = out, .s = s, .t = &t, .total = h->total_period,
			      .min_pct = o->graph_min_percent };
	jp_str_printf(&p.prefix, "%15s", "");
	uint32_t only = t.n[0].child;
	if (only && !t.n[only].sibling) {
		/* One first frame: perf's "---name" trunk, the chain continuing below it. */
		fprintf(out, "            |\n            ---%s\n",
			rp_frame_name(s, t.n[only].f, graph_tag(s), &p.name));
		cg_print_node(&p, only, 15);
	} else {
		cg_print_node(&p, 0, 12);	/* several: branches from the start */
	}
	fprintf(out, "\n");
	free(t.n);
	return jp_str_free(&p.prefix) | jp_str_free(&p.name) ? -ENOMEM : 0;
}

/* ---- the table ---------------------------------------------------------------------- */

/* fprintf(out, "  %-*s", width, str) without parsing a format per cell. */
static void put_cell(FILE *out, const char *str, size_t width)
{
	static const char spaces[64] = "                                                               ";
	size_t l = strlen(str);
	fputs("  ", out);
	fwrite(str, 1, l, out);
	while (l < width) {
		size_t n = width - l < sizeof(spaces) - 1 ? width - l : sizeof(spaces) - 1;
		fwrite(spaces, 1, n, out);
		l += n;
	}
}

int rp_print_table(FILE *out, const struct rp_hist *h, const struct rp_table_opts *o)
{
	size_t rows = h->nr_entries;
	if (o->max_rows && o->max_rows < rows)
		rows = o->max_rows;
	size_t width[RP_MAX_KEYS];
	struct jp_str buf = { 0 };
	for (int k = 0; k < h->nr_keys; k++) {
		width[k] = strlen(headers[h->keys[k]]);
		for (size_t i = 0; i < rows; i++) {
			size_t l = strlen(rp_entry_key_str(h, &h->entries[i], h->keys[k], &buf));
			if (l > width[k])
				width[k] = l;
		}
	}
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", h->s->lost);
	fprintf(out, "# Samples: %" PRIu64 "  of event '%s'\n", h->total_samples, h->s->event);
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", h->total_period);
	int ms = h->s->weigh_time;	/* offcpu, wall, lock: each row's time too */
	int mb = h->s->weigh_bytes;	/* alloc: each row's bytes */
	fprintf(out, ms ? "# Overhead          Time" :
		     mb ? "# Overhead         Bytes   Samples" : "# Overhead");
	for (int k = 0; k < h->nr_keys; k++)
		fprintf(out, "  %-*s", k + 1 < h->nr_keys ? (int)width[k] : 0, headers[h->keys[k]]);
	fprintf(out, ms ? "\n# ........  ............" :
		     mb ? "\n# ........  ............  ........" : "\n# ........");
	for (int k = 0; k < h->nr_keys; k++) {
		fputs("  ", out);
		for (size_t i = 0; i < width[k]; i++)
			fputc('.', out);
	}
	fprintf(out, "\n#\n");
	for (size_t i = 0; i < rows; i++) {
		const struct rp_entry *e = &h->entries[i];
		double pct = h->total_period ? 100.0 * e->period / h->total_period : 0;
		if (pct < o->min_percent)
			break;	/* entries come heaviest first */
		fprintf(out, "%9.2f%%", pct);
		if (ms)
			fprintf(out, "  %9.3f ms", (double)e->period / 1e6);
		else if (mb)
			fprintf(out, "  %9.3f MB  %8" PRIu64, (double)e->period / 1e6, e->samples);
		for (int k = 0; k < h->nr_keys; k++)
			put_cell(out, rp_entry_key_str(h, e, h->keys[k], &buf),
				 k + 1 < h->nr_keys ? width[k] : 0);
		fputc('\n', out);
		if (o->graph != RP_GRAPH_NONE && e->members) {
			int rc = print_graph(out, h, e, o);
			if (rc) {
				jp_str_free(&buf);
				return rc;
			}
		}
	}
	if (jp_str_free(&buf))
		return -ENOMEM;
	if (!h->nr_entries)
		fprintf(out, "# (no samples)\n");
	return ferror(out) ? -EIO : 0;
}

const char *rp_frame_name_fixed(const struct rp_session *s, const struct rp_frame *f,
				unsigned tag, const char **suffix)
{
	const struct rp_load *l = f->load && f->load <= s->nr_loads ? &s->loads[f->load - 1]
								       : NULL;
	*suffix = "";
	if (!f->sym)
		return NULL;
	if ((tag & RP_NAME_IMARK) && (f->flags & RP_FRAME_INLINED))
		*suffix = "_[i]";
	else if ((tag & RP_NAME_IMARK) && (f->flags & RP_FRAME_INTERPRETED))
		*suffix = "_[int]";
	else if (f->flags & RP_FRAME_INTERPRETED)
		;	/* a method's name, not the interpreter's generation */
	else if ((tag & RP_NAME_GEN) && l && !l->runtime && !(f->flags & RP_FRAME_INLINED))
		return NULL;
	else if ((tag & RP_NAME_KMARK) && (f->flags & RP_FRAME_KERNEL))
		*suffix = "_[k]";	/* flamegraph.pl's kernel annotation */
	return f->sym;
}

const char *rp_frame_name(const struct rp_session *s, const struct rp_frame *f, unsigned tag,
			  struct jp_str *buf)
{
	const char *suffix, *sym = rp_frame_name_fixed(s, f, tag, &suffix);
	if (sym)
		return jp_str_printf(buf, "%s%s", sym, suffix);
	if (!f->sym)
		/* the DSO-relative address, as the --sort sym row prints it: stable across
		 * ASLR and runs, so the same unnamed code is one frame in every process */
		return jp_str_printf(buf, "%s+0x%" PRIx64, f->dso ? f->dso : "[unknown]", f->addr);
	return jp_str_printf(buf, "%s [gen %u]", f->sym, s->loads[f->load - 1].generation);
}
