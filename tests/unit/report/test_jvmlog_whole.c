/* test_jvmlog_whole.c - recorder/report_analysis/jvmlog.c on what a log may hold beyond the
 * usual: stamps out of range, out of memory at any allocation of the parse, names and paths
 * past any fixed buffer. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"
#include "tests/lib/failnext.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/jvmlog_fixture.h"
#include "tests/unit/report/rptest.h"

static char *dir;

static void setup(void) { dir = tu_tmpdir("jvmlog-whole"); }
static void teardown(void) { tu_rmtree(dir); free(dir); }
TestSuite(jvmlog_whole, .init = setup, .fini = teardown);

/* A stamp is seconds since the JVM started: one out of range (3.3e68, as a fuzzer wrote it,
 * whose nanoseconds overflowed the join's int64 arithmetic), infinite, NaN or negative is
 * damage read as "no stamp"; the join still runs. */
Test(jvmlog_whole, stamps_out_of_range_are_none)
{
	static const char *const bad[] = { "3.3e68", "inf", "nan", "-5", "1e10" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char log[2048], err[512] = "";
		snprintf(log, sizeof(log),
			 "<?xml version='1.0' encoding='UTF-8'?>\n"
			 "<hotspot_log version='160 1' process='4242' time_ms='1'>\n<tty>\n"
			 "<nmethod compile_id='1' compiler='c1' level='3' entry='0x1000' "
			 "size='100' method='A m ()V' stamp='%s'/>\n"
			 "<make_not_entrant thread='7' compile_id='1' compiler='c1' level='3' "
			 "stamp='%s'/>\n</tty>\n</hotspot_log>\n", bad[k], bad[k]);
		char *path = jl_write_log(dir, "bad.log", log, NULL);
		struct rp_jvmlog *jl = jl_open_ok(path);
		const struct rp_jvm_code *c = rp_jvmlog_find(jl, 1);
		cr_assert_not_null(c, "%s", bad[k]);
		cr_expect_lt(c->stamp, 0, "stamp '%s' read as %g", bad[k], c->stamp);
		cr_expect_lt(c->not_entrant, 0, "not-entrant stamp '%s' read as %g", bad[k],
			     c->not_entrant);
		struct rp_session *s = rt_session();
		uint32_t l = rt_load(s, 4242, "A.m()", 1, UINT64_MAX / 2, 0, 0x1000, 100);
		rp_load_at(s, l)->compile_id = 1;
		rp_session_finish(s);
		cr_expect_eq(rp_session_join_jvmlog(s, jl, JP_ERRBUF_LOG(err)), 0, "%s", err);
		rp_session_free(s);
		rp_jvmlog_free(jl);
		free(path);
	}
}

/* Everything read of a log, as text (NULL strings as "-"). */
static char *jvmlog_text(const struct rp_jvmlog *jl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
#define STR(s) ((s) ? (s) : "-")
	fprintf(f, "pid %u cut %s\n", rp_jvmlog_pid(jl), STR(rp_jvmlog_cut(jl)));
	for (size_t i = 0; i < rp_jvmlog_nr_codes(jl); i++) {
		const struct rp_jvm_code *c = rp_jvmlog_code(jl, i);
		fprintf(f, "%d %d %d %s %" PRIx64 " %" PRIu64 " %.3f %.3f %d %s %s %s %d %" PRIu64
			"\n", c->compile_id, c->level, c->osr_bci, STR(c->method), c->entry,
			c->size, c->stamp, c->not_entrant, (int)c->end, STR(c->reason),
			STR(c->action), STR(c->trap_method), c->trap_bci, c->trap_thread);
		for (size_t k = 0; k < c->nr_inl; k++)
			fprintf(f, "  %s -> %s @%d %d %s\n", STR(c->inl[k].caller),
				STR(c->inl[k].callee), c->inl[k].bci, c->inl[k].ok,
				STR(c->inl[k].why));
	}
#undef STR
	fclose(f);
	return buf;
}

/* Out of memory at any allocation of the parse, the log is not read (-ENOMEM, said), never
 * read with an inlining decision, a name or a code left out. */
