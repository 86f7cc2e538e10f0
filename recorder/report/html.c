/* html.c - `jitprof report --html`: one self-contained file (no network): the page skeleton,
 * the CSS and JS from recorder/report/html/ (embedded at build time) and the data as JSON in
 * <script id="data">: both stack trees (callees and callers), the generations of the hot
 * methods with their samples per time bucket, the top table and the hottest lines; with a
 * base session (--diff), each frame's change of share since the base. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report/report_int.h"

#define HTML_BUCKETS 100
#define HTML_METHODS 12
#define HTML_LINES 30

/* Differential (bt, base's tree, pruned): per node of t, how its share of all samples moved
 * since the base, in hundredths of a point; nodes come after their parents in order. */
static long *tree_deltas(const struct rp_session *s, const struct rp_tree *t,
			 const uint32_t *order, size_t n, const struct rp_session *base,
			 const struct rp_tree *bt)
{
	uint32_t *match = malloc(t->nr * sizeof(*match));
	long *delta = malloc((n + 1) * sizeof(*delta));
	char buf[1024];
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
						    rp_tnode_name(s, x, buf, sizeof(buf)));
		double was = match[i] != RP_NO_NODE ? 100.0 * bt->n[match[i]].count / ball : 0;
		delta[j] = lround((100.0 * x->count / all - was) * 100);
	}
	free(match);
	return delta;
}

/* The names' table index of each frame of the session's table (UINT32_MAX: not named yet):
 * a frame is at many nodes of both trees, and naming and hashing it at each was a third of
 * the page's writing. */
struct name_ids {
	uint32_t *id;
	size_t n;
};

static int node_name_id(const struct rp_session *s, const struct rp_tnode *x,
			struct rp_strtab *nm, struct name_ids *ni, uint32_t *id)
{
	char buf[1024];
	size_t ref = x->f ? (size_t)(x->f - s->frames) : SIZE_MAX;
	if (ref < ni->n && ni->id[ref] != UINT32_MAX) {
		*id = ni->id[ref];
		return 0;
	}
	int rc = rp_strtab_id(nm, rp_tnode_name(s, x, buf, sizeof(buf)), 0, id);
	if (!rc && ref < ni->n)
		ni->id[ref] = *id;
	return rc;
}

/* A long in decimal after sep (0: none), without printf's parsing per number. */
static void put_long(FILE *out, char sep, long v)
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

/* Pre-order arrays of the kept nodes: n (name index, -1 root/narrow), k, c, d, m, and with
 * a base tree p (change of share since the base, hundredths of a point). */
static int json_tree(FILE *out, const struct rp_session *s, struct rp_tree *t,
		     struct rp_strtab *nm, struct name_ids *ni, uint64_t min_count,
		     uint32_t *present, const struct rp_session *base, const struct rp_tree *bt)
{
	rp_tree_prune(t, min_count);
	rp_tree_sort(t);
	size_t cap = t->max_depth + 2, n = 0, sp = 0;
	uint32_t *stack = malloc(cap * sizeof(*stack)), *order = NULL;
	if (!stack || !(order = malloc(t->nr * sizeof(*order)))) {
		free(stack);
		return -ENOMEM;
	}
	/* Depth first: a node's children pushed, then their run reversed so that they come
	 * out in sibling order (heaviest first). */
	stack[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		order[n++] = i;
		size_t from = sp;
		for (uint32_t c = t->n[i].child; c; c = t->n[c].sibling) {
			if (sp == cap) {
				uint32_t *p = realloc(stack, cap * 2 * sizeof(*p));
				if (!p) {
					free(stack);
					free(order);
					return -ENOMEM;
				}
				stack = p;
				cap *= 2;
			}
			stack[sp++] = c;
		}
		for (size_t l = from, r = sp; l + 1 < r; l++, r--) {
			uint32_t x = stack[l];
			stack[l] = stack[r - 1];
			stack[r - 1] = x;
		}
	}
	free(stack);
	long *delta = bt ? tree_deltas(s, t, order, n, base, bt) : NULL;
	if (bt && !delta) {
		free(order);
		return -ENOMEM;
	}
	static const char *const field[] = { "n", "k", "c", "d", "m", "p" };
	int rc = 0;
	fputc('{', out);
	for (int f = 0; f < (bt ? 6 : 5) && !rc; f++) {
		fprintf(out, "%s\"%s\":[", f ? "," : "", field[f]);
		for (size_t j = 0; j < n && !rc; j++) {
			const struct rp_tnode *x = &t->n[order[j]];
			long v = 0;
			uint32_t id;
			switch (f) {
			case 0:
				if (!x->f && !x->comm)
					v = -1;
				else if (!(rc = node_name_id(s, x, nm, ni, &id)))
					v = id;
				break;
			case 1:
				v = rp_tnode_kind(x);
				if (x->f)
					present[v] = 1;
				break;
			case 2: v = (long)x->count; break;
			case 3: v = x->depth; break;
			case 4: v = x->narrow; break;
			case 5: v = delta[j]; break;
			}
			put_long(out, j ? ',' : 0, v);
		}
		fputc(']', out);
	}
	fputc('}', out);
	free(order);
	free(delta);
	return rc;
}

