/* test_sim.c - recorder/inject/sim.c: the ordered replay charges each sample to the generation
 * perf will show it in: time order within perf's FINISHED_ROUND window, newest mapping wins,
 * unloaded ranges charge nobody, callchains only in user context. */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <string.h>

#include "recorder/inject/inject_int.h"

static struct inj_dump d;
static uint32_t hits[8][4];	/* [load][how] */

static void on_hit(void *ctx, struct inj_dump *dd, uint32_t load, unsigned how)
{
	(void)ctx;
	cr_assert_eq(dd, &d);
	cr_assert_lt(load, 8);
	hits[load][how]++;
}

static void setup(void)
{
	/* Two ranges that overlap in [0x1100, 0x1200): load 0 then load 1 over part of it. */
	struct inj_range r[] = { { 0x1000, 0x1200 }, { 0x1100, 0x1300 } };
	memset(&d, 0, sizeof(d));
	memset(hits, 0, sizeof(hits));
	d.pid = 42;
	cr_assert_eq(inj_bounds_init(&d.bounds, r, 2), 0);
	cr_assert_eq(inj_segmap_init(&d.sim_map, &d.bounds), 0);
}

static void teardown(void)
{
	inj_segmap_fini(&d.sim_map);
	inj_bounds_fini(&d.bounds);
}

TestSuite(sim, .init = setup, .fini = teardown);

static struct inj_sim *new_sim(void)
{
	struct inj_sim *s = inj_sim_new(on_hit, NULL);
	cr_assert_not_null(s);
	cr_assert_eq(inj_sim_add_dump(s, &d), 0);
	return s;
}

Test(sim, samples_are_charged_in_time_order_within_a_round)
{
	struct inj_sim *s = new_sim();
	/* File order: the sample comes first but is newer than the mapping. */
	cr_assert_eq(inj_sim_sample(s, 42, 42, 150, 0x1010, NULL, 0, 1), 0);
	cr_assert_eq(inj_sim_sample(s, 42, 42, 90, 0x1010, NULL, 0, 1), 0);	/* before the load */
	cr_assert_eq(inj_sim_map(s, &d, 100, 0x1000, 0x1200, 0), 0);
	cr_assert_eq(inj_sim_queued(s), 3);
	inj_sim_flush(s);
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE], 1, "only the sample after the load counts");
	inj_sim_free(s);
}

/* Items in time order and items older than the newest queued (the queue keeps them apart:
 * a FIFO and a heap) are still applied in one (time, arrival) order. */
Test(sim, late_items_are_applied_in_time_order_among_in_order_ones)
{
	struct inj_sim *s = new_sim();
	inj_sim_map(s, &d, 100, 0x1000, 0x1200, 0);
	inj_sim_sample(s, 42, 42, 300, 0x1150, NULL, 0, 1);	/* load 1 maps it at 200 */
	inj_sim_map(s, &d, 200, 0x1100, 0x1300, 1);	/* older than the sample at 300 */
	inj_sim_sample(s, 42, 42, 150, 0x1150, NULL, 0, 1);	/* still load 0's */
	inj_sim_map(s, &d, 300, 0x1100, 0x1300, INJ_NONE);	/* same time, after the sample */
	inj_sim_sample(s, 42, 42, 300, 0x1150, NULL, 0, 1);	/* released: nobody's */
	cr_assert_eq(inj_sim_queued(s), 6);
	inj_sim_flush(s);
	cr_assert_eq(inj_sim_queued(s), 0);
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE], 1);
	cr_assert_eq(hits[1][INJ_HIT_SAMPLE], 1);
	inj_sim_free(s);
}

Test(sim, newest_mapping_wins_and_unload_charges_nobody)
{
	struct inj_sim *s = new_sim();
	inj_sim_map(s, &d, 100, 0x1000, 0x1200, 0);
	inj_sim_map(s, &d, 200, 0x1100, 0x1300, 1);
	inj_sim_sample(s, 42, 42, 250, 0x1150, NULL, 0, 1);	/* overlap: load 1 */
	inj_sim_sample(s, 42, 42, 250, 0x1050, NULL, 0, 1);	/* load 0's own part */
	inj_sim_map(s, &d, 300, 0x1000, 0x1100, INJ_NONE);	/* load 0 unloaded */
	inj_sim_sample(s, 42, 42, 350, 0x1050, NULL, 0, 1);
	inj_sim_sample(s, 43, 43, 350, 0x1150, NULL, 0, 1);	/* another process */
	inj_sim_flush(s);
	cr_assert_eq(hits[1][INJ_HIT_SAMPLE], 1);
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE], 1);
	inj_sim_free(s);
}

