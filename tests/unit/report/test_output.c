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
	/* Root first, a method's generations one frame, ';' in a name never splits a frame. */
	cr_assert(strstr(out, "app;main;loop<T>:x 7\n"), "%s", out);
	cr_assert(strstr(out, "app;main;clear_page<&>_[k] 1\n"), "%s", out);
	cr_assert_eq(tu_count(out, "\n"), 2);
	free(out);
	/* Split: each generation tagged. */
	rp_set_split_generations(s, 1);
	out = rt_capture(collapsed, s);
	cr_assert(strstr(out, "app;main;loop<T>:x [gen 1] 2\n"), "%s", out);
	cr_assert(strstr(out, "app;main;loop<T>:x [gen 2] 5\n"), "%s", out);
	cr_assert_eq(tu_count(out, "\n"), 3);
	free(out);
	rp_session_free(s);
}

/* A name longer than a frame name's 1023 characters is cut there, as it always was, and an
 * inlined frame with ';' (made ':') and a newline (escaped by the session's interner) in its
 * name keeps its mark: the names written without formatting match the formatted ones. */
Test(output, collapsed_long_and_odd_names)
{
	struct rp_session *s = rt_session();
	char longname[2001];
	memset(longname, 'n', 2000);
	longname[2000] = 0;
	struct rt_frame f[] = { { .dso = "app", .sym = "in;li\nne", .flags = RP_FRAME_INLINED,
				  .ip = 0x10 },
				{ .dso = "app", .sym = longname, .ip = 0x10 },
				{ .dso = "app", .sym = NULL, .ip = 0x99 }, { 0 } };
	f[2].dso = "app";
	rt_sample(s, "app", 7, 100, 1, f);
	rp_session_finish(s);
	char *out = rt_capture(collapsed, s);
	char want[2200];	/* the long name whole */
	snprintf(want, sizeof(want), "app;app+0x99;%s;in:li\\x0ane_[i] 1\n", longname);
	cr_assert_str_eq(out, want, "ends %s, want %s (%zu, %zu bytes)", out + strlen(out) - 20,
			 want + strlen(want) - 20, strlen(out), strlen(want));
	free(out);
	rp_session_free(s);
}

struct json_arg { struct rp_hist *h; struct rp_session *s; };
static int json(FILE *fp, void *arg)
{
	struct json_arg *j = arg;
	return rp_print_json(fp, j->h, j->s, NULL, 1);
}

/* The JSON of the stacks() session aggregated by keys (members kept for -g), read by a
 * python3 script (the oracle) whose output is returned (caller frees). */
static char *json_oracle(const enum rp_key *keys, int nr, int members, const char *script)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed: no JSON oracle");
	struct rp_session *s = stacks();
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, nr, members), 0);
	struct json_arg j = { &h, s };
	char *out = rt_capture(json, &j);
	char *argv[] = { "python3", "-c", (char *)script, NULL };
	struct tu_result r;
	cr_assert_eq(tu_run(&r, argv, NULL, out, strlen(out), 30), 0);
	cr_assert_eq(r.status, 0, "%s\n%s", r.err, out);
	char *res = strdup(r.out);
	tu_result_free(&r);
	free(out);
	rp_hist_free(&h);
	rp_session_free(s);
	return res;
}

Test(output, json_parses_and_agrees)
{
	enum rp_key keys[] = { RP_KEY_DSO, RP_KEY_SYM };
	/* The oracle prints what the table would: rows, then each generation's samples. */
	char *o = json_oracle(keys, 2, 0,
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"for r in d['rows']: print('%.2f %s %s' % (r['overhead'], r['dso'], r['sym']))\n"
		"for m in d['generations']['methods']:\n"
		"  for g in m['generations']: print(m['method'], g['generation'], g['samples'])\n");
	cr_assert(strstr(o, "62.50 jitted-5-2.so loop<T>;x\n"), "%s", o);
	cr_assert(strstr(o, "25.00 jitted-5-1.so loop<T>;x\n"), "%s", o);
	cr_assert(strstr(o, "12.50 [kernel.kallsyms] clear_page<&>\n"), "%s", o);
	cr_assert(strstr(o, "loop<T>;x 1 2\nloop<T>;x 2 5\n"), "%s", o);
	free(o);
}

