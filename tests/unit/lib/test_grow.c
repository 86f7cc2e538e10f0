/* The growth helper: room for what is asked, doubling, and refusals that leave the array as
 * it was (a count read from a recording can be anything). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/grow.h"

Test(grow, doubles_from_the_minimum_and_keeps_the_items)
{
	uint32_t *v = NULL;
	size_t cap = 0;
	for (size_t n = 0; n < 1000; n++) {
		cr_assert_eq(JP_GROW_FOR(v, cap, n), 0);
		cr_assert_gt(cap, n);
		v[n] = (uint32_t)n * 7;
	}
	cr_assert_eq(cap, 1024, "8 doubled to hold 1000: %zu", cap);
	for (size_t n = 0; n < 1000; n++)
		cr_assert_eq(v[n], n * 7);
	free(v);
}

Test(grow, a_large_need_is_met_at_once)
{
	char *v = NULL;
	size_t cap = 0;
	cr_assert_eq(jp_grow(&v, &cap, 5000, 1, 4096), 0);
	cr_assert_eq(cap, 8192);
	cr_assert_eq(jp_grow(&v, &cap, 8192, 1, 4096), 0);
	cr_assert_eq(cap, 8192, "no growth when the room is there");
	free(v);
}

Test(grow, overflow_is_refused_and_the_array_kept)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	cr_assert_eq(JP_GROW_FOR(v, cap, 3), 0);
	uint64_t *before = v;
	cr_assert_eq(jp_grow(&v, &cap, SIZE_MAX / 4, sizeof(*v), 8), -ENOMEM);
	cr_assert_eq(jp_grow(&v, &cap, SIZE_MAX, 1, 8), -ENOMEM);
	cr_assert_eq(v, before);
	cr_assert_eq(cap, 8);
	free(v);
}
