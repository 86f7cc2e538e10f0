/* test_generations.c - recorder/report/generations.c and model.c: generation numbering,
 * the per-generation rows (share, lifetime, rate, hottest lines), unloaded/unknown samples,
 * the --method filter and the printed view. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/unit/report/rptest.h"

#define S 1000000000ull	/* ns per second */

/* Process 10: "hot" loaded three times (numbers unknown: derived from load order), "cold"
 * once; samples spread over them, one in unloaded code, one in no mapping. */
static struct rp_session *three_generations(uint32_t *l)
{
	struct rp_session *s = rt_session();
	rp_set_span(s, 100 * S, 110 * S);
	l[2] = rt_load(s, 10, "hot(int)", 0, 104 * S, 0, 0x3000, 0x80);	/* added out of order */
	l[0] = rt_load(s, 10, "hot(int)", 0, 101 * S, 102 * S, 0x1000, 0x40);
	l[1] = rt_load(s, 10, "hot(int)", 0, 102 * S, 104 * S, 0x2000, 0x60);
	l[3] = rt_load(s, 10, "cold()", 0, 101 * S, 0, 0x4000, 0x10);
	struct rt_frame g1[] = { { .dso = "jitted-10-2.so", .sym = "hot(int)", .file = "H.java",
				   .line = 5, .load = l[0], .ip = 0x1004 }, { 0 } };
	struct rt_frame g2a[] = { { .dso = "jitted-10-3.so", .sym = "hot(int)", .file = "H.java",
				    .line = 6, .load = l[1], .ip = 0x2008 }, { 0 } };
	struct rt_frame g2b[] = { { .dso = "jitted-10-3.so", .sym = "hot(int)", .file = "H.java",
				    .line = 7, .load = l[1], .ip = 0x2010 }, { 0 } };
	struct rt_frame g3[] = { { .dso = "jitted-10-1.so", .sym = "hot(int)", .file = "H.java",
				   .line = 6, .load = l[2], .ip = 0x3000 }, { 0 } };
	struct rt_frame gone[] = { { .dso = "jitted-10-2.so", .sym = "hot(int)", .load = l[0],
				     .flags = RP_FRAME_UNLOADED, .ip = 0x1000 }, { 0 } };
	struct rt_frame nomap[] = { { .dso = "[unknown]", .flags = RP_FRAME_UNKNOWN,
				      .ip = 0x9000 }, { 0 } };
	struct rt_frame other[] = { { .dso = "libc.so.6", .sym = "memcpy", .ip = 0x5 }, { 0 } };
	rt_sample(s, "java", 10, 101 * S, 1, g1);
	for (int i = 0; i < 3; i++)
		rt_sample(s, "java", 10, 103 * S, 1, g2a);
	rt_sample(s, "java", 10, 103 * S, 1, g2b);
	for (int i = 0; i < 4; i++)
		rt_sample(s, "java", 10, 105 * S, 1, g3);
	rt_sample(s, "java", 10, 103 * S, 1, gone);
	rt_sample(s, "java", 10, 103 * S, 1, nomap);
	rt_sample(s, "java", 10, 103 * S, 1, other);
	rt_sample(s, "other", 11, 103 * S, 1, other);	/* another process: not in the share */
	rp_session_finish(s);
	return s;
}

Test(generations, numbering_by_load_order)
{
	uint32_t l[4];
	struct rp_session *s = three_generations(l);
	cr_assert_eq(rp_load_at(s, l[0])->generation, 1);
	cr_assert_eq(rp_load_at(s, l[1])->generation, 2);
	cr_assert_eq(rp_load_at(s, l[2])->generation, 3);
	cr_assert_eq(rp_load_at(s, l[3])->generation, 1);
	/* Unloaded samples count for no generation. */
	cr_assert_eq(rp_load_at(s, l[0])->samples, 1);
	cr_assert_eq(rp_load_at(s, l[1])->samples, 4);
	rp_session_free(s);
}

Test(generations, given_numbers_kept_clashes_renumbered)
{
	struct rp_session *s = rt_session();
	uint32_t a = rt_load(s, 1, "m", 5, 10, 0, 0x1000, 16);
	uint32_t b = rt_load(s, 1, "m", 7, 20, 0, 0x2000, 16);
	uint32_t c = rt_load(s, 1, "n", 2, 10, 0, 0x3000, 16);
	uint32_t d = rt_load(s, 1, "n", 2, 30, 0, 0x4000, 16);
	rp_session_finish(s);
	cr_assert_eq(rp_load_at(s, a)->generation, 5);
	cr_assert_eq(rp_load_at(s, b)->generation, 7);
	cr_assert_eq(rp_load_at(s, c)->generation, 1);
	cr_assert_eq(rp_load_at(s, d)->generation, 2);
	rp_session_free(s);
}

/* A clash is two loads of one group with the same number, wherever they sit in the group:
 * here the last two of a large group (the unnamed loads of a process are one group), beside
 * numbers only some loads carry. */
