/* test_jvmlog.c - recorder/report/jvmlog.c, jvmjoin.c and the active periods of
 * generations.c: a hand-written HotSpot compilation log (every way an nmethod ends, inlining
 * decisions nested two deep), the same log cut short, files that are no such log, and the
 * join to loads by compile id, by address, and refused for another process. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/lib/failnext.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/jvmlog_fixture.h"
#include "tests/unit/report/rptest.h"

#define S 1000000000ull

static char *dir;

static void setup(void) { dir = tu_tmpdir("jvmlog"); }
static void teardown(void) { tu_rmtree(dir); free(dir); }
TestSuite(jvmlog, .init = setup, .fini = teardown);

Test(jvmlog, every_end_and_inlining)
{
	char *path = jl_write_log(dir, "c.log", jl_log_tty, jl_log_rest);
	struct rp_jvmlog *jl = jl_open_ok(path);
	cr_assert_eq(rp_jvmlog_pid(jl), 4242);
	cr_assert_eq(rp_jvmlog_nr_codes(jl), 4);
	cr_assert_null(rp_jvmlog_cut(jl), "%s", rp_jvmlog_cut(jl));
	const struct rp_jvm_code *c1 = rp_jvmlog_find(jl, 1), *c2 = rp_jvmlog_find(jl, 2);
	const struct rp_jvm_code *c3 = rp_jvmlog_find(jl, 3), *c4 = rp_jvmlog_find(jl, 4);
	cr_assert(c1 && c2 && c3 && c4);
	cr_assert_eq(c1->level, 3);
	cr_assert_eq(c1->entry, 0x1000);
	cr_assert_eq(c1->end, RP_END_REPLACED);
	cr_assert_float_eq(c1->not_entrant, 0.3, 1e-9);
	cr_assert_eq(c2->osr_bci, 5);
	cr_assert_eq(c2->end, RP_END_DEPENDENCY);
	cr_assert_str_eq(c2->reason, "abstract_with_unique_concrete_subtype");
	cr_assert_str_eq(c2->trap_method, "C");
	cr_assert_eq(c3->end, RP_END_DEOPT);
	cr_assert_str_eq(c3->reason, "unstable_if");
	cr_assert_str_eq(c3->action, "reinterpret");
	cr_assert_str_eq(c3->trap_method, "A m ()V", "the innermost frame");
	cr_assert_eq(c3->trap_bci, 26);
	cr_assert_eq(c4->end, RP_END_RUNNING);
	cr_assert_lt(c4->not_entrant, 0);
	/* Decisions in log order, each at its caller's bci, the nested one under B.area. */
	cr_assert_eq(c3->nr_inl, 3);
	cr_assert_str_eq(c3->inl[0].caller, "A.m");
	cr_assert_str_eq(c3->inl[0].callee, "B.area");
	cr_assert_eq(c3->inl[0].bci, 14);
	cr_assert(c3->inl[0].ok);
	cr_assert_str_eq(c3->inl[0].why, "inline (hot)");
	cr_assert_str_eq(c3->inl[1].caller, "B.area");
	cr_assert_str_eq(c3->inl[1].callee, "B.big");
	cr_assert_eq(c3->inl[1].bci, 2);
	cr_assert_not(c3->inl[1].ok);
	cr_assert_str_eq(c3->inl[1].why, "too big");
	cr_assert_str_eq(c3->inl[2].caller, "A.m", "back in the outer parse");
	cr_assert_eq(c3->inl[2].bci, 20);
	rp_jvmlog_free(jl);
	free(path);
}

Test(jvmlog, truncated_log_used_up_to_the_cut)
{
	char *path = jl_write_log(dir, "cut.log", jl_log_tty, "<nmethod compile_id='4' compiler='c2' lev");
	struct rp_jvmlog *jl = jl_open_ok(path);
	cr_assert_not_null(rp_jvmlog_cut(jl));
	cr_assert(strstr(rp_jvmlog_cut(jl), "cut.log: cut at byte"), "%s", rp_jvmlog_cut(jl));
	cr_assert_eq(rp_jvmlog_find(jl, 3)->end, RP_END_DEOPT, "what came before the cut");
	cr_assert_null(rp_jvmlog_find(jl, 4));
	rp_jvmlog_free(jl);
	free(path);
}

