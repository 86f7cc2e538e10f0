/* test_frames.c - recorder/report/frames.c: frame kinds (tiers, inlined, kernel, native),
 * names in stack views (inlined marked _[i], generations only when split and never on stubs),
 * and the sample filter (--pid, --tid, --time, --method). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/unit/report/rptest.h"

/* pid 7: hot() C2 with area() inlined, called through a stub; pid 8: native only. */
static struct rp_session *session(uint32_t *c2, uint32_t *stub)
{
	struct rp_session *s = rt_session();
	*c2 = rt_load(s, 7, "hot", 2, 10, 0, 0x1000, 0x100);
	*stub = rt_load(s, 7, "call_stub", 1, 5, 0, 0x3000, 0x100);
	rp_load_at(s, *c2)->tier = JD_TIER_C2;
	rp_load_at(s, *stub)->tier = JD_TIER_STUB;
	rp_load_at(s, *stub)->runtime = 1;
	struct rt_frame a[] = { { .dso = "jitted-7-1.so", .sym = "area", .flags = RP_FRAME_INLINED,
				  .ip = 0x1010 },
				{ .dso = "jitted-7-1.so", .sym = "hot", .load = *c2, .ip = 0x1010 },
				{ .dso = "jitted-7-2.so", .sym = "call_stub", .load = *stub,
				  .ip = 0x3001 },
				{ .dso = "libc.so.6", .sym = "main", .ip = 0x50 }, { 0 } };
	struct rt_frame k[] = { { .dso = "[kernel.kallsyms]", .sym = "clear_page",
				  .flags = RP_FRAME_KERNEL, .ip = 0xffffffff81000000ull },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	for (uint64_t t = 0; t < 10; t++)
		rt_sample(s, "java", 7, 1000 + t * 100, 1, a);
	rt_sample(s, "app", 8, 1500, 1, k);
	rp_set_span(s, 1000, 2000);
	rp_session_finish(s);
	return s;
}

Test(frames, kinds_and_names)
{
	uint32_t c2, stub;
	struct rp_session *s = session(&c2, &stub);
	const struct rp_sample *smp = rp_sample_at(s, 0);
	const struct rp_frame *f[4];
	for (uint32_t k = 0; k < 4; k++)
		f[k] = rp_sample_frame(s, smp, k);
	cr_assert_eq(rp_frame_kind(s, f[0]), RP_KIND_INLINED);
	cr_assert_eq(rp_frame_kind(s, f[1]), RP_KIND_C2);
	cr_assert_eq(rp_frame_kind(s, f[3]), RP_KIND_NATIVE);
	cr_assert_str_eq(rp_kind_name(RP_KIND_C2), "C2");
	struct jp_str buf = { 0 };
	cr_assert_str_eq(rp_frame_name(s, f[0], rp_stack_tag(s), &buf), "area_[i]");
	cr_assert_str_eq(rp_frame_name(s, f[1], rp_stack_tag(s), &buf), "hot");
	cr_assert_str_eq(rp_frame_name(s, f[0], 0, &buf), "area");
	rp_set_split_generations(s, 1);
	cr_assert_str_eq(rp_frame_name(s, f[1], rp_stack_tag(s), &buf), "hot [gen 2]");
	/* A stub is runtime code, not a method: no generation even when split. */
	cr_assert_str_eq(rp_frame_name(s, f[2], rp_stack_tag(s), &buf), "call_stub");
	/* -g's text graph with --split-generations: generations apart, inlined frames
	 * marked, kernel unmarked. */
	rp_set_split_generations(s, 0);
	cr_assert_str_eq(rp_frame_name(s, f[1], RP_NAME_GRAPH, &buf), "hot [gen 2]");
	cr_assert_str_eq(rp_frame_name(s, f[0], RP_NAME_GRAPH, &buf), "area_[i]");
	/* V8's tiers by role: TurboFan code is the optimized tier, Sparkplug the first. */
	rp_load_at(s, c2)->tier = RP_TIER_OPTIMIZED;
	cr_assert_eq(rp_frame_kind(s, f[1]), RP_KIND_C2);
	rp_load_at(s, c2)->tier = RP_TIER_BASELINE;
	cr_assert_eq(rp_frame_kind(s, f[1]), RP_KIND_C1);
	cr_assert_str_eq(rp_kind_label(RP_KIND_C1), "C1 / baseline");
	const struct rp_sample *ks = rp_sample_at(s, 10);
	cr_assert_eq(rp_frame_kind(s, rp_sample_frame(s, ks, 0)), RP_KIND_KERNEL);
	rp_session_free(s);
}

Test(frames, filter)
{
	uint32_t c2, stub;
	struct rp_session *s = session(&c2, &stub);
	struct rp_filter f = { .has_pid = 1, .pid = 7 };
	rp_session_filter(s, &f);
	cr_assert_eq(rp_nr_samples(s), 10);
	/* 200..500 ns after the start: samples at 200, 300, 400, 500. */
	f = (struct rp_filter){ .from_ns = 200, .to_ns = 500 };
	rp_session_filter(s, &f);
	cr_assert_eq(rp_nr_samples(s), 4);
	cr_assert_eq(rp_load_at(s, c2)->samples, 4, "load counts follow the filter");
	f = (struct rp_filter){ .method = "^are" };
	rp_session_filter(s, &f);
	cr_assert_eq(rp_nr_samples(s), 4, "inlined frames count for --method");
	/* No valid regex: matched as typed, and no frame's name holds "(". */
	f = (struct rp_filter){ .method = "(" };
	rp_session_filter(s, &f);
	cr_assert_eq(rp_nr_samples(s), 0);
	rp_session_free(s);
}
