/* test_sort.c - sym_sort_keys (recorder/symbols/resolver.c), the sort behind every symbol
 * table: against qsort on random keys with many ties, sorted and reversed input. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "recorder/symbols/symbols_int.h"

static int ref_cmp(const void *x, const void *y)
{
	const struct sym_key *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

Test(sort, keys_like_qsort)
{
	static struct sym_key a[5000], b[5000];
	unsigned seed = 99;
	const size_t sizes[] = { 0, 1, 2, 3, 16, 17, 100, 1000, 5000 };
	for (int shape = 0; shape < 4; shape++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			size_t n = sizes[si];
			for (size_t i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				uint64_t k = shape == 0 ? seed >> 4		/* distinct-ish */
					   : shape == 1 ? (seed >> 8) % 7	/* many ties */
					   : shape == 2 ? i : n - i;	/* sorted, reversed */
				a[i] = b[i] = (struct sym_key){ k << 20, (seed >> 3) % 50 };
			}
			sym_sort_keys(a, n);
			if (n)
				qsort(b, n, sizeof(*b), ref_cmp);
			for (size_t i = 0; i < n; i++)
				cr_assert(a[i].key == b[i].key && a[i].idx == b[i].idx,
					  "shape %d n %zu at %zu", shape, n, i);
		}
}
