/* flamegraph.c - a self-contained interactive flame graph SVG (no external scripts or fonts):
 * as tall as the deepest visible stack, frames narrower than --min-width merged into one
 * "[N narrow frames]" box, coloured by kind (interpreted, C1, C2, inlined, native, kernel)
 * with a legend; opens scrolled to the root under a pinned header; click to zoom, Search
 * highlights what the text names (as typed, or as a regex) and says what share it matched.
 * --reverse draws callers under each leaf function (icicle). With a base session (--diff A B)
 * the picture is B's, each frame red where its share of samples grew since A, blue where it
 * shrank (flamegraph.pl's difffolded colours). A method's generations are one frame (unless
 * split): its tooltip gives each generation's samples. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/views_int.h"

#define FG_WIDTH 1200
#define FG_PAD 10
#define FG_ROW 16
#define FG_TOP 84

static const char script[] =
	"var W=%d,P=%d,REV=%d,gs=[],tot=1;\n"
	/* The root row at the bottom of the first screen, the header pinned at the top. */
	"function pin(){document.getElementById('hdr').setAttribute('transform',"
	"'translate(0,'+(window.pageYOffset||0)+')');}\n"
	"function init(){gs=Array.prototype.slice.call(document.querySelectorAll('g.f'));"
	"gs.forEach(function(g){g.onclick=function(){zoom(g)};if(A(g,'data-d')==0)tot=A(g,'data-c');});"
	"label();window.addEventListener('scroll',pin);if(!REV)window.scrollTo(0,1e9);pin();}\n"
	"function A(g,n){return parseFloat(g.getAttribute(n));}\n"
	"function fit(g,x,w){var r=g.querySelector('rect'),t=g.querySelector('text');"
	"r.setAttribute('x',x);r.setAttribute('width',Math.max(w-0.5,0));t.setAttribute('x',x+3);"
	"var n=g.getAttribute('data-n'),c=Math.floor((w-6)/7);"
	"t.textContent=c>=n.length?n:(c>2?n.substring(0,c-2)+'..':'');}\n"
	"function label(){gs.forEach(function(g){g.style.display='';fit(g,A(g,'data-x'),A(g,'data-w'));});}\n"
	"function zoom(z){var x=A(z,'data-x'),w=A(z,'data-w'),d=A(z,'data-d');"
	"if(d==0){label();return;}"
	"gs.forEach(function(g){var gx=A(g,'data-x'),gw=A(g,'data-w'),gd=A(g,'data-d');"
	"if(gd<d&&gx<=x+1e-6&&gx+gw>=x+w-1e-6){fit(g,P,W);g.style.display='';}"
	"else if(gd>=d&&gx>=x-1e-6&&gx+gw<=x+w+1e-6){fit(g,P+(gx-x)/w*W,gw/w*W);g.style.display='';}"
	"else g.style.display='none';});}\n"
	/* Frames come in pre-order, so x never decreases: a match starting inside the last
	 * counted one is nested in it and not counted twice. */
	/* The text as typed, or as a regex when it is one: Java and JavaScript names are full of
	 * regex characters ($ in lambdas, parentheses in signatures); see html/report.js. */
	"function find(s){var re=null,m=0,end=-1;try{re=new RegExp(s);}catch(e){}"
	"gs.forEach(function(g){var r=g.querySelector('rect'),n=g.getAttribute('data-n'),"
	"hit=s!==''&&(n.indexOf(s)>=0||(re!==null&&re.test(n)));"
	"if(!r.getAttribute('data-fill'))r.setAttribute('data-fill',r.getAttribute('fill'));"
	"r.setAttribute('fill',hit?'rgb(230,0,230)':r.getAttribute('data-fill'));"
	"if(hit&&A(g,'data-x')>=end-1e-6){m+=A(g,'data-c');end=A(g,'data-x')+A(g,'data-w');}});"
	"var pct=(100*m/tot).toFixed(2);document.getElementById('matched').textContent="
	"s?'Matched: '+pct+'%%':'';return pct;}\n"
	"function search(){var s=prompt('Search (text or regex):','');if(s!==null)find(s);}\n";

