/* html.c - `jitprof report --html`: one self-contained file (no network): the page skeleton,
 * the CSS and JS from recorder/report/html/ (embedded at build time) and the data as JSON in
 * <script id="data">: the summary (html_summary.c), the stack tree (html_tree.c), the
 * generations of the hot methods with their samples per time bucket, the top table and the
 * hottest lines with their methods; with a base session (--diff), each frame's change of
 * share since the base; with several events, the same of each other one in "tabs". */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/views_int.h"

#define HTML_BUCKETS 100
#define HTML_METHODS 12
#define HTML_LINES 30

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
				rp_put_long(out, b ? ',' : 0, hist[r][b]);
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

/* {"keys":[...],"rows":[{"pct":..,"samples":..,"v":[key strings]}]}: the table's rows. */
static int json_rows(FILE *out, const struct rp_session *s, const enum rp_key *keys,
		     int nr_keys, size_t max_rows)
{
	struct rp_hist h;
	struct jp_str buf = { 0 };
	int rc = rp_hist_build(&h, s, keys, nr_keys, 0);
	if (rc)
		return rc;
	fprintf(out, "{\"keys\":[");
	for (int k = 0; k < nr_keys; k++)
		fprintf(out, "%s\"%s\"", k ? "," : "", rp_key_name(keys[k]));
	fprintf(out, "],\"rows\":[");
	for (size_t i = 0; i < h.nr_entries && i < max_rows; i++) {
		const struct rp_entry *e = &h.entries[i];
		fprintf(out, "%s{\"pct\":%.2f,\"samples\":%" PRIu64 ",\"v\":[", i ? "," : "",
			h.total_period ? 100.0 * e->period / h.total_period : 0, e->samples);
		for (int k = 0; k < nr_keys; k++) {
			fputs(k ? "," : "", out);
			rp_json_str(out, rp_entry_key_str(&h, e, keys[k], &buf));
		}
		fputs("]}", out);
	}
	fputs("]}", out);
	rp_hist_free(&h);
	return jp_str_free(&buf);
}

/* One event's fields (the page's first tab's at the top level, the others' in "tabs"): what
 * it weighs, its summary, timeline, tables and the kinds its tree draws. */
static int write_tab(FILE *out, const struct rp_session *s, const struct rp_html_opts *o,
		     const uint32_t *present)
{
	struct rp_gen_view v;
	struct jp_str desc = { 0 };
	int rc;
	fprintf(out, ",\"desc\":");
	rp_json_str(out, rp_describe(s, &desc));
	if (jp_str_free(&desc))
		return -ENOMEM;
	fprintf(out, ",\"event\":");
	rp_json_str(out, s->event);
	/* weighed by time (offcpu, wall, lock): its tree's counts are nanoseconds; by bytes
	 * (alloc): bytes */
	fprintf(out, ",\"time\":%s,\"bytes\":%s,\"samples\":%zu,\"duration_s\":%.6f,"
		"\"jvm\":%s,\"present\":[", s->weigh_time ? "true" : "false",
		s->weigh_bytes ? "true" : "false", s->nr_samples,
		s->end > s->start ? (s->end - s->start) / 1e9 : 0, s->jvm_leaf ? "true" : "false");
	static const enum rp_kind order[] = { RP_KIND_INTERP, RP_KIND_C1, RP_KIND_C2,
					      RP_KIND_INLINED, RP_KIND_JAVA, RP_KIND_JIT,
					      RP_KIND_NATIVE, RP_KIND_KERNEL };
	int first = 1;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (present[order[i]]) {
			fprintf(out, "%s%d", first ? "" : ",", order[i]);
			first = 0;
		}
	fprintf(out, "],\"timeline\":");
	if ((rc = rp_gen_view_build(&v, s, NULL)))
		return rc;
	rc = json_timeline(out, s, &v);
	rp_gen_view_free(&v);
	if (rc)
		return rc;
	fprintf(out, ",\"timeline_sources\":");
	rp_gen_html_sources(out, s);
	fprintf(out, ",\"top\":");
	if ((rc = json_rows(out, s, o->keys, o->nr_keys, o->max_rows ? o->max_rows : 50)) ||
	    (rc = s->jvm_leaf ? rp_html_jvm_lines(out, s, HTML_LINES)
					 : rp_html_lines(out, s, HTML_LINES)) || (rc = rp_html_summary(out, s)))
		return rc;
	return 0;
}