Test(jvmlog, not_a_compilation_log)
{
	struct rp_jvmlog *jl = (void *)1;
	char err[512];
	char *html = jl_write_log(dir, "x.html", "<html><body/></html>\n", NULL);
	cr_assert_eq(rp_jvmlog_open(&jl, html, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert_null(jl);
	cr_assert(strstr(err, "x.html: not a HotSpot compilation log"), "%s", err);
	char *bin = jl_write_log(dir, "x.bin", "\x7f" "ELF\x02\x01", NULL);
	cr_assert_eq(rp_jvmlog_open(&jl, bin, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "x.bin: not a HotSpot compilation log at byte"), "%s", err);
	char *empty = jl_write_log(dir, "empty.log", "", NULL);
	cr_assert_eq(rp_jvmlog_open(&jl, empty, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "empty.log"), "%s", err);
	cr_assert_lt(rp_jvmlog_open(&jl, "/nonexistent/j.log", JP_ERRBUF_LOG(err)), 0);
	cr_assert(strstr(err, "/nonexistent/j.log"), "%s", err);
	free(html);
	free(bin);
	free(empty);
}

/* Loads of "m" in pid 4242 at 10 s + the log's stamps, the recording 10.0 .. 11.0 s. */
static struct rp_session *session_for_log(uint32_t pid, int with_ids, uint32_t *l)
{
	struct rp_session *s = rt_session();
	static const uint64_t addr[] = { 0x1000, 0x2000, 0x3000, 0x4000 };
	static const uint64_t at_ms[] = { 100, 200, 300, 550 };
	rp_set_span(s, 10 * S, 11 * S);
	for (int i = 0; i < 4; i++) {
		l[i] = rt_load(s, pid, "A.m()", (uint32_t)i + 1, 10 * S + at_ms[i] * 1000000ull, 0,
			       addr[i], 100);
		struct rp_load *ld = rp_load_at(s, l[i]);
		ld->compile_id = with_ids ? i + 1 : -1;
		ld->tier = i ? JD_TIER_C2 : JD_TIER_C1;
		ld->flags = i == 1 ? JD_LOAD_OSR : 0;
		ld->osr_bci = i == 1 && with_ids ? 5 : -1;
	}
	struct rt_frame f[] = { { .dso = "jitted-1.so", .sym = "A.m()", .load = l[2],
				  .ip = 0x3004 }, { 0 } };
	for (int i = 0; i < 10; i++)
		rt_sample(s, "java", pid, 10 * S + 400000000ull, 1, f);
	rp_session_finish(s);
	return s;
}

static void check_joined(int with_ids)
{
	char *path = jl_write_log(dir, "c.log", jl_log_tty, jl_log_rest), err[512] = "";
	struct rp_jvmlog *jl = jl_open_ok(path);
	uint32_t l[4];
	struct rp_session *s = session_for_log(4242, with_ids, l);
	cr_assert_eq(rp_session_join_jvmlog(s, jl, JP_ERRBUF_LOG(err)), 0, "%s", err);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(rp_load_at(s, l[i])->jvm, rp_jvmlog_find(jl, i + 1), "load %d", i);
	struct rp_gen_view v;
	cr_assert_eq(rp_gen_view_build(&v, s, "A"), 0);
	const struct rp_gen_row *r = v.methods[0].rows;
	cr_assert_eq(v.methods[0].nr_rows, 4);
	/* C1: until the C2 load (0.3 s), which is also when the log retired it. */
	cr_assert_float_eq(r[0].active_until_s, 0.3, 1e-6);
	cr_assert_eq(r[0].ended_by, RP_END_REPLACED);
	/* OSR: not taken over by normal code; the dependency ended it at 0.6 s. */
	cr_assert_float_eq(r[1].active_until_s, 0.6, 1e-6);
	cr_assert_eq(r[1].until_src, RP_UNTIL_NOT_ENTRANT);
	cr_assert_eq(r[1].ended_by, RP_END_DEPENDENCY);
	/* C2: deoptimized at 0.5 s, before generation 4 loaded at 0.55 s. */
	cr_assert_float_eq(r[2].active_from_s, 0.3, 1e-6);
	cr_assert_float_eq(r[2].active_until_s, 0.5, 1e-6);
	cr_assert_eq(r[2].until_src, RP_UNTIL_NOT_ENTRANT);
	cr_assert_eq(r[2].ended_by, RP_END_DEOPT);
	cr_assert_float_eq(r[2].per_sec, 10 / 0.2, 1e-6, "samples over the active period");
	cr_assert_eq(r[3].until_src, RP_UNTIL_END);
	cr_assert_eq(r[3].ended_by, RP_END_RUNNING);
	rp_gen_view_free(&v);
	rp_session_free(s);
	rp_jvmlog_free(jl);
	free(path);
}

Test(jvmlog, joined_by_compile_id) { check_joined(1); }
Test(jvmlog, joined_by_address_without_ids) { check_joined(0); }

Test(jvmlog, another_process_refused)
{
	char *path = jl_write_log(dir, "c.log", jl_log_tty, jl_log_rest), err[512] = "";
	struct rp_jvmlog *jl = jl_open_ok(path);
	uint32_t l[4];
	struct rp_session *s = session_for_log(777, 1, l);
	cr_assert_eq(rp_session_join_jvmlog(s, jl, JP_ERRBUF_LOG(err)), -ESRCH);
	cr_assert(strstr(err, "process 4242"), "%s", err);
	cr_assert(strstr(err, "777"), "%s", err);
	rp_session_free(s);
	/* Same pid, but nothing at the log's addresses or ids. */
	s = rt_session();
	rt_load(s, 4242, "x", 1, 5, 0, 0x9000, 16);
	rp_session_finish(s);
	cr_assert_eq(rp_session_join_jvmlog(s, jl, JP_ERRBUF_LOG(err)), -ESRCH);
	cr_assert(strstr(err, "no compile id or code address"), "%s", err);
	rp_session_free(s);
	rp_jvmlog_free(jl);
	free(path);
}

/* Without a log: replaced by the next non-OSR load; OSR code outlives normal recompiles;
 * an unload ends a period early; the header says what is missing. */
Test(jvmlog, active_periods_without_log)
{
	struct rp_session *s = rt_session();
	rp_set_span(s, 0, 10 * S);
	uint32_t a = rt_load(s, 1, "m", 1, 1 * S, 0, 0x1000, 16);
	uint32_t o = rt_load(s, 1, "m", 2, 2 * S, 0, 0x2000, 16);
	uint32_t b = rt_load(s, 1, "m", 3, 3 * S, 0, 0x3000, 16);
	uint32_t c = rt_load(s, 1, "m", 4, 5 * S, 0, 0x4000, 16);
	rp_load_at(s, o)->flags = JD_LOAD_OSR;
	rp_load_at(s, c)->unload_time = 7 * S;
	rp_session_finish(s);
	struct rp_gen_view v;
	cr_assert_eq(rp_gen_view_build(&v, s, "m"), 0);
	const struct rp_gen_row *r = v.methods[0].rows;
	cr_assert_float_eq(r[0].active_until_s, 3.0, 1e-9);
	cr_assert_eq(r[0].until_src, RP_UNTIL_NEXT_GEN);
	cr_assert_eq(r[0].ended_by, RP_END_REPLACED);
	cr_assert_float_eq(r[1].active_until_s, 10.0, 1e-9, "OSR code is not replaced by b or c");
	cr_assert_eq(r[1].ended_by, RP_END_RUNNING);
	cr_assert_float_eq(r[2].active_until_s, 5.0, 1e-9);
	cr_assert_float_eq(r[3].active_until_s, 7.0, 1e-9);
	cr_assert_eq(r[3].until_src, RP_UNTIL_UNLOAD);
	cr_assert_eq(r[3].ended_by, RP_END_UNLOADED);
	rp_gen_view_free(&v);
	(void)a;
	(void)b;
	rp_session_free(s);
}

/* The call site's line comes from the agent's inline stacks: callee frame, then its caller's
 * line; a pair seen on two different lines has no single answer. */
Test(jvmlog, call_site_lines_from_inline_stacks)
{
	struct rp_session *s = rt_session();
	struct rp_load *l = rp_load_at(s, rt_load(s, 1, "A.m()", 1, 1, 0, 0x1000, 64));
	struct jd_inline_method meth[] = { { "La/A;m()V", "A.java" }, { "La/B;area()I", "B.java" },
					   { "La/B;big(I)I", "B.java" } };
	struct jd_inline_frame f0[] = { { 1, 7, -1 }, { 0, 14, -1 } };		/* B.area at A.m:14 */
	struct jd_inline_frame f1[] = { { 2, 3, -1 }, { 1, 8, -1 }, { 0, 14, -1 } };	/* B.big at B.area:8 */
	struct jd_inline_frame f2[] = { { 2, 3, -1 }, { 0, 20, -1 } };		/* B.big at A.m:20 */
	struct jd_inline_frame f3[] = { { 2, 3, -1 }, { 0, 21, -1 } };		/* ... and at A.m:21 */
	struct jd_inline_pc pcs[] = { { 0x1000, 2, f0 }, { 0x1004, 3, f1 }, { 0x1008, 2, f0 },
				      { 0x100c, 2, f2 }, { 0x1010, 2, f3 } };
	struct jd_ext_inline in = { .nr_methods = 3, .nr_pcs = 5, .methods = meth, .pcs = pcs };
	rp_keep_call_sites(s, &in, l);
	cr_assert_eq(l->nr_sites, 4, "distinct (callee, caller, line): %zu", l->nr_sites);
	cr_assert_eq(rp_call_site_line(l, "a.B.area", "a.A.m", 5), 14);
	cr_assert_eq(rp_call_site_line(l, "a.B.big", "a.B.area", 5), 8);
	cr_assert_eq(rp_call_site_line(l, "a.B.big", "a.A.m", 5), 0, "two lines: unknown");
	cr_assert_eq(rp_call_site_line(l, "a.C.x", "a.A.m", 5), 0);
	cr_assert_eq(l->nr_bci_lines, 0, "version 1 stacks have no bcis");
	cr_assert_eq(rp_bci_line(l, "a.A m ()V", 5), 0);
	rp_session_free(s);
}

/* With bcis (INLINE version 2) a (method, bci) the log names -- a trap, a call site -- is on
 * the line the stacks put it, in whichever spelling the log uses; an unknown bci stays 0,
 * and a call made from two lines gets each its own line by bci. */
Test(jvmlog, bci_lines_from_inline_stacks_v2)
{
	struct rp_session *s = rt_session();
	struct rp_load *l = rp_load_at(s, rt_load(s, 1, "A.m()", 1, 1, 0, 0x1000, 64));
	struct jd_inline_method meth[] = { { "La/A;m()V", "A.java" }, { "La/B;big(I)I", "B.java" } };
	struct jd_inline_frame f0[] = { { 0, 12, 4 } };			/* A.m bci 4: line 12 */
	struct jd_inline_frame f1[] = { { 1, 3, 0 }, { 0, 20, 9 } };	/* B.big at A.m bci 9 */
	struct jd_inline_frame f2[] = { { 1, 3, 0 }, { 0, 21, 15 } };	/* ... and at bci 15 */
	struct jd_inline_pc pcs[] = { { 0x1000, 1, f0 }, { 0x1004, 2, f1 }, { 0x1008, 2, f2 },
				      { 0x100c, 1, f0 } };
	struct jd_ext_inline in = { .nr_methods = 2, .nr_pcs = 4, .methods = meth, .pcs = pcs,
				    .flags = JD_INLINE_BCI };
	rp_keep_call_sites(s, &in, l);
	cr_assert_eq(l->nr_bci_lines, 4, "distinct (method, bci, line): %zu", l->nr_bci_lines);
	cr_assert_eq(rp_bci_line(l, "a.A m ()V", 4), 12, "log's jvms spelling");
	cr_assert_eq(rp_bci_line(l, "a/A.m", 4), 12, "log's holder.name spelling");
	cr_assert_eq(rp_bci_line(l, "a.A m ()V", 5), 0, "no descriptor at bci 5");
	cr_assert_eq(rp_bci_line(l, "a.A x ()V", 4), 0);
	cr_assert_eq(rp_bci_line(l, NULL, 4), 0);
	cr_assert_eq(rp_call_site_line(l, "a.B.big", "a/A.m", 9), 20);
	cr_assert_eq(rp_call_site_line(l, "a.B.big", "a/A.m", 15), 21);
	cr_assert_eq(rp_call_site_line(l, "a.B.big", "a/A.m", 7), 0, "two lines, unknown bci");
	rp_session_free(s);
}

/* Hostile logs: entity expansion, ids out of range, deep nesting, a dangling trap: refused or
 * read within bounds, never a hang or a crash. */
Test(jvmlog, hostile_input, .timeout = 30)
{
	char err[512];
	struct rp_jvmlog *jl;
	char *lol = jl_write_log(dir, "lol.log",
		"<?xml version='1.0'?>\n<!DOCTYPE hotspot_log [\n<!ENTITY a 'aaaaaaaaaa'>\n"
		"<!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>\n"
		"<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>\n"
		"<!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'>\n"
		"<!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'>\n"
		"<!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'>\n"
		"<!ENTITY g '&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;'>\n"
		"<!ENTITY h '&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;'>\n]>\n"
		"<hotspot_log process='1'><tty><nmethod compile_id='5' method='&h;' entry='0x10' "
		"stamp='0.1'/></tty></hotspot_log>\n", NULL);
	int rc = rp_jvmlog_open(&jl, lol, JP_ERRBUF_LOG(err));
	if (!rc) {
		const struct rp_jvm_code *c = rp_jvmlog_find(jl, 5);
		cr_assert(!c || !c->method || strlen(c->method) < 1000000, "entities expanded");
		rp_jvmlog_free(jl);
	}
	char *odd = jl_write_log(dir, "odd.log",
		"<hotspot_log process='1'><tty>"
		"<nmethod compile_id='99999999999' entry='0x10' stamp='x'/>"
		"<nmethod compile_id='-3' entry='zz' stamp='0.1'/>"
		"<make_not_entrant compile_id='7'/>"
		"<uncommon_trap thread='1' compile_id='8' reason='r'><jvms/></uncommon_trap>"
		"<jvms bci='1' method='stray'/>"
		"</tty><compilation_log><task compile_id='8'><call method='1'/><inline_fail/>"
		"<method id='99999999' holder='-1' name='n'/><parse method='5'><parse method='6'>"
		"<call method='99999999'/><inline_success reason='x'/></parse></parse></task>"
		"</compilation_log></hotspot_log>\n", NULL);
	cr_assert_eq(rp_jvmlog_open(&jl, odd, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_null(rp_jvmlog_find(jl, -3));
	cr_assert_eq(rp_jvmlog_find(jl, 7)->end, RP_END_REPLACED, "not entrant, no trap before");
	cr_assert_eq(rp_jvmlog_find(jl, 8)->nr_inl, 1, "a call with a verdict counts once");
	rp_jvmlog_free(jl);
	free(lol);
	free(odd);
}

static int print_json_gens(FILE *fp, void *arg)
{
	struct rp_hist h;
	enum rp_key k = RP_KEY_SYM;
	cr_assert_eq(rp_hist_build(&h, arg, &k, 1, 0), 0);
	int rc = rp_print_json(fp, &h, arg, "A", 1);
	rp_hist_free(&h);
	return rc;
}

/* The JSON of the joined session: what ended each generation, in the schema's fields. */
Test(jvmlog, json_fields)
{
	char *path = jl_write_log(dir, "c.log", jl_log_tty, jl_log_rest), err[512] = "";
	struct rp_jvmlog *jl = jl_open_ok(path);
	uint32_t l[4];
	struct rp_session *s = session_for_log(4242, 1, l);
	rp_load_at(s, l[0])->level = 3;
	for (int i = 1; i < 4; i++)
		rp_load_at(s, l[i])->level = 4;
	/* Generation 3 (compile 3) with version-2 inline stacks: the trap's bci 26 of A.m and
	 * B.area's call at bci 14 are on lines 33 and 31. */
	struct jd_inline_method meth[] = { { "LA;m()V", "A.java" }, { "LB;area()I", "B.java" } };
	struct jd_inline_frame f0[] = { { 0, 33, 26 } }, f1[] = { { 1, 5, 0 }, { 0, 31, 14 } };
	struct jd_inline_pc pcs[] = { { 0x3000, 1, f0 }, { 0x3008, 2, f1 } };
	struct jd_ext_inline in = { .nr_methods = 2, .nr_pcs = 2, .methods = meth, .pcs = pcs,
				    .flags = JD_INLINE_BCI };
	rp_keep_call_sites(s, &in, rp_load_at(s, l[2]));
	cr_assert_eq(rp_session_join_jvmlog(s, jl, JP_ERRBUF_LOG(err)), 0, "%s", err);
	char *out = rt_capture(print_json_gens, s);
	static const char *const want[] = {
		"\"method\": \"A m ()V\", \"bci\": 26, \"by_gen\": null, \"line\": 33}",
		"{\"callee\": \"B.area\", \"caller\": \"A.m\", \"bci\": 14, \"line\": 31, ",
		"\"gen\": 1, \"code_addr\": 4096, \"level\": 3, \"compile_id\": 1, \"osr_bci\": null",
		"\"kind\": \"replaced\", \"reason\": \"higher_tier\"", "\"by_gen\": 3",
		"\"osr_bci\": 5",
		"\"kind\": \"dependency\", \"reason\": \"abstract_with_unique_concrete_subtype\"",
		"\"kind\": \"deopt\", \"reason\": \"unstable_if\", \"action\": \"reinterpret\", "
		"\"method\": \"A m ()V\", \"bci\": 26",
		"{\"callee\": \"B.area\", \"caller\": \"A.m\", \"bci\": 14, \"line\": 31, "
		"\"ok\": true, \"why\": \"inline (hot)\"}",
		"\"active_until_source\": \"not_entrant\"", "\"jvm_log\": {\"pid\": 4242",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert(strstr(out, want[i]), "no '%s' in:\n%s", want[i], out);
	free(out);
	rp_session_free(s);
	rp_jvmlog_free(jl);
	free(path);
}

/* A class load's batch: its thread logs the failed dependencies, then makes each dependent
 * not entrant; the stamps may cross a millisecond and another thread may write in between.
 * What that thread logs after the batch, and a compiler thread retiring code, are not the
 * dependency's doing. */
Test(jvmlog, dependency_batch_across_a_millisecond)
{
	static const char *log =
		"<?xml version='1.0' encoding='UTF-8'?>\n"
		"<hotspot_log version='160 1' process='4242' time_ms='1'>\n"
		"<tty>\n"
		"<writer thread='8'/>\n"
		"<nmethod compile_id='1' compiler='c2' level='4' entry='0x1000' size='100' "
		"method='A m ()V' stamp='0.100'/>\n"
		"<nmethod compile_id='2' compiler='c2' level='4' entry='0x2000' size='100' "
		"method='A n ()V' stamp='0.110'/>\n"
		"<nmethod compile_id='3' compiler='c2' level='4' entry='0x3000' size='100' "
		"method='A o ()V' stamp='0.120'/>\n"
		"<nmethod compile_id='4' compiler='c1' level='3' entry='0x4000' size='100' "
		"method='A p ()V' stamp='0.130'/>\n"
		"<writer thread='9'/>\n"
		"<dependency_failed type='abstract_with_unique_concrete_subtype' ctxk='A' x='B' "
		"witness='C' stamp='2.530'/>\n"
		"<make_not_entrant thread='9' reason='marked for deoptimization' compile_id='1' "
		"compiler='c2' level='4' stamp='2.530'/>\n"
		"<writer thread='8'/>\n"
		"<nmethod compile_id='5' compiler='c1' level='3' entry='0x5000' size='100' "
		"method='A q ()V' stamp='2.531'/>\n"
		"<writer thread='9'/>\n"
		"<make_not_entrant thread='9' compile_id='2' compiler='c2' level='4' "
		"stamp='2.531'/>\n"
		"<task_queued compile_id='6' method='A m ()V' bytes='7' stamp='2.531'/>\n"
		"<make_not_entrant thread='9' compile_id='3' compiler='c2' level='4' "
		"stamp='2.532'/>\n"
		"<writer thread='8'/>\n"
		"<make_not_entrant thread='8' compile_id='4' compiler='c1' level='3' "
		"stamp='2.533'/>\n"
		"</tty>\n"
		"<hotspot_log_done stamp='3.0'/>\n"
		"</hotspot_log>\n";
	char *path = jl_write_log(dir, "batch.log", log, NULL);
	struct rp_jvmlog *jl = jl_open_ok(path);
	const struct rp_jvm_code *c1 = rp_jvmlog_find(jl, 1), *c2 = rp_jvmlog_find(jl, 2);
	const struct rp_jvm_code *c3 = rp_jvmlog_find(jl, 3), *c4 = rp_jvmlog_find(jl, 4);
	cr_assert(c1 && c2 && c3 && c4);
	cr_assert_eq(c1->end, RP_END_DEPENDENCY);
	cr_assert_eq(c2->end, RP_END_DEPENDENCY, "the batch crossed a millisecond");
	cr_assert_str_eq(c2->reason, "abstract_with_unique_concrete_subtype");
	cr_assert_str_eq(c2->trap_method, "C");
	cr_assert_eq(c3->end, RP_END_REPLACED, "logged after the batch ended");
	cr_assert_eq(c4->end, RP_END_REPLACED, "another thread");
	rp_jvmlog_free(jl);
	free(path);
}
