/* test_ranges.c - agent/ranges.c: HotSpot pc descriptors become the ranges that lead up to
 * them; the first starts at the code, equal pcs keep the last, one at the code start goes. */
#include <criterion/criterion.h>

#include "agent/ranges.h"

static struct jd_inline_frame fr[8];

static void fill(struct jd_inline_pc *p, const uint64_t *addr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fr[i] = (struct jd_inline_frame){ .method = 0, .line = (int32_t)(10 + i),
						  .bci = (int32_t)(100 + i) };
		p[i] = (struct jd_inline_pc){ .addr = addr[i], .depth = 1, .frames = &fr[i] };
	}
}

Test(ranges, each_descriptor_covers_the_code_before_it)
{
	/* C2's hot(): descriptors after the prologue (+0xc), x + 1.0 (+0x14), the loop test
	 * (+0x1c), the return expression (+0x178). */
	const uint64_t lo = 0x1000, at[] = { lo + 0xc, lo + 0x14, lo + 0x1c, lo + 0x178 };
	struct jd_inline_pc p[4];
	fill(p, at, 4);
	cr_assert_eq(agent_pcs_to_ranges(p, 4, lo), 4);
	const uint64_t want[] = { lo, lo + 0xc, lo + 0x14, lo + 0x1c };
	for (int i = 0; i < 4; i++) {
		cr_expect_eq(p[i].addr, want[i], "range %d starts at %#lx", i,
			     (unsigned long)p[i].addr);
		cr_expect_eq(p[i].frames[0].line, 10 + i, "range %d keeps its descriptor", i);
		cr_expect_eq(p[i].frames[0].bci, 100 + i, "the bci (INLINE v2) moves with its line");
	}
}

Test(ranges, equal_pcs_and_the_code_start)
{
	const uint64_t lo = 0x2000, at[] = { lo, lo + 8, lo + 8, lo + 0x20 };
	struct jd_inline_pc p[4];
	fill(p, at, 4);
	cr_assert_eq(agent_pcs_to_ranges(p, 4, lo), 2);
	cr_expect_eq(p[0].addr, lo);
	cr_expect_eq(p[0].frames[0].line, 12, "the later descriptor at +8 wins");
	cr_expect_eq(p[0].frames[0].bci, 102);
	cr_expect_eq(p[1].addr, lo + 8);
	cr_expect_eq(p[1].frames[0].line, 13);
	cr_assert_eq(agent_pcs_to_ranges(p, 0, lo), 0);
}
