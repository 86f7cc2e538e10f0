/* test_opts.c - lib/opts.h, the options rule every public options struct follows: an older
 * (smaller) struct gets defaults for what it lacks, a newer (larger) one is accepted only when
 * the bytes this version does not know are zero. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "lib/opts.h"

struct demo_opts {
	size_t sz;
	const char *name;
	unsigned long level;
};

Test(opts, null_and_exact_size_are_valid)
{
	struct demo_opts o = { .sz = sizeof(o), .name = "x", .level = 3 };
	cr_assert(JP_OPTS_VALID((struct demo_opts *)NULL, struct demo_opts));
	cr_assert(JP_OPTS_VALID(&o, struct demo_opts));
	JP_OPTS(demo_opts, m, .level = 2);
	cr_assert_eq(m.sz, sizeof(m));
	cr_assert(JP_OPTS_VALID(&m, struct demo_opts));
}

/* sz is required: 0 once meant "this header's size", so a caller built against an older,
 * smaller struct that left it 0 had the bytes past its struct read as ours. */
Test(opts, missing_size_is_refused)
{
	struct demo_opts o = { .name = "x", .level = 3 };
	struct demo_opts c;
	cr_assert_not(JP_OPTS_VALID(&o, struct demo_opts));
	cr_assert_eq(JP_OPTS_TAKE(&c, &o), -EINVAL);
}

Test(opts, smaller_struct_gets_defaults_for_what_it_lacks)
{
	struct demo_opts o;
	memset(&o, 0xa5, sizeof(o));	/* what lies beyond an old caller's struct */
	o.sz = offsetof(struct demo_opts, level);
	o.name = "old";
	cr_assert(JP_OPTS_VALID(&o, struct demo_opts));
	struct demo_opts c;
	jp_opts_copy(&c, sizeof(c), &o);
	cr_assert_eq(c.sz, sizeof(c));
	cr_assert_str_eq(c.name, "old");
	cr_assert_eq(c.level, 0, "a field the caller lacks reads as its default");
}

Test(opts, larger_struct_with_nonzero_tail_is_refused)
{
	struct { struct demo_opts o; unsigned long newer; } big;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.level = 1;
	cr_assert(JP_OPTS_VALID(&big.o, struct demo_opts), "a zero tail asks nothing new");
	struct demo_opts c;
	jp_opts_copy(&c, sizeof(c), &big.o);
	cr_assert_eq(c.level, 1);
	big.newer = 7;
	cr_assert_not(JP_OPTS_VALID(&big.o, struct demo_opts));
}

Test(opts, size_too_small_to_hold_sz_is_refused)
{
	struct demo_opts o = { .sz = 3 };
	cr_assert_not(JP_OPTS_VALID(&o, struct demo_opts));
}
