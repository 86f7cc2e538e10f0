/* test_compare.c - recorder/report/compare.c and compare_align.c: the LCS pairing, numbers
 * left out of the instruction match, an ambiguous method pattern refused with its candidates,
 * and a printed compare of two hand-made x86-64 generations (one unsampled): aligned rows,
 * interleaved source lines, call targets named by the load they land in. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/unit/report/rptest.h"

Test(compare, lcs_pairs_common_runs)
{
	const uint64_t a[] = { 1, 2, 3, 4, 5 }, b[] = { 1, 9, 3, 4, 8, 5 };
	struct rp_pair *p;
	long n = rp_align(a, 5, b, 6, &p);
	/* 1 3 4 5 paired; 2 only in A; 9, 8 only in B. */
	cr_assert_eq(n, 7);
	size_t both = 0;
	for (long i = 0; i < n; i++) {
		if (p[i].a >= 0 && p[i].b >= 0) {
			cr_assert_eq(a[p[i].a], b[p[i].b]);
			both++;
		}
		if (i && p[i].a >= 0 && p[i - 1].a >= 0)
			cr_assert_gt(p[i].a, p[i - 1].a, "order kept");
	}
	cr_assert_eq(both, 4);
	free(p);
	cr_assert_eq(rp_align(a, 0, b, 0, &p), 0);
	free(p);
}

Test(compare, numbers_do_not_matter_registers_do)
{
	cr_assert_eq(rp_insn_norm_hash("call", "0x7f0000001000"),
		     rp_insn_norm_hash("call", "0x7f0000002340"));
	cr_assert_eq(rp_insn_norm_hash("mov", "dword ptr [rsp - 0x14000], eax"),
		     rp_insn_norm_hash("mov", "dword ptr [rsp - 0x18], eax"));
	cr_assert_neq(rp_insn_norm_hash("mov", "r8d, 1"), rp_insn_norm_hash("mov", "r9d, 1"));
	cr_assert_neq(rp_insn_norm_hash("add", "eax, 1"), rp_insn_norm_hash("sub", "eax, 1"));
}

/* gen 1: push rbp; mov eax,1; call <helper>; pop rbp; ret.
 * gen 2: push rbp; nop; mov eax,2; call <helper>; pop rbp; ret. Neither sampled, or (sampled)
 * each once after its call, where gen 2's line table puts that call on another line (62) than
 * gen 1's (11). The helper and the source file as named. */
static struct rp_session *two_gens_named(int sampled, const char *helper, const char *file)
{
	static const uint8_t g1[] = { 0x55, 0xb8, 1, 0, 0, 0, 0xe8, 0xf5, 0x0f, 0, 0, 0x5d, 0xc3 };
	static const uint8_t g2[] = { 0x55, 0x90, 0xb8, 2, 0, 0, 0, 0xe8, 0xf4, 0x0e, 0, 0, 0x5d,
				      0xc3 };
	struct rp_session *s = rt_session();
	rp_set_span(s, 0, 10);
	uint32_t a = rt_load(s, 5, "Foo.run()", 1, 1, 0, 0x1000, sizeof(g1));
	uint32_t b = rt_load(s, 5, "Foo.run()", 2, 2, 0, 0x1100, sizeof(g2));
	rt_load(s, 5, helper, 1, 0, 0, 0x2000, 0x40);
	rt_load(s, 5, "Foo.other()", 1, 0, 0, 0x3000, 0x40);
	rt_load(s, 5, "Foo.other()", 2, 0, 0, 0x3100, 0x40);
	struct rp_src_line l1[] = { { 0, rp_intern(s, file), 10 },
				    { 6, rp_intern(s, file), 11 } };
	struct rp_load *la = rp_load_at(s, a), *lb = rp_load_at(s, b);
	la->code = rp_keep_bytes(s, g1, sizeof(g1));
	lb->code = rp_keep_bytes(s, g2, sizeof(g2));
	la->lines = (const void *)rp_keep_bytes(s, l1, sizeof(l1));
	la->nr_lines = 2;
	if (sampled) {
		struct rp_src_line l2[] = { { 0, rp_intern(s, file), 20 },
					    { 7, rp_intern(s, file), 62 } };
		lb->lines = (const void *)rp_keep_bytes(s, l2, sizeof(l2));
		lb->nr_lines = 2;
		struct rt_frame fa[] = { { .dso = "jitted-5-1.so", .sym = "Foo.run()",
					   .file = file, .line = 11, .load = a,
					   .ip = 0x1000 + 11 }, { 0 } };
		struct rt_frame fb[] = { { .dso = "jitted-5-2.so", .sym = "Foo.run()",
					   .file = file, .line = 62, .load = b,
					   .ip = 0x1100 + 12 }, { 0 } };
		rt_sample(s, "java", 5, 3, 1, fa);
		rt_sample(s, "java", 5, 3, 1, fb);
	}
	rp_session_finish(s);
	return s;
}

