/* gen_check.c - the generations view checked against the samples it explains (`jitprof report
 * --check-generations`, run by the e2e tests on every recording they make): no sample falls
 * outside its generation's active period, a generation still running at the end is "running",
 * one said replaced names what replaced it, and no period ends before it starts. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report_views/views_int.h"

#define MAX_SHOWN 10	/* findings listed; all are counted */

struct check {
	FILE *out;
	struct rp_gen_check *c;
};

static void finding(struct check *k, const char *fmt, ...)
{
	va_list ap;
	if (k->c->shown++ >= MAX_SHOWN)
		return;
	fputs("#   ", k->out);
	va_start(ap, fmt);
	vfprintf(k->out, fmt, ap);
	va_end(ap);
	fputc('\n', k->out);
}

static void check_row(struct check *k, const struct rp_gen_method *m, const struct rp_gen_row *r)
{
	const struct rp_load *l = r->load;
	const char *why = NULL;
	if (r->ended_by == RP_END_RUNNING && r->until_src != RP_UNTIL_END)
		why = "running, yet its period ends before the recording's end";
	else if (r->until_src == RP_UNTIL_END && r->ended_by != RP_END_RUNNING && !l->jvm)
		why = "active until the recording's end, yet not running";
	else if (r->ended_by == RP_END_REPLACED && !r->next && !l->jvm)
		why = "replaced by no generation";
	else if (r->from_src != RP_FROM_BEFORE_ATTACH && r->until_ns < r->from_ns)
		why = "its period ends before it starts";
	else if (r->next && !(r->next->flags & JD_LOAD_BACKFILLED) &&
		 r->until_src == RP_UNTIL_NEXT_GEN && r->next->load_time < r->from_ns)
		why = "replaced before it was loaded";
	if (!why)
		return;
	k->c->bad_rows++;
	finding(k, "%s (pid %u) gen %u: %s", m->method, m->pid, l->generation, why);
}

int rp_gen_check(FILE *out, const struct rp_session *s, struct rp_gen_check *c)
{
	struct rp_gen_view v;
	struct check k = { out, c };
	memset(c, 0, sizeof(*c));
	int rc = rp_gen_view_build_all(&v, s, NULL, 1);
	if (rc)
		return rc;
	const struct rp_gen_row **row = calloc(s->nr_loads + 1, sizeof(*row));
	if (!row) {
		rp_gen_view_free(&v);
		return -ENOMEM;
	}
	fputs("# Generations check: every sample inside its generation's active period\n", out);
	for (size_t i = 0; i < v.nr_methods; i++)
		for (size_t j = 0; j < v.methods[i].nr_rows; j++) {
			const struct rp_gen_row *r = &v.methods[i].rows[j];
			row[r->load - s->loads + 1] = r;
			c->generations++;
			check_row(&k, &v.methods[i], r);
		}
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		const struct rp_frame *f = rp_leaf(s, smp);
		const struct rp_gen_row *r = f->load && f->load <= s->nr_loads ? row[f->load] : NULL;
		if (!r || (f->flags & (RP_FRAME_UNLOADED | RP_FRAME_UNKNOWN)))
			continue;	/* runtime code, or code no generation claims */
		c->samples++;
		int before = r->from_src != RP_FROM_BEFORE_ATTACH && smp->time < r->from_ns;
		if (!before && smp->time <= r->until_ns)
			continue;
		c->outside++;
		finding(&k, "sample at %.6fs in %s (pid %u) gen %u, active %.6fs-%.6fs (%s)",
			smp->time > s->start ? (smp->time - s->start) / 1e9 : 0,
			rp_load_title(r->load), r->load->pid, r->load->generation,
			r->active_from_s, r->active_until_s, rp_until_src_name(r->until_src));
	}
	if (c->shown > MAX_SHOWN)
		fprintf(out, "#   ... and %zu more\n", c->shown - MAX_SHOWN);
	fprintf(out, "%" PRIu64 " samples in %zu generations: %" PRIu64 " outside their "
		"generation's active period, %zu generations inconsistent\n", c->samples,
		c->generations, c->outside, c->bad_rows);
	free(row);
	rp_gen_view_free(&v);
	return ferror(out) ? -EIO : 0;
}
