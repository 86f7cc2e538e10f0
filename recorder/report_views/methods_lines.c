/* methods_lines.c - `report --methods`' hottest source lines: the line of each sample's ip
 * (perf's srcline, the innermost one), named with the method it belongs to (the innermost,
 * an inlined one marked). Samples without a line (native code without DWARF, the kernel,
 * stubs) are no line: they are counted apart, not shown as a "??:0" row that would lead. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/methods_view.h"

struct hot_line {
	const char *file;
	uint32_t line;
	const struct rp_frame *method;
	uint64_t period, samples;
};

static int cmp_ptr(const void *a, const void *b)
{
	return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

/* Same line of the same method together (interned pointers: any fixed order will do), its
 * inlined, interpreted and compiled frames apart as the method rows keep them: one row would
 * carry one frame's mark for all (a compiled loop's line was shown _[int] for the 3 of its
 * 675 samples the interpreter ran). */
static int by_key(const void *pa, const void *pb)
{
	const struct hot_line *a = pa, *b = pb;
	int c = cmp_ptr(a->file, b->file);
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if ((c = cmp_ptr(a->method->sym, b->method->sym)))
		return c;
	return (int)(a->method->flags & RP_METHOD_MARKS) -
	       (int)(b->method->flags & RP_METHOD_MARKS);
}

static int by_period(const void *pa, const void *pb)
{
	const struct hot_line *a = pa, *b = pb;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	int c = strcmp(a->file, b->file);
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

int mv_print_lines(FILE *out, struct mv_ctx *c, size_t max)
{
	const struct rp_session *s = c->s;
	struct hot_line *v = malloc((s->nr_samples + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	uint64_t none = 0, none_period = 0;
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		const struct rp_frame *ip = rp_leaf(s, smp);
		if (!ip->srcfile) {
			none++;
			none_period += smp->period;
			continue;
		}
		v[n++] = (struct hot_line){ ip->srcfile, ip->line, rp_method_frame(s, smp),
					    smp->period, 1 };
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_key);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !by_key(&v[k - 1], &v[i])) {
			v[k - 1].period += v[i].period;
			v[k - 1].samples += v[i].samples;
		} else {
			v[k++] = v[i];
		}
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), by_period);
	fprintf(out, "# Hottest source lines: %" PRIu64 " of %zu samples (%.1f%%) have no source "
		"line (native code without line tables, kernel, stubs), not ranked here\n", none,
		s->nr_samples, c->total ? 100.0 * none_period / c->total : 0);
	if (k)
		mv_put_head(out, c, "Source:Line  Method");
	for (size_t i = 0; i < k && i < max; i++) {
		mv_put_numbers(out, c, v[i].period, v[i].samples);
		fprintf(out, "  %s:%u  %s\n", v[i].file, v[i].line,
			rp_frame_name(s, v[i].method, mv_name_tag(s), &c->name));
		if (v[i].method->flags & RP_FRAME_INLINED)
			c->marks |= MV_MARK_INLINED;
		if (v[i].method->flags & RP_FRAME_INTERPRETED)
			c->marks |= MV_MARK_INTERP;
	}
	fprintf(out, "#\n");
	free(v);
	return ferror(out) ? -EIO : 0;
}
