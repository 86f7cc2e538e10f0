/* test_opts.c - rec_run follows lib/opts.h's rule: unknown non-zero bytes past this version's
 * struct are refused with -EINVAL before anything is opened. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "recorder/record/record.h"

Test(opts, rec_opts_with_unknown_tail_refused)
{
	struct rec_stats st;
	struct { struct rec_opts o; uint64_t newer; } big;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.clockid = -1;
	big.newer = 1;
	cr_assert_eq(rec_run(&big.o, &st), -EINVAL);
}
