/* time_conv.c - putting a dump's timestamps on the recording's clock. Monotonic dumps need a
 * CLOCK_MONOTONIC recording (checked in run.c); arch-timestamp (TSC) dumps are converted with
 * the recording's TIME_CONV exactly as perf's tsc_to_perf_time() does. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <string.h>

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

int inj_time_conv_parse(struct inj_time_conv *tc, const void *rec, size_t size)
{
	const uint8_t *p = rec;
	memset(tc, 0, sizeof(*tc));
	if (size < 8 + 3 * 8)	/* the old 32-byte form */
		return -EINVAL;
	tc->time_shift = rd64(p + 8);
	tc->time_mult = rd64(p + 16);
	tc->time_zero = rd64(p + 24);
	if (size >= 8 + 5 * 8 + 8) {
		tc->time_cycles = rd64(p + 32);
		tc->time_mask = rd64(p + 40);
		tc->cap_user_time_zero = p[48];
		tc->cap_user_time_short = p[49];
	} else {
		tc->cap_user_time_zero = 1;
	}
	if (tc->time_shift >= 64)
		return -EINVAL;
	tc->valid = tc->time_mult != 0;
	return tc->valid ? 0 : -EINVAL;
}

uint64_t inj_tsc_to_perf_time(const struct inj_time_conv *tc, uint64_t cyc)
{
	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	uint64_t quot = cyc >> tc->time_shift;
	uint64_t rem = cyc & ((tc->time_shift ? (1ull << tc->time_shift) : 1ull) - 1);
	return tc->time_zero + quot * tc->time_mult + ((rem * tc->time_mult) >> tc->time_shift);
}
