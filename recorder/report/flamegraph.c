/* flamegraph.c - a self-contained interactive flame graph SVG (no external scripts or fonts):
 * click a frame to zoom, click the root or "Reset Zoom" to go back, "Search" highlights a
 * regex. Jitted frames are coloured by generation (a distinct hue per generation number,
 * and " [gen N]" in the name) so two generations of one method never look alike. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report/report_int.h"

#define FG_WIDTH 1200
#define FG_PAD 10
#define FG_ROW 16
#define FG_TOP 40

struct fnode {
	const char *name;	/* points into a stack string */
	size_t name_len;
	uint64_t count;
	uint32_t child, sibling;
	uint32_t depth;
};

struct ftree {
	struct fnode *n;
	size_t nr, cap;
	uint32_t max_depth;
};

static uint32_t ft_child(struct ftree *t, uint32_t parent, const char *name, size_t len)
{
	for (uint32_t c = t->n[parent].child; c; c = t->n[c].sibling)
		if (t->n[c].name_len == len && !memcmp(t->n[c].name, name, len))
			return c;
	if (t->nr == t->cap) {
		size_t cap = t->cap * 2;
		struct fnode *p = realloc(t->n, cap * sizeof(*p));
		if (!p)
			return 0;
		t->n = p;
		t->cap = cap;
	}
	uint32_t idx = (uint32_t)t->nr++;
	t->n[idx] = (struct fnode){ .name = name, .name_len = len, .sibling = t->n[parent].child,
				    .depth = t->n[parent].depth + 1 };
	t->n[parent].child = idx;
	if (t->n[idx].depth > t->max_depth)
		t->max_depth = t->n[idx].depth;
	return idx;
}

/* Colours: generations get evenly spread hues; kernel orange, inlined teal, other native
 * frames warm red-yellow varied by name so neighbours stay distinguishable. */
static void frame_color(const char *name, size_t len, char *buf, size_t blen)
{
	const char *g = NULL;
	for (size_t i = 0; i + 6 < len; i++)
		if (!memcmp(name + i, " [gen ", 6))
			g = name + i + 6;
	uint64_t h = rp_hash_bytes(name, len, 0);
	if (g) {
		unsigned gen = (unsigned)strtoul(g, NULL, 10);
		static const int hues[] = { 210, 130, 280, 30, 340, 180, 60, 250 };
		snprintf(buf, blen, "hsl(%d,70%%,%d%%)", hues[(gen ? gen - 1 : 0) % 8],
			 55 + (int)((gen ? gen - 1 : 0) / 8 % 3) * 8);
	} else if (len > 4 && !memcmp(name + len - 4, "_[k]", 4)) {
		snprintf(buf, blen, "rgb(230,%d,50)", 120 + (int)(h % 60));
	} else {
		snprintf(buf, blen, "rgb(%d,%d,55)", 200 + (int)(h % 55), 80 + (int)((h >> 8) % 100));
	}
}

static const char script[] =
	"var W=%d,P=%d,gs=[],zoomed=null;\n"
	"function init(){gs=Array.prototype.slice.call(document.querySelectorAll('g.f'));"
	"gs.forEach(function(g){g.onclick=function(){zoom(g)};});label();}\n"
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
	"function search(){var s=prompt('Search (regex):','');if(s===null)return;var re=new RegExp(s),"
	"m=0,tot=0;gs.forEach(function(g){var r=g.querySelector('rect'),hit=s!==''&&re.test(g.getAttribute('data-n'));"
	"if(!r.getAttribute('data-fill'))r.setAttribute('data-fill',r.getAttribute('fill'));"
	"r.setAttribute('fill',hit?'rgb(230,0,230)':r.getAttribute('data-fill'));"
	"if(A(g,'data-d')==0)tot=A(g,'data-c');});"
	"document.getElementById('matched').textContent=s?'Search: '+s:'';}\n";

