/* The session's messages: each distinct one said once, whole however long, and many distinct
 * ones (a recording naming thousands of missing files) found again through the seeded index,
 * not a scan of all said before. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "recorder/symbols/symbols_int.h"

struct said {
	size_t n, last_len;
	enum jp_level last_level;
};

static void sink(void *ctx, enum jp_level level, const char *msg)
{
	struct said *s = ctx;
	s->n++;
	s->last_len = strlen(msg);
	s->last_level = level;
}

static struct sym_session *session(struct said *said)
{
	struct sym_opts o = { .sz = sizeof(o), .log = { sink, said } };
	struct sym_session *s = sym_session_new(&o);
	cr_assert_not_null(s);
	return s;
}

Test(messages, each_said_once_and_whole)
{
	struct said said = { 0 };
	struct sym_session *s = session(&said);
	static char path[3000];
	memset(path, 'p', sizeof(path) - 1);
	sess_msg(s, JP_LOG_WARN, "%s: not found", path);
	cr_assert_eq(said.n, 1);
	cr_assert_eq(said.last_len, strlen(path) + strlen(": not found"));
	cr_assert_eq(said.last_level, JP_LOG_WARN);
	sess_msg(s, JP_LOG_WARN, "%s: not found", path);
	cr_assert_eq(said.n, 1, "the same message twice is said once");
	sess_msg(s, JP_LOG_ERROR, "%s: not found!", path);
	cr_assert_eq(said.n, 2);
	sym_session_free(s);
}

Test(messages, many_distinct_ones_cost_few_probes)
{
	enum { N = 20000 };
	struct said said = { 0 };
	struct sym_session *s = session(&said);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < N; i++)
			sess_msg(s, JP_LOG_WARN, "/lib/missing-%d.so: not found", i);
	cr_assert_eq(said.n, N);
	cr_assert_eq(s->n_msgs, N);
	cr_assert_lt(s->msg_index.probes, 8 * (size_t)N, "%zu probes for %d messages twice",
		     s->msg_index.probes, N);
	sym_session_free(s);
}
