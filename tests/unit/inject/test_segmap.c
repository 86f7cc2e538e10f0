/* test_segmap.c - recorder/inject/segmap.c: owners over elementary segments, overlap and reuse
 * the way perf's newest-mapping-wins rule resolves them, and the runs an unload releases. */
#include <criterion/criterion.h>

#include "recorder/inject/inject_int.h"

static struct inj_bounds bd;
static struct inj_segmap m;

static void setup_ranges(const struct inj_range *r, size_t n)
{
	cr_assert_eq(inj_bounds_init(&bd, r, n), 0);
	cr_assert_eq(inj_segmap_init(&m, &bd), 0);
}

static void teardown(void)
{
	inj_segmap_fini(&m);
	inj_bounds_fini(&bd);
}

static uint32_t owner_at(uint64_t a)
{
	uint32_t o;
	uint64_t w;
	return inj_segmap_at(&m, inj_bounds_find(m.bd, a), &o, &w) ? o : 0xdead;
}

TestSuite(segmap, .fini = teardown);

Test(segmap, bounds_are_sorted_unique_and_find_is_half_open)
{
	struct inj_range r[] = { { 300, 400 }, { 100, 200 }, { 150, 300 }, { 100, 200 }, { 5, 5 } };
	setup_ranges(r, 5);
	cr_assert_eq(bd.nb, 5);	/* 100 150 200 300 400; the empty range adds nothing */
	cr_assert_eq(inj_bounds_find(&bd, 99), -1);
	cr_assert_eq(inj_bounds_find(&bd, 100), 0);
	cr_assert_eq(inj_bounds_find(&bd, 199), 1);
	cr_assert_eq(inj_bounds_find(&bd, 200), 2);
	cr_assert_eq(inj_bounds_find(&bd, 399), 3);
	cr_assert_eq(inj_bounds_find(&bd, 400), -1);
}

Test(segmap, newer_mapping_takes_over_only_what_it_covers)
{
	struct inj_range r[] = { { 100, 300 }, { 200, 250 } };
	setup_ranges(r, 2);
	cr_assert_eq(owner_at(150), 0xdead, "nothing mapped yet");
	inj_segmap_assign(&m, 100, 300, 7, 10);
	cr_assert_eq(owner_at(100), 7);
	cr_assert_eq(owner_at(299), 7);
	inj_segmap_assign(&m, 200, 250, 8, 20);
	cr_assert_eq(owner_at(199), 7);
	cr_assert_eq(owner_at(200), 8);
	cr_assert_eq(owner_at(249), 8);
	cr_assert_eq(owner_at(250), 7, "the older load keeps its tail");
	uint32_t o;
	uint64_t w;
	cr_assert(inj_segmap_at(&m, inj_bounds_find(m.bd, 210), &o, &w));
	cr_assert_eq(w, 20);
}

struct runs { uint64_t s[8], e[8]; int n; };

static void collect(void *ctx, uint64_t s, uint64_t e)
{
	struct runs *r = ctx;
	r->s[r->n] = s;
	r->e[r->n++] = e;
}

Test(segmap, unload_releases_only_what_the_load_still_owns)
{
	struct inj_range r[] = { { 100, 300 }, { 200, 250 } };
	setup_ranges(r, 2);
	inj_segmap_assign(&m, 100, 300, 1, 10);
	inj_segmap_assign(&m, 200, 250, 2, 20);
	struct runs got = { 0 };
	size_t n = inj_segmap_release(&m, 100, 300, 1, 30, collect, &got);
	cr_assert_eq(n, 2);
	cr_assert_eq(got.s[0], 100);
	cr_assert_eq(got.e[0], 200);
	cr_assert_eq(got.s[1], 250);
	cr_assert_eq(got.e[1], 300);
	cr_assert_eq(owner_at(150), INJ_NONE, "released: a known segment owned by nobody");
	cr_assert_eq(owner_at(220), 2, "the newer load is untouched");
	cr_assert_eq(inj_segmap_release(&m, 100, 300, 1, 40, collect, &got), 0,
		     "a second unload finds nothing left");
}

Test(segmap, empty_map_is_harmless)
{
	setup_ranges(NULL, 0);
	cr_assert_eq(inj_bounds_find(&bd, 0), -1);
	inj_segmap_assign(&m, 1, 2, 3, 4);
	cr_assert_eq(owner_at(1), 0xdead);
}

/* Many ranges whose ends differ in every 16-bit digit: every radix pass runs, and the result
 * must equal a plain sorted, de-duplicated list. */
static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

