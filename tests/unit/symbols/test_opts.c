/* test_opts.c - sym_session_new follows lib/opts.h's rule: a smaller sym_opts gets defaults,
 * a larger one with unknown non-zero bytes is refused (NULL, errno EINVAL). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "recorder/symbols/symbols.h"

Test(opts, sym_opts_size_rule)
{
	struct sym_opts small;
	memset(&small, 0xff, sizeof(small));	/* garbage pointers past sz: must not be read */
	small.sz = offsetof(struct sym_opts, buildid_dir) + sizeof(small.buildid_dir);
	small.buildid_dir = "/nonexistent";
	struct sym_session *s = sym_session_new(&small);
	cr_assert_not_null(s);
	sym_session_free(s);

	struct { struct sym_opts o; uint64_t newer; } big;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.no_debuginfod = 1;
	big.newer = 1;
	errno = 0;
	cr_assert_null(sym_session_new(&big.o));
	cr_assert_eq(errno, EINVAL);
	big.newer = 0;
	s = sym_session_new(&big.o);
	cr_assert_not_null(s);
	sym_session_free(s);
}