Test(output, json_with_call_stacks)
{
	enum rp_key keys[] = { RP_KEY_SYM };
	char *o = json_oracle(keys, 1, 1,
		"import json,sys\n"
		"for r in json.load(sys.stdin)['rows']:\n"
		"  print(r['sym'], r['samples'], sum(s['samples'] for s in r['stacks']),"
		" '/'.join(r['stacks'][0]['frames']))\n");
	/* Each row's stacks hold its samples (the method's two generations one row: 5 + 2);
	 * frames outermost first, named as folded. */
	cr_assert(strstr(o, "loop<T>;x 7 7 main/loop<T>;x\n"), "%s", o);
	cr_assert(strstr(o, "clear_page<&> 1 1 main/clear_page<&>_[k]\n"), "%s", o);
	free(o);
}

struct flame_arg { struct rp_session *s; struct rp_flame_opts o; };

static int flame(FILE *fp, void *arg)
{
	struct flame_arg *f = arg;
	return rp_write_flamegraph(fp, f->s, &f->o);
}

static void xmllint_ok(const char *out)
{
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
	tu_rmtree(dir);
	free(dir);
}

Test(output, flamegraph_svg)
{
	struct flame_arg f = { .s = stacks(), .o = { .title = "t<e>st & \"title\"" } };
	char *out = rt_capture(flame, &f);
	xmllint_ok(out);
	/* Generations merged by default, kernel marked, title and what it shows. */
	cr_assert(strstr(out, "data-n=\"loop&lt;T&gt;;x\""), "%s", out);
	cr_assert(!strstr(out, "[gen "), "%s", out);
	cr_assert(strstr(out, "data-k=\"kernel\" data-n=\"clear_page&lt;&amp;&gt;_[k]\""), "%s",
		  out);
	cr_assert(strstr(out, "<title>main (8 samples, 100.00%)</title>"), "%s", out);
	cr_assert(strstr(out, "t&lt;e&gt;st &amp; &quot;title&quot;"), "%s", out);
	cr_assert(strstr(out, "cpu-clock, 8 samples"), "%s", out);
	cr_assert(strstr(out, "<script>"), "self-contained: the zoom script is inline");
	cr_assert(strstr(out, "Matched: "), "search reports its share");
	cr_assert(strstr(out, ">kernel</text>"), "legend: %s", out);
	/* Height fitted: all, app, main, leaf = 4 rows of 16 px under an 84 px header. */
	cr_assert(strstr(out, "height=\"158\""), "%.300s", out);
	free(out);
	/* Split: the two generations are two frames. */
	rp_set_split_generations(f.s, 1);
	out = rt_capture(flame, &f);
	cr_assert(strstr(out, "data-n=\"loop&lt;T&gt;;x [gen 1]\""), "%s", out);
	cr_assert(strstr(out, "data-n=\"loop&lt;T&gt;;x [gen 2]\""), "%s", out);
	free(out);
	rp_session_free(f.s);
}

Test(output, flamegraph_narrow_and_reverse)
{
	struct flame_arg f = { .s = stacks(), .o = { .min_width = 300 } };
	/* 1180 px for 8 samples: 147.5 px a sample; the kernel leaf (1) and gen 1 (2 samples,
	 * when split) fall under 300 px, together 3 samples. */
	rp_set_split_generations(f.s, 1);
	char *out = rt_capture(flame, &f);
	xmllint_ok(out);
	cr_assert(strstr(out, "data-n=\"[2 narrow frames]\""), "%s", out);
	cr_assert(strstr(out, "data-c=\"3\" data-k=\"narrow\""), "%s", out);
	cr_assert(!strstr(out, "clear_page"), "%s", out);
	free(out);
	/* Reversed: leaves right on the root, their callers above, the command last. */
	f.o = (struct rp_flame_opts){ .reverse = 1 };
	rp_set_split_generations(f.s, 0);
	out = rt_capture(flame, &f);
	xmllint_ok(out);
	cr_assert(strstr(out, "data-d=\"1\" data-c=\"7\" data-k=\"jit\""), "%s", out);
	cr_assert(strstr(out, "callers (reversed)"), "%s", out);
	cr_assert(strstr(out, "data-d=\"2\" data-c=\"7\" data-k=\"native\" data-n=\"main\""), "%s",
		  out);
	free(out);
	rp_session_free(f.s);
}