Test(jvmlog_whole, out_of_memory_never_a_smaller_log)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	char *path = jl_write_log(dir, "c.log", jl_log_tty, jl_log_rest);
	struct rp_jvmlog *jl = jl_open_ok(path);	/* libxml2 loaded: no dlopen below */
	char *want = jvmlog_text(jl);
	rp_jvmlog_free(jl);
	tu_failnext_arm(0);
	cr_assert_eq(rp_jvmlog_open(&jl, path, NULL), 0);
	unsigned long total = tu_failnext_disarm(NULL);
	rp_jvmlog_free(jl);
	cr_assert_gt(total, 10);
	for (unsigned long n = 1; n <= total; n++) {
		char err[512] = "";
		int fired;
		tu_failnext_arm(n);
		int rc = rp_jvmlog_open(&jl, path, JP_ERRBUF_LOG(err));
		tu_failnext_disarm(&fired);
		cr_assert(fired);
		if (rc) {
			cr_assert_eq(rc, -ENOMEM, "allocation %lu of %lu failed: %d %s", n, total,
				     rc, err);
			cr_assert(strstr(err, "out of memory"), "allocation %lu: %s", n, err);
			cr_assert_null(jl);
			continue;
		}
		char *got = jvmlog_text(jl);
		cr_assert_str_eq(got, want, "allocation %lu of %lu failed and the log read "
				 "differently", n, total);
		free(got);
		rp_jvmlog_free(jl);
	}
	free(want);
	free(path);
}

/* A class and methods named past any fixed buffer (2,000-byte Kotlin and Scala names), two
 * methods equal in their first 2,000 bytes: the decisions name each whole and apart; and a cut
 * log's message names a path over 512 bytes whole. */
Test(jvmlog_whole, long_names_whole)
{
	enum { N = 2000 };
	static char cls[N + 1], m[N + 1], text[6 * N + 2048], want[2 * N + 16];
	memset(cls, 'k', N);
	memset(m, 'm', N);
	snprintf(text, sizeof(text),
		 "<?xml version='1.0' encoding='UTF-8'?>\n"
		 "<hotspot_log version='160 1' process='4242' time_ms='1'>\n"
		 "<compilation_log thread='8'>\n"
		 "<task compile_id='3' method='%s %sa ()V' bytes='27' level='4' stamp='0.25'>\n"
		 "<klass id='10' name='%s' flags='1'/>\n"
		 "<method id='11' holder='10' name='%sa' flags='0' bytes='27'/>\n"
		 "<parse method='11' stamp='0.25'>\n"
		 "<bc code='182' bci='14'/>\n"
		 "<method id='13' holder='10' name='%sb' flags='0' bytes='10'/>\n"
		 "<call method='13' count='100' inline='1'/>\n"
		 "<inline_success reason='inline (hot)'/>\n"
		 "</parse>\n<task_done success='1' stamp='0.3'/>\n</task>\n"
		 "</compilation_log>\n</hotspot_log>\n", cls, m, cls, m, m);
	char *path = jl_write_log(dir, "long.log", text, NULL);
	struct rp_jvmlog *jl = jl_open_ok(path);
	const struct rp_jvm_code *c = rp_jvmlog_find(jl, 3);
	cr_assert_not_null(c);
	cr_assert_eq(c->nr_inl, 1);
	snprintf(want, sizeof(want), "%s.%sa", cls, m);
	cr_assert_str_eq(c->inl[0].caller, want, "caller cut to %zu bytes",
			 strlen(c->inl[0].caller));
	want[strlen(want) - 1] = 'b';
	cr_assert_str_eq(c->inl[0].callee, want, "callee cut to %zu bytes",
			 strlen(c->inl[0].callee));
	rp_jvmlog_free(jl);
	free(path);

	char deep[PATH_MAX];
	size_t dl = tu_long_dir(deep, sizeof(deep), dir, 3);
	cr_assert_lt(dl + 16, sizeof(deep));
	strcat(deep, "/cut.log");
	FILE *f = fopen(deep, "w");
	cr_assert_not_null(f);
	fprintf(f, "%s<nmethod compile_id='4' compiler='c2' lev", jl_log_tty);
	fclose(f);
	jl = jl_open_ok(deep);
	cr_assert_not_null(rp_jvmlog_cut(jl));
	cr_assert(strstr(rp_jvmlog_cut(jl), deep), "the path cut: %s", rp_jvmlog_cut(jl));
	rp_jvmlog_free(jl);
}
