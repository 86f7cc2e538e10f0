/* test_pending.c - recorder/report/pending.c: jitted mappings kept by path until a frame makes
 * them loads; a second mapping of an ELF in its process (a CODE_MOVE) moves it and keeps the
 * time it was loaded. */
#include <criterion/criterion.h>

#include "recorder/report/report_int.h"
#include "tests/unit/report/rptest.h"

Test(pending, kept_by_path_and_moved)
{
	struct rp_session *s = rt_session();
	struct rp_pending p = { 0 };
	const char *a = rp_intern(s, "/d/jitted-7-1.so"), *b = rp_intern(s, "/d/jitted-7-2.so");

	int moved = -1;
	uint64_t old = 0;
	cr_assert_eq(rp_pending_note(&p, a, 7, 0x1000, 0x100, 50, &moved, &old), 1);
	cr_assert_eq(moved, 0);
	cr_assert_eq(rp_pending_note(&p, b, 7, 0x3000, 0x80, 60, &moved, &old), 2);
	cr_assert_eq(rp_pending_note(&p, a, 7, 0x2000, 0x100, 90, &moved, &old), 1, "moved");
	cr_assert(moved == 1 && old == 0x1000, "moved %d from %#llx", moved,
		  (unsigned long long)old);
	const struct rp_pending_map *m = rp_pending_get(&p, a);
	cr_assert_not_null(m);
	cr_assert_eq(m->pid, 7);
	cr_assert_eq(m->path, a);
	cr_assert_eq(m->load, 0, "no load made of it yet");
	cr_assert_eq(m->end_time, 0);
	cr_assert_eq(m->start, 0x2000, "the new place");
	cr_assert_eq(m->len, 0x100);
	cr_assert_eq(m->load_time, 50, "loaded when first mapped");
	cr_assert_eq(m->map_time, 90);
	m = rp_pending_get(&p, b);
	cr_assert(m && m->start == 0x3000 && m->load_time == 60 && m->map_time == 60);
	cr_assert_null(rp_pending_get(&p, rp_intern(s, "/d/jitted-7-3.so")));
	cr_assert_null(rp_pending_get(&p, NULL));
	/* out of memory upstream: ignored */
	cr_assert_eq(rp_pending_note(&p, NULL, 7, 0, 0, 0, &moved, &old), 0);
	cr_assert_eq(moved, 0);
	/* the same ELF path in another process: a mapping of its own */
	cr_assert_eq(rp_pending_note(&p, a, 8, 0x5000, 0x100, 95, &moved, &old), 3);
	cr_assert(moved == 0 && rp_pending_get(&p, a)->pid == 8);
	cr_assert_eq(p.v[0].pid, 7, "the first process's mapping kept");
	cr_assert_eq(p.n, 3);
	rp_pending_free(&p);
	cr_assert_eq(p.n, 0);
	rp_session_free(s);
}
