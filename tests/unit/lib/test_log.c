/* test_log.c - lib/log.h: a message reaches its sink with its own newlines as lines and what it
 * quotes (a name read from a file) escaped, so a sink prints it as it is (issue 38). */
#include <string.h>
#include <criterion/criterion.h>

#include "lib/log.h"

static void keep(void *ctx, enum jp_level level, const char *msg)
{
	(void)level;
	strcpy(ctx, msg);
}

Test(log, own_newlines_kept_quoted_names_escaped)
{
	char got[1024];
	struct jp_log log = { keep, got };

	jp_logf(&log, JP_LOG_WARN, "%s: %d names:\n  %s", "f.dump", 1, "a\nb\x1b]0;x\x07");
	cr_assert_str_eq(got, "f.dump: 1 names:\n  a\\x0ab\\x1b]0;x\\x07");
}

Test(log, errbuf_keeps_the_first_error)
{
	char err[64];
	const struct jp_log *log = JP_ERRBUF_LOG(err);

	jp_logf(log, JP_LOG_WARN, "a warning");
	jp_logf(log, JP_LOG_ERROR, "first %s", "one\r");
	jp_logf(log, JP_LOG_ERROR, "second");
	cr_assert_str_eq(err, "first one\\x0d");
}