/* main -> a n_a times, main -> b n_b times. */
static struct rp_session *ab(int n_a, int n_b)
{
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { { .dso = "app", .sym = "a", .ip = 1 },
				{ .dso = "app", .sym = "main", .ip = 2 }, { 0 } };
	struct rt_frame b[] = { { .dso = "app", .sym = "b", .ip = 3 },
				{ .dso = "app", .sym = "main", .ip = 2 }, { 0 } };
	for (int i = 0; i < n_a; i++)
		rt_sample(s, "app", 5, 10, 10, a);
	for (int i = 0; i < n_b; i++)
		rt_sample(s, "app", 5, 10, 10, b);
	rp_session_finish(s);
	return s;
}

Test(output, flamegraph_diff)
{
	struct rp_session *base = ab(1, 3);
	struct flame_arg f = { .s = ab(3, 1), .o = { .base = base } };
	char *out = rt_capture(flame, &f);
	xmllint_ok(out);
	/* a: 25% -> 75% (red), b: 75% -> 25% (blue), main unchanged (white). */
	cr_assert(strstr(out, "data-n=\"a\"><title>a (+50.00 points since the base) (3 samples, "
			 "75.00%)</title><rect x=\"10.00\" y=\"84\" width=\"884.50\" height=\"15\" "
			 "fill=\"rgb(255,55,55)\""), "%s", out);
	cr_assert(strstr(out, "fill=\"rgb(55,55,255)\""), "%s", out);
	cr_assert(strstr(out, "<title>main (+0.00 points since the base)"), "%s", out);
	cr_assert(strstr(out, "differential"), "%s", out);
	free(out);
	rp_session_free(f.s);
	rp_session_free(base);
}

static int speedscope(FILE *fp, void *arg)
{
	return rp_write_speedscope(fp, arg, "t");
}

Test(output, speedscope_time_order)
{
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { { .dso = "app", .sym = "a", .ip = 1 },
				{ .dso = "app", .sym = "main", .ip = 2 }, { 0 } };
	struct rt_frame b[] = { { .dso = "app", .sym = "b", .file = "b.c", .ip = 3 },
				{ .dso = "app", .sym = "main", .ip = 2 }, { 0 } };
	rt_sample(s, "app", 5, 30, 10, a);	/* added out of time order */
	rt_sample(s, "app", 5, 10, 10, b);
	rt_sample(s, "app", 5, 20, 10, a);
	rp_set_span(s, 0, 100);
	rp_session_finish(s);
	char *out = rt_capture(speedscope, s);
	/* Frames in first-seen order of the time-ordered samples: main 0, b 1, a 2. */
	cr_assert(strstr(out, "\"frames\":[{\"name\":\"main\"},{\"name\":\"b\",\"file\":\"b.c\"},"
			 "{\"name\":\"a\"}]"), "%s", out);
	cr_assert(strstr(out, "\"samples\":[[0,1],[0,2],[0,2]],\"weights\":[10,10,10]"), "%s", out);
	cr_assert(strstr(out, "\"unit\":\"nanoseconds\""), "%s", out);
	free(out);
	rp_session_free(s);
}

struct cmp_arg { struct rp_session *s; const char *m; uint32_t a, b; };
static int compare(FILE *fp, void *arg)
{
	struct cmp_arg *c = arg;
	char err[256];
	int rc = rp_print_compare(fp, c->s, c->m, c->a, c->b, JP_ERRBUF_LOG(err));
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

/* --json with -g: the stacks name a method once unless generations are split. */
static struct rp_hist *json_hist;
static int print_json(FILE *fp, void *arg)
{
	return rp_print_json(fp, json_hist, arg, NULL, 0);
}

Test(output, json_stacks_generations)
{
	struct rp_session *s = stacks();
	enum rp_key keys[] = { RP_KEY_COMM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 1, 1), 0);
	json_hist = &h;
	char *out = rt_capture(print_json, s);
	cr_assert(strstr(out, "{\"samples\": 7, \"frames\": [\"main\", \"loop<T>;x\"]}"), "%s", out);
	cr_assert_null(strstr(out, "[gen"), "%s", out);
	free(out);
	rp_set_split_generations(s, 1);
	out = rt_capture(print_json, s);
	cr_assert(strstr(out, "{\"samples\": 5, \"frames\": [\"main\", \"loop<T>;x [gen 2]\"]}"),
		  "%s", out);
	cr_assert(strstr(out, "{\"samples\": 2, \"frames\": [\"main\", \"loop<T>;x [gen 1]\"]}"),
		  "%s", out);
	free(out);
	rp_hist_free(&h);
	rp_session_free(s);
}
