/* test_live.c - recorder/report/live.c: a new load ends exactly the loads it overlaps in its
 * own process; a moved load frees its old range. */
#include <criterion/criterion.h>

#include "recorder/report/report_int.h"

static uint32_t ended[16];
static int nr_ended;

static void on_end(void *ctx, uint32_t idx)
{
	(void)ctx;
	cr_assert_lt(nr_ended, 16);
	ended[nr_ended++] = idx;
}

Test(live, overlaps_end_within_one_process)
{
	struct rp_live lv = { 0 };
	nr_ended = 0;
	cr_assert_eq(rp_live_claim(&lv, 1, 0x1000, 0x100, 1, on_end, NULL), 0);
	cr_assert_eq(rp_live_claim(&lv, 1, 0x1100, 0x100, 2, on_end, NULL), 0);	/* adjacent */
	cr_assert_eq(rp_live_claim(&lv, 1, 0x1300, 0x100, 3, on_end, NULL), 0);
	cr_assert_eq(rp_live_claim(&lv, 2, 0x1000, 0x400, 4, on_end, NULL), 0);	/* other pid */
	cr_assert_eq(nr_ended, 0);
	/* [0x10f0, 0x1310) overlaps 1, 2 and 3 of pid 1, not pid 2's. */
	cr_assert_eq(rp_live_claim(&lv, 1, 0x10f0, 0x220, 5, on_end, NULL), 0);
	cr_assert_eq(nr_ended, 3);
	cr_assert_eq(ended[0], 1);
	cr_assert_eq(ended[1], 2);
	cr_assert_eq(ended[2], 3);
	cr_assert_eq(lv.n, 2);
	/* Load 5 moves away: its old range no longer ends anything. */
	rp_live_remove(&lv, 1, 0x10f0, 5);
	cr_assert_eq(rp_live_claim(&lv, 1, 0x9000, 0x220, 5, on_end, NULL), 0);
	cr_assert_eq(rp_live_claim(&lv, 1, 0x1000, 0x1000, 6, on_end, NULL), 0);
	cr_assert_eq(nr_ended, 3);
	cr_assert_eq(rp_live_claim(&lv, 1, 0x9100, 0, 7, on_end, NULL), 0);	/* empty: 1 byte */
	cr_assert_eq(nr_ended, 4);
	cr_assert_eq(ended[3], 5);
	rp_live_free(&lv);
}
