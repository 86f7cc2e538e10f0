/* test_methods.c - method-centric rows (method_rank.c) and `report --methods`
 * (methods_view.c, methods_groups.c, methods_lines.c) on sessions built by hand, so that
 * every number is known: a method's generations are one row, a sample counts for its
 * innermost (inlined) method, native code keeps perf's rows, --split-generations restores
 * them; the view ranks methods first, groups the rest, and counts line-less samples apart. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opts.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/unit/report/rptest.h"

#define END { 0 }

/* n samples of 1 ms (cpu-clock's period) with frames, at time t. */
static void ms_samples(struct rp_session *s, const char *comm, uint32_t pid, uint64_t t, int n,
		       const struct rt_frame *frames)
{
	for (int i = 0; i < n; i++)
		rt_sample(s, comm, pid, t, 1000000, frames);
}

/* loop: generations 1 (4 samples) and 2 (3), and in gen 2 the code of inner, inlined into
 * loop (5 samples); libc's work with a C inline of its own (2); the kernel (1); a stub (1). */
static struct rp_session *methods_session(void)
{
	struct rp_session *s = rt_session();
	uint32_t g1 = rt_load(s, 5, "loop", 1, 10, 20, 0x1000, 0x100);
	uint32_t g2 = rt_load(s, 5, "loop", 2, 20, 0, 0x2000, 0x100);
	uint32_t st = rt_load(s, 5, "call_stub", 1, 5, 0, 0x3000, 0x100);
	rp_load_at(s, st)->runtime = 1;
	struct rt_frame l1[] = { { .dso = "jitted-5-1.so", .sym = "loop", .load = g1, .ip = 0x1001,
				   .file = "A.java", .line = 7 }, END };
	struct rt_frame l2[] = { { .dso = "jitted-5-2.so", .sym = "loop", .load = g2, .ip = 0x2001,
				   .file = "A.java", .line = 8 }, END };
	struct rt_frame in[] = { { .dso = "jitted-5-2.so", .sym = "inner", .flags = RP_FRAME_INLINED,
				   .ip = 0x2040, .file = "A.java", .line = 3 },
				 { .dso = "jitted-5-2.so", .sym = "loop", .load = g2, .ip = 0x2040,
				   .file = "A.java", .line = 3 }, END };
	struct rt_frame nat[] = { { .dso = "libc.so.6", .sym = "helper_c", .flags = RP_FRAME_INLINED,
				    .ip = 0x50 },
				  { .dso = "libc.so.6", .sym = "work", .ip = 0x50 }, END };
	struct rt_frame k[] = { { .dso = "[kernel.kallsyms]", .sym = "irq", .flags = RP_FRAME_KERNEL,
				  .ip = 0xffff1 }, END };
	struct rt_frame stub[] = { { .dso = "jitted-5-3.so", .sym = "call_stub", .load = st,
				     .ip = 0x3001 }, END };
	ms_samples(s, "app", 5, 15, 4, l1);
	ms_samples(s, "app", 5, 25, 3, l2);
	ms_samples(s, "app", 5, 25, 5, in);
	ms_samples(s, "app", 5, 25, 2, nat);
	ms_samples(s, "app", 5, 25, 1, k);
	ms_samples(s, "app", 5, 25, 1, stub);
	rp_session_finish(s);
	return s;
}

static struct jp_str keybuf;	/* the last key: static, as the tests read it after */
static const char *sym_of(const struct rp_hist *h, size_t i)
{
	return rp_entry_key_str(h, &h->entries[i], RP_KEY_SYM, &keybuf);
}