/* Each generation's samples per time bucket: leaf frames in that load. */
static int json_timeline(FILE *out, const struct rp_session *s, const struct rp_gen_view *v)
{
	/* The hot methods: those with samples, heaviest first (the view's order). */
	size_t nm = 0;
	while (nm < v->nr_methods && nm < HTML_METHODS) {
		uint64_t n = 0;
		for (size_t k = 0; k < v->methods[nm].nr_rows; k++)
			n += v->methods[nm].rows[k].samples;
		if (!n)
			break;
		nm++;
	}
	uint32_t (*hist)[HTML_BUCKETS] = NULL;
	struct rp_u64map row_of = { 0 };	/* load index -> row number + 1 */
	size_t rows = 0;
	for (size_t m = 0; m < nm; m++)
		rows += v->methods[m].nr_rows;
	if (rows && !(hist = calloc(rows, sizeof(*hist))))
		return -ENOMEM;
	size_t r = 0;
	for (size_t m = 0; m < nm; m++)
		for (size_t k = 0; k < v->methods[m].nr_rows; k++, r++)
			if (rp_map_put(&row_of, (uint64_t)(v->methods[m].rows[k].load - s->loads) + 1,
				       (uint32_t)r + 1) < 0) {
				free(hist);
				rp_map_free(&row_of);
				return -ENOMEM;
			}
	double span = s->end > s->start ? (double)(s->end - s->start) : 1;
	for (size_t i = 0; i < s->nr_samples && rows; i++) {
		const struct rp_frame *f = rp_leaf(s, &s->samples[i]);
		uint32_t row;
		if (!f->load || (f->flags & RP_FRAME_UNLOADED) || !rp_map_get(&row_of, f->load, &row))
			continue;
		/* A sample may lie outside the recorded span (damaged input): the edge buckets. */
		double rel = s->samples[i].time > s->start ? (s->samples[i].time - s->start) / span : 0;
		int b = rel >= 1 ? HTML_BUCKETS - 1 : (int)(rel * HTML_BUCKETS);
		hist[row - 1][b]++;
	}
	double dur = span / 1e9;
	fputc('[', out);
	r = 0;
	for (size_t m = 0; m < nm; m++) {
		const struct rp_gen_method *gm = &v->methods[m];
		uint64_t total = 0;
		for (size_t k = 0; k < gm->nr_rows; k++)
			total += gm->rows[k].samples;
		fprintf(out, "%s{\"method\":", m ? "," : "");
		rp_json_str(out, gm->method);
		fprintf(out, ",\"pid\":%u,\"samples\":%" PRIu64 ",\"gens\":[", gm->pid, total);
		for (size_t k = 0; k < gm->nr_rows; k++, r++) {
			const struct rp_gen_row *g = &gm->rows[k];
			double end = g->rel_load_s + g->lifetime_s;
			fprintf(out, "%s{\"gen\":%u,\"tier\":\"%s\",\"load\":%.6f,\"end\":%.6f,"
				"\"unloaded\":%s,\"samples\":%" PRIu64 ",\"hist\":[", k ? "," : "",
				g->load->generation, rp_load_tier(g->load), g->rel_load_s, end,
				g->load->end_time && end < dur - 1e-6 ? "true" : "false", g->samples);
			for (int b = 0; b < HTML_BUCKETS; b++)
				put_long(out, b ? ',' : 0, hist[r][b]);
			fputs("],", out);
			rp_gen_html_fields(out, g);
			fputc('}', out);
		}
		fprintf(out, "]}");
	}
	fputc(']', out);
	free(hist);
	rp_map_free(&row_of);
	return 0;
}