static int write_data(FILE *out, const struct rp_session *const *ss, size_t n,
		      const struct rp_html_opts *o)
{
	uint32_t (*present)[RP_KIND__MAX] = calloc(n, sizeof(*present));
	if (!present)
		return -ENOMEM;
	fprintf(out, "{\"title\":");
	rp_json_str(out, o->title ? o->title : "jitprof report");
	fprintf(out, ",\"kinds\":[");
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
	fprintf(out, ",\"diff\":%s", o->base ? "true" : "false");
	int rc = rp_html_tree(out, ss, n, o, present);
	if (!rc)
		rc = write_tab(out, ss[0], o, present[0]);
	if (!rc && n > 1) {	/* the other events' tabs, their trees in tab_trees */
		fputs(",\"tabs\":[", out);
		for (size_t k = 1; k < n && !rc; k++) {
			fprintf(out, "%s{\"tab\":%zu", k > 1 ? "," : "", k);
			rc = write_tab(out, ss[k], o, present[k]);
			fputc('}', out);
		}
		fputc(']', out);
	}
	free(present);
	if (rc)
		return rc;
	fputc('}', out);
	return 0;
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
	return rp_write_html_events(out, &s, 1, o);
}

int rp_write_html_events(FILE *out, const struct rp_session *const *ss, size_t n,
			 const struct rp_html_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return -ENOMEM;
	int rc = write_data(mem, ss, n, o);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(buf);
		return rc;
	}
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	rp_xml_str(out, o->title ? o->title : "jitprof report");
	/* The summary first, the rest one click away (the links); the flame graph's box scrolls
	 * on its own, so a deep stack never pushes the timeline and tables far down. */
	fprintf(out, "</title>\n<style>\n%s</style></head>\n<body>\n"
		"<header><h1 id=\"title\"></h1><div class=\"sub\" id=\"desc\"></div></header>\n"
		"<div id=\"tabs\"></div><div id=\"page\">\n"	/* the tabs draw #page anew */
		"<nav><span id=\"links\"><a href=\"#summary\">Summary</a><a href=\"#flame-sec\">"
		"Flame graph</a><a href=\"#timeline-sec\">Generations</a><a href=\"#top-sec\">Top"
		"</a><a href=\"#lines-sec\">Hot lines</a></span>"
		"<button id=\"reset\">Reset zoom</button><input id=\"search\" "
		"placeholder=\"Search: text or regex, Enter\"><button id=\"search-btn\">Search</button>"
		"<button id=\"invert\">Invert</button><span id=\"matched\"></span></nav>\n"
		"<section id=\"summary\"><div id=\"profiled\"></div><ul id=\"warnings\"></ul>"
		"<div class=\"cols\"><div><h3 id=\"sum-methods-h\">Hottest methods (own samples, "
		"compiled or interpreted code)</h3><table id=\"sum-methods\"></table></div><div><h3 "
		"id=\"sum-lines-h\">Hottest source lines in those methods</h3><table id=\"sum-lines\"></table><div class=\"note\" "
		"id=\"sum-lines-note\"></div></div></div></section>\n"
		"<section id=\"flame-sec\"><h2>Flame graph <small id=\"flame-mode\"></small></h2>"
		"<div class=\"legend\" id=\"legend\"></div><div id=\"flame-box\"><canvas "
		"id=\"flame\"></canvas></div><div id=\"details\">Click a frame to zoom in; click the "
		"top frame to zoom out.</div></section>\n<section id=\"timeline-sec\"><h2>"
		"Generations timeline</h2><div id=\"timeline\"></div></section>\n<section "
		"id=\"top-sec\"><h2>Top</h2><table id=\"top\"></table></section>\n<section "
		"id=\"lines-sec\"><h2>Hottest source lines</h2><table id=\"lines\"></table><div "
		"class=\"note\" id=\"lines-note\"></div></section>\n<div id=\"tip\"></div></div>\n"
		"<script id=\"data\" type=\"application/json\">", rp_html_css);
	html_json(out, buf, len);
	free(buf);
	fprintf(out, "</script>\n<script>\n%s</script>\n</body></html>\n", rp_html_js);
	return ferror(out) ? -EIO : 0;
}