Test(methods, sym_rows_are_innermost_methods_with_generations_summed)
{
	struct rp_session *s = methods_session();
	enum rp_key keys[] = { RP_KEY_SYM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 1, 0), 0);
	cr_assert_eq(h.nr_entries, 5, "loop, inner_[i], work, irq, call_stub");
	cr_assert_str_eq(sym_of(&h, 0), "[.] loop");
	cr_assert_eq(h.entries[0].samples, 7, "generations 1 and 2 summed");
	cr_assert_str_eq(sym_of(&h, 1), "[.] inner_[i]");
	cr_assert_eq(h.entries[1].samples, 5);
	cr_assert_str_eq(sym_of(&h, 2), "[.] work", "a C function's inline keeps perf's row");
	rp_hist_free(&h);

	/* With a dso key, or split: perf's rows, one per generation's ELF, the ip's symbol. */
	rp_set_split_generations(s, 1);
	cr_assert_eq(rp_hist_build(&h, s, keys, 1, 0), 0);
	cr_assert_str_eq(sym_of(&h, 0), "[.] loop");
	cr_assert_eq(h.entries[0].samples, 8, "gen 2: its own 3 and the 5 inlined");
	cr_assert_eq(h.entries[1].samples, 4, "gen 1");
	for (size_t i = 0; i < h.nr_entries; i++)
		cr_assert_null(strstr(sym_of(&h, i), "inner"));
	rp_hist_free(&h);
	rp_set_split_generations(s, 0);
	enum rp_key dso_sym[] = { RP_KEY_DSO, RP_KEY_SYM };
	cr_assert_eq(rp_hist_build(&h, s, dso_sym, 2, 0), 0);
	cr_assert_eq(h.entries[0].samples, 8);
	rp_hist_free(&h);
	/* With srcline: generations summed, the row's symbol the ip's (perf's pairs). */
	enum rp_key sym_line[] = { RP_KEY_SYM, RP_KEY_SRCLINE };
	cr_assert_eq(rp_hist_build(&h, s, sym_line, 2, 0), 0);
	cr_assert_str_eq(sym_of(&h, 0), "[.] loop");
	cr_assert_eq(h.entries[0].samples, 5, "loop at A.java:3, the inlined code's line");
	rp_hist_free(&h);
	rp_session_free(s);
}

static int print_methods(FILE *fp, void *arg)
{
	JP_OPTS(rp_methods_opts, o, .max_rows = 0);
	return rp_print_methods(fp, arg, &o);
}

Test(methods, view_ranks_methods_groups_the_rest_and_counts_lines_apart)
{
	struct rp_session *s = methods_session();
	s->event = "cpu-clock";
	char *out = rt_capture(print_methods, s);
	const char *m = strstr(out, "# Methods, compiled or interpreted: 75.0% of the samples");
	cr_assert(m, "%s", out);
	const char *loop = strstr(m, "    43.75%         7        7.0 ms  loop\n");
	const char *inner = strstr(m, "    31.25%         5        5.0 ms  inner_[i]\n");
	const char *rest = strstr(m, "# Outside those methods: 25.0% of the samples");
	cr_assert(loop && inner && rest && loop < inner && inner < rest, "%s", out);
	cr_assert(strstr(rest, "12.50%         2        2.0 ms  native: libc.so.6\n"), "%s", out);
	cr_assert(strstr(rest, "6.25%         1        1.0 ms  kernel\n"), "%s", out);
	cr_assert(strstr(rest, "6.25%         1        1.0 ms  JIT runtime code"), "%s", out);
	/* Lines: the 4 samples without one (libc, kernel, stub) are counted, not a row. */
	cr_assert(strstr(out, "# Hottest source lines: 4 of 16 samples (25.0%) have no source "
			      "line"), "%s", out);
	cr_assert_null(strstr(out, "??:0"), "%s", out);
	cr_assert(strstr(out, "5.0 ms  A.java:3  inner_[i]\n"), "%s", out);
	cr_assert(strstr(out, "4.0 ms  A.java:7  loop\n"), "%s", out);
	cr_assert(strstr(out, "# Legend: _[i] inlined"), "%s", out);
	cr_assert(strstr(out, "# hottest jitted method: loop (43.8%)\n"), "%s", out);
	free(out);

	/* Split: the generations apart, named so, and no inlined row. */
	rp_set_split_generations(s, 1);
	out = rt_capture(print_methods, s);
	cr_assert(strstr(out, "    50.00%         8        8.0 ms  loop [gen 2]\n"), "%s", out);
	cr_assert(strstr(out, "    25.00%         4        4.0 ms  loop [gen 1]\n"), "%s", out);
	free(out);
	rp_session_free(s);
}

