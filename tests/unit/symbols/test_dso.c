/* test_dso.c - recorder/symbols/dso.c's registry of DSOs by recorded name: names crafted to
 * collide under the old unseeded hash (issue 34, finding 10) cost no more than random ones. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"

/* dso.c's name hash until issue 34: h = K ^ len; per 8-byte word h = (h ^ w) * M1,
 * h ^= h >> 32; then h = (h ^ tail) * M2, h ^ h >> 29. Each step a bijection: 16-byte names
 * (a free first word, a solved second one) share one full hash. */
static int old_dso_collider(uint64_t i, char out[17])
{
	const uint64_t m1 = 0xff51afd7ed558ccdull, m2 = 0xc4ceb9fe1a85ec53ull;
	uint64_t w0 = 0x2f62696c2f2f2f2full + i;	/* "////lib/" plus a counter */
	uint64_t h1 = ((0x9e3779b97f4a7c15ull ^ 16) ^ w0) * m1;
	h1 ^= h1 >> 32;
	uint64_t h2 = tu_unxorshift(0x5eed0000c0ffee00ull, 29) * tu_mul_inverse(m2);
	uint64_t w1 = (tu_unxorshift(h2, 32) * tu_mul_inverse(m1)) ^ h1;
	return tu_name_of_words(w0, w1, out);
}

static size_t dso_probes(const char (*names)[17], size_t n)
{
	struct sym_opts o = { .sz = sizeof(o) };
	struct sym_session *s = sym_session_new(&o);
	cr_assert_not_null(s);
	for (size_t i = 0; i < n; i++)
		cr_assert_not_null(dso_get(s, names[i], NULL, 0, 0));
	cr_assert_eq(s->n_dsos, n);
	for (size_t i = 0; i < n; i++)	/* found again, the same entries */
		cr_assert_not_null(dso_get(s, names[i], NULL, 0, 0));
	cr_assert_eq(s->n_dsos, n);
	size_t probes = s->dso_probes;
	sym_session_free(s);
	return probes;
}

Test(dso, crafted_names_do_not_flood)
{
	tu_assert_no_flood(4000, old_dso_collider, "/lib/", dso_probes);
}