static int json_rows(FILE *out, const struct rp_session *s, const enum rp_key *keys,
		     int nr_keys, size_t max_rows, int with_keys)
{
	struct rp_hist h;
	char buf[4096];
	int rc = rp_hist_build(&h, s, keys, nr_keys, 0);
	if (rc)
		return rc;
	if (with_keys) {
		fprintf(out, "{\"keys\":[");
		for (int k = 0; k < nr_keys; k++)
			fprintf(out, "%s\"%s\"", k ? "," : "", rp_key_name(keys[k]));
		fprintf(out, "],\"rows\":");
	}
	fputc('[', out);
	for (size_t i = 0; i < h.nr_entries && i < max_rows; i++) {
		const struct rp_entry *e = &h.entries[i];
		fprintf(out, "%s{\"pct\":%.4f,\"samples\":%" PRIu64 ",%s", i ? "," : "",
			h.total_period ? 100.0 * e->period / h.total_period : 0, e->samples,
			with_keys ? "\"v\":[" : "\"line\":");
		for (int k = 0; k < nr_keys; k++) {
			fputs(k ? "," : "", out);
			rp_json_str(out, rp_entry_key_str(&h, e, keys[k], buf, sizeof(buf)));
		}
		fputs(with_keys ? "]}" : "}", out);
	}
	fputc(']', out);
	if (with_keys)
		fputc('}', out);
	rp_hist_free(&h);
	return 0;
}

static int write_data(FILE *out, const struct rp_session *s, const struct rp_html_opts *o)
{
	struct rp_strtab nm = { 0 };
	struct name_ids ni = { malloc(s->nr_frames * sizeof(*ni.id)), s->nr_frames };
	struct rp_gen_view v;
	char desc[256];
	uint32_t present[RP_KIND__MAX] = { 0 };
	rp_describe(s, desc, sizeof(desc));
	fprintf(out, "{\"title\":");
	rp_json_str(out, o->title ? o->title : "jitprof report");
	fprintf(out, ",\"desc\":");
	rp_json_str(out, desc);
	fprintf(out, ",\"samples\":%zu,\"duration_s\":%.6f,\"kinds\":[", s->nr_samples,
		s->end > s->start ? (s->end - s->start) / 1e9 : 0);
	for (int k = 0; k < RP_KIND__MAX; k++)
		fprintf(out, "%s\"%s\"", k ? "," : "", rp_kind_name((enum rp_kind)k));
	fprintf(out, "],\"labels\":[");
	for (int k = 0; k < RP_KIND__MAX; k++)
		fprintf(out, "%s\"%s\"", k ? "," : "", rp_kind_label((enum rp_kind)k));
	fprintf(out, "],\"colors\":[");
	for (int k = 0; k < RP_KIND__MAX; k++) {
		int h, sat, l;
		char c[64];
		rp_kind_color((enum rp_kind)k, 0.5, c, sizeof(c));
		sscanf(c, "hsl(%d,%d%%,%d%%)", &h, &sat, &l);
		fprintf(out, "%s[%d,%d,%d]", k ? "," : "", h, sat, l);
	}
	fputc(']', out);
	/* Narrow frames: a share of the widest view (1200 px). */
	uint64_t min_count = (uint64_t)(s->nr_samples * (o->min_width > 0 ? o->min_width : 0.1) /
					1200.0);
	int rc = 0;
	if (ni.id)
		memset(ni.id, 0xff, ni.n * sizeof(*ni.id));
	else
		ni.n = 0;	/* each node named on its own, as before */
	fprintf(out, ",\"diff\":%s", o->base ? "true" : "false");
	/* Both trees, and the base's, each pair from one pass over its samples' stacks. */
	struct rp_tree t[2] = { 0 }, bt[2] = { 0 };
	rc = rp_trees_build(&t[0], &t[1], s);
	if (!rc)	/* once for both */
		rp_tree_log_cut(t[0].cut_stacks ? &t[0] : &t[1], s->tree_max_nodes, o->log);
	if (!rc && o->base && !(rc = rp_trees_build(&bt[0], &bt[1], o->base)))
		for (int rev = 0; rev < 2; rev++)	/* merged as the picture is, in its scale */
			rp_tree_prune(&bt[rev], (uint64_t)(o->base->nr_samples *
							   (o->min_width > 0 ? o->min_width : 0.1) /
							   1200.0));
	for (int rev = 0; rev < 2 && !rc; rev++) {
		fprintf(out, ",\"%s\":", rev ? "rtree" : "tree");
		rc = json_tree(out, s, &t[rev], &nm, &ni, min_count, present, o->base,
			       o->base ? &bt[rev] : NULL);
	}
	for (int rev = 0; rev < 2; rev++) {
		rp_tree_free(&t[rev]);
		rp_tree_free(&bt[rev]);
	}
	if (rc)
		goto out;
	fprintf(out, ",\"present\":[");
	static const enum rp_kind order[] = { RP_KIND_INTERP, RP_KIND_C1, RP_KIND_C2,
					      RP_KIND_INLINED, RP_KIND_JIT, RP_KIND_NATIVE,
					      RP_KIND_KERNEL };
	int first = 1;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (present[order[i]]) {
			fprintf(out, "%s%d", first ? "" : ",", order[i]);
			first = 0;
		}
	fprintf(out, "],\"names\":[");
	for (size_t i = 0; i < nm.n; i++) {
		fputs(i ? "," : "", out);
		rp_json_str(out, nm.str[i]);
	}
	fprintf(out, "],\"timeline\":");
	if ((rc = rp_gen_view_build(&v, s, NULL)))
		goto out;
	rc = json_timeline(out, s, &v);
	rp_gen_view_free(&v);
	if (rc)
		goto out;
	fprintf(out, ",\"timeline_sources\":");
	rp_gen_html_sources(out, s);
	fprintf(out, ",\"top\":");
	if ((rc = json_rows(out, s, o->keys, o->nr_keys, o->max_rows ? o->max_rows : 50, 1)))
		goto out;
	fprintf(out, ",\"lines\":");
	enum rp_key line_key = RP_KEY_SRCLINE;
	rc = json_rows(out, s, &line_key, 1, HTML_LINES, 0);
	fputc('}', out);
out:
	rp_strtab_free(&nm);
	free(ni.id);
	return rc;
}