Test(segmap, many_bounds_sorted_like_qsort)
{
	enum { N = 50000 };
	static struct inj_range r[N];
	static uint64_t want[2 * N];
	uint64_t x = 88172645463325252ull;
	size_t k = 0;
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		uint64_t s = x >> 1, len = 1 + (x & 0xffff);
		if (i % 7 == 0 && i)
			s = r[i - 1].start;	/* duplicates */
		r[i] = (struct inj_range){ s, s + len };
		want[k++] = s;
		want[k++] = s + len;
	}
	qsort(want, k, sizeof(*want), cmp64);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || want[u - 1] != want[i])
			want[u++] = want[i];
	setup_ranges(r, N);
	cr_assert_eq(bd.nb, u);
	for (size_t i = 0; i < u; i++)
		cr_assert_eq(bd.b[i], want[i], "bound %zu", i);
}

/* The plain binary search inj_bounds_find must agree with whatever shortcut it takes. */
static long find_ref(uint64_t addr)
{
	if (bd.nb < 2 || addr < bd.b[0] || addr >= bd.b[bd.nb - 1])
		return -1;
	size_t lo = 0, hi = bd.nb - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (bd.b[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

static void check_find_everywhere(uint64_t seed)
{
	for (size_t i = 0; i < bd.nb; i++)
		for (int d = -1; d <= 1; d++) {
			uint64_t a = bd.b[i] + (uint64_t)(int64_t)d;
			cr_assert_eq(inj_bounds_find(&bd, a), find_ref(a), "at bound %zu%+d", i, d);
		}
	uint64_t x = seed, lo = bd.b[0], span = bd.b[bd.nb - 1] - lo;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t a = lo + x % (span + 2) - 1;
		cr_assert_eq(inj_bounds_find(&bd, a), find_ref(a), "at %#llx",
			     (unsigned long long)a);
	}
}

/* A code heap (ranges packed in 64 MB, reused slots) plus one range far away: the lookup
 * table's buckets are crowded at one end and empty in between. */
Test(segmap, find_agrees_with_binary_search)
{
	enum { N = 30000 };
	static struct inj_range r[N];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i + 1 < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t s = 0x7f0000000000ull + (x % 4096) * 0x4000 + (x >> 50) % 64;
		r[i] = (struct inj_range){ s, s + 16 + (x >> 40) % 0x8000 };
	}
	r[N - 1] = (struct inj_range){ 0x10000, 0x20000 };
	setup_ranges(r, N);
	cr_assert_gt(bd.nb, 1000);
	check_find_everywhere(7);
	cr_assert_not_null(bd.lut, "a table for this many bounds");
	teardown();
	/* and a few bounds: no table, the plain search */
	setup_ranges(r, 5);
	cr_assert_null(bd.lut);
	check_find_everywhere(11);
}

/* The set of segments one chain has kept: each once, emptied by a clear, and a set without
 * its table (no memory yet) calls everything new, which its users must tolerate. */
Test(segset, adds_each_segment_once_until_cleared)
{
	struct inj_segset set = { 0 };
	cr_assert_eq(inj_segset_add(&set, 7), 1, "no table yet: everything is new");
	cr_assert_eq(inj_segset_add(&set, 7), 1);
	inj_segset_clear(&set);
	cr_assert_eq(inj_segset_add(&set, 7), 1);
	cr_assert_eq(inj_segset_add(&set, 7), 0);
	cr_assert_eq(inj_segset_add(&set, 8), 1);
	cr_assert_eq(inj_segset_add(&set, 0), 1);
	cr_assert_eq(inj_segset_add(&set, 0), 0);
	inj_segset_clear(&set);
	cr_assert_eq(inj_segset_add(&set, 7), 1, "cleared: 7 is new again");
	cr_assert_eq(inj_segset_add(&set, 8), 1);
	inj_segset_fini(&set);
}

Test(segset, many_segments_are_each_reported_new_at_least_once)
{
	struct inj_segset set = { 0 };
	inj_segset_clear(&set);
	/* More than the table holds: none is ever reported as seen before it was added. */
	unsigned again = 0;
	for (uint32_t seg = 0; seg < 2000; seg++)
		cr_assert_eq(inj_segset_add(&set, seg * 4096u), 1, "segment %u", seg);
	for (uint32_t seg = 0; seg < 2000; seg++)
		again += inj_segset_add(&set, seg * 4096u) == 0;
	cr_assert_gt(again, 100, "a full table still remembers what it holds (%u)", again);
	inj_segset_fini(&set);
}

Test(segset, a_wrapped_stamp_forgets_everything)
{
	struct inj_segset set = { 0 };
	inj_segset_clear(&set);
	cr_assert_eq(inj_segset_add(&set, 42), 1);
	set.stamp = UINT32_MAX;	/* as after 4G clears: the next one wraps */
	cr_assert_eq(inj_segset_add(&set, 42), 1, "42 was added under another stamp");
	inj_segset_clear(&set);
	cr_assert_eq(set.stamp, 1u);
	cr_assert_eq(inj_segset_add(&set, 42), 1, "a stamp-1 slot left from before the wrap");
	cr_assert_eq(inj_segset_add(&set, 42), 0);
	inj_segset_fini(&set);
}
