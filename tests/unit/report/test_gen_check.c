/* test_gen_check.c - generations after an attach (generations.c, model.c: back-filled loads
 * numbered by compile id, active from their install or "before" the attach, replaced before it
 * by a later compile), periods the samples extend (HotSpot code running on after it was
 * replaced; other runtimes' code running beside a later load), and the invariant check
 * (gen_check.c) that finds a sample outside its generation's period. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/unit/report/rptest.h"

#define S 1000000000ull	/* ns per second */

static uint32_t hs_load(struct rp_session *s, uint64_t t, uint32_t tier, int32_t id, int osr,
			int backfilled, uint64_t addr)
{
	uint32_t i = rt_load(s, 10, "run()", 0, t, 0, addr, 0x40);
	struct rp_load *l = rp_load_at(s, i);
	l->tier = tier;
	l->level = tier == JD_TIER_C2 ? 4 : 3;
	l->compile_id = id;
	l->osr_bci = osr ? 10 : -1;
	l->flags = (osr ? JD_LOAD_OSR : 0) | (backfilled ? JD_LOAD_BACKFILLED : 0) | JD_LOAD_IDS;
	return i;
}

static void samples_in(struct rp_session *s, uint32_t load, uint64_t from, uint64_t to,
		       uint64_t step)
{
	const struct rp_load *l = rp_load_at(s, load);
	struct rt_frame f[] = { { .dso = l->dso, .sym = "run()", .file = "R.java", .line = 3,
				  .load = load, .ip = l->code_addr + 4 }, { 0 } };
	for (uint64_t t = from; t <= to; t += step)
		rt_sample(s, "java", 10, t, 1, f);
}

static const struct rp_gen_row *row_of(const struct rp_gen_view *v, uint32_t load,
				       const struct rp_session *s)
{
	for (size_t i = 0; i < v->nr_methods; i++)
		for (size_t j = 0; j < v->methods[i].nr_rows; j++)
			if (v->methods[i].rows[j].load == rp_load_at((struct rp_session *)s, load))
				return &v->methods[i].rows[j];
	cr_assert_fail("load %u has no row", load);
	return NULL;
}

/* The check's output (the caller frees it) and counts. */
static char *run_check(const struct rp_session *s, struct rp_gen_check *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cr_assert_not_null(fp);
	cr_assert_eq(rp_gen_check(fp, s, c), 0);
	fclose(fp);
	return buf;
}

static struct rp_session *span_session(void)
{
	struct rp_session *s = rt_session();
	rp_set_span(s, 100 * S, 110 * S);
	return s;
}

/* The finished session's view and the row of load. */
static const struct rp_gen_row *finish_row(struct rp_session *s, struct rp_gen_view *v,
					   uint32_t load)
{
	rp_session_finish(s);
	cr_assert_eq(rp_gen_view_build(v, s, NULL), 0);
	return row_of(v, load, s);
}

/* The view freed, the invariant holds, the session freed. */
static void done_clean(struct rp_session *s, struct rp_gen_view *v)
{
	struct rp_gen_check c;
	rp_gen_view_free(v);
	char *buf = run_check(s, &c);
	cr_assert(c.samples > 0 && !c.outside && !c.bad_rows, "%s", buf);
	free(buf);
	rp_session_free(s);
}

/* An agent attached at 99 s back-fills C2 OSR code (id 20) first, then C1 OSR (18) and C1 (19),
 * as the code cache lists them; C2 (25) comes after the attach. */
Test(gen_check, backfilled_generations_by_compile_id)
{
	struct rp_session *s = span_session();
	uint32_t c2osr = hs_load(s, 99 * S + 1, JD_TIER_C2, 20, 1, 1, 0x1000);
	uint32_t c1osr = hs_load(s, 99 * S + 2, JD_TIER_C1, 18, 1, 1, 0x2000);
	uint32_t c1 = hs_load(s, 99 * S + 3, JD_TIER_C1, 19, 0, 1, 0x3000);
	uint32_t c2 = hs_load(s, 103 * S, JD_TIER_C2, 25, 0, 0, 0x4000);
	samples_in(s, c2osr, 100 * S, 109 * S, S / 10);
	samples_in(s, c1, 101 * S, 102 * S, S / 10);
	samples_in(s, c2, 104 * S, 109 * S, S / 10);
	rp_session_finish(s);
	cr_assert_eq(rp_load_at(s, c1osr)->generation, 1, "by compile id, not load order");
	cr_assert_eq(rp_load_at(s, c1)->generation, 2);
	cr_assert_eq(rp_load_at(s, c2osr)->generation, 3);
	cr_assert_eq(rp_load_at(s, c2)->generation, 4, "after the back-filled ones");

	struct rp_gen_view v;
	cr_assert_eq(rp_gen_view_build(&v, s, NULL), 0);
	const struct rp_gen_row *r = row_of(&v, c1osr, s);
	cr_assert_eq(r->from_src, RP_FROM_BEFORE_ATTACH);
	cr_assert_eq(r->until_src, RP_UNTIL_BEFORE_ATTACH, "C2 OSR code (20) replaced it before");
	cr_assert_eq(r->ended_by, RP_END_REPLACED);
	cr_assert_eq(r->next, rp_load_at(s, c2osr));
	r = row_of(&v, c2osr, s);
	cr_assert_eq(r->from_src, RP_FROM_BEFORE_ATTACH);
	cr_assert_eq(r->until_src, RP_UNTIL_END, "not replaced at the attach by C1 code");
	cr_assert_eq(r->ended_by, RP_END_RUNNING);
	cr_assert_float_eq(r->per_sec, 91 / 10.0, 1e-6, "over the recording it was seen in");
	r = row_of(&v, c1, s);
	cr_assert_eq(r->until_src, RP_UNTIL_NEXT_GEN);
	cr_assert_float_eq(r->active_until_s, 3.0, 1e-9);
	cr_assert_eq(r->next, rp_load_at(s, c2));
	done_clean(s, &v);
}

