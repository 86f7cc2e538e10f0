/* test_checks.c - the forgotten prerequisites a report says (checks.c), fed samples as ingest
 * feeds them: jitted samples without callers ask for a dwarf recording or
 * -XX:+PreserveFramePointer, except in a recording with --call-graph dwarf, whose own warning
 * explains them; a recording without call chains; nothing said for a report that asks no call
 * graph. */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/lib/failnext.h"

static char said[4096];

static void keep(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	if (level == JP_LOG_WARN && strlen(said) + strlen(msg) + 2 < sizeof(said)) {
		strcat(said, msg);
		strcat(said, "\n");
	}
}

/* n user samples whose only frame is jitted (a load): no caller. */
static void feed(struct rp_checks *c, uint64_t sample_type, int n)
{
	struct rp_frame f = { .dso = "jitted-1-2.so", .sym = "m()", .load = 1, .ip = 0x1000 };
	for (int i = 0; i < n; i++)
		rp_checks_sample(c, 1, sample_type, 1, &f, 1, 1);
}

static const char *report_of(const struct rp_checks *c, int callchain, const char *input)
{
	struct rp_ingest_opts o = { .sz = sizeof(struct rp_ingest_opts),
		.input = input, .want_callchain = callchain,
		.log = { keep, NULL } };
	said[0] = 0;
	rp_checks_report(c, &o);
	return said;
}

static const char *report(const struct rp_checks *c, int callchain)
{
	return report_of(c, callchain, "x.data");
}

Test(checks, jitted_samples_without_callers_ask_for_frame_pointers)
{
	struct rp_checks c = { 0 };
	feed(&c, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 30);
	const char *s = report(&c, 1);
	cr_assert(strstr(s, "30 of 30 samples in jitted code have no caller"), "%s", s);
	/* both ways out, and nothing a running JVM cannot be given ("profile adds it") */
	cr_assert(strstr(s, "record with --call-graph dwarf (jitprof profile's default for a "
			 "JVM, launched or -p), or start the JVM with -XX:+PreserveFramePointer"),
		  "%s", s);
	cr_assert_null(strstr(s, "adds it"), "%s", s);
	cr_assert_str_empty(report(&c, 0), "no call graph asked, nothing said");
}

/* Stack copies are unwound now (unwound.c): neither the old "not unwound" warning nor the
 * frame-pointer advice, which is wrong for them. */
Test(checks, dwarf_stack_copies_get_no_frame_pointer_advice)
{
	struct rp_checks c = { 0 };
	feed(&c, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
		 PERF_SAMPLE_STACK_USER, 30);
	const char *s = report(&c, 1);
	cr_assert_null(strstr(s, "--call-graph dwarf"), "%s", s);
	cr_assert_null(strstr(s, "have no caller"), "the frame-pointer advice is wrong here: %s",
		       s);
	cr_assert_str_empty(report(&c, 0), "no call graph asked, nothing said");
}

Test(checks, recording_without_chains)
{
	struct rp_checks c = { 0 };
	feed(&c, PERF_SAMPLE_IP, 5);
	const char *s = report(&c, 1);
	cr_assert(strstr(s, "call chains asked for (-g, --collapsed, --flamegraph) but x.data was "
			 "recorded without them"), "%s", s);
}

/* n user samples of process pid in anonymous executable memory: named (a
 * /tmp/perf-PID.map) or not. */
static void feed_anon_of(struct rp_checks *c, uint32_t pid, const char *sym, int n)
{
	struct rp_frame f = { .dso = "//anon", .sym = sym, .ip = 0x7000 };
	for (int i = 0; i < n; i++)
		rp_checks_sample(c, pid, PERF_SAMPLE_IP, 1, &f, 1, 1);
}

static void feed_anon(struct rp_checks *c, const char *sym, int n)
{
	feed_anon_of(c, 9, sym, n);
}

/* JIT code without a jitdump: worth saying when it is nameless; not when a perf map names
 * it (node --perf-basic-prof); always when the recording mapped a dump it was not given. */
