/* test_umap.c - recorder/report/umap.c: the u64 -> u32 map finds every key it was given
 * through its growths, a later put replaces the value, keys it never saw are not found, and
 * keys of every shape (small indexes, pointers, hashes, the top bit) land in their slots
 * whatever the run's seed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"

static uint64_t key_of(size_t i)
{
	switch (i % 4) {
	case 0: return i / 4 + 1;				/* code indexes, pids + 1 */
	case 1: return 0x7f0000000000ull + (i / 4) * 48;	/* pointers */
	case 2: return (i / 4 + 1) * 0x9e3779b97f4a7c15ull;	/* hashes */
	default: return (1ull << 63) | (i / 4);			/* the top bit set */
	}
}

Test(umap, every_key_found_through_growth_and_replaced)
{
	struct rp_u64map m = { 0 };
	uint32_t v;
	cr_assert_eq(rp_map_get(&m, 1, &v), 0, "an empty map finds nothing");
	for (size_t i = 0; i < 40000; i++)
		cr_assert_eq(rp_map_put(&m, key_of(i), (uint32_t)i), 0);
	cr_assert_eq(m.n, 40000);
	cr_assert_geq(m.cap, 2 * m.n, "grown at half load");
	for (size_t i = 0; i < 40000; i++) {
		cr_assert_eq(rp_map_get(&m, key_of(i), &v), 1, "key %zu lost", i);
		cr_assert_eq(v, (uint32_t)i, "key %zu", i);
	}
	for (size_t i = 0; i < 40000; i += 7)	/* replaced, not added */
		cr_assert_eq(rp_map_put(&m, key_of(i), 7), 0);
	cr_assert_eq(m.n, 40000);
	for (size_t i = 0; i < 40000; i++) {
		cr_assert_eq(rp_map_get(&m, key_of(i), &v), 1);
		cr_assert_eq(v, i % 7 ? (uint32_t)i : 7u, "key %zu", i);
	}
	for (size_t i = 40000; i < 41000; i++)
		cr_assert_eq(rp_map_get(&m, key_of(i), &v), 0, "key %zu never put", i);
	rp_map_free(&m);
	cr_assert_eq(rp_map_get(&m, key_of(0), &v), 0, "a freed map finds nothing");
}

/* rp_idxmap: dense keys go to the array, sparse ones (and UINT64_MAX-adjacent ones) to the
 * map; either way every key is found, a repeated key keeps its last value, and keys never
 * put (past the array too) are not. */
Test(umap, index_map_dense_and_sparse_alike)
{
	for (int sparse = 0; sparse < 2; sparse++) {
		struct rp_idxmap m;
		uint64_t step = sparse ? 1000003 : 1, n = 5000;
		rp_idxmap_init(&m, (n - 1) * step, n);
		cr_assert_eq(m.dense != NULL, !sparse, "sparse %d: array %p", sparse,
			     (void *)m.dense);
		for (uint64_t i = 0; i < n; i++)
			cr_assert_eq(rp_idxmap_put(&m, i * step, (uint32_t)i + 1), 0);
		cr_assert_eq(rp_idxmap_put(&m, 7 * step, 99), 0);	/* the last put wins */
		for (uint64_t i = 0; i < n; i++)
			cr_assert_eq(rp_idxmap_get(&m, i * step), i == 7 ? 99u : (uint32_t)i + 1,
				     "sparse %d key %llu", sparse, (unsigned long long)(i * step));
		cr_assert_eq(rp_idxmap_get(&m, n * step), 0);
		cr_assert_eq(rp_idxmap_get(&m, UINT64_MAX), 0);
		if (sparse)
			cr_assert_eq(rp_idxmap_get(&m, step + 1), 0);
		rp_idxmap_free(&m);
	}
	struct rp_idxmap m;
	rp_idxmap_init(&m, 0, 0);	/* nothing: the map, empty */
	cr_assert_null(m.dense);
	cr_assert_eq(rp_idxmap_get(&m, 0), 0);
	cr_assert_eq(rp_idxmap_put(&m, UINT64_MAX, 1), -EINVAL);
	rp_idxmap_free(&m);
}