/* The JVM log gives a back-filled load its install time: active from there (before the
 * recording: negative). */
Test(gen_check, backfilled_from_its_install)
{
	struct rp_session *s = span_session();
	uint32_t a = hs_load(s, 99 * S, JD_TIER_C1, 5, 0, 1, 0x1000);
	uint32_t b = hs_load(s, 99 * S + 1, JD_TIER_C2, 7, 0, 1, 0x2000);
	rp_load_at(s, a)->install_time = 97 * S;
	rp_load_at(s, b)->install_time = 98 * S;
	samples_in(s, b, 100 * S, 101 * S, S / 10);
	struct rp_gen_view v;
	const struct rp_gen_row *r = finish_row(s, &v, b);
	cr_assert_eq(r->from_src, RP_FROM_COMPILE);
	cr_assert_float_eq(r->active_from_s, -2.0, 1e-9);
	cr_assert_eq(r->ended_by, RP_END_RUNNING);
	done_clean(s, &v);
}

/* HotSpot code replaced by a newer compile runs on in the activations already in it: its
 * period lasts until its last sample, and it is still "replaced". */
Test(gen_check, replaced_hotspot_code_runs_until_its_last_sample)
{
	struct rp_session *s = span_session();
	uint32_t a = hs_load(s, 101 * S, JD_TIER_C1, 5, 0, 0, 0x1000);
	uint32_t b = hs_load(s, 103 * S, JD_TIER_C2, 7, 0, 0, 0x2000);
	samples_in(s, a, 101 * S, 104 * S, S / 2);
	samples_in(s, b, 103 * S, 109 * S, S / 2);
	struct rp_gen_view v;
	const struct rp_gen_row *r = finish_row(s, &v, a);
	cr_assert_eq(r->until_src, RP_UNTIL_LAST_SAMPLE);
	cr_assert_float_eq(r->active_until_s, 4.0, 1e-9);
	cr_assert_eq(r->ended_by, RP_END_REPLACED);
	done_clean(s, &v);
}

/* Other runtimes' code sampled after a later load of its function was not replaced by it (node
 * 20's OSR code and normal code share a name): both run to the end. */
Test(gen_check, code_sampled_after_a_later_load_is_running)
{
	struct rp_session *s = span_session();
	uint32_t a = rt_load(s, 10, "JS:*w /x.js:1:1", 0, 101 * S, 0, 0x1000, 0x40);
	uint32_t b = rt_load(s, 10, "JS:*w /x.js:1:1", 0, 102 * S, 0, 0x2000, 0x40);
	samples_in(s, a, 101 * S, 109 * S, S / 2);
	samples_in(s, b, 103 * S, 109 * S, S / 2);
	struct rp_gen_view v;
	const struct rp_gen_row *r = finish_row(s, &v, a);
	cr_assert_eq(r->until_src, RP_UNTIL_END);
	cr_assert_eq(r->ended_by, RP_END_RUNNING);
	cr_assert_null(r->next);
	done_clean(s, &v);
}

/* A sample before its generation's load is outside its period: found, counted, named. */
Test(gen_check, sample_before_its_load_is_found)
{
	struct rp_session *s = span_session();
	uint32_t a = rt_load(s, 10, "m()", 0, 105 * S, 0, 0x1000, 0x40);
	samples_in(s, a, 103 * S, 106 * S, S);
	rp_session_finish(s);
	struct rp_gen_check c;
	char *buf = run_check(s, &c);
	cr_assert_eq(c.samples, 4);
	cr_assert_eq(c.outside, 2, "%s", buf);
	cr_assert(strstr(buf, "sample at 3.000000s in m() (pid 10) gen 1, active 5.000000s-"), "%s",
		  buf);
	cr_assert(strstr(buf, "4 samples in 1 generations: 2 outside"), "%s", buf);
	free(buf);
	rp_session_free(s);
}