Test(sim, round_rule_releases_one_round_late)
{
	struct inj_sim *s = new_sim();
	inj_sim_map(s, &d, 100, 0x1000, 0x1200, 0);
	inj_sim_sample(s, 42, 42, 120, 0x1010, NULL, 0, 1);
	inj_sim_round(s);	/* perf flushes up to 0 here */
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE], 0);
	cr_assert_eq(inj_sim_flush_limit(s), 0);
	inj_sim_seen(s, 500);
	inj_sim_round(s);	/* now up to 120, the newest time before the previous round */
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE], 1);
	cr_assert_eq(inj_sim_flush_limit(s), 120);
	inj_sim_round(s);
	cr_assert_eq(inj_sim_flush_limit(s), 500);
	inj_sim_free(s);
}

Test(sim, callchain_entries_count_in_user_context_only)
{
	struct inj_sim *s = new_sim();
	inj_sim_map(s, &d, 100, 0x1000, 0x1200, 0);
	inj_sim_map(s, &d, 100, 0x1200, 0x1300, 1);
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0x1010, (uint64_t)PERF_CONTEXT_USER,
			     0xffff, 0x1250, 0x1020 };
	/* A kernel sample: its ip is not ours; 0x1010 sits in kernel context (a coincidence). */
	cr_assert_eq(inj_sim_sample(s, 42, 42, 200, 0xffffffff81000000ull, chain, 6, 0), 0);
	inj_sim_flush(s);
	cr_assert_eq(hits[0][INJ_HIT_CHAIN], 1);
	cr_assert_eq(hits[1][INJ_HIT_CHAIN], 1);
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE] + hits[1][INJ_HIT_SAMPLE], 0);
	inj_sim_free(s);
}

Test(sim, samples_outside_every_dump_are_not_queued)
{
	struct inj_sim *s = new_sim();
	inj_sim_sample(s, 42, 42, 10, 0x5000, NULL, 0, 1);
	inj_sim_sample(s, 7, 7, 10, 0x1010, NULL, 0, 1);
	cr_assert_eq(inj_sim_queued(s), 0);
	inj_sim_sample(s, 42, 42, 10, 0x1010, NULL, 0, 1);
	cr_assert_eq(inj_sim_queued(s), 1);
	inj_sim_free(s);
}

Test(sim, samples_in_jitted_ranges_no_load_covered_are_counted)
{
	struct inj_sim *s = new_sim();
	cr_assert_eq(inj_sim_sample(s, 42, 42, 90, 0x1010, NULL, 0, 1), 0);	/* before the load */
	cr_assert_eq(inj_sim_sample(s, 42, 42, 95, 0x5000, NULL, 0, 1), 0);	/* not jitted code */
	cr_assert_eq(inj_sim_map(s, &d, 100, 0x1000, 0x1200, 0), 0);
	cr_assert_eq(inj_sim_sample(s, 42, 42, 150, 0x1010, NULL, 0, 1), 0);
	inj_sim_flush(s);
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE], 1);
	cr_assert_eq(inj_sim_unresolved(s), 1, "only the jitted address before its load");
	inj_sim_free(s);
}

static struct inj_dump *hit_dump;
static uint32_t hits_by_dump[2];

static void on_hit_dump(void *ctx, struct inj_dump *dd, uint32_t load, unsigned how)
{
	(void)load;
	(void)how;
	struct inj_dump *two = ctx;
	hits_by_dump[dd == two]++;
	hit_dump = dd;
}

/* The segments searched for a call chain are remembered per dump, not per address: two
 * processes with code at the same address, one of them with that address outside its code,
 * each get what their own dump says, however the samples alternate. */
Test(sim, the_same_address_in_two_processes_resolves_per_dump)
{
	struct inj_dump e;
	memset(&e, 0, sizeof(e));
	e.pid = 43;
	struct inj_range r[] = { { 0x1000, 0x1080 }, { 0x5000, 0x5100 } };
	cr_assert_eq(inj_bounds_init(&e.bounds, r, 2), 0);
	cr_assert_eq(inj_segmap_init(&e.sim_map, &e.bounds), 0);
	struct inj_sim *s = inj_sim_new(on_hit_dump, &e);
	cr_assert_not_null(s);
	cr_assert_eq(inj_sim_add_dump(s, &d), 0);
	cr_assert_eq(inj_sim_add_dump(s, &e), 0);
	cr_assert_eq(inj_sim_map(s, &d, 10, 0x1000, 0x1200, 0), 0);
	cr_assert_eq(inj_sim_map(s, &e, 10, 0x1000, 0x1080, 0), 0);
	cr_assert_eq(inj_sim_map(s, &e, 10, 0x5000, 0x5100, 1), 0);
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, 0x1010, 0x1100, 0x5010 };
	for (uint64_t t = 20; t < 60; t += 2) {
		cr_assert_eq(inj_sim_sample(s, 42, 42, t, 0x1100, chain, 4, 1), 0);
		cr_assert_eq(inj_sim_sample(s, 43, 43, t + 1, 0x1100, chain, 4, 1), 0);
	}
	inj_sim_flush(s);
	/* pid 42: the ip and chain 0x1010, 0x1100 in d (0x5010 is outside it): 3 a sample;
	 * pid 43: chain 0x1010 and 0x5010 in e (0x1100 is outside it): 2 a sample. */
	cr_assert_eq(hits_by_dump[0], 20 * 3);
	cr_assert_eq(hits_by_dump[1], 20 * 2);
	/* pid 43's sample ip 0x1100 lies between e's two loads: jitted-looking, no load. */
	cr_assert_eq(inj_sim_unresolved(s), 20);
	inj_sim_free(s);
	inj_segmap_fini(&e.sim_map);
	inj_bounds_fini(&e.bounds);
}

