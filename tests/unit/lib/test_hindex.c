/* The one hash index: every key found again, absent keys not found, refusals that leave it
 * as it was, and names crafted against the unseeded FNV-1a that synth's file table and the
 * perf.data writer's build-id table used costing no more probes than random ones. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/hindex.h"
#include "tests/lib/testutil.h"

struct owner {
	const char (*names)[17];
};

static int name_eq(const void *key, uint32_t idx, const void *ctx)
{
	return !strcmp(((const struct owner *)ctx)->names[idx], key);
}

static uint64_t hash_of(const char *s)
{
	return jp_hindex_hash(s, strlen(s));
}

static size_t index_probes(const char (*names)[17], size_t n)
{
	struct jp_hindex x = { 0 };
	struct owner o = { names };
	for (size_t i = 0; i < n; i++) {
		cr_assert_lt(jp_hindex_find(&x, hash_of(names[i]), names[i], name_eq, &o), 0);
		cr_assert_eq(jp_hindex_add(&x, hash_of(names[i]), i), 0);
	}
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(jp_hindex_find(&x, hash_of(names[i]), names[i], name_eq, &o),
			     (int64_t)i);
	cr_assert_eq(x.n, n);
	size_t probes = x.probes;
	jp_hindex_free(&x);
	cr_assert_eq(x.cap, 0);
	return probes;
}

Test(hindex, finds_every_key_and_no_other)
{
	static char names[3000][17];
	tu_random_names(names, 3000, "k", 7);
	struct jp_hindex x = { 0 };
	struct owner o = { (const char (*)[17])names };
	for (size_t i = 0; i < 2000; i++)	/* the last 1000 stay out */
		cr_assert_eq(jp_hindex_add(&x, hash_of(names[i]), i), 0);
	for (size_t i = 0; i < 3000; i++) {
		int64_t at = jp_hindex_find(&x, hash_of(names[i]), names[i], name_eq, &o);
		int64_t want = -1;
		for (size_t k = 0; k < 2000 && want < 0; k++)	/* random names may repeat */
			if (!strcmp(names[k], names[i]))
				want = (int64_t)k;
		cr_assert_eq(at, want, "%s: %lld, want %lld", names[i], (long long)at,
			     (long long)want);
	}
	cr_assert_eq(jp_hindex_add(&x, 1, UINT32_MAX), -EOVERFLOW);
	cr_assert_eq(x.n, 2000);
	jp_hindex_free(&x);
}

/* 16-byte names whose 64-bit FNV-1a has the same low 8 bits: the last byte is solved for
 * (FNV-1a's low bits follow the low bits alone; the prime is odd, so it has an inverse). */
static int fnv_collider(uint64_t i, char out[17])
{
	const uint64_t prime = 0x100000001b3ull;
	uint64_t inv = prime;
	for (int k = 0; k < 6; k++)
		inv *= 2 - prime * inv;
	snprintf(out, 17, "/src/f%09llx_", (unsigned long long)i);
	uint64_t h = 0xcbf29ce484222325ull;
	for (int k = 0; k < 15; k++)
		h = (h ^ (unsigned char)out[k]) * prime;
	unsigned char last = (unsigned char)(((0x5aull * inv) ^ h) & 0xff);
	if (!last)
		return 0;
	out[15] = (char)last;
	out[16] = 0;
	return 1;
}

Test(hindex, crafted_names_do_not_flood)
{
	tu_assert_no_flood(4000, fnv_collider, "/src/", index_probes);
}