/* The JSON of the data block as text no HTML parser reads as markup: '<', '>' and '&' (inside
 * JSON strings only, where \u003c is the same character) never appear raw, so no name can end
 * the element ("</script>") or put the tokenizer into the script-data escaped states ("<!--"
 * then "<script>": the rest of the page, its code too, became data and it rendered blank).
 * U+2028/U+2029 never reach here raw (rp_json_str escapes them). Runs between them go out in
 * one fwrite each (a byte at a time took the stream's lock per byte of a data block that is
 * megabytes on a big recording). */
static void html_json(FILE *out, const char *p, size_t len)
{
	const char *end = p + len;
	while (p < end) {
		size_t n = strcspn(p, "<>&");
		if (n > (size_t)(end - p))
			n = (size_t)(end - p);
		fwrite(p, 1, n, out);
		if ((p += n) < end)
			fprintf(out, "\\u%04x", (unsigned char)*p++);
	}
}

int rp_write_html(FILE *out, const struct rp_session *s, const struct rp_html_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return -ENOMEM;
	int rc = write_data(mem, s, o);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(buf);
		return rc;
	}
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	rp_xml_str(out, o->title ? o->title : "jitprof report");
	fprintf(out, "</title>\n<style>\n%s</style></head>\n<body>\n"
		"<header><h1 id=\"title\"></h1><div class=\"sub\" id=\"desc\"></div></header>\n"
		"<nav><button id=\"reset\">Reset zoom</button><input id=\"search\" "
		"placeholder=\"Search: text or regex, Enter\"><button id=\"search-btn\">Search</button>"
		"<button id=\"invert\">Invert</button><span id=\"matched\"></span></nav>\n"
		"<section><h2>Flame graph <small id=\"flame-mode\"></small></h2>"
		"<div class=\"legend\" id=\"legend\"></div><canvas id=\"flame\"></canvas>"
		"<div id=\"details\">Click a frame to zoom in; click the top frame to zoom out.</div>"
		"</section>\n<section><h2>Generations timeline</h2><div id=\"timeline\"></div>"
		"</section>\n<section><h2>Top</h2><table id=\"top\"></table></section>\n"
		"<section><h2>Hottest source lines</h2><table id=\"lines\"></table></section>\n"
		"<script id=\"data\" type=\"application/json\">", rp_html_css);
	html_json(out, buf, len);
	free(buf);
	fprintf(out, "</script>\n<script>\n%s</script>\n</body></html>\n", rp_html_js);
	return ferror(out) ? -EIO : 0;
}
