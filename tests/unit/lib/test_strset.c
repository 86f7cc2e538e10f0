/* test_strset.c - lib/strset.c, the one interner: equal strings give one pointer across
 * table growth and chunk boundaries, distinct strings stay distinct, free empties it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strset.h"
#include "tests/lib/testutil.h"

Test(strset, equal_strings_one_pointer_through_growth)
{
	struct jp_strset s = { 0 };
	enum { N = 20000 };
	static const char *first[N];
	char buf[64];
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		first[i] = jp_strset_add(&s, buf);
		cr_assert_not_null(first[i]);
		cr_assert_str_eq(first[i], buf);
	}
	cr_assert_eq(s.n, N);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		cr_assert_eq(jp_strset_add(&s, buf), first[i], "%s interned twice", buf);
	}
	cr_assert_eq(s.n, N);
	cr_assert_null(jp_strset_add(&s, NULL));
	cr_assert_str_eq(jp_strset_add(&s, ""), "");
	jp_strset_free(&s);
	cr_assert_eq(s.n, 0);
	cr_assert_str_eq(jp_strset_add(&s, "again"), "again");
	jp_strset_free(&s);
}

Test(strset, string_longer_than_a_chunk)
{
	struct jp_strset s = { 0 };
	size_t len = 200000;
	char *big = malloc(len + 1);
	cr_assert_not_null(big);
	memset(big, 'x', len);
	big[len] = 0;
	const char *p = jp_strset_add(&s, big);
	cr_assert_not_null(p);
	cr_assert_eq(strlen(p), len);
	cr_assert_eq(jp_strset_add(&s, big), p);
	free(big);
	jp_strset_free(&s);
}

/* The hash reads eight bytes a step and the tail bytewise: every prefix of one string (each
 * length around the word boundaries) is its own entry, and found again as itself. */
Test(strset, prefixes_across_word_boundaries_stay_distinct)
{
	struct jp_strset s = { 0 };
	const char *full = "jitted-12345-678.so/with/a/longer/tail";
	size_t n = strlen(full);
	const char *got[64];
	char buf[64];
	for (size_t len = 0; len <= n; len++) {
		memcpy(buf, full, len);
		buf[len] = 0;
		got[len] = jp_strset_add(&s, buf);
		cr_assert_not_null(got[len]);
		cr_assert_eq(strlen(got[len]), len);
	}
	cr_assert_eq(s.n, n + 1);
	for (size_t len = 0; len <= n; len++) {
		memcpy(buf, full, len);
		buf[len] = 0;
		cr_assert_eq(jp_strset_add(&s, buf), got[len], "prefix of %zu bytes", len);
	}
	jp_strset_free(&s);
}

/* The interner's hash until issue 34 (unseeded): h = FNV offset; per 8-byte word
 * h = (h ^ w) * M, h ^= h >> 29; then h = (h ^ tail ^ len) * M, h ^= h >> 32. A bijection per
 * step, so 16-byte names with one chosen full hash come from running it backwards: the first
 * word free, the second solved for. */
static int old_strset_collider(uint64_t i, char out[17])
{
	const uint64_t m = 0x9e3779b97f4a7c15ull, minv = tu_mul_inverse(m);
	const uint64_t target = 0x5eed0000c0ffee00ull;
	uint64_t w0 = 0x2f2f2f2f2f2f2f2full + i;	/* '/' plus a counter: no NUL for small i */
	uint64_t h1 = (0xcbf29ce484222325ull ^ w0) * m;
	h1 ^= h1 >> 29;
	uint64_t h2 = (tu_unxorshift(target, 32) * minv) ^ 16;
	uint64_t w1 = (tu_unxorshift(h2, 29) * minv) ^ h1;
	return tu_name_of_words(w0, w1, out);
}

static size_t strset_probes(const char (*names)[17], size_t n)
{
	struct jp_strset s = { 0 };
	for (size_t i = 0; i < n; i++)
		cr_assert_not_null(jp_strset_add(&s, names[i]));
	cr_assert_eq(s.n, n);
	size_t probes = s.probes;
	jp_strset_free(&s);
	return probes;
}

/* Issue 34, finding 10: names crafted to share one hash under the old function cost the
 * interner no more probes than as many random names (old: n^2/2, 8 million here). */
Test(strset, crafted_names_do_not_flood)
{
	tu_assert_no_flood(4000, old_strset_collider, "", strset_probes);
}
