/* test_name_set.c - recorder/report_ingest/name_set.c: the set of display names ingest asks of every
 * DSO a recording names. Its hash is seeded: names crafted so that the old, unseeded FNV-1a
 * put them all in a few slots (its low bits follow the names' last bytes) cost no more
 * probes than as many random names (issue 34, finding 10). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"

enum { N = 4000, LEN = 16 };

/* 16-byte names whose FNV-1a (the old name hash) has the same low 8 bits: the last byte is
 * solved for (FNV-1a's low bits depend on the low bits alone, and the prime is odd). */
static void crafted(char (*out)[LEN + 1])
{
	const uint64_t prime = 0x100000001b3ull;
	uint64_t inv = prime;	/* prime^-1 mod 2^64 by Newton's iteration */
	for (int k = 0; k < 6; k++)
		inv *= 2 - prime * inv;
	size_t n = 0;
	for (uint64_t i = 0; n < N; i++) {
		char name[LEN + 1];
		snprintf(name, sizeof(name), "/lib/x%09llx", (unsigned long long)i);
		uint64_t h = 0xcbf29ce484222325ull;
		for (int k = 0; k < LEN - 1; k++)
			h = (h ^ (unsigned char)name[k]) * prime;
		unsigned char last = (unsigned char)(((0x5aull * inv) ^ h) & 0xff);
		if (last == 0)
			continue;
		name[LEN - 1] = (char)last;
		name[LEN] = 0;
		cr_assert_eq((rp_hash_bytes(name, LEN, 0) | 1) & 0xff, 0x5b, "not crafted");
		memcpy(out[n++], name, LEN + 1);
	}
}

static size_t probes_of(char (*names)[LEN + 1])
{
	struct rp_memo m = { 0 };
	static char keys[N];
	for (size_t i = 0; i < N; i++) {
		const char *v;
		size_t slot;
		cr_assert_eq(rp_memo_get(&m, &keys[i], &v, &slot), 0);
		rp_memo_put(&m, &keys[i], names[i], slot);
	}
	struct rp_name_set ns = { 0 };
	cr_assert_eq(rp_name_set_of_memo(&ns, &m), 0);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(rp_name_set_find(&ns, names[i]), names[i]);
	size_t probes = ns.ix.probes;
	rp_name_set_free(&ns);
	rp_memo_free(&m);
	return probes;
}

Test(name_set, crafted_names_do_not_flood)
{
	static char bad[N][LEN + 1], good[N][LEN + 1];
	crafted(bad);
	for (size_t i = 0; i < N; i++)	/* distinct, spread: a multiplicative scramble of i */
		snprintf(good[i], LEN + 1, "/lib/r%010x", (unsigned)(i * 2654435761u));
	size_t c = probes_of(bad), r = probes_of(good);
	cr_assert_leq(c, 2 * r + 64, "crafted names: %zu probes, random ones: %zu", c, r);
}