/* The outer frames a thread's chain shares with its previous one take their segments from it:
 * what is counted must still be what each chain says, with the context marks of each (an
 * address shared in kernel context in one chain and user context in the next), the top frames
 * that differ, and more threads than the cache has slots (each thread's chain its own). */
Test(sim, chains_sharing_outer_frames_count_as_searched_each)
{
	struct inj_sim *s = new_sim();
	cr_assert_eq(inj_sim_map(s, &d, 10, 0x1000, 0x1100, 0), 0);
	cr_assert_eq(inj_sim_map(s, &d, 10, 0x1100, 0x1300, 1), 0);
	uint64_t kern[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0x1010, (uint64_t)PERF_CONTEXT_USER,
			    0x1250, 0x9000 };
	uint64_t user[] = { (uint64_t)PERF_CONTEXT_USER, 0x1010, 0x1250, 0x9000 };
	for (uint64_t t = 20; t < 40; t += 2) {	/* one thread, the two chains in turn */
		cr_assert_eq(inj_sim_sample(s, 42, 7, t, 0x9100, kern, 5, 1), 0);
		cr_assert_eq(inj_sim_sample(s, 42, 7, t + 1, 0x9100, user, 4, 1), 0);
	}
	inj_sim_flush(s);
	cr_assert_eq(hits[0][INJ_HIT_CHAIN], 10, "0x1010 counts in user context only");
	cr_assert_eq(hits[1][INJ_HIT_CHAIN], 20);
	memset(hits, 0, sizeof(hits));
	/* 300 threads over 64 slots: each chain's top frame is its thread's (load 1's segment
	 * [0x1100, 0x1200) for even threads, load 0's for odd), the two outer frames everybody's
	 * (0x1250: load 1 in the segment [0x1200, 0x1300)). A hit per segment a chain names. */
	for (uint32_t round = 0; round < 3; round++)
		for (uint32_t tid = 1; tid <= 300; tid++) {
			uint64_t c[] = { (uint64_t)PERF_CONTEXT_USER, tid % 2 ? 0x1050 : 0x1150,
					 0x1250, 0x9000 };
			cr_assert_eq(inj_sim_sample(s, 42, tid, 100 + round * 1000 + tid, 0x9100, c,
						    4, 1), 0);
		}
	inj_sim_flush(s);
	cr_assert_eq(hits[0][INJ_HIT_CHAIN], 3 * 150, "0x1050 when odd");
	cr_assert_eq(hits[1][INJ_HIT_CHAIN], 3 * (300 + 150), "0x1250 always, 0x1150 when even");
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE] + hits[1][INJ_HIT_SAMPLE], 0);
	inj_sim_free(s);
}

/* A hit only marks its load, so a chain naming one code segment many times (recursion) hits
 * it once; distinct segments of one load each hit it, and the sample's own ip counts apart. */
Test(sim, a_segment_a_chain_repeats_is_hit_once_per_sample)
{
	struct inj_sim *s = new_sim();
	cr_assert_eq(inj_sim_map(s, &d, 10, 0x1000, 0x1100, 0), 0);
	cr_assert_eq(inj_sim_map(s, &d, 10, 0x1100, 0x1300, 1), 0);
	uint64_t c[] = { (uint64_t)PERF_CONTEXT_USER, 0x1010, 0x1150, 0x1020, 0x1160, 0x1010,
			 0x1250, 0x1030, 0x9000 };
	for (uint64_t t = 20; t < 30; t++)
		cr_assert_eq(inj_sim_sample(s, 42, 7, t, 0x1040, c, 9, 1), 0);
	inj_sim_flush(s);
	cr_assert_eq(hits[0][INJ_HIT_SAMPLE], 10);
	cr_assert_eq(hits[0][INJ_HIT_CHAIN], 10, "[0x1000, 0x1100) once a sample");
	cr_assert_eq(hits[1][INJ_HIT_CHAIN], 20, "[0x1100, 0x1200) and [0x1200, 0x1300)");
	inj_sim_free(s);
}
