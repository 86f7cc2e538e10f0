/* test_jvmlog_jfr.c - recorder/report_analysis/jvmlog_jfr.c: compiles and uncommon traps from
 * a Flight Recording built here (jdk_chunk.c) whose file order is not its time order, as a
 * loaded JVM flushes its threads' buffers: the code ends at its earliest ending trap, a later
 * trap does not overwrite why, the same events in time order give the same codes, events
 * with an invalid compile id are skipped and said, and out of memory is -ENOMEM whichever
 * allocation fails. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/report_analysis/jvmlog_int.h"
#include "tests/lib/failnext.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/jdk_chunk.h"

#define MS 1000000ull

static char *dir;

static void setup(void) { dir = tu_tmpdir("jvmlog_jfr"); }
static void teardown(void) { tu_rmtree(dir); free(dir); }
TestSuite(jvmlog_jfr, .init = setup, .fini = teardown);

/* Compile 10 (loop) at 1 ms, installed 0.5 ms later; compile 11 (inner) at 2 ms. Traps on
 * 10: at 5 ms one that only asks for a recompile, at 7 ms the one that ends it, at 9 ms one
 * after its end (an activation still running it). Two traps name no valid compile id. */
static const struct jdk_ev C10 = { .t = 1 * MS, .dur = MS / 2, .compile_id = 10,
				   .method = JDK_M_LOOP, .level = 4 };
static const struct jdk_ev C11 = { .t = 2 * MS, .compile_id = 11, .method = JDK_M_INNER,
				   .level = 3 };
static const struct jdk_ev T5 = { .deopt = 1, .t = 5 * MS, .compile_id = 10, .bci = 3,
				  .method = JDK_M_INNER, .reason = "class_check",
				  .action = "maybe_recompile" };
static const struct jdk_ev T7 = { .deopt = 1, .t = 7 * MS, .compile_id = 10, .bci = 7,
				  .method = JDK_M_LOOP, .reason = "null_check",
				  .action = "make_not_entrant" };
static const struct jdk_ev T9 = { .deopt = 1, .t = 9 * MS, .compile_id = 10, .bci = 9,
				  .method = JDK_M_INNER, .reason = "unstable_if",
				  .action = "reinterpret" };
static const struct jdk_ev TNEG = { .deopt = 1, .t = 6 * MS, .compile_id = -5, .bci = 1,
				    .method = JDK_M_LOOP, .reason = "null_check",
				    .action = "reinterpret" };
static const struct jdk_ev TZERO = { .deopt = 1, .t = 3 * MS, .compile_id = 0, .bci = 1,
				     .method = JDK_M_LOOP, .reason = "null_check",
				     .action = "reinterpret" };

/* The events written to a file in the order given; its path returned (static). */
static const char *write_events(const struct jdk_ev *const *evs, size_t n)
{
	static struct bbuf b;
	static char path[4200];
	struct jdk_ev all[16];
	cr_assert_leq(n, 16);
	for (size_t i = 0; i < n; i++)
		all[i] = *evs[i];
	build_jdk_chunk(&b, all, n);
	snprintf(path, sizeof(path), "%s/rec.jfr", dir);
	cr_assert_eq(tu_write_file(path, b.p, b.n), 0);
	return path;
}

/* The file read (the reader allocates, opening it does not); its result in *rc, its error
 * in err. */
static struct rp_jvmlog *read_events(const char *path, int fd, int *rc, char *err, size_t len)
{
	struct jp_log log;
	struct jp_errbuf eb;
	struct rp_jvmlog *jl = NULL;
	*rc = rp_jvmlog_open_jfr(&jl, fd, path, jp_errbuf_log(&log, &eb, err, len));
	return jl;
}

static const struct jdk_ev *const FILE_ORDER[] = { &T9, &C11, &TNEG, &T7, &C10, &T5, &TZERO };
static const struct jdk_ev *const TIME_ORDER[] = { &C10, &C11, &TZERO, &T5, &TNEG, &T7, &T9 };
#define NR_EVS (sizeof(FILE_ORDER) / sizeof(FILE_ORDER[0]))

static struct rp_jvmlog *open_n(const struct jdk_ev *const *evs, size_t n)
{
	char err[512];
	int rc;
	const char *path = write_events(evs, n);
	int fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	struct rp_jvmlog *jl = read_events(path, fd, &rc, err, sizeof(err));
	close(fd);
	cr_assert_eq(rc, 0, "rc %d: %s", rc, err);
	cr_assert_not_null(jl);
	return jl;
}

static struct rp_jvmlog *open_ok(const struct jdk_ev *const *evs)
{
	return open_n(evs, NR_EVS);
}

static void expect_str(const char *got, const char *want, const char *what)
{
	cr_assert(got && want ? !strcmp(got, want) : got == want, "%s: \"%s\", expected \"%s\"",
		  what, got ? got : "(null)", want ? want : "(null)");
}

static void expect_near(double got, double want, const char *what)
{
	cr_assert(fabs(got - want) < 1e-9, "%s: %.9f, expected %.9f", what, got, want);
}

