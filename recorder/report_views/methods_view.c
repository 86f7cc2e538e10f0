/* methods_view.c - `jitprof report --methods` (profile's text report): the table a person
 * reads first. The jitted methods first, each sample counted for its innermost method (an
 * inlined one included, marked _[i]) and a method's generations summed; then what is not a
 * jitted method grouped (kernel, the JVM, runtime stubs, each library) with its share and
 * its heaviest symbols below; then the hottest source lines, each naming its method, with
 * the samples that have no line counted apart; a legend of the marks that appear; and the
 * hottest method in one line that `jitprof profile` repeats when it closes. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opts.h"
#include "recorder/report_views/methods_view.h"

#define GROUP_DETAIL 3		/* symbols under each group */
#define HOT_LINES 10

/* ---- columns: share, samples, and CPU time when the event is a clock ---------------- */

/* cpu-clock and task-clock count nanoseconds: their period is time. */
static int clock_event(const struct rp_session *s)
{
	return s->event && (strstr(s->event, "cpu-clock") || strstr(s->event, "task-clock"));
}

void mv_put_numbers(FILE *out, const struct mv_ctx *c, uint64_t period, uint64_t samples)
{
	fprintf(out, "%9.2f%%  %8" PRIu64, c->total ? 100.0 * period / c->total : 0, samples);
	if (c->clock)
		fprintf(out, "  %9.1f ms", period / 1e6);
}

/* Each column's title right-aligned over its numbers. */
void mv_put_head(FILE *out, const struct mv_ctx *c, const char *what)
{
	fprintf(out, "# Overhead   Samples%s  %s\n", c->clock ? "      CPU time" : "", what);
}

/* ---- the jitted methods --------------------------------------------------------------- */

static void note_marks(struct mv_ctx *c, const struct rp_frame *f)
{
	if (f->flags & RP_FRAME_INLINED)
		c->marks |= MV_MARK_INLINED;
	if (f->flags & RP_FRAME_INTERPRETED)
		c->marks |= MV_MARK_INTERP;
	for (size_t i = 0; i < MV_NR_V8; i++)
		if (f->sym && !strncmp(f->sym, mv_v8_marks[i].prefix, strlen(mv_v8_marks[i].prefix)))
			c->marks |= 1u << (MV_MARK_V8_SHIFT + i);
}

static void print_methods(FILE *out, struct mv_ctx *c, const struct rp_hist *h, size_t max)
{
	uint64_t period = 0, samples = 0;
	for (size_t i = 0; i < h->nr_entries; i++)
		if (mv_is_method(c->s, h->entries[i].leaf)) {
			period += h->entries[i].period;
			samples += h->entries[i].samples;
		}
	c->jitted = samples;
	if (!samples)
		return;
	fprintf(out, "# Methods, compiled or interpreted: %.1f%% of the samples (each sample "
		"counted for its innermost method, inlined ones included; %s)\n", 100.0 * period / c->total,
		rp_split_generations(c->s) ? "one row per generation: --split-generations"
					   : "a method's generations summed");
	mv_put_head(out, c, "Method");
	size_t shown = 0;
	for (size_t i = 0; i < h->nr_entries && shown < max; i++) {
		const struct rp_entry *e = &h->entries[i];
		if (!mv_is_method(c->s, e->leaf))
			continue;
		if (!shown++)
			c->top = e;
		mv_put_numbers(out, c, e->period, e->samples);
		fprintf(out, "  %s\n", rp_frame_name(c->s, e->leaf, mv_name_tag(c->s), &c->name));
		note_marks(c, e->leaf);
	}
	fprintf(out, "#\n");
}

/* ---- everything else, grouped --------------------------------------------------------- */

