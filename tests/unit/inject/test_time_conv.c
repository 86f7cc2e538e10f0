/* test_time_conv.c - recorder/inject/time_conv.c: TIME_CONV parsing (old and new sizes) and the TSC
 * conversion, checked against the formula perf documents and a wide-multiply reference. */
#include <criterion/criterion.h>
#include <string.h>

#include "recorder/inject/inject_int.h"

static size_t make_rec(uint8_t *rec, size_t size, uint64_t shift, uint64_t mult, uint64_t zero,
		       uint64_t cycles, uint64_t mask, int cap_short)
{
	memset(rec, 0, size);
	uint64_t v[5] = { shift, mult, zero, cycles, mask };
	memcpy(rec + 8, v, size >= 56 ? 40 : 24);
	if (size >= 56) {
		rec[48] = 1;
		rec[49] = (uint8_t)cap_short;
	}
	return size;
}

Test(clock, parses_both_record_sizes)
{
	uint8_t rec[56];
	struct inj_time_conv tc;
	cr_assert_eq(inj_time_conv_parse(&tc, rec, make_rec(rec, 32, 10, 500, 7, 0, 0, 0)), 0);
	cr_assert(tc.valid);
	cr_assert_eq(tc.time_shift, 10);
	cr_assert_eq(tc.time_mult, 500);
	cr_assert_eq(tc.time_zero, 7);
	cr_assert_eq(inj_time_conv_parse(&tc, rec, make_rec(rec, 56, 10, 500, 7, 3, 0xff, 1)), 0);
	cr_assert(tc.cap_user_time_short);
	cr_assert_eq(tc.time_mask, 0xff);
	cr_assert_lt(inj_time_conv_parse(&tc, rec, 16), 0, "too short");
	cr_assert_lt(inj_time_conv_parse(&tc, rec, make_rec(rec, 32, 10, 0, 7, 0, 0, 0)), 0,
		     "mult 0 converts nothing");
}

Test(clock, tsc_conversion_matches_wide_arithmetic)
{
	uint8_t rec[56];
	struct inj_time_conv tc;
	/* A 2.9 GHz TSC: mult/2^shift = 1/2.9 ns per cycle. */
	uint64_t shift = 31, mult = (uint64_t)((1ull << 31) / 2.9), zero = 123456789;
	inj_time_conv_parse(&tc, rec, make_rec(rec, 56, shift, mult, zero, 0, 0, 0));
	uint64_t cycles[] = { 0, 1, 2900000000ull, 0x123456789abcull, 0xfffffffffffull };
	for (size_t i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++) {
		unsigned __int128 want = ((unsigned __int128)cycles[i] * mult) >> shift;
		cr_assert_eq(inj_tsc_to_perf_time(&tc, cycles[i]), zero + (uint64_t)want,
			     "cycles %llu", (unsigned long long)cycles[i]);
	}
}

Test(clock, short_counter_wraps_around_time_cycles)
{
	uint8_t rec[56];
	struct inj_time_conv tc;
	inj_time_conv_parse(&tc, rec, make_rec(rec, 56, 0, 1, 0, 0x1000, 0xfff, 1));
	/* Only the low 12 bits are real: 0x2005 reads as 0x1000 + (0x1005 & 0xfff) = 0x1005. */
	cr_assert_eq(inj_tsc_to_perf_time(&tc, 0x2005), 0x1005);
}
