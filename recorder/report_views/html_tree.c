/* html_tree.c - the stack tree of `jitprof report --html`'s data block, compact: a javac
 * start-up's callers' tree had 360k nodes where its callees' tree had 59k, and the page was
 * 6 MB; the page now carries the callees' tree only (its script inverts it when asked; with
 * --diff the callers' tree comes too, its change of share needs the base's), each frame name
 * once in a table sorted and front-coded (Java names share long package prefixes), per node
 * its name's index, samples, and one character each for its kind and its depth's step. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/report_views/views_int.h"

void rp_put_long(FILE *out, char sep, long v)
{
	char b[24], *p = b + sizeof(b);
	unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	if (sep)
		*--p = sep;
	fwrite_unlocked(p, 1, (size_t)(b + sizeof(b) - p), out);
}

/* Differential (bt, base's tree, pruned): per node of t, how its share of all samples moved
 * since the base, in hundredths of a point; nodes come after their parents in order. */
static long *tree_deltas(const struct rp_session *s, const struct rp_tree *t,
			 const uint32_t *order, size_t n, const struct rp_session *base,
			 const struct rp_tree *bt)
{
	uint32_t *match = malloc(t->nr * sizeof(*match));
	long *delta = malloc((n + 1) * sizeof(*delta));
	struct jp_str buf = { 0 };
	if (!match || !delta) {
		free(match);
		free(delta);
		return NULL;
	}
	double all = t->n[0].count ? (double)t->n[0].count : 1;
	double ball = bt->n[0].count ? (double)bt->n[0].count : 1;
	for (size_t j = 0; j < n; j++) {
		uint32_t i = order[j];
		const struct rp_tnode *x = &t->n[i];
		match[i] = !i ? 0 : rp_tree_match(base, bt, match[x->parent], x,
						    rp_tnode_name(s, x, &buf));
		double was = match[i] != RP_NO_NODE ? 100.0 * bt->n[match[i]].count / ball : 0;
		delta[j] = lround((100.0 * x->count / all - was) * 100);
	}
	free(match);
	if (jp_str_free(&buf)) {
		free(delta);
		return NULL;
	}
	return delta;
}

/* The names, each once: their table index per frame of the session's table (UINT32_MAX: not
 * named yet; a frame is at many nodes, and naming and hashing it at each was a third of the
 * page's writing). */
struct names {
	struct rp_strtab tab;
	uint32_t *id;
	size_t n;
	struct jp_str buf;	/* a name being made */
};

static int node_name_id(const struct rp_session *s, const struct rp_tnode *x, struct names *ni,
			uint32_t *id)
{
	size_t ref = x->f ? (size_t)(x->f - s->frames) : SIZE_MAX;
	if (ref < ni->n && ni->id[ref] != UINT32_MAX) {
		*id = ni->id[ref];
		return 0;
	}
	int rc = rp_strtab_id(&ni->tab, rp_tnode_name(s, x, &ni->buf), 0, id);
	if (ni->buf.nomem)
		rc = -ENOMEM;
	if (!rc && ref < ni->n)
		ni->id[ref] = *id;
	return rc;
}

/* One tree in pre-order, siblings heaviest first, with its nodes' name indexes (-1: the root
 * and narrow nodes), before the names are sorted. */
struct flat {
	uint32_t *order;
	long *name, *delta;
	size_t n;
};

static void flat_free(struct flat *f)
{
	free(f->order);
	free(f->name);
	free(f->delta);
}

static int flatten(struct flat *fl, const struct rp_session *s, struct rp_tree *t,
		   struct names *ni, uint64_t min_count, const struct rp_session *base,
		   const struct rp_tree *bt)
{
	*fl = (struct flat){ 0 };
	if (rp_tree_prune(t, min_count) || rp_tree_sort(t))
		return -ENOMEM;
	size_t cap = t->max_depth + 2, n = 0, sp = 0;
	uint32_t *stack = malloc(cap * sizeof(*stack));
	*fl = (struct flat){ .order = malloc(t->nr * sizeof(*fl->order)),
			     .name = malloc(t->nr * sizeof(long)) };
	if (!stack || !fl->order || !fl->name)
		goto nomem;
	/* Depth first: a node's children pushed, then their run reversed so that they come
	 * out in sibling order (heaviest first). */
	stack[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		fl->order[n++] = i;
		size_t from = sp;
		for (uint32_t c = t->n[i].child; c; c = t->n[c].sibling) {
			if (JP_GROW_FOR(stack, cap, sp))
				goto nomem;
			stack[sp++] = c;
		}
		for (size_t l = from, r = sp; l + 1 < r; l++, r--) {
			uint32_t x = stack[l];
			stack[l] = stack[r - 1];
			stack[r - 1] = x;
		}
	}
	free(stack);
	stack = NULL;
	fl->n = n;
	if (bt && !(fl->delta = tree_deltas(s, t, fl->order, n, base, bt)))
		goto nomem;
	for (size_t j = 0; j < n; j++) {
		const struct rp_tnode *x = &t->n[fl->order[j]];
		uint32_t id;
		int rc;
		if (!x->f && !x->comm)
			fl->name[j] = -1;
		else if ((rc = node_name_id(s, x, ni, &id)))
			return rc;
		else
			fl->name[j] = id;
	}
	return 0;
nomem:
	free(stack);
	return -ENOMEM;
}

