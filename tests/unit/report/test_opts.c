/* test_opts.c - rp_ingest follows lib/opts.h's rule: an options struct larger than this
 * version's with unknown non-zero bytes is refused with -EINVAL before anything is read; a
 * smaller one gets defaults for what it lacks (its failure is logged only if it has the log). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "recorder/report/report.h"

Test(opts, ingest_opts_size_rule)
{
	struct rp_session *s;
	char err[512] = "";
	struct { struct rp_ingest_opts o; uint64_t newer; } big = {
		.o = { .sz = sizeof(big), .input = "/nonexistent/perf.data" }, .newer = 1 };
	cr_assert_eq(rp_session_new(&s), 0);
	big.o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(rp_ingest(s, &big.o), -EINVAL);
	big.newer = 0;	/* a zero tail asks nothing new: the input is tried */
	big.o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(rp_ingest(s, &big.o), -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/perf.data"), "%s", err);

	struct rp_ingest_opts small;
	memset(&small, 0xff, sizeof(small));	/* garbage past sz: must not be read */
	small.sz = offsetof(struct rp_ingest_opts, input) + sizeof(small.input);
	small.input = "/nonexistent/perf.data";
	cr_assert_eq(rp_ingest(s, &small), -ENOENT);	/* no log in it: nothing said */
	/* a caller that has the log hears why */
	memset(&small, 0, sizeof(small));
	small.sz = offsetof(struct rp_ingest_opts, log) + sizeof(small.log);
	small.input = "/nonexistent/perf.data";
	small.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(rp_ingest(s, &small), -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/perf.data"), "%s", err);
	rp_session_free(s);
}
