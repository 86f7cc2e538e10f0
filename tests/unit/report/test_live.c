/* test_live.c - recorder/report/live.c: a new load ends exactly the loads it overlaps in its
 * own process; a moved load frees its old range. */
#include <criterion/criterion.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"

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

/* Many loads at addresses in no order, some moving away, against a plain list of intervals:
 * the same loads end, in the same order, and the chunks stay sorted and disjoint. */
static uint32_t model_ended[64], got_ended[64];
static int nr_model, nr_got;

static void on_got(void *ctx, uint32_t idx)
{
	(void)ctx;
	cr_assert_lt(nr_got, 64);
	got_ended[nr_got++] = idx;
}

struct ival { uint32_t pid, idx; uint64_t start, end; int live; };

Test(live, many_loads_match_a_plain_list)
{
	enum { N = 6000 };
	static struct ival m[N];
	struct rp_live lv = { 0 };
	uint64_t seed = 42;
	size_t live = 0;
	for (uint32_t i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t pid = 1 + (uint32_t)(seed >> 62);		/* 1..4 */
		uint64_t start = ((seed >> 20) % 200000) * 16, len = 16 + ((seed >> 40) % 64) * 16;
		if (i % 7 == 3 && i) {		/* an earlier live load moves away */
			uint32_t j = (uint32_t)((seed >> 8) % i);
			if (m[j].live) {
				rp_live_remove(&lv, m[j].pid, m[j].start, m[j].idx);
				m[j].live = 0;
				live--;
			}
		}
		/* the plain list: every live interval of pid overlapping, in address order */
		nr_model = 0;
		for (uint64_t a = 0; a < 200000 * 16 + 64 * 16 + 16; a += 0) {
			uint64_t best = UINT64_MAX;
			uint32_t bj = 0;
			for (uint32_t j = 0; j < i; j++)
				if (m[j].live && m[j].pid == pid && m[j].start >= a &&
				    m[j].start < best && m[j].end > start && m[j].start < start + len) {
					best = m[j].start;
					bj = j;
				}
			if (best == UINT64_MAX)
				break;
			cr_assert_lt(nr_model, 64);
			model_ended[nr_model++] = m[bj].idx;
			m[bj].live = 0;
			live--;
			a = best + 1;
		}
		nr_got = 0;
		cr_assert_eq(rp_live_claim(&lv, pid, start, len, i + 1, on_got, NULL), 0);
		m[i] = (struct ival){ pid, i + 1, start, start + len, 1 };
		live++;
		/* both in address order */
		cr_assert_eq(nr_got, nr_model, "load %u: %d ended, the list says %d", i + 1, nr_got,
			     nr_model);
		for (int k = 0; k < nr_got; k++)
			cr_assert_eq(got_ended[k], model_ended[k], "load %u", i + 1);
		cr_assert_eq(lv.n, live);
	}
	/* sorted, disjoint within a process, no empty chunk */
	const struct rp_live_ent *last = NULL;
	size_t n = 0;
	for (size_t k = 0; k < lv.nc; k++) {
		cr_assert_gt(lv.c[k]->n, 0);
		cr_assert_leq(lv.c[k]->n, RP_LIVE_CHUNK);
		for (size_t i = 0; i < lv.c[k]->n; i++, n++) {
			const struct rp_live_ent *e = &lv.c[k]->v[i];
			if (last)
				cr_assert(last->pid < e->pid || (last->pid == e->pid &&
								 last->end <= e->start));
			last = e;
		}
	}
	cr_assert_eq(n, lv.n);
	cr_assert_gt(lv.nc, 4, "the test should make several chunks: %zu", lv.nc);
	rp_live_free(&lv);
}