/* The depth steps' alphabet: a node's depth is its predecessor's + 1 - up (pre-order), up
 * one character when below 61 (nearly always: 0 down a stack), else '~' and the number and
 * ';'. No character JSON or the HTML escaping would lengthen. */
static const char step_chars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY";

/* {"n":[name rank...],"c":[samples...],"k":"kinds","u":"depth steps","m":[node,narrow,...],
 * "p":[change...]} of a flattened tree, name indexes as ranks in the sorted names. */
static void json_tree(FILE *out, const struct rp_tree *t, const struct flat *fl,
		      const uint32_t *rank, uint32_t *present)
{
	fputs("{\"n\":[", out);
	for (size_t j = 0; j < fl->n; j++)
		rp_put_long(out, j ? ',' : 0, fl->name[j] < 0 ? -1 : (long)rank[fl->name[j]]);
	fputs("],\"c\":[", out);
	for (size_t j = 0; j < fl->n; j++)
		rp_put_long(out, j ? ',' : 0, (long)t->n[fl->order[j]].count);
	fputs("],\"k\":\"", out);
	for (size_t j = 0; j < fl->n; j++) {
		const struct rp_tnode *x = &t->n[fl->order[j]];
		enum rp_kind k = rp_tnode_kind(x);
		if (x->f)
			present[k] = 1;
		fputc('0' + (int)k, out);
	}
	fputs("\",\"u\":\"", out);
	for (size_t j = 1; j < fl->n; j++) {
		long up = (long)t->n[fl->order[j - 1]].depth + 1 - (long)t->n[fl->order[j]].depth;
		if (up >= 0 && up < (long)sizeof(step_chars) - 1)
			fputc(step_chars[up], out);
		else
			fprintf(out, "~%ld;", up);
	}
	fputs("\",\"m\":[", out);
	int first = 1;
	for (size_t j = 0; j < fl->n; j++)
		if (t->n[fl->order[j]].narrow) {
			rp_put_long(out, first ? 0 : ',', (long)j);
			rp_put_long(out, ',', t->n[fl->order[j]].narrow);
			first = 0;
		}
	fputc(']', out);
	if (fl->delta) {
		fputs(",\"p\":[", out);
		for (size_t j = 0; j < fl->n; j++)
			rp_put_long(out, j ? ',' : 0, fl->delta[j]);
		fputc(']', out);
	}
	fputc('}', out);
}

static int by_node_gen(const void *a, const void *b)
{
	const struct rp_tgen *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->load < y->load ? -1 : x->load > y->load;
}

/* "gens":[[node, gen, tier, samples],...]: per node of the callees' tree (its pre-order
 * place), its samples per generation of the code it ran in (an inlined frame's: the code it
 * was inlined into), for the frame's details. Pruned nodes have none. */
static int json_gens(FILE *out, const struct rp_session *s, const struct rp_tree *t,
		     const struct flat *fl)
{
	uint32_t *pos = calloc(t->nr + 1, sizeof(*pos));
	struct rp_tgen *g = malloc((t->nr_gens + 1) * sizeof(*g));
	size_t n = 0;
	if (!pos || !g) {
		free(pos);
		free(g);
		return -ENOMEM;
	}
	for (size_t j = 0; j < fl->n; j++)
		pos[fl->order[j]] = (uint32_t)j + 1;
	for (size_t i = 0; i < t->nr_gens; i++)
		if (t->gens[i].node < t->nr && pos[t->gens[i].node]) {
			g[n] = t->gens[i];
			g[n++].node = pos[t->gens[i].node] - 1;
		}
	qsort(g, n, sizeof(*g), by_node_gen);
	fputs(",\"gens\":[", out);
	for (size_t i = 0; i < n; i++) {
		const struct rp_load *l = &s->loads[g[i].load - 1];
		fputs(i ? ",[" : "[", out);
		rp_put_long(out, 0, g[i].node);
		rp_put_long(out, ',', l->generation);
		fprintf(out, ",\"%s\"", rp_load_tier(l));
		rp_put_long(out, ',', g[i].samples);
		fputc(']', out);
	}
	fputc(']', out);
	free(pos);
	free(g);
	return 0;
}

static int by_name(const void *a, const void *b, void *ctx)
{
	char **str = ctx;
	return strcmp(str[*(const uint32_t *)a], str[*(const uint32_t *)b]);
}

/* The names sorted, each as the length of the prefix it shares with the one before, ':',
 * and the rest ("java.util.HashMap.get(java.lang.Object)" then "18:put(...)"). The prefix
 * is counted in ASCII characters only: the script counts UTF-16 units, which a multi-byte
 * character would throw off. rank: each table index's place in the sorted list. */
