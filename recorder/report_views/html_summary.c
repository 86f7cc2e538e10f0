/* html_summary.c - what `jitprof report --html`'s page says first: the processes profiled
 * (pid, program, samples), the methods of JIT-compiled or interpreted code with the most
 * samples of their own, the hottest source lines with the method each is in (samples
 * without a line counted apart: a "??:0" row was half of a Java profile's), and each warning
 * the report gave on stderr (the session keeps them), whose text says the fix. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/views_int.h"

#define SUMMARY_PROCS 4
#define SUMMARY_METHODS 10
#define SUMMARY_LINES 10

/* Code of a method a runtime compiled or interprets: no native or kernel code, and no
 * runtime stub (the interpreter itself, adapters), whose loads have no generations. */
static int is_method_code(const struct rp_session *s, const struct rp_frame *f)
{
	enum rp_kind k = rp_frame_kind(s, f);
	if (k == RP_KIND_NATIVE || k == RP_KIND_KERNEL || !f->sym)
		return 0;
	/* an interpreted frame named: a method's, though the interpreter's load is runtime code */
	if (f->flags & RP_FRAME_INTERPRETED)
		return 1;
	return !f->load || !s->loads[f->load - 1].runtime;
}

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

/* "procs":[{"pid":P,"name":"java","samples":N},...]: the processes with most samples. */
static int json_procs(FILE *out, const struct rp_session *s)
{
	enum rp_key key = RP_KEY_PID;
	struct rp_hist h;
	int rc = rp_hist_build(&h, s, &key, 1, 0);
	if (rc)
		return rc;
	fputs("\"procs\":[", out);
	for (size_t i = 0; i < h.nr_entries && i < SUMMARY_PROCS; i++) {
		const struct rp_sample *smp = h.entries[i].first;
		const char *exe = rp_process_exe(s, smp->pid);
		const char *base = exe ? strrchr(exe, '/') : NULL;
		fprintf(out, "%s{\"pid\":%d,\"name\":", i ? "," : "", (int)smp->pid);
		rp_json_str(out, base ? base + 1 : exe ? exe : smp->comm);
		fprintf(out, ",\"samples\":%" PRIu64 "}", h.entries[i].samples);
	}
	fputc(']', out);
	rp_hist_free(&h);
	return 0;
}

/* A method's rows of `--sort sym` summed (compiled, inlined, interpreted), and how many of
 * its compiled generations have samples of their own. */
struct method_sum {
	const char *name;	/* interned: one pointer per name */
	uint64_t samples;
	uint32_t gens, first;
};

static int by_samples(const void *a, const void *b)
{
	const struct method_sum *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Each summed method's generations with samples of their own: the rows of (sym, generation),
 * one per load, that are its compiled code (an inlined copy is its caller's generation's,
 * the interpreter is none: an -Xint method has 0). */
static int count_gens(const struct rp_session *s, const struct rp_u64map *at,
		      struct method_sum *sum)
{
	enum rp_key keys[] = { RP_KEY_SYM, RP_KEY_GENERATION };
	struct rp_hist h;
	int rc = rp_hist_build(&h, s, keys, 2, 0);
	if (rc)
		return rc;
	for (size_t i = 0; i < h.nr_entries; i++) {
		const struct rp_frame *f = h.entries[i].leaf;
		uint32_t k;
		if (is_method_code(s, f) && !(f->flags & RP_METHOD_MARKS) && f->load &&
		    rp_map_get(at, (uintptr_t)f->sym, &k))
			sum[k - 1].gens++;
	}
	rp_hist_free(&h);
	return 0;
}

/* "methods":[{"name":..,"samples":..,"pct":..,"gens":G}],"method_samples":N: self samples
 * of method code only, each method's rows of `--sort sym` summed (its compiled generations
 * are one row there, its inlined copies and interpreted frames one each). */
static int json_methods(FILE *out, const struct rp_session *s)
{
	enum rp_key key = RP_KEY_SYM;
	struct rp_hist h;
	struct rp_u64map at = { 0 };	/* name -> index + 1 into sum */
	struct method_sum *sum = NULL;
	size_t n = 0, cap = 0;
	uint64_t in_methods = 0;
	int rc = rp_hist_build(&h, s, &key, 1, 0);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < h.nr_entries; i++) {
		const struct rp_entry *e = &h.entries[i];
		uint32_t k;
		if (!is_method_code(s, e->leaf))
			continue;
		in_methods += e->samples;
		if (!rp_map_get(&at, (uintptr_t)e->leaf->sym, &k)) {
			if ((rc = rp_grow(&sum, &cap, n + 1, sizeof(*sum))))
				break;
			sum[n] = (struct method_sum){ .name = e->leaf->sym, .first = (uint32_t)i };
			k = (uint32_t)++n;
			if (rp_map_put(&at, (uintptr_t)e->leaf->sym, k) < 0) {
				rc = -ENOMEM;
				break;
			}
		}
		sum[k - 1].samples += e->samples;
	}
	if (!rc && n)
		rc = count_gens(s, &at, sum);
	if (!rc) {
		if (n)	/* sum is NULL without a row: qsort's pointer must not be */
			qsort(sum, n, sizeof(*sum), by_samples);
		fputs("\"methods\":[", out);
		for (size_t i = 0; i < n && i < SUMMARY_METHODS; i++) {
			fputs(i ? ",{\"name\":" : "{\"name\":", out);
			rp_json_str(out, sum[i].name);
			fprintf(out, ",\"samples\":%" PRIu64 ",\"pct\":%.2f,\"gens\":%u}",
				sum[i].samples, share(sum[i].samples, h.total_samples), sum[i].gens);
		}
		fprintf(out, "],\"method_samples\":%" PRIu64, in_methods);
	}
	free(sum);
	rp_map_free(&at);
	rp_hist_free(&h);
	return rc;
}