Test(methods, options_struct_needs_its_size)
{
	struct rp_session *s = methods_session();
	struct rp_methods_opts o = { 0 };
	FILE *fp = fopen("/dev/null", "w");
	cr_assert_eq(rp_print_methods(fp, s, &o), -EINVAL);
	cr_assert_eq(rp_print_methods(fp, s, NULL), -EINVAL);
	fclose(fp);
	rp_session_free(s);
}

/* V8's own code ("Builtin:", "BytecodeHandler:") is the runtime's, grouped with the stubs; a
 * function ("JS:*f", "JS:~f") is a method, and the legend says its tier mark. */
Test(methods, v8_builtins_are_runtime_code)
{
	struct rp_session *s = rt_session();
	uint32_t f = rt_load(s, 9, "JS:*f t.js:1:1", 1, 10, 0, 0x1000, 0x100);
	uint32_t b = rt_load(s, 9, "Builtin:LoadIC", 1, 5, 0, 0x2000, 0x100);
	struct rt_frame js[] = { { .dso = "jitted-9-1.so", .sym = "JS:*f t.js:1:1", .load = f,
				   .ip = 0x1001 }, END };
	struct rt_frame bi[] = { { .dso = "jitted-9-2.so", .sym = "Builtin:LoadIC", .load = b,
				   .ip = 0x2001 }, END };
	ms_samples(s, "node", 9, 15, 3, js);
	ms_samples(s, "node", 9, 15, 1, bi);
	rp_session_finish(s);
	s->event = "cpu-clock";
	char *out = rt_capture(print_methods, s);
	cr_assert(strstr(out, "# Methods, compiled or interpreted: 75.0% of the samples"), "%s", out);
	cr_assert(strstr(out, "    75.00%         3        3.0 ms  JS:*f t.js:1:1\n"), "%s", out);
	cr_assert(strstr(out, "    25.00%         1        1.0 ms  JIT runtime code: interpreter, "
			      "stubs, builtins\n"), "%s", out);
	cr_assert(strstr(out, "Builtin:LoadIC\n"), "its symbol below the group:\n%s", out);
	cr_assert(strstr(out, "# Legend: JS:* optimized by V8's TurboFan"), "%s", out);
	free(out);
	rp_session_free(s);
}

/* A method run both compiled and interpreted: two method rows, and its line two rows too (the
 * interpreted samples first in the session, so a merged row would carry their _[int] for
 * all); the interpreted frames are a method's, not runtime code. */
Test(methods, a_line_compiled_and_interpreted_is_two_rows)
{
	struct rp_session *s = rt_session();
	s->event = "cpu-clock";
	uint32_t g = rt_load(s, 5, "loop", 1, 10, 0, 0x1000, 0x100);
	struct rt_frame interp[] = { { .dso = "jitted-5-9.so", .sym = "loop", .ip = 0x9001,
				       .flags = RP_FRAME_INTERPRETED, .file = "A.java",
				       .line = 7 }, END };
	struct rt_frame compiled[] = { { .dso = "jitted-5-1.so", .sym = "loop", .load = g,
					 .ip = 0x1001, .file = "A.java", .line = 7 }, END };
	ms_samples(s, "app", 5, 11, 2, interp);
	ms_samples(s, "app", 5, 12, 6, compiled);
	rp_session_finish(s);
	char *out = rt_capture(print_methods, s);
	/* the interpreted frames are a method's row too (they were "JIT runtime code") */
	const char *m = strstr(out, "# Methods, compiled or interpreted: 100.0% of the samples");
	const char *lines = strstr(out, "# Hottest source lines: ");
	cr_assert(m && lines, "%s", out);
	const char *c = strstr(m, "6.0 ms  loop\n"), *i = strstr(m, "2.0 ms  loop_[int]\n");
	cr_assert(c && i && c < i && i < lines, "%s", out);
	cr_assert_null(strstr(out, "JIT runtime code"), "%s", out);
	cr_assert(strstr(lines, "6.0 ms  A.java:7  loop\n"), "%s", out);
	cr_assert(strstr(lines, "2.0 ms  A.java:7  loop_[int]\n"), "%s", out);
	cr_assert(strstr(out, "_[int] interpreted: the JVM's interpreter ran it"), "%s", out);
	free(out);
	rp_session_free(s);
}