Test(generations, clash_found_in_a_large_group)
{
	struct rp_session *s = rt_session();
	enum { N = 3000 };
	uint32_t first = 0, last = 0;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t gen = i + 1 >= N - 1 ? 9000 : i % 3 ? i + 10 : 0;
		last = rt_load(s, 1, "m", gen, 10 + i, 0, 0x1000 + 0x100 * i, 16);
		first = first ? first : last;
	}
	uint32_t kept = rt_load(s, 1, "n", 9000, 10, 0, 0x900000, 16);
	rp_session_finish(s);
	cr_assert_eq(rp_load_at(s, first)->generation, 1);
	cr_assert_eq(rp_load_at(s, first + 1)->generation, 2, "renumbered by load order");
	cr_assert_eq(rp_load_at(s, last)->generation, N);
	cr_assert_eq(rp_load_at(s, kept)->generation, 9000, "no clash in its own group");
	rp_session_free(s);
}

/* The finished session's view, of one method whose first row is the load at 0x1000 with
 * three hot lines; its rows. */
static const struct rp_gen_row *first_loads_rows(struct rp_gen_view *v, struct rp_session *s)
{
	rp_session_finish(s);
	cr_assert_eq(rp_gen_view_build(v, s, NULL), 0);
	cr_assert_eq(v->nr_methods, 1);
	const struct rp_gen_row *r = v->methods[0].rows;
	cr_assert_eq(r[0].load->code_addr, 0x1000);
	cr_assert_eq(r[0].nr_hot, 3);
	return r;
}

/* Hottest lines of a generation sampled on thousands of lines, interleaved with another
 * generation's samples: each line counted over all its samples however they are spread (a
 * table of lines that grows several times), ties kept in line order. */
Test(generations, hot_lines_counted_over_many_lines)
{
	struct rp_session *s = rt_session();
	rp_set_span(s, 100 * S, 110 * S);
	uint32_t a = rt_load(s, 10, "m()", 0, 101 * S, 0, 0x1000, 0x40);
	uint32_t b = rt_load(s, 10, "m()", 0, 102 * S, 0, 0x2000, 0x40);
	enum { LINES = 3000 };
	for (int round = 0; round < 2; round++)
		for (unsigned line = 1; line <= LINES; line++) {
			unsigned n = line == 100 || line == 200 ? 25 : line == 300 ? 20 : line % 3;
			struct rt_frame fa[] = { { .dso = "jitted-10-1.so", .sym = "m()",
						   .file = "M.java", .line = line, .load = a,
						   .ip = 0x1000 + line % 0x40 }, { 0 } };
			struct rt_frame fb[] = { { .dso = "jitted-10-2.so", .sym = "m()",
						   .file = "M.java", .line = 7, .load = b,
						   .ip = 0x2000 }, { 0 } };
			for (unsigned k = 0; k < n; k++) {
				rt_sample(s, "java", 10, 103 * S, 1, fa);
				rt_sample(s, "java", 10, 103 * S, 1, fb);
			}
		}
	struct rp_gen_view v;
	const struct rp_gen_row *r = first_loads_rows(&v, s);
	cr_assert_eq(v.methods[0].nr_rows, 2);
	cr_assert(r[0].hot[0].line == 100 && r[0].hot[0].samples == 50, "%u: %llu",
		  r[0].hot[0].line, (unsigned long long)r[0].hot[0].samples);
	cr_assert(r[0].hot[1].line == 200 && r[0].hot[1].samples == 50, "a tie: line order");
	cr_assert(r[0].hot[2].line == 300 && r[0].hot[2].samples == 40);
	cr_assert_str_eq(r[0].hot[0].file, "M.java");
	cr_assert_eq(r[1].nr_hot, 1, "one line");
	cr_assert_eq(r[1].hot[0].line, 7);
	cr_assert_eq(r[1].hot[0].samples, r[1].samples, "all of the generation's samples");
	cr_assert_eq(r[1].samples, r[0].samples);
	rp_gen_view_free(&v);
	rp_session_free(s);
}

/* Equally hot lines in several files come in file-name order, however the names were first
 * met (their interned copies lie in memory in that order, and the hits were sorted by it). */