static int print_groups(FILE *out, struct mv_ctx *c, const struct rp_hist *h)
{
	struct mv_groups g;
	int rc = mv_groups_build(&g, c->s, h);
	if (rc)
		return rc;
	if (g.n) {
		uint64_t period = 0;
		for (size_t i = 0; i < g.n; i++)
			period += g.v[i].period;
		if (c->jitted)
			fprintf(out, "# Outside those methods: %.1f%% of the samples\n",
				100.0 * period / c->total);
		else
			fprintf(out, "# No sample in a compiled or interpreted method: where the "
				"samples are\n");
		mv_put_head(out, c, "Where (its heaviest symbols below)");
	}
	for (size_t i = 0; i < g.n; i++) {
		const struct mv_group *gr = &g.v[i];
		mv_put_numbers(out, c, gr->period, gr->samples);
		fprintf(out, "  %s\n", gr->label);
		for (size_t k = 0; k < gr->nr_top && k < GROUP_DETAIL; k++) {
			const struct rp_entry *e = gr->top[k];
			fprintf(out, "%*s%6.2f%%  %s\n", c->clock ? 38 : 24, "",
				100.0 * e->period / c->total,
				rp_frame_name(c->s, e->leaf, 0, &c->name));
		}
	}
	if (g.n)
		fprintf(out, "#\n");
	mv_groups_free(&g);
	return 0;
}

/* ---- legend and the closing line --------------------------------------------------------- */

/* The marks the tables above used, each said once, and what the time column adds up. */
static void print_legend(FILE *out, const struct mv_ctx *c)
{
	const char *sep = "# Legend: ";
	if (c->marks & MV_MARK_INLINED) {
		fprintf(out, "%s_[i] inlined: compiled into its caller's code", sep);
		sep = "; ";
	}
	if (c->marks & MV_MARK_INTERP) {
		fprintf(out, "%s_[int] interpreted: the JVM's interpreter ran it", sep);
		sep = "; ";
	}
	for (size_t i = 0; i < MV_NR_V8; i++)
		if (c->marks & (1u << (MV_MARK_V8_SHIFT + i))) {
			fprintf(out, "%s%s %s", sep, mv_v8_marks[i].prefix, mv_v8_marks[i].meaning);
			sep = "; ";
		}
	if (c->clock) {
		fprintf(out, "%sCPU time: the samples' %s periods added up", sep, c->s->event);
		sep = "; ";
	}
	if (sep[0] == ';')
		fputc('\n', out);
}

static void print_hottest(FILE *out, struct mv_ctx *c)
{
	if (!c->top)
		return;
	fprintf(out, "# hottest %s: %s (%.1f%%)\n",
		mv_runtime_noun(c->s, rp_leaf(c->s, c->top->first)),
		rp_frame_name(c->s, c->top->leaf, mv_name_tag(c->s), &c->name),
		100.0 * c->top->period / c->total);
}

int rp_print_methods(FILE *out, const struct rp_session *s, const struct rp_methods_opts *opts)
{
	static const enum rp_key sym[] = { RP_KEY_SYM };
	struct rp_methods_opts o;
	if (JP_OPTS_TAKE(&o, opts) || !opts)
		return -EINVAL;
	struct rp_hist h;
	int rc = rp_hist_build(&h, s, sym, 1, 0);
	if (rc)
		return rc;
	struct mv_ctx c = { .s = s, .total = h.total_period, .clock = clock_event(s) };
	fprintf(out, "# %" PRIu64 " samples of %s", h.total_samples, s->event ? s->event : "?");
	if (c.clock && h.total_samples)
		fprintf(out, " (one per %.2f ms of CPU on average: %.1f ms in all)",
			h.total_period / 1e6 / h.total_samples, h.total_period / 1e6);
	fprintf(out, "\n#\n");
	if (!h.total_samples) {
		fprintf(out, "# (no samples)\n");
		rp_hist_free(&h);
		return ferror(out) ? -EIO : 0;
	}
	print_methods(out, &c, &h, o.max_rows ? o.max_rows : 25);
	rc = print_groups(out, &c, &h);
	if (!rc)
		rc = mv_print_lines(out, &c, HOT_LINES);
	if (!rc) {
		print_legend(out, &c);
		print_hottest(out, &c);
	}
	if (jp_str_free(&c.name) && !rc)
		rc = -ENOMEM;
	rp_hist_free(&h);
	if (rc)
		return rc;
	return ferror(out) ? -EIO : 0;
}
