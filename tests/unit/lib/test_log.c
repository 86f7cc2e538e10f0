/* test_log.c - lib/log.h: a message reaches its sink with its own newlines as lines and what it
 * quotes (a name read from a file) escaped, so a sink prints it as it is (issue 38); whole
 * however long (it was cut at 1 KiB). */
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

struct seen {
	size_t len;
	char head[8], tail[8];
	enum jp_level level;
};

static void sink(void *ctx, enum jp_level level, const char *msg)
{
	struct seen *s = ctx;
	s->len = strlen(msg);
	s->level = level;
	memcpy(s->head, msg, 7);
	memcpy(s->tail, msg + s->len - 7, 8);
}

Test(log, long_messages_are_passed_whole)
{
	static char path[5000];
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 2] = 'z';
	struct seen s = { 0 };
	const struct jp_log log = { sink, &s };
	jp_logf(&log, JP_LOG_ERROR, "%s: %s: refused", "open", path);
	cr_assert_eq(s.len, strlen("open: ") + strlen(path) + strlen(": refused"));
	cr_assert_str_eq(s.head, "open: a");
	cr_assert_str_eq(s.tail, "refused");
	cr_assert_eq(s.level, JP_LOG_ERROR);
}

Test(log, short_messages_and_no_sink)
{
	struct seen s = { 0 };
	const struct jp_log log = { sink, &s };
	jp_logf(&log, JP_LOG_WARN, "%d records dropped", 3);
	cr_assert_eq(s.len, strlen("3 records dropped"));
	jp_logf(&(struct jp_log){ 0 }, JP_LOG_WARN, "dropped");	/* no sink: nothing */
	jp_logf(NULL, JP_LOG_WARN, "dropped");
}
