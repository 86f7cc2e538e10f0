/* test_dynload.c - lib/dynload.c: a library's symbols loaded once; a missing library or
 * symbol is an error that names it, and the answer is kept. lib/hash_seed.c: one seed. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "lib/dynload.h"
#include "lib/hash_seed.h"

Test(dynload, symbols_found_once)
{
	struct {
		size_t (*strlen_fn)(const char *);
		int (*strcmp_fn)(const char *, const char *);
	} fns;
	struct jp_dynlib l = { .soname = "libc.so.6",
			       .names = (const char *const[]){ "strlen", "strcmp" },
			       .slots = (void **)&fns, .n = 2 };
	cr_assert_eq(jp_dynload(&l), 0, "%s", l.err);
	cr_assert_eq(fns.strlen_fn("four"), 4);
	cr_assert_eq(fns.strcmp_fn("a", "a"), 0);
	fns.strlen_fn = NULL;
	cr_assert_eq(jp_dynload(&l), 0);
	cr_assert_null(fns.strlen_fn, "loaded again");
}

Test(dynload, missing_library_or_symbol_is_named)
{
	void *slot[1];
	struct jp_dynlib l = { .soname = "libjitprof-no-such.so.9",
			       .names = (const char *const[]){ "f" }, .slots = slot, .n = 1 };
	cr_assert_eq(jp_dynload(&l), -1);
	cr_assert(strstr(l.err, "libjitprof-no-such.so.9 cannot be loaded"), "%s", l.err);
	cr_assert_eq(jp_dynload(&l), -1, "the failure is kept");

	struct jp_dynlib m = { .soname = "libc.so.6",
			       .names = (const char *const[]){ "jitprof_no_such_symbol" },
			       .slots = slot, .n = 1 };
	cr_assert_eq(jp_dynload(&m), -1);
	cr_assert_str_eq(m.err, "libc.so.6 has no jitprof_no_such_symbol");
}

/* One seed for the whole run, odd, from one call to the next and across threads. */
static void *seed_of(void *out)
{
	*(uint64_t *)out = jp_hash_seed();
	return NULL;
}

Test(hash_seed, one_odd_value_per_run)
{
	uint64_t a = jp_hash_seed(), b = 0;
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, seed_of, &b), 0);
	pthread_join(t, NULL);
	cr_assert_eq(a, b);
	cr_assert_eq(a & 1, 1);
	cr_assert_eq(jp_hash_seed(), a);
}
