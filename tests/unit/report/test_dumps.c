/* test_dumps.c - recorder/report_ingest/dumps.c: the unwinder's look-up of a jitted ELF's
 * dump during the replay (rp_prefetch_index) with each of its allocations failed in turn, in
 * a child (indexing stops the process out of memory): the index, or out of memory said and
 * a failed exit; never "no dump" for a dump that is there. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "recorder/report_ingest/ingest_int.h"
#include "tests/lib/failnext.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

/* What the child looks up, in a session made before the fork. */
struct lookup {
	struct rp_session *s;
	char jitted[4200];
	uint32_t pid;
};

enum { FOUND = 0, SAID_NOMEM = 1, NO_DUMP = 3 };

static void look_up(void *arg)
{
	struct lookup *l = arg;
	const struct jd_index *x;
	const struct jd_load_entry *e;
	int rc = rp_prefetch_index(l->s, l->jitted, l->pid, &x, &e);
	if (rc == -ENOMEM) {	/* as the report says it (its sample loop returns it) */
		fprintf(stderr, "out of memory\n");
		_exit(SAID_NOMEM);
	}
	_exit(rc ? 100 - rc : x ? FOUND : NO_DUMP);
}

Test(dumps, prefetch_index_found_or_out_of_memory)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	char *dir = tu_tmpdir("dumps"), err[512];
	struct jd_writer *w;
	JD_OPTS(jd_writer_opts, o, .dir = dir);
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	struct jd_ext_method m = { .method = 0x7000, .code_addr = 0x9000, .code_size = 12,
				   .name = "Lp/A;a(I)V", .file = "p/A.java" };
	cr_assert_eq(jd_write_method(w, &m, 100), 0);
	struct lookup l;
	cr_assert_eq(jd_is_marker_name(jd_writer_path(w), &l.pid), 1, "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	snprintf(l.jitted, sizeof(l.jitted), "%s/jitted-%u-1.so", dir, l.pid);

	l.s = rt_session();
	cr_assert_eq(tu_failnext_child(look_up, &l, 0, err, sizeof(err)), FOUND, "%s", err);
	tu_failnext_arm(0);
	const struct jd_index *x;
	const struct jd_load_entry *e;
	cr_assert_eq(rp_prefetch_index(l.s, l.jitted, l.pid, &x, &e), 0);
	unsigned long total = tu_failnext_disarm(NULL);
	cr_assert_not_null(x);
	rp_prefetch_end(l.s);
	rp_session_free(l.s);
	cr_assert_gt(total, 2, "the look-up allocates");
	for (unsigned long k = 1; k <= total; k++) {
		l.s = rt_session();
		int st = tu_failnext_child(look_up, &l, k, err, sizeof(err));
		cr_assert(st == FOUND || (st == SAID_NOMEM && strstr(err, "out of memory")),
			  "allocation %lu of %lu failed: exit %d (%d: no dump), \"%s\"", k, total,
			  st, NO_DUMP, err);
		rp_session_free(l.s);
	}
	tu_rmtree(dir);
	free(dir);
}
