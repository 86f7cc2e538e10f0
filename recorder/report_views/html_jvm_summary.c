/* html_jvm_summary.c - the HTML page's hottest methods and lines for the JVM's own samples
 * (--event alloc|lock): their leaf is the class allocated or waited for ("[alloc] long[]"),
 * so the method that counts is the frame below it, the one that allocates or waits, and its
 * line is where it does. Shares are of the event's weight (bytes, nanoseconds), as every
 * other view of these events weighs; "samples" stay counts. Same JSON shapes as
 * html_summary.c's for a profile's samples. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "recorder/report_views/views_int.h"

/* One method, or one (line, method) pair, summed over the samples under it. */
struct jvm_sum {
	uint64_t samples, weight;
	uint32_t first;		/* the first sample's index: ties in order of appearance */
	const struct rp_frame *f;
};

static int by_weight(const void *a, const void *b)
{
	const struct jvm_sum *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

const struct rp_frame *rp_jvm_sample_site(const struct rp_session *s,
					  const struct rp_sample *smp)
{
	if (!s->jvm_leaf || smp->nr < 2)
		return NULL;
	const struct rp_frame *f = rp_sample_frame(s, smp, 1);
	return f->sym ? f : NULL;
}

/* Sums each sample's site into sum by key (the method's name, or its "file:line" and name);
 * no_site: the weight of samples without one (or without a line, by_line). */
static int sum_sites(const struct rp_session *s, int by_line, struct jvm_sum **sum, size_t *n,
		     uint64_t *total, uint64_t *no_site, struct rp_strtab *keys)
{
	struct jp_str line = { 0 };
	size_t cap = 0;
	int rc = 0;

	for (size_t i = 0; i < rp_nr_samples(s) && !rc; i++) {
		const struct rp_sample *smp = rp_sample_at(s, i);
		const struct rp_frame *f = rp_jvm_sample_site(s, smp);
		uint32_t id;
		*total += smp->period;
		if (!f || (by_line && (!f->srcfile || !f->line))) {
			*no_site += smp->period;
			continue;
		}
		if (by_line)
			jp_str_printf(&line, "%s:%u", f->srcfile, f->line);
		if (line.nomem) {
			rc = -ENOMEM;
			break;
		}
		if ((rc = rp_strtab_id(keys, by_line ? line.s : f->sym, (uintptr_t)f->sym, &id)))
			break;
		if (id == *n) {
			if ((rc = rp_grow(sum, &cap, *n + 1, sizeof(**sum))))
				break;
			(*sum)[(*n)++] = (struct jvm_sum){ .first = (uint32_t)i, .f = f };
		}
		(*sum)[id].samples++;
		(*sum)[id].weight += smp->period;
	}
	if (jp_str_free(&line) && !rc)
		rc = -ENOMEM;
	if (!rc && *n)
		qsort(*sum, *n, sizeof(**sum), by_weight);
	return rc;
}

int rp_html_jvm_methods(FILE *out, const struct rp_session *s, size_t max_rows)
{
	struct rp_strtab keys = { 0 };
	struct jvm_sum *sum = NULL;
	size_t n = 0;
	uint64_t total = 0, none = 0;
	int rc = sum_sites(s, 0, &sum, &n, &total, &none, &keys);

	if (!rc) {
		fputs("\"methods\":[", out);
		for (size_t i = 0; i < n && i < max_rows; i++) {
			fputs(i ? ",{\"name\":" : "{\"name\":", out);
			rp_json_str(out, sum[i].f->sym);
			fprintf(out, ",\"samples\":%" PRIu64 ",\"pct\":%.2f,\"rows\":1}",
				sum[i].samples, share(sum[i].weight, total));
		}
		/* the share in methods, as the page says it: of samples */
		uint64_t in_methods = 0;
		for (size_t i = 0; i < n; i++)
			in_methods += sum[i].samples;
		fprintf(out, "],\"method_samples\":%" PRIu64, in_methods);
	}
	free(sum);
	rp_strtab_free(&keys);
	return rc;
}

int rp_html_jvm_lines(FILE *out, const struct rp_session *s, size_t max_rows)
{
	struct rp_strtab keys = { 0 };
	struct jvm_sum *sum = NULL;
	size_t n = 0;
	uint64_t total = 0, no_line = 0, no_line_samples = 0;
	int rc = sum_sites(s, 1, &sum, &n, &total, &no_line, &keys);

	if (!rc) {
		fputs(",\"lines\":[", out);
		for (size_t i = 0; i < n && i < max_rows; i++) {
			struct jp_str line = { 0 };
			const struct rp_frame *f = sum[i].f;
			jp_str_printf(&line, "%s:%u", f->srcfile, f->line);
			fprintf(out, "%s{\"pct\":%.2f,\"samples\":%" PRIu64 ",\"line\":", i ? "," : "",
				share(sum[i].weight, total), sum[i].samples);
			rp_json_str(out, line.s ? line.s : "");
			fputs(",\"method\":", out);
			rp_json_str(out, f->sym);
			fputs(",\"code\":1}", out);
			if (jp_str_free(&line)) {
				rc = -ENOMEM;
				break;
			}
		}
		for (size_t i = 0; i < rp_nr_samples(s); i++) {
			const struct rp_frame *f = rp_jvm_sample_site(s, rp_sample_at(s, i));
			no_line_samples += !f || !f->srcfile || !f->line;
		}
		fprintf(out, "],\"no_line\":%" PRIu64, no_line_samples);
	}
	free(sum);
	rp_strtab_free(&keys);
	return rc;
}
