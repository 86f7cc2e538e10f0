/* test_memo.c - recorder/report/memo.c: a pointer-keyed memo that grows past many keys,
 * remembers NULL as an answer, and tells a key it never saw. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"

Test(memo, many_keys_null_values_and_misses)
{
	struct rp_memo m = { 0 };
	static char keys[5000];
	static const char *const vals[3] = { "a", NULL, "c" };
	for (size_t i = 0; i < sizeof(keys); i++) {
		const char *v;
		size_t slot;
		cr_assert_eq(rp_memo_get(&m, &keys[i], &v, &slot), 0, "key %zu before its put", i);
		rp_memo_put(&m, &keys[i], vals[i % 3], slot);
	}
	cr_assert_eq(m.n, sizeof(keys));
	cr_assert_geq(m.cap, 2 * m.n, "grown at half load");
	for (size_t i = 0; i < sizeof(keys); i++) {
		const char *v = "unset";
		size_t slot;
		cr_assert_eq(rp_memo_get(&m, &keys[i], &v, &slot), 1, "key %zu", i);
		cr_assert_eq(v, vals[i % 3], "key %zu", i);
	}
	const char *v;
	size_t slot;
	int other;
	cr_assert_eq(rp_memo_get(&m, &other, &v, &slot), 0);
	rp_memo_free(&m);
}