struct emit_ctx {
	FILE *out;
	const struct rp_session *s, *base;
	const struct rp_tree *t, *bt;	/* bt: the base's tree (diff) */
	double scale;
	uint32_t max_depth;
	int reverse;
	struct rp_strtab gen_names;	/* methods compiled more than once: ids < nr_gen_text */
	char **gen_text;		/* per such method: "; generations: gen 1 C1 17, ..." */
	size_t nr_gen_text;
	struct jp_str name;		/* the node being drawn's name */
};

/* The tooltips' per-generation split of the methods compiled more than once (the --generations
 * view: each generation's samples with it as leaf). Without it the tooltips say less. */
static void gen_texts(struct emit_ctx *e)
{
	struct rp_gen_view v;
	if (e->s->split_gens || rp_gen_view_build(&v, e->s, NULL))
		return;
	e->gen_text = calloc(v.nr_methods + 1, sizeof(*e->gen_text));
	for (size_t m = 0; e->gen_text && m < v.nr_methods; m++) {
		uint32_t id;
		char *t = NULL;
		size_t len = 0;
		FILE *fp;
		if (rp_strtab_id(&e->gen_names, v.methods[m].method, 0, &id) || id != e->nr_gen_text)
			continue;	/* a name already seen (another process): the first kept */
		if (!(fp = open_memstream(&t, &len)))
			break;
		fputs("; generations:", fp);
		for (size_t k = 0; k < v.methods[m].nr_rows; k++) {
			const struct rp_gen_row *g = &v.methods[m].rows[k];
			fprintf(fp, "%s gen %u %s %" PRIu64, k ? "," : "", g->load->generation,
				rp_load_tier(g->load), g->samples);
		}
		fclose(fp);
		e->gen_text[e->nr_gen_text++] = t;
	}
	rp_gen_view_free(&v);
}

static const char *gen_text(struct emit_ctx *e, const struct rp_tnode *n)
{
	uint32_t id;
	if (!e->nr_gen_text || !n->f || !n->f->sym || !n->f->load ||
	    (n->f->flags & RP_FRAME_INLINED) ||
	    rp_strtab_id(&e->gen_names, n->f->sym, 0, &id) || id >= e->nr_gen_text)
		return "";
	return e->gen_text[id];
}

#define NO_BASE RP_NO_NODE

/* White when the share did not move, to full red (grew) or blue (shrank) at 5 points. */
static void diff_color(const struct emit_ctx *e, const struct rp_tnode *n, uint32_t b,
		       char *buf, size_t len, double *delta)
{
	double now = 100.0 * n->count / (e->t->n[0].count ? e->t->n[0].count : 1);
	double was = b != NO_BASE ? 100.0 * e->bt->n[b].count /
				    (e->bt->n[0].count ? e->bt->n[0].count : 1) : 0;
	*delta = now - was;
	double f = *delta / 5;
	f = f > 1 ? 1 : f < -1 ? -1 : f;
	int fade = 255 - (int)(fabs(f) * 200);
	if (f >= 0)
		snprintf(buf, len, "rgb(255,%d,%d)", fade, fade);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", fade, fade);
}