/* Stamps count from the earliest event, compile 10's start at 1 ms. */
static void expect_codes(const struct rp_jvmlog *jl)
{
	cr_assert_eq(rp_jvmlog_nr_codes(jl), 2, "two codes, the invalid ids made none");
	const struct rp_jvm_code *c = rp_jvmlog_find(jl, 10), *d = rp_jvmlog_find(jl, 11);
	cr_assert(c && d);
	cr_assert_eq(c->end, RP_END_DEOPT);
	expect_near(c->not_entrant, 0.006, "code 10 ends at the 7 ms trap");
	expect_str(c->reason, "null_check", "reason of the trap that ended it");
	expect_str(c->action, "make_not_entrant", "its action");
	expect_str(c->trap_method, jdk_method_names[JDK_M_LOOP], "where it trapped");
	cr_assert_eq(c->trap_bci, 7);
	expect_str(c->method, jdk_method_names[JDK_M_LOOP], "code 10's method");
	cr_assert_eq(c->level, 4);
	expect_near(c->stamp, 0.0005, "code 10 installed at its end");
	cr_assert_eq(d->end, RP_END_RUNNING);
	expect_near(d->not_entrant, -1, "code 11 never ends");
	expect_near(d->stamp, 0.001, "code 11 installed");
	cr_assert_eq(d->level, 3);
	cr_assert_null(d->reason);
	const char *notes = rp_jvmlog_notes(jl);
	cr_assert(notes && strstr(notes, "rec.jfr: 2 events with an invalid compile id skipped"),
		  "%s", notes ? notes : "(no notes)");
}

Test(jvmlog_jfr, earliest_ending_trap_whatever_the_file_order)
{
	struct rp_jvmlog *jl = open_ok(FILE_ORDER);
	expect_codes(jl);
	rp_jvmlog_free(jl);
}

static void expect_same_code(const struct rp_jvm_code *a, const struct rp_jvm_code *b)
{
	cr_assert_eq(a->compile_id, b->compile_id);
	cr_assert_eq(a->level, b->level);
	cr_assert_eq(a->end, b->end);
	cr_assert_eq(a->trap_bci, b->trap_bci);
	cr_assert(a->stamp == b->stamp && a->not_entrant == b->not_entrant);
	expect_str(a->method, b->method, "method");
	expect_str(a->reason, b->reason, "reason");
	expect_str(a->action, b->action, "action");
	expect_str(a->trap_method, b->trap_method, "trap method");
}

Test(jvmlog_jfr, time_order_gives_the_same_codes)
{
	struct rp_jvmlog *a = open_ok(FILE_ORDER), *b = open_ok(TIME_ORDER);
	expect_codes(b);
	cr_assert_eq(rp_jvmlog_nr_codes(a), rp_jvmlog_nr_codes(b));
	/* the same codes in the same order: applied in time order, made in time order */
	for (size_t i = 0; i < rp_jvmlog_nr_codes(a); i++)
		expect_same_code(rp_jvmlog_code(a, i), rp_jvmlog_code(b, i));
	expect_str(rp_jvmlog_notes(a), rp_jvmlog_notes(b), "notes");
	rp_jvmlog_free(a);
	rp_jvmlog_free(b);
}

/* Each allocation failed in turn: -ENOMEM and said, or (past the last) the same answer;
 * never an invalid id taken for out of memory or the other way round. */
Test(jvmlog_jfr, out_of_memory_is_enomem_at_every_allocation)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator: allocations cannot be failed");
	const char *path = write_events(FILE_ORDER, NR_EVS);
	int fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	for (unsigned long n = 1;; n++) {
		char err[512];
		int rc, fired;
		tu_failnext_arm(n);
		struct rp_jvmlog *jl = read_events(path, fd, &rc, err, sizeof(err));
		tu_failnext_disarm(&fired);
		if (!fired) {
			cr_assert_eq(rc, 0, "no allocation failed: rc %d: %s", rc, err);
			expect_codes(jl);
			rp_jvmlog_free(jl);
			cr_assert_gt(n, 10, "the reader allocates");
			break;
		}
		cr_assert_eq(rc, -ENOMEM, "allocation %lu failed: rc %d: %s", n, rc, err);
		cr_assert_null(jl);
		cr_assert(strstr(err, "out of memory") || strstr(err, "Cannot allocate memory"),
			  "allocation %lu said: \"%s\"", n, err);
	}
	close(fd);
}

/* A recording of compiles and no trap (or one compile alone): nothing to order, codes still
 * read, every one running (no array to sort: the sanitized CI caught a qsort of NULL). */
Test(jvmlog_jfr, compiles_without_traps)
{
	static const struct jdk_ev *const two[] = { &C11, &C10 }, *const one[] = { &T7 };
	struct rp_jvmlog *jl = open_n(two, 2);
	cr_assert_eq(rp_jvmlog_nr_codes(jl), 2);
	const struct rp_jvm_code *c = rp_jvmlog_find(jl, 10);
	cr_assert(c && c->end == RP_END_RUNNING && !c->reason);
	expect_near(c->stamp, 0.0005, "code 10 installed at its end");
	rp_jvmlog_free(jl);
	/* a trap alone: its code known by id, ended there */
	jl = open_n(one, 1);
	c = rp_jvmlog_find(jl, 10);
	cr_assert(c && c->end == RP_END_DEOPT);
	expect_str(c->reason, "null_check", "reason");
	rp_jvmlog_free(jl);
}
