/* test_index_tab.c - jitdump/index_tab.c's tables (method name -> load count, code index or
 * address -> load): keys crafted to collide under the old unseeded hashes (issue 34, finding
 * 10) cost no more probes than random ones. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/index_int.h"
#include "tests/lib/testutil.h"

enum { N = 4000 };

/* The old u64 hash: k ^= k >> 33, k *= C, k ^= k >> 33 (a bijection). */
static const uint64_t old_c = 0xff51afd7ed558ccdull;

static uint64_t old_u64_unhash(uint64_t h)
{
	return tu_unxorshift(tu_unxorshift(h, 33) * tu_mul_inverse(old_c), 33);
}

/* The old name hash: h = FNV offset ^ len; per 8-byte word h = (h ^ w) * K, h ^= h >> 29;
 * then h = (h ^ tail) * K and the u64 hash above. 16-byte names sharing one full hash. */
static int old_name_collider(uint64_t i, char out[17])
{
	const uint64_t k = 0x9e3779b97f4a7c15ull, kinv = tu_mul_inverse(k);
	uint64_t w0 = 0x3b676e6972745341ull + i;	/* "AString;" plus a counter */
	uint64_t h1 = ((1469598103934665603ull ^ 16) ^ w0) * k;
	h1 ^= h1 >> 29;
	uint64_t h2 = old_u64_unhash(0x5eed0000c0ffee00ull) * kinv;
	uint64_t w1 = (tu_unxorshift(h2, 29) * kinv) ^ h1;
	return tu_name_of_words(w0, w1, out);
}

static size_t name_probes(const char (*names)[17], size_t n)
{
	cr_assert_eq(n, N);
	struct jd_name_tab t = { 0 };
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(jd_name_tab_bump(&t, names[i]), 1);
	cr_assert_eq(jd_name_tab_bump(&t, names[N / 2]), 2);	/* a second load of one */
	size_t probes = t.probes;
	jd_name_tab_free(&t);
	return probes;
}

Test(index_tab, crafted_names_do_not_flood)
{
	tu_assert_no_flood(N, old_name_collider, "", name_probes);
}

static size_t u64_probes(const uint64_t *keys)
{
	struct jd_u64_tab t = { 0 };
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(jd_u64_tab_put(&t, keys[i], (uint32_t)i), 0);
	for (size_t i = 0; i < N; i++) {
		uint32_t v = ~0u;
		cr_assert(jd_u64_tab_get(&t, keys[i], &v) && v == i);
	}
	size_t probes = t.probes;
	jd_u64_tab_free(&t);
	return probes;
}

/* Code indexes (and addresses) whose old hashes share their low 24 bits: one probe run in any
 * table under 16 Mi slots. */
Test(index_tab, crafted_code_indexes_do_not_flood)
{
	static uint64_t crafted[N], random_keys[N];
	srandom(34);
	for (size_t i = 0; i < N; i++) {
		crafted[i] = old_u64_unhash((uint64_t)(i + 1) << 24);
		random_keys[i] = (uint64_t)random() << 31 ^ (uint64_t)random();
	}
	size_t c = u64_probes(crafted), r = u64_probes(random_keys);
	cr_assert_leq(c, 2 * r + 64, "crafted keys: %zu probes, random ones: %zu", c, r);
}