static void emit(FILE *out, const struct ftree *t, uint32_t node, double x, double scale)
{
	const struct fnode *n = &t->n[node];
	double w = n->count * scale;
	double y = FG_TOP + (t->max_depth - n->depth) * FG_ROW;
	char color[64];
	char *name = strndup(n->name, n->name_len);
	if (!name)
		return;
	frame_color(n->name, n->name_len, color, sizeof(color));
	double pct = t->n[0].count ? 100.0 * n->count / t->n[0].count : 0;
	fprintf(out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\" data-d=\"%u\" data-c=\"%" PRIu64
		"\" data-n=\"", x, w, n->depth, n->count);
	rp_xml_str(out, name);
	fprintf(out, "\"><title>");
	rp_xml_str(out, name);
	fprintf(out, " (%" PRIu64 " samples, %.2f%%)</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\""
		" height=\"%d\" fill=\"%s\" rx=\"2\"/><text x=\"%.3f\" y=\"%.1f\"></text></g>\n",
		n->count, pct, x, y, w > 0.5 ? w - 0.5 : 0, FG_ROW - 1, color, x + 3, y + 11.5);
	free(name);
	for (uint32_t c = n->child; c; c = t->n[c].sibling) {
		emit(out, t, c, x, scale);
		x += t->n[c].count * scale;
	}
}

/* Children were prepended; reverse each list so the order follows the sorted stacks. */
static void reverse_children(struct ftree *t, uint32_t node)
{
	uint32_t prev = 0, c = t->n[node].child;
	while (c) {
		uint32_t next = t->n[c].sibling;
		t->n[c].sibling = prev;
		prev = c;
		c = next;
	}
	t->n[node].child = prev;
	for (c = prev; c; c = t->n[c].sibling)
		reverse_children(t, c);
}

int rp_write_flamegraph(FILE *out, const struct rp_session *s, const char *title)
{
	struct rp_stacks st;
	int rc = rp_collapse(s, &st);
	if (rc)
		return rc;
	struct ftree t = { .cap = 1024, .nr = 1 };
	t.n = calloc(t.cap, sizeof(*t.n));
	if (!t.n) {
		rp_stacks_free(&st);
		return -ENOMEM;
	}
	t.n[0].name = "all";
	t.n[0].name_len = 3;
	for (size_t i = 0; i < st.n && !rc; i++) {
		uint32_t node = 0;
		t.n[0].count += st.v[i].count;
		for (const char *p = st.v[i].stack; *p;) {
			size_t len = strcspn(p, ";");
			node = ft_child(&t, node, p, len);
			if (!node) {
				rc = -ENOMEM;
				break;
			}
			t.n[node].count += st.v[i].count;
			p += len;
			if (*p == ';')
				p++;
		}
	}
	if (!rc) {
		reverse_children(&t, 0);
		int height = FG_TOP + (int)(t.max_depth + 1) * FG_ROW + 30;
		fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%d\" height=\"%d\" onload=\"init()\" "
			"viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
			"<style>text{font-family:monospace;font-size:12px;fill:#000;pointer-events:none}"
			" g.f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}"
			" .ui{cursor:pointer;font-family:sans-serif}</style>\n<script><![CDATA[\n",
			FG_WIDTH, height, FG_WIDTH, height);
		fprintf(out, script, FG_WIDTH - 2 * FG_PAD, FG_PAD);
		fprintf(out, "]]></script>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
			"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" style=\"font-size:16px\">",
			FG_WIDTH / 2);
		rp_xml_str(out, title ? title : "jitprof flame graph");
		fprintf(out, "</text>\n<text class=\"ui\" x=\"%d\" y=\"20\" onclick=\"label()\">Reset "
			"Zoom</text>\n<text class=\"ui\" x=\"%d\" y=\"20\" onclick=\"search()\">Search"
			"</text>\n<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n", FG_PAD,
			FG_WIDTH - 70, FG_PAD, height - 10);
		double scale = t.n[0].count ? (double)(FG_WIDTH - 2 * FG_PAD) / t.n[0].count : 0;
		emit(out, &t, 0, FG_PAD, scale);
		fprintf(out, "</svg>\n");
	}
	free(t.n);
	rp_stacks_free(&st);
	if (rc)
		return rc;
	return ferror(out) ? -EIO : 0;
}