Test(checks, jit_code_without_a_jitdump)
{
	struct rp_checks c = { 0 };
	feed_anon(&c, NULL, 30);
	const char *s = report(&c, 0);
	cr_assert(strstr(s, "30 samples (100.0%) are in JIT code (anonymous executable memory) "
			 "and no jitdump was injected"), "%s", s);

	struct rp_checks named = { 0 };
	feed_anon(&named, "JS:*fib /tmp/w.js:2:13", 30);
	cr_assert_str_empty(report(&named, 0), "named by a perf map, nothing forgotten");

	rp_checks_mmap(&named, 9, "/tmp/jit-9.dump");
	s = report(&named, 0);
	cr_assert(strstr(s, "30 samples (100.0%) are in JIT code and x.data names 1 jitdump(s) "
			 "(/tmp/jit-9.dump) but was not injected"), "%s", s);
	rp_checks_free(&c);
	rp_checks_free(&named);
}

/* A JVM that started another: the parent's code injected, the child's nameless. The child is
 * named, with the way to give it the agent; a child with its own dump is not. */
Test(checks, a_process_without_the_others_jitdump)
{
	struct rp_checks c = { 0 };
	rp_checks_mmap(&c, 100, "/tmp/d/jitted-100-7.so");
	feed(&c, PERF_SAMPLE_IP, 40);			/* pid 1's jitted code */
	feed_anon_of(&c, 200, NULL, 30);
	feed_anon_of(&c, 300, NULL, 25);
	const char *s = report(&c, 0);
	cr_assert(strstr(s, "process 200: 30 samples (31.6%) in JIT code that no jitdump "
			 "describes, while other processes of x.data have one") &&
		  strstr(s, "jitprof profile --java"), "%s", s);
	cr_assert_null(strstr(s, "no jitdump was injected"), "some were: %s", s);
	rp_checks_mmap(&c, 200, "/tmp/d/jitted-200-1.so");
	rp_checks_mmap(&c, 300, "/tmp/d/jitted-12-1.so");	/* in a container: its own pid */
	cr_assert_str_empty(report(&c, 0), "every process has its dump");
	rp_checks_free(&c);
}

/* Issue 39: a message naming a long recording and a long dump path is said whole (it was
 * formatted into 1024 bytes: the advice at its end was lost). */
Test(checks, long_paths_are_said_whole)
{
	char input[720], dir[720], marker[740], want[2400];
	struct rp_checks c = { 0 };

	memset(input, 'i', sizeof(input) - 1);
	input[0] = '/';
	input[sizeof(input) - 1] = 0;
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = 0;
	snprintf(marker, sizeof(marker), "%s/jit-9.dump", dir);
	feed_anon(&c, NULL, 30);
	rp_checks_mmap(&c, 9, marker);
	const char *s = report_of(&c, 0, input);
	snprintf(want, sizeof(want), "30 samples (100.0%%) are in JIT code and %s names 1 "
		 "jitdump(s) (%s) but was not injected: run 'jitprof inject -i %s' and report its "
		 "output (perf.jit.data)\n", input, marker, input);
	cr_assert(strstr(s, want), "%s", s);
	rp_checks_free(&c);
}

static void map_jitted(void *c)
{
	rp_checks_mmap(c, 7, "/tmp/jitted-7-1.so");
}

static void sample_anon(void *c)
{
	struct rp_frame f = { .dso = "//anon", .ip = 0x1000 };
	rp_checks_sample(c, 7, PERF_SAMPLE_IP, 1, &f, 1, 1);
}

/* The processes with a jitdump and the nameless JIT samples per process are what the
 * warnings count: out of memory for either map stops the report, said, instead of a
 * process left out of them. */
Test(checks, out_of_memory_for_a_process_is_said)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	void (*fns[])(void *) = { map_jitted, sample_anon };
	for (size_t i = 0; i < 2; i++) {
		struct rp_checks c = { 0 };
		char err[512];
		int st = tu_failnext_child(fns[i], &c, 1, err, sizeof(err));
		cr_assert_eq(st, 1, "case %zu: exit %d, stderr: %s", i, st, err);
		cr_assert(strstr(err, "out of memory"), "case %zu: %s", i, err);
		rp_checks_free(&c);
	}
}

static void intern_one(void *s)
{
	rp_intern(s, "a name never seen");
}

/* A name the session cannot keep stops the report, said: every caller of rp_intern reads
 * NULL as "no name" (a frame, a load, a file would lose it). */
Test(checks, a_name_not_kept_is_said)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	struct rp_session *s;
	cr_assert_eq(rp_session_new(&s), 0);
	char err[512];
	int st = tu_failnext_child(intern_one, s, 1, err, sizeof(err));
	cr_assert_eq(st, 1, "exit %d, stderr: %s", st, err);
	cr_assert(strstr(err, "out of memory (the report's names)"), "%s", err);
	rp_session_free(s);
}