static void emit(struct emit_ctx *e, uint32_t node, uint32_t bnode, double x)
{
	const struct rp_tnode *n = &e->t->n[node];
	double delta = 0;
	double w = n->count * e->scale;
	double y = e->reverse ? FG_TOP + n->depth * FG_ROW
			      : FG_TOP + (e->max_depth - n->depth) * FG_ROW;
	char color[64];
	/* e->name is free again once the loop below is reached: nothing here reads it after */
	const char *name = rp_tnode_name(e->s, n, &e->name);
	enum rp_kind k = rp_tnode_kind(n);
	if (e->bt)
		diff_color(e, n, bnode, color, sizeof(color), &delta);
	else if (n->narrow)
		snprintf(color, sizeof(color), "#bbb");
	else if (!n->f)
		snprintf(color, sizeof(color), "#d9d6c8");	/* all, commands */
	else
		rp_kind_color(k, (rp_hash_bytes(name, strlen(name), 0) % 1000) / 1000.0, color,
			      sizeof(color));
	double pct = e->t->n[0].count ? 100.0 * n->count / e->t->n[0].count : 0;
	fprintf(e->out, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" data-d=\"%u\" data-c=\"%"
		PRIu64 "\" data-k=\"%s\" data-n=\"", x, w, n->depth, n->count,
		n->narrow ? "narrow" : n->f ? rp_kind_name(k) : "root");
	rp_xml_str(e->out, name);
	fprintf(e->out, "\"><title>");
	rp_xml_str(e->out, name);
	if (e->bt)
		fprintf(e->out, " (%+.2f points since the base)", delta);
	if (e->s->weigh_time)	/* offcpu, wall, lock: the count is nanoseconds */
		fprintf(e->out, " (%.3f ms, %.2f%%", (double)n->count / 1e6, pct);
	else if (e->s->weigh_bytes)	/* alloc: bytes */
		fprintf(e->out, " (%.3f MB, %.2f%%", (double)n->count / 1e6, pct);
	else
		fprintf(e->out, " (%" PRIu64 " samples, %.2f%%", n->count, pct);
	rp_xml_str(e->out, gen_text(e, n));
	fprintf(e->out, ")</title><rect x=\"%.2f\" y=\"%d\" "
		"width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"%s/><text x=\"%.2f\" y=\"%.1f\">"
		"</text></g>\n", x, (int)y, w > 0.5 ? w - 0.5 : 0, FG_ROW - 1, color,
		e->bt ? " stroke=\"#bbb\" stroke-width=\"0.5\"" : "", x + 3, y + 11.5);
	for (uint32_t c = n->child; c; c = e->t->n[c].sibling) {
		uint32_t bc = e->bt ? rp_tree_match(e->base, e->bt, bnode, &e->t->n[c],
						    rp_tnode_name(e->s, &e->t->n[c], &e->name))
				    : NO_BASE;
		emit(e, c, bc, x);
		x += e->t->n[c].count * e->scale;
	}
}

/* One swatch per kind that has frames in the picture. */
static void legend(FILE *out, const struct rp_tree *t)
{
	uint64_t seen[RP_KIND__MAX] = { 0 };
	for (size_t i = 1; i < t->nr; i++)
		if (!t->n[i].dropped && t->n[i].f)
			seen[rp_tnode_kind(&t->n[i])]++;
	static const enum rp_kind order[] = { RP_KIND_INTERP, RP_KIND_C1, RP_KIND_C2,
					      RP_KIND_INLINED, RP_KIND_JAVA, RP_KIND_JIT,
					      RP_KIND_NATIVE, RP_KIND_KERNEL };
	int x = FG_PAD;
	fprintf(out, "<g id=\"legend\">");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		char color[64];
		if (!seen[order[i]])
			continue;
		rp_kind_color(order[i], 0.5, color, sizeof(color));
		fprintf(out, "<rect x=\"%d\" y=\"58\" width=\"14\" height=\"14\" fill=\"%s\"/>"
			"<text class=\"lg\" x=\"%d\" y=\"70\">%s</text>", x, color, x + 18,
			rp_kind_label(order[i]));
		x += 34 + 7 * (int)strlen(rp_kind_label(order[i]));
	}
	fprintf(out, "<rect x=\"%d\" y=\"58\" width=\"14\" height=\"14\" fill=\"#bbb\"/>"
		"<text class=\"lg\" x=\"%d\" y=\"70\">narrow frames merged</text></g>\n", x, x + 18);
}

/* Title, what the picture holds, the controls and the legend: after the frames, so that the
 * script can keep it on top of them at the top of the window (pin()). */