Test(generations, hot_line_ties_go_by_file_name)
{
	struct rp_session *s = rt_session();
	rp_set_span(s, 100 * S, 110 * S);
	uint32_t a = rt_load(s, 10, "m()", 0, 101 * S, 0, 0x1000, 0x40);
	uint32_t b = rt_load(s, 10, "m()", 0, 102 * S, 0, 0x2000, 0x40);	/* a second generation */
	struct rt_frame fb[] = { { .dso = "jitted-10-2.so", .sym = "m()", .file = "M.java",
				   .line = 7, .load = b, .ip = 0x2000 }, { 0 } };
	rt_sample(s, "java", 10, 103 * S, 1, fb);
	const char *files[] = { "Z.java", "M.java", "A.java", "Q.java" };
	for (int f = 0; f < 4; f++) {
		struct rt_frame fr[] = { { .dso = "jitted-10-1.so", .sym = "m()", .file = files[f],
					   .line = 5, .load = a, .ip = 0x1000 + f }, { 0 } };
		for (int k = 0; k < 3; k++)
			rt_sample(s, "java", 10, 103 * S, 1, fr);
	}
	struct rp_gen_view v;
	const struct rp_gen_row *r = first_loads_rows(&v, s);
	cr_assert_str_eq(r[0].hot[0].file, "A.java");
	cr_assert_str_eq(r[0].hot[1].file, "M.java");
	cr_assert_str_eq(r[0].hot[2].file, "Q.java");
	rp_gen_view_free(&v);
	rp_session_free(s);
}

Test(generations, view_rows)
{
	uint32_t l[4];
	struct rp_session *s = three_generations(l);
	struct rp_gen_view v;
	cr_assert_eq(rp_gen_view_build(&v, s, NULL), 0);
	cr_assert_eq(v.nr_methods, 1, "only methods with more than one generation");
	cr_assert_str_eq(v.methods[0].method, "hot(int)");
	cr_assert_eq(v.methods[0].nr_rows, 3);
	cr_assert_eq(v.total_samples, 13);
	cr_assert_eq(v.unloaded_samples, 1);
	cr_assert_eq(v.unknown_samples, 1);
	const struct rp_gen_row *r = v.methods[0].rows;
	cr_assert_eq(r[0].load->generation, 1);
	cr_assert_eq(r[1].samples, 4);
	cr_assert_eq(r[1].proc_samples, 12);
	cr_assert_float_eq(r[1].share, 4.0 / 12, 1e-9);
	cr_assert_float_eq(r[1].rel_load_s, 2.0, 1e-9);
	cr_assert_float_eq(r[1].lifetime_s, 2.0, 1e-9);
	cr_assert_float_eq(r[1].per_sec, 2.0, 1e-9);
	cr_assert_float_eq(r[2].lifetime_s, 6.0, 1e-9, "open-ended: until the recording ends");
	cr_assert_eq(r[1].nr_hot, 2);
	cr_assert_eq(r[1].hot[0].line, 6);
	cr_assert_eq(r[1].hot[0].samples, 3);
	cr_assert_eq(r[1].hot[1].line, 7);
	rp_gen_view_free(&v);

	cr_assert_eq(rp_gen_view_build(&v, s, "^cold"), 0);
	cr_assert_eq(v.nr_methods, 1, "--method shows single generations too");
	cr_assert_str_eq(v.methods[0].method, "cold()");
	rp_gen_view_free(&v);
	/* No valid regex: as typed, "(" is in every method's name. */
	cr_assert_eq(rp_gen_view_build(&v, s, "("), 0);
	cr_assert_eq(v.nr_methods, 2, "hot() and cold()");
	rp_gen_view_free(&v);
	cr_assert_eq(rp_gen_view_build(&v, s, "cold("), 0);
	cr_assert_eq(v.nr_methods, 1);
	cr_assert_str_eq(v.methods[0].method, "cold()");
	rp_gen_view_free(&v);
	rp_session_free(s);
}

static int print_gens(FILE *fp, void *arg)
{
	return rp_print_generations(fp, arg, NULL);
}

Test(generations, printed)
{
	uint32_t l[4];
	struct rp_session *s = three_generations(l);
	char *out = rt_capture(print_gens, s);
	cr_assert(strstr(out, "Samples in code already unloaded: 1, in unknown code: 1"), "%s", out);
	cr_assert(strstr(out, "hot(int)  (pid 10, 3 generations, 9 samples)"), "%s", out);
	cr_assert(strstr(out, "H.java:6 (75%), H.java:7 (25%)"), "%s", out);
	cr_assert(strstr(out, "33.33%"), "%s", out);
	/* Without --jvm-log the header says what is missing, and the rows still end. */
	cr_assert(strstr(out, "# ends of generations inferred from loads, unloads and samples"), "%s",
		  out);
	cr_assert(strstr(out, "next_generation"), "%s", out);
	cr_assert(strstr(out, "replaced"), "%s", out);
	free(out);
	rp_session_free(s);
}

Test(tier_label, osr_code_is_marked)
{
	struct rp_load l = { .tier = JD_TIER_C2 };
	cr_assert_str_eq(rp_load_tier(&l), "C2");
	l.flags = JD_LOAD_OSR;
	cr_assert_str_eq(rp_load_tier(&l), "C2/osr");
	l.tier = JD_TIER_UNKNOWN;
	cr_assert_str_eq(rp_load_tier(&l), "-/osr");
	l.flags = JD_LOAD_BACKFILLED;
	cr_assert_str_eq(rp_load_tier(&l), "-");
}
