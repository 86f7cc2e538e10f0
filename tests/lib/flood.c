/* flood.c - tu_assert_no_flood (testutil.h), apart from testutil.c because it asserts with
 * Criterion, which the fuzz targets that build testutil.c do not link. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "tests/lib/testutil.h"

void tu_assert_no_flood(size_t n, int (*collider)(uint64_t i, char out[17]), const char *prefix,
			size_t (*probes)(const char (*names)[17], size_t n))
{
	char (*crafted)[17] = calloc(n, sizeof *crafted);
	char (*random_names)[17] = calloc(n, sizeof *random_names);
	cr_assert(crafted && random_names, "out of memory");
	tu_crafted_names(crafted, n, collider);
	tu_random_names(random_names, n, prefix, 34);
	size_t c = probes((const char (*)[17])crafted, n);
	size_t r = probes((const char (*)[17])random_names, n);
	free(crafted);
	free(random_names);
	cr_assert_leq(c, 2 * r + 64, "%zu crafted names: %zu probes, as many random ones: %zu",
		      n, c, r);
}