static void header(FILE *out, const struct rp_session *s, const struct rp_flame_opts *o,
		   const struct rp_tree *t, struct jp_str *buf)
{
	fprintf(out, "<g id=\"hdr\"><rect width=\"%d\" height=\"%d\" fill=\"#f8f8f0\" "
		"fill-opacity=\"0.95\"/>\n<text id=\"title\" x=\"%d\" y=\"22\" "
		"text-anchor=\"middle\" style=\"font-size:17px\">", FG_WIDTH, FG_TOP - 6,
		FG_WIDTH / 2);
	rp_xml_str(out, o->title ? o->title : "jitprof flame graph");
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"42\" text-anchor=\"middle\">",
		FG_WIDTH / 2);
	rp_xml_str(out, rp_describe(s, buf));
	fprintf(out, "%s%s</text>\n<text class=\"ui\" x=\"%d\" y=\"22\" onclick=\"label()\">Reset "
		"Zoom</text>\n<text class=\"ui\" x=\"%d\" y=\"22\" onclick=\"search()\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"42\" text-anchor=\"end\"></text>\n",
		o->reverse ? ", callers (reversed)" : o->base ? ", differential" : "",
		s->split_gens ? ", generations split" : "", FG_PAD, FG_WIDTH - 60,
		FG_WIDTH - FG_PAD);
	if (o->base)
		fprintf(out, "<text class=\"lg\" x=\"%d\" y=\"70\">differential: red = a larger share "
			"of samples than in the base, blue = smaller (full colour at 5 points)</text>\n",
			FG_PAD);
	else
		legend(out, t);
	fprintf(out, "</g>\n");
}

int rp_write_flamegraph(FILE *out, const struct rp_session *s, const struct rp_flame_opts *o)
{
	struct rp_tree t;
	int rc = rp_tree_build(&t, s, o->reverse);
	if (rc)
		return rc;
	rp_tree_log_cut(&t, s->tree_max_nodes, o->log);
	double usable = FG_WIDTH - 2 * FG_PAD;
	double scale = t.n[0].count ? usable / t.n[0].count : 0;
	double min_w = o->min_width > 0 ? o->min_width : 1.0;
	if ((rc = rp_tree_prune(&t, scale > 0 ? (uint64_t)(min_w / scale + 0.999999) : 1))) {
		rp_tree_free(&t);
		return rc;
	}
	if ((rc = rp_tree_sort(&t))) {
		rp_tree_free(&t);
		return rc;
	}
	int height = FG_TOP + (int)(t.max_depth + 1) * FG_ROW + 10;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" onload=\"init()\" "
		"viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:monospace;font-size:12px;fill:#000;pointer-events:none}"
		" g.f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}"
		" .ui{cursor:pointer;font-family:sans-serif;pointer-events:all;fill:#225}"
		" .lg{font-family:sans-serif}</style>\n<script><![CDATA[\n",
		FG_WIDTH, height, FG_WIDTH, height);
	fprintf(out, script, FG_WIDTH - 2 * FG_PAD, FG_PAD, o->reverse);
	fprintf(out, "]]></script>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n");
	struct rp_tree bt = { 0 };
	if (o->base) {
		if ((rc = rp_tree_build(&bt, o->base, o->reverse))) {
			rp_tree_free(&t);
			return rc;
		}
		/* Merged as the picture is, at the same width in its own scale. */
		double bscale = bt.n[0].count ? usable / bt.n[0].count : 0;
		if ((rc = rp_tree_prune(&bt, bscale > 0 ? (uint64_t)(min_w / bscale + 0.999999)
							 : 1))) {
			rp_tree_free(&t);
			rp_tree_free(&bt);
			return rc;
		}
	}
	struct emit_ctx e = { .out = out, .s = s, .base = o->base, .t = &t,
			      .bt = o->base ? &bt : NULL, .scale = scale,
			      .max_depth = t.max_depth, .reverse = o->reverse };
	gen_texts(&e);
	emit(&e, 0, 0, FG_PAD);
	header(out, s, o, &t, &e.name);
	fprintf(out, "</svg>\n");
	rp_tree_free(&t);
	rp_tree_free(&bt);
	for (size_t i = 0; i < e.nr_gen_text; i++)
		free(e.gen_text[i]);
	free(e.gen_text);
	rp_strtab_free(&e.gen_names);
	if (jp_str_free(&e.name))
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}