/* A line of a method, its rows of the (srcline, sym) table summed: jitted code keys its lines
 * by address, so each generation's, and each instruction's of one line, is a row there. */
struct line_sum {
	uint64_t samples;
	uint32_t id, first;	/* the (line, method) pair's index in the table; its first row */
	const struct rp_frame *method;	/* the innermost method of the line's samples */
};

static int by_line_samples(const void *a, const void *b)
{
	const struct line_sum *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

int rp_html_lines(FILE *out, const struct rp_session *s, size_t max_rows)
{
	enum rp_key keys[] = { RP_KEY_SRCLINE, RP_KEY_SYM };
	struct rp_hist h;
	struct rp_strtab lines = { 0 };	/* (line text, method name) pairs */
	struct line_sum *sum = NULL;
	size_t n = 0, cap = 0;
	struct jp_str buf = { 0 };
	uint64_t no_line = 0;
	int rc = rp_hist_build(&h, s, keys, 2, 0);
	if (rc)
		return rc;
	for (size_t i = 0; i < h.nr_entries && !rc; i++) {
		const struct rp_entry *e = &h.entries[i];
		uint32_t id;
		if (!e->leaf->srcfile || !e->leaf->line) {
			no_line += e->samples;
			continue;
		}
		/* The line's method is the innermost one, an inlined one included, as --methods
		 * names it: perf's sym of the ip is the compiled caller that holds the code
		 * (AtomicLong.java:151 is not a line of the Shop.make that inlined it). Every
		 * sample of a file:line has that method; the entry's first says which. */
		const struct rp_frame *m = rp_method_frame(s, e->first);
		const char *line = rp_entry_key_str(&h, e, RP_KEY_SRCLINE, &buf);
		if ((rc = rp_strtab_id(&lines, line, (uintptr_t)m->sym, &id)))
			break;
		if (id == n) {
			if ((rc = rp_grow(&sum, &cap, n + 1, sizeof(*sum))))
				break;
			sum[n++] = (struct line_sum){ .id = id, .first = (uint32_t)i, .method = m };
		}
		sum[id].samples += e->samples;
	}
	if (!rc) {
		if (n)
			qsort(sum, n, sizeof(*sum), by_line_samples);
		fputs(",\"lines\":[", out);
		/* The max_rows hottest, and the summary's hottest of method code after them. */
		for (size_t i = 0, code = 0, put = 0; i < n; i++) {
			const struct rp_frame *f = sum[i].method;
			int is_code = is_method_code(s, f);
			code += is_code;
			if (i >= max_rows && (!is_code || code > SUMMARY_LINES))
				continue;
			fprintf(out, "%s{\"pct\":%.2f,\"samples\":%" PRIu64 ",\"line\":",
				put++ ? "," : "", share(sum[i].samples, h.total_samples),
				sum[i].samples);
			rp_json_str(out, lines.str[sum[i].id]);
			fputs(",\"method\":", out);
			rp_json_str(out, f->sym ? f->sym : f->dso);
			fputs(is_code ? ",\"code\":1}" : "}", out);
		}
		fprintf(out, "],\"no_line\":%" PRIu64, no_line);
	}
	free(sum);
	if (jp_str_free(&buf) && !rc)
		rc = -ENOMEM;
	rp_strtab_free(&lines);
	rp_hist_free(&h);
	return rc;
}

int rp_html_summary(FILE *out, const struct rp_session *s)
{
	int rc;
	fputs(",\"summary\":{", out);
	if ((rc = json_procs(out, s)))
		return rc;
	fputc(',', out);
	if ((rc = s->jvm_leaf ? rp_html_jvm_methods(out, s, SUMMARY_METHODS)
			      : json_methods(out, s)))
		return rc;
	fputs(",\"warnings\":[", out);
	for (size_t i = 0; i < s->nr_warnings; i++) {
		fputs(i ? "," : "", out);
		rp_json_str(out, s->warnings[i]);
	}
	fprintf(out, "],\"more_warnings\":%" PRIu64 "}", s->more_warnings);
	return 0;
}