static struct rp_session *two_gens_sampled(int sampled)
{
	return two_gens_named(sampled, "Foo.helper()", "Foo.java");
}

static struct rp_session *two_gens(void)
{
	return two_gens_sampled(0);
}

static int print_cmp(FILE *fp, void *arg)
{
	char err[256];
	return rp_print_compare(fp, arg, "Foo.run()", 1, 2, JP_ERRBUF_LOG(err));
}

Test(compare, aligned_listing)
{
	struct rp_session *s = two_gens();
	char *out = rt_capture(print_cmp, s);
	/* The nop only in B ('+'); mov eax with another immediate paired as '~'; the call
	 * named by the load it lands in; A's source lines between its instructions. */
	static const char *const want[] = { "aligned by code", "  + ", "nop", "  ~ ",
					    "<Foo.helper() [gen 1]>", "; Foo.java:10",
					    "; Foo.java:11", "(need the JVM's compilation log" };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert(strstr(out, want[i]), "no '%s' in:\n%s", want[i], out);
	cr_assert(!strstr(out, "no code"), "unsampled code is listed:\n%s", out);
	free(out);
	rp_session_free(s);
}

/* The per-line table compares the same code: the call both generations make is one row, with
 * the line each line table gives it, not two rows of 100% and 0%. */
Test(compare, lines_aligned_through_the_code)
{
	struct rp_session *s = two_gens_sampled(1);
	char *out = rt_capture(print_cmp, s);
	cr_assert(strstr(out, "# Per source line of the same code"), "%s", out);
	cr_assert(strstr(out, "  Foo.java:11 | Foo.java:62                  100.00%   100.00%"),
		  "%s", out);
	cr_assert(!strstr(out, "  Foo.java:62   "), "B's line alone:\n%s", out);
	free(out);
	rp_session_free(s);
}

/* A call target's and a source file's names past any column are listed whole (a Kotlin
 * lambda's class passes 2 KiB). */
Test(compare, long_names_whole)
{
	static char helper[3001], file[1501], want[3100];
	memset(helper, 'h', 3000);
	memset(file, 'f', 1500);
	struct rp_session *s = two_gens_named(1, helper, file);
	char *out = rt_capture(print_cmp, s);
	snprintf(want, sizeof(want), "<%s [gen 1]>", helper);
	cr_assert(strstr(out, want), "the call's target cut:\n%.400s", out);
	snprintf(want, sizeof(want), "; %s:10", file);
	cr_assert(strstr(out, want), "A's source line cut");
	snprintf(want, sizeof(want), "  %s:11 | %s:62  ", file, file);
	cr_assert(strstr(out, want), "the per-line table's row cut");
	free(out);
	rp_session_free(s);
}

Test(compare, ambiguous_pattern_lists_candidates)
{
	struct rp_session *s = two_gens();
	char err[1024];
	cr_assert_eq(rp_print_compare(stdout, s, "Foo\\.(run|other)", 1, 2, JP_ERRBUF_LOG(err)),
		     -ENOTUNIQ);
	cr_assert(strstr(err, "matches 2 methods"), "%s", err);
	cr_assert(strstr(err, "Foo.run()") && strstr(err, "Foo.other()"), "%s", err);
	cr_assert_eq(rp_print_compare(stdout, s, "Foo\\.nothing", 1, 2, JP_ERRBUF_LOG(err)),
		     -ENOENT);
	rp_session_free(s);
}

static void keep_whole(void *ctx, enum jp_level level, const char *msg)
{
	char **kept = ctx;
	if (level == JP_LOG_ERROR && !*kept)
		*kept = strdup(msg);
}

/* The candidates of an ambiguous pattern come whole, one a line, however long their names:
 * 12 names of ~200 bytes are more than the 512 (then 1024) bytes the message used to be cut
 * at. */
Test(compare, ambiguous_pattern_lists_every_candidate_whole)
{
	struct rp_session *s = rt_session();
	char name[12][256];
	for (int i = 0; i < 12; i++) {
		snprintf(name[i], sizeof(name[i]), "Foo.m%02d_%0190d()", i, 0);
		rt_load(s, 5, name[i], 1, 0, 0, 0x1000 + 0x100 * (uint64_t)i, 0x40);
	}
	rp_session_finish(s);
	char *msg = NULL;
	struct jp_log log = { keep_whole, &msg };
	cr_assert_eq(rp_print_compare(stdout, s, "Foo\\.m", 1, 2, &log), -ENOTUNIQ);
	cr_assert_not_null(msg);
	cr_expect(strstr(msg, "'Foo\\.m' matches 12 methods, give one exactly:"), "%s", msg);
	for (int i = 0; i < 12; i++) {
		char line[sizeof(name[i]) + 4];
		snprintf(line, sizeof(line), "\n  %.255s", name[i]);
		cr_expect(strstr(msg, line), "%s missing from: %s", name[i], msg);
	}
	free(msg);
	rp_session_free(s);
}
