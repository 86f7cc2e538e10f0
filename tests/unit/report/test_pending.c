/* test_pending.c - recorder/report/pending.c: jitted mappings kept by their ELF's DSO (whose
 * tag holds the id) until a frame makes them loads; a second mapping of an ELF in its process
 * (a CODE_MOVE) moves it and keeps the time it was loaded. */
#include <criterion/criterion.h>
#include <errno.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "recorder/symbols/symbols.h"
#include "tests/lib/failnext.h"

/* The DSO an MMAP2 of path in pid maps, through sym_feed_mmap as ingest feeds it. */
static struct sym_dso *mapped(struct sym_session *ss, const char *path, uint32_t pid,
			      uint64_t start)
{
	struct pd_event ev = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };
	ev.u.mmap = (struct pd_mmap){ .pid = pid, .tid = pid, .start = start, .len = 0x100,
				      .is_mmap2 = true, .filename = path };
	struct sym_dso *d = NULL;
	cr_assert_eq(sym_feed_mmap(ss, &ev, &d), 0);
	cr_assert_not_null(d);
	cr_assert_str_eq(sym_dso_long_name(d), path);
	return d;
}

Test(pending, kept_by_dso_and_moved)
{
	struct sym_opts so = { .sz = sizeof(so), .no_lines = 1 };
	struct sym_session *ss = sym_session_new(&so);
	struct rp_pending p = { 0 };
	cr_assert_not_null(ss);
	struct sym_dso *a = mapped(ss, "/d/jitted-7-1.so", 7, 0x1000);
	struct sym_dso *b = mapped(ss, "/d/jitted-7-2.so", 7, 0x3000);
	cr_assert_eq(mapped(ss, "/d/jitted-7-1.so", 7, 0x2000), a, "one DSO per ELF");
	cr_assert_eq(sym_dso_tag(a), 0, "no tag until one is set");

	int moved = -1;
	uint64_t old = 0;
	cr_assert_eq(rp_pending_note(&p, a, 7, 0x1000, 0x100, 50, &moved, &old), 1);
	cr_assert_eq(moved, 0);
	cr_assert_eq(sym_dso_tag(a), 1, "the id is the DSO's tag");
	cr_assert_eq(rp_pending_note(&p, b, 7, 0x3000, 0x80, 60, &moved, &old), 2);
	cr_assert_eq(rp_pending_note(&p, a, 7, 0x2000, 0x100, 90, &moved, &old), 1, "moved");
	cr_assert(moved == 1 && old == 0x1000, "moved %d from %#llx", moved,
		  (unsigned long long)old);
	const struct rp_pending_map *m = rp_pending_get(&p, a);
	cr_assert_not_null(m);
	cr_assert_eq(m->pid, 7);
	cr_assert_eq(m->path, sym_dso_long_name(a), "named by its DSO's recorded name");
	cr_assert_eq(m->load, 0, "no load made of it yet");
	cr_assert_eq(m->end_time, 0);
	cr_assert_eq(m->start, 0x2000, "the new place");
	cr_assert_eq(m->len, 0x100);
	cr_assert_eq(m->load_time, 50, "loaded when first mapped");
	cr_assert_eq(m->map_time, 90);
	m = rp_pending_get(&p, b);
	cr_assert(m && m->start == 0x3000 && m->load_time == 60 && m->map_time == 60);
	cr_assert_null(rp_pending_get(&p, mapped(ss, "/d/jitted-7-3.so", 7, 0x4000)));
	cr_assert_null(rp_pending_get(&p, NULL));
	/* no DSO (the map was refused): ignored */
	cr_assert_eq(rp_pending_note(&p, NULL, 7, 0, 0, 0, &moved, &old), 0);
	cr_assert_eq(moved, 0);
	/* the same ELF in another process: a mapping of its own */
	cr_assert_eq(rp_pending_note(&p, a, 8, 0x5000, 0x100, 95, &moved, &old), 3);
	cr_assert(moved == 0 && rp_pending_get(&p, a)->pid == 8);
	cr_assert_eq(p.v[0].pid, 7, "the first process's mapping kept");
	cr_assert_eq(p.n, 3);
	rp_pending_free(&p);
	cr_assert_eq(p.n, 0);
	/* a tag another pending (or a stale one) left: not taken for an entry of this one */
	cr_assert_null(rp_pending_get(&p, a));
	sym_dso_set_tag(b, 1);
	cr_assert_eq(rp_pending_note(&p, a, 7, 0x1000, 0x100, 50, &moved, &old), 1);
	cr_assert_null(rp_pending_get(&p, b), "b's tag names a's entry");
	rp_pending_free(&p);
	sym_session_free(ss);
}

Test(pending, feed_mmap_refuses_other_events)
{
	struct sym_opts so = { .sz = sizeof(so), .no_lines = 1 };
	struct sym_session *ss = sym_session_new(&so);
	struct pd_event ev = { .type = PERF_RECORD_COMM };
	struct sym_dso *d = (struct sym_dso *)&ev;
	cr_assert_eq(sym_feed_mmap(ss, &ev, &d), -EINVAL);
	cr_assert_null(d);
	sym_session_free(ss);
}

struct note_arg {
	struct rp_pending p;
	struct sym_dso *d;
};

static void note_one(void *arg)
{
	struct note_arg *a = arg;
	int moved;
	uint64_t old;
	rp_pending_note(&a->p, a->d, 7, 0x1000, 0x100, 50, &moved, &old);
}

/* A jitted mapping the table cannot keep stops the report, said: its id 0 reads as "not
 * pending", and the samples in it would go to no load. */
Test(pending, a_mapping_not_kept_is_said)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	struct sym_opts so = { .sz = sizeof(so), .no_lines = 1 };
	struct sym_session *ss = sym_session_new(&so);
	cr_assert_not_null(ss);
	struct note_arg a = { .d = mapped(ss, "/d/jitted-7-1.so", 7, 0x1000) };
	char err[512];
	int st = tu_failnext_child(note_one, &a, 1, err, sizeof(err));
	cr_assert_eq(st, 1, "exit %d, stderr: %s", st, err);
	cr_assert(strstr(err, "out of memory (a pending jitted mapping)"), "%s", err);
	sym_session_free(ss);
}
