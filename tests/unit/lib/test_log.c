/* The log passes whole messages: a long path or name read from a file is not cut at a
 * buffer's size (it was 1 KiB). */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/log.h"

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
