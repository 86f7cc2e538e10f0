/* test_res_memo.c - recorder/report/res_memo.c: frames kept per (pid, ip, cpumode) only under
 * the epoch they were made in, only once an epoch has seen its warm-up, never confused with
 * another address's; and symbols' sym_resolve_epoch, which says when an answer may be kept. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "recorder/symbols/symbols.h"

static struct rp_frame fr(uint64_t ip, uint32_t line)
{
	return (struct rp_frame){ .dso = "a.so", .sym = "f", .ip = ip, .addr = ip, .line = line };
}

/* Offers put()s of other addresses until the epoch keeps what it is given. */
static void warm(struct rp_res_memo *m, uint64_t epoch)
{
	struct rp_frame f = fr(1, 1);
	for (int i = 0; i < 64; i++)
		rp_res_memo_put(m, epoch, 999, 0x100000 + (uint64_t)i, 0, &f, 1);
}

Test(res_memo, kept_per_address_and_epoch)
{
	struct rp_res_memo m = { 0 };
	const struct rp_frame *got;
	struct rp_frame two[2] = { fr(0x40, 7), fr(0x40, 9) };
	two[0].flags = RP_FRAME_INLINED;

	rp_res_memo_put(&m, 0, 1, 0x40, 2, two, 2);
	cr_assert_eq(rp_res_memo_get(&m, 0, 1, 0x40, 2, &got), 0, "epoch 0 keeps nothing");
	rp_res_memo_put(&m, 5, 1, 0x40, 2, two, 2);
	cr_assert_eq(rp_res_memo_get(&m, 5, 1, 0x40, 2, &got), 0, "a new epoch warms up first");
	warm(&m, 5);
	rp_res_memo_put(&m, 5, 1, 0x40, 2, two, 2);
	cr_assert_eq(rp_res_memo_get(&m, 5, 1, 0x40, 2, &got), 2);
	cr_assert_eq(memcmp(got, two, sizeof(two)), 0, "the frames as made");
	cr_assert_eq(rp_res_memo_get(&m, 5, 2, 0x40, 2, &got), 0, "another process");
	cr_assert_eq(rp_res_memo_get(&m, 5, 1, 0x41, 2, &got), 0, "another address");
	cr_assert_eq(rp_res_memo_get(&m, 5, 1, 0x40, 1, &got), 0, "another cpumode");
	cr_assert_eq(rp_res_memo_get(&m, 6, 1, 0x40, 2, &got), 0, "another epoch");
	cr_assert_eq(rp_res_memo_get(&m, 5, 1, 0x40, 2, &got), 0, "gone with its epoch");
	cr_assert_eq(rp_res_memo_get(&m, 0, 1, 0x40, 2, &got), 0);
	rp_res_memo_free(&m);
}

/* Many addresses, some sharing a slot: each either kept as made or not at all. */
Test(res_memo, never_another_addresses_frames)
{
	struct rp_res_memo m = { 0 };
	warm(&m, 3);
	enum { N = 50000 };
	for (uint64_t i = 0; i < N; i++) {
		struct rp_frame f = fr(0x400000 + i * 16, (uint32_t)i);
		rp_res_memo_put(&m, 3, 7, f.ip, 2, &f, 1);
	}
	size_t kept = 0;
	for (uint64_t i = 0; i < N; i++) {
		const struct rp_frame *got;
		uint32_t n = rp_res_memo_get(&m, 3, 7, 0x400000 + i * 16, 2, &got);
		if (!n)
			continue;
		cr_assert_eq(n, 1);
		cr_assert_eq(got->ip, 0x400000 + i * 16);
		cr_assert_eq(got->line, (uint32_t)i);
		kept++;
	}
	cr_assert_gt(kept, 1000, "most slots hold one: %zu", kept);
	cr_assert_lt(kept, N, "a direct-mapped memo forgets some");
	rp_res_memo_free(&m);
}

Test(res_memo, epoch_follows_what_is_fed)
{
	struct sym_opts so = { .sz = sizeof(so), .no_lines = 1 };
	struct sym_session *ss = sym_session_new(&so);
	uint64_t e0 = sym_resolve_epoch(ss, 10);
	cr_assert_neq(e0, 0);
	cr_assert_eq(sym_resolve_epoch(ss, 20), e0, "nothing fed: the same at any time");
	cr_assert_eq(sym_mmap(ss, 5, 5, 0x1000, 0x100, 0, "/x/a.so", NULL, 0, 2, 100), 0);
	cr_assert_eq(sym_resolve_epoch(ss, 50), 0, "a map starts after 50");
	uint64_t e1 = sym_resolve_epoch(ss, 100);
	cr_assert(e1 && e1 != e0);
	cr_assert_eq(sym_resolve_epoch(ss, 500), e1);
	cr_assert_eq(sym_fork(ss, 6, 5, 6, 5, 120), 0);
	uint64_t e2 = sym_resolve_epoch(ss, 150);
	cr_assert(e2 && e2 != e1, "a fork copies maps");
	cr_assert_eq(sym_exit(ss, 6, 5, 6, 5, 160), 0);
	uint64_t e3 = sym_resolve_epoch(ss, 170);
	cr_assert(e3 && e3 != e2, "an exit ends them");
	/* before and at the exit the child's maps answer, after it they do not: no answer
	 * made there holds later */
	cr_assert_eq(sym_resolve_epoch(ss, 150), 0);
	cr_assert_eq(sym_resolve_epoch(ss, 160), 0);
	cr_assert_eq(sym_resolve_epoch(ss, 161), e3);
	static const uint8_t id[20] = { 1, 2, 3 };
	cr_assert_eq(sym_add_build_id(ss, "/x/b.so", id, sizeof(id), 2), 0);
	uint64_t e4 = sym_resolve_epoch(ss, 170);
	cr_assert(e4 && e4 != e3, "a build-id may change which file a DSO is");
	cr_assert_eq(sym_comm(ss, 5, 5, "java", 180), 0);
	cr_assert_eq(sym_resolve_epoch(ss, 180), e4, "a comm changes no answer");
	sym_session_free(ss);
}
