/* test_output.c - recorder/report/output.c, flamegraph.c and compare.c: folded stacks that
 * add up to the samples, JSON that parses (python3's json module as the oracle) and agrees
 * with the rows, an SVG that xmllint accepts with every frame in it, and the per-line /
 * per-instruction compare of two generations (capstone). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

/* main -> loop -> kernel (gen 1 then gen 2 of "loop"), plus a kernel leaf. */
static struct rp_session *stacks(void)
{
	struct rp_session *s = rt_session();
	static const uint8_t code1[] = { 0x90, 0x90, 0xc3 };			/* nop nop ret */
	static const uint8_t code2[] = { 0x48, 0x31, 0xc0, 0x90, 0xc3 };	/* xor rax; nop; ret */
	uint32_t g1 = rt_load(s, 5, "loop<T>;x", 0, 10, 20, 0x1000, sizeof(code1));
	uint32_t g2 = rt_load(s, 5, "loop<T>;x", 0, 20, 0, 0x2000, sizeof(code2));
	rp_load_at(s, g1)->code = rp_keep_bytes(s, code1, sizeof(code1));
	rp_load_at(s, g2)->code = rp_keep_bytes(s, code2, sizeof(code2));
	struct rt_frame a[] = { { .dso = "jitted-5-1.so", .sym = "loop<T>;x", .file = "L.java",
				  .line = 3, .load = g1, .ip = 0x1001 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	struct rt_frame b[] = { { .dso = "jitted-5-2.so", .sym = "loop<T>;x", .file = "L.java",
				  .line = 4, .load = g2, .ip = 0x2003 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	struct rt_frame k[] = { { .dso = "[kernel.kallsyms]", .sym = "clear_page<&>",
				  .flags = RP_FRAME_KERNEL, .ip = 0xffffffff81000000ull },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	for (int i = 0; i < 2; i++)
		rt_sample(s, "app", 5, 15, 10, a);
	for (int i = 0; i < 5; i++)
		rt_sample(s, "app", 5, 25, 10, b);
	rt_sample(s, "app", 5, 25, 10, k);
	rp_set_span(s, 0, 100);
	rp_session_finish(s);
	return s;
}

static int collapsed(FILE *fp, void *arg)
{
	return rp_print_collapsed(fp, arg);
}

Test(output, collapsed_stacks)
{
	struct rp_session *s = stacks();
	char *out = rt_capture(collapsed, s);
	/* Root first, generations tagged, ';' in a name never splits a frame. */
	cr_assert(strstr(out, "app;main;loop<T>:x [gen 1] 2\n"), "%s", out);
	cr_assert(strstr(out, "app;main;loop<T>:x [gen 2] 5\n"), "%s", out);
	cr_assert(strstr(out, "app;main;clear_page<&>_[k] 1\n"), "%s", out);
	cr_assert_eq(tu_count(out, "\n"), 3);
	free(out);
	rp_session_free(s);
}

struct json_arg { struct rp_hist *h; struct rp_session *s; };
static int json(FILE *fp, void *arg)
{
	struct json_arg *j = arg;
	return rp_print_json(fp, j->h, j->s, NULL, 1);
}

Test(output, json_parses_and_agrees)
{
	if (!tu_have("python3")) {
		cr_skip_test("python3 is not installed: no JSON oracle");
	}
	struct rp_session *s = stacks();
	enum rp_key keys[] = { RP_KEY_DSO, RP_KEY_SYM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 2, 0), 0);
	struct json_arg j = { &h, s };
	char *out = rt_capture(json, &j);
	/* The oracle prints what the table would: rows, then each generation's samples. */
	char *argv[] = { "python3", "-c",
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"for r in d['rows']: print('%.2f %s %s' % (r['overhead'], r['dso'], r['sym']))\n"
		"for m in d['generations']['methods']:\n"
		"  for g in m['generations']: print(m['method'], g['generation'], g['samples'])\n",
		NULL };
	struct tu_result r;
	cr_assert_eq(tu_run(&r, argv, NULL, out, strlen(out), 30), 0);
	cr_assert_eq(r.status, 0, "%s\n%s", r.err, out);
	cr_assert(strstr(r.out, "62.50 jitted-5-2.so [.] loop<T>;x\n"), "%s", r.out);
	cr_assert(strstr(r.out, "25.00 jitted-5-1.so [.] loop<T>;x\n"), "%s", r.out);
	cr_assert(strstr(r.out, "12.50 [kernel.kallsyms] [k] clear_page<&>\n"), "%s", r.out);
	cr_assert(strstr(r.out, "loop<T>;x 1 2\nloop<T>;x 2 5\n"), "%s", r.out);
	tu_result_free(&r);
	free(out);
	rp_hist_free(&h);
	rp_session_free(s);
}

static int flame(FILE *fp, void *arg)
{
	return rp_write_flamegraph(fp, arg, "t<e>st & \"title\"");
}

Test(output, flamegraph_svg)
{
	struct rp_session *s = stacks();
	char *out = rt_capture(flame, s);
	char *dir = tu_tmpdir("rpfg");
	char path[512];
	snprintf(path, sizeof(path), "%s/fg.svg", dir);
	cr_assert_eq(tu_write_file(path, out, strlen(out)), 0);
	if (tu_have("xmllint")) {
		char *argv[] = { "xmllint", "--noout", path, NULL };
		struct tu_result r;
		cr_assert_eq(tu_run(&r, argv, NULL, NULL, 0, 30), 0);
		cr_assert_eq(r.status, 0, "xmllint: %s", r.err);
		tu_result_free(&r);
	}
	cr_assert(strstr(out, "data-n=\"loop&lt;T&gt;:x [gen 1]\""), "%s", out);
	cr_assert(strstr(out, "data-n=\"loop&lt;T&gt;:x [gen 2]\""), "%s", out);
	cr_assert(strstr(out, "data-n=\"clear_page&lt;&amp;&gt;_[k]\""), "%s", out);
	cr_assert(strstr(out, "<title>main (8 samples, 100.00%)</title>"), "%s", out);
	cr_assert(strstr(out, "<script>"), "self-contained: the zoom script is inline");
	/* The two generations are drawn in different colours. */
	const char *f1 = strstr(strstr(out, "[gen 1] (2 samples"), "fill=\"");
	const char *f2 = strstr(strstr(out, "[gen 2] (5 samples"), "fill=\"");
	cr_assert(f1 && f2);
	cr_assert_neq(strncmp(f1, f2, strcspn(f1 + 6, "\"") + 6), 0, "same colour");
	free(out);
	tu_rmtree(dir);
	free(dir);
	rp_session_free(s);
}

struct cmp_arg { struct rp_session *s; const char *m; uint32_t a, b; };
static int compare(FILE *fp, void *arg)
{
	struct cmp_arg *c = arg;
	char err[256];
	int rc = rp_print_compare(fp, c->s, c->m, c->a, c->b, err, sizeof(err));
	if (rc)
		fprintf(fp, "error: %s", err);
	return 0;
}

Test(output, compare_two_generations)
{
	struct rp_session *s = stacks();
	struct cmp_arg c = { s, "loop<T>;x", 1, 2 };
	char *out = rt_capture(compare, &c);
	cr_assert(strstr(out, "L.java:3"), "%s", out);
	cr_assert(strstr(out, "L.java:4"), "%s", out);
	/* gen 1: both samples on the nop at +1; gen 2: all five on the nop at +3. */
	cr_assert(strstr(out, "100.00%     1: nop"), "%s", out);
	cr_assert(strstr(out, "100.00%     3: nop"), "%s", out);
	cr_assert(strstr(out, "0: xor rax, rax"), "%s", out);
	free(out);
	c.b = 9;
	out = rt_capture(compare, &c);
	cr_assert(strstr(out, "error: no process has generations 1 and 9"), "%s", out);
	free(out);
	c.m = "^loop";	/* a regex when no name matches exactly */
	c.b = 2;
	out = rt_capture(compare, &c);
	cr_assert(strstr(out, "gen B = generation 2"), "%s", out);
	free(out);
	rp_session_free(s);
}