static int json_names(FILE *out, const struct rp_strtab *tab, uint32_t *rank)
{
	uint32_t *by = malloc((tab->n + 1) * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < tab->n; i++)
		by[i] = (uint32_t)i;
	qsort_r(by, tab->n, sizeof(*by), by_name, tab->str);
	fputc('[', out);
	const char *prev = "";
	char *e = NULL;		/* one entry: the shared length, ':', the rest */
	size_t cap = 0;
	for (size_t r = 0; r < tab->n; r++) {
		const char *nm = tab->str[by[r]];
		size_t k = 0;
		while (nm[k] && nm[k] == prev[k] && !((unsigned char)nm[k] & 0x80))
			k++;
		size_t need = strlen(nm + k) + 24;
		if (need > cap) {
			char *p = realloc(e, need);
			if (!p) {
				free(e);
				free(by);
				return -ENOMEM;
			}
			e = p;
			cap = need;
		}
		snprintf(e, cap, "%zu:%s", k, nm + k);
		rank[by[r]] = (uint32_t)r;
		fputs(r ? "," : "", out);
		rp_json_str(out, e);
		prev = nm;
	}
	fputc(']', out);
	free(e);
	free(by);
	return 0;
}

/* One session's trees (and its base's with --diff), flattened with their names in ni. */
struct tab_trees {
	struct rp_tree t[2], bt[2];
	struct flat fl[2];
};

static void tab_trees_free(struct tab_trees *tt)
{
	for (int rev = 0; rev < 2; rev++) {
		flat_free(&tt->fl[rev]);
		rp_tree_free(&tt->t[rev]);
		rp_tree_free(&tt->bt[rev]);
	}
}

static int tab_trees(struct tab_trees *tt, const struct rp_session *s, struct names *ni,
		     const struct rp_html_opts *o)
{
	double px = o->min_width > 0 ? o->min_width : 0.1;
	/* Narrow frames: a share of the widest view (1200 px). */
	uint64_t min_count = (uint64_t)(s->nr_samples * px / 1200.0);
	int trees = o->base ? 2 : 1, rc;
	uint32_t *id = realloc(ni->id, (s->nr_frames + 1) * sizeof(*ni->id));

	if (!id)
		return -ENOMEM;
	/* frames are the session's: their names' indexes are looked up anew */
	ni->id = id;
	ni->n = s->nr_frames;
	memset(ni->id, 0xff, ni->n * sizeof(*ni->id));
	/* Both trees, and the base's, each pair from one pass over its samples' stacks. */
	rc = rp_trees_build(&tt->t[0], o->base ? &tt->t[1] : NULL, s, 1);
	if (!rc)	/* once for both */
		rp_tree_log_cut(tt->t[0].cut_stacks || !o->base ? &tt->t[0] : &tt->t[1],
				s->tree_max_nodes, o->log);
	if (!rc && o->base && !(rc = rp_trees_build(&tt->bt[0], &tt->bt[1], o->base, 0)))
		for (int rev = 0; rev < 2 && !rc; rev++)	/* merged as the picture is, in its scale */
			rc = rp_tree_prune(&tt->bt[rev],
					   (uint64_t)(o->base->nr_samples * px / 1200.0));
	for (int rev = 0; rev < trees && !rc; rev++)
		rc = flatten(&tt->fl[rev], s, &tt->t[rev], ni, min_count, o->base,
			     o->base ? &tt->bt[rev] : NULL);
	return rc;
}

int rp_html_tree(FILE *out, const struct rp_session *const *ss, size_t n,
		 const struct rp_html_opts *o, uint32_t (*present)[RP_KIND__MAX])
{
	struct names ni = { 0 };
	struct tab_trees *tt = calloc(n, sizeof(*tt));
	uint32_t *rank = NULL;
	int trees = o->base ? 2 : 1, rc = tt ? 0 : -ENOMEM;

	for (size_t k = 0; k < n && !rc; k++)
		rc = tab_trees(&tt[k], ss[k], &ni, o);
	if (!rc && !(rank = malloc((ni.tab.n + 1) * sizeof(*rank))))
		rc = -ENOMEM;
	if (!rc) {
		fputs(",\"names\":", out);
		rc = json_names(out, &ni.tab, rank);
	}
	for (int rev = 0; rev < trees && !rc; rev++) {
		fprintf(out, ",\"%s\":", rev ? "rtree" : "tree");
		json_tree(out, &tt[0].t[rev], &tt[0].fl[rev], rank, present[0]);
	}
	/* the reported event's frames' generations (its details) */
	if (!rc)
		rc = json_gens(out, ss[0], &tt[0].t[0], &tt[0].fl[0]);
	if (!rc && n > 1) {
		fputs(",\"tab_trees\":[", out);
		for (size_t k = 1; k < n; k++) {
			fputs(k > 1 ? "," : "", out);
			json_tree(out, &tt[k].t[0], &tt[k].fl[0], rank, present[k]);
		}
		fputc(']', out);
	}
	for (size_t k = 0; tt && k < n; k++)
		tab_trees_free(&tt[k]);
	free(tt);
	free(rank);
	rp_strtab_free(&ni.tab);
	jp_str_free(&ni.buf);
	free(ni.id);
	return rc;
}
