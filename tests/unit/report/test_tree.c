/* test_tree.c - recorder/report/tree.c's stack trees under a hostile recording: distinct deep
 * stacks stop at the node limit (issue 34, finding 9: 50k samples of distinct 512-frame chains
 * made 25 million nodes, 3.3 GB), every sample still counted, the cut said once. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/unit/report/rptest.h"

enum { NS = 40, DEPTH = 100, LIMIT = 1000 };

/* NS samples whose DEPTH frames are all distinct unresolved addresses: NS x DEPTH paths. */
static struct rp_session *distinct_stacks(void)
{
	struct rp_session *s = rt_session();
	struct rp_frame f[DEPTH];
	for (uint32_t i = 0; i < NS; i++) {
		for (uint32_t k = 0; k < DEPTH; k++)
			f[k] = (struct rp_frame){ .dso = rp_intern(s, "lib.so"),
						  .ip = 0x10000ull * (i + 1) + k,
						  .addr = 0x10000ull * (i + 1) + k };
		struct rp_sample smp = { .time = i + 1, .period = 1, .pid = 7, .tid = 7,
					 .comm = rp_intern(s, "deep") };
		cr_assert_eq(rp_add_sample(s, &smp, f, DEPTH), 0);
	}
	s->tree_max_nodes = LIMIT;
	return s;
}

static char said[4096];
static int nsaid;

static void collect(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	nsaid++;
	snprintf(said, sizeof(said), "%s", msg);
}

Test(tree, distinct_deep_stacks_stop_at_the_node_limit)
{
	struct rp_session *s = distinct_stacks();
	struct rp_tree t[2];
	cr_assert_eq(rp_trees_build(&t[0], &t[1], s, 0), 0);
	for (int rev = 0; rev < 2; rev++) {
		cr_assert_leq(t[rev].nr, LIMIT, "%zu nodes", t[rev].nr);
		cr_assert_gt(t[rev].cut_stacks, 0);
		cr_assert_eq(t[rev].cut_samples, t[rev].cut_stacks);	/* one sample each */
		cr_assert_eq(t[rev].n[0].count, NS, "every sample counted at the root");
		rp_tree_free(&t[rev]);
	}
	/* the flame graph says it once */
	struct jp_log log = { collect, NULL };
	struct rp_flame_opts fo = { .log = &log };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	nsaid = 0;
	cr_assert_eq(rp_write_flamegraph(fp, s, &fo), 0);
	fclose(fp);
	cr_assert_eq(nsaid, 1);
	cr_assert(strstr(said, "more than 1000 nodes (RP_TREE_MAX_NODES)") &&
		  strstr(said, "distinct stacks"), "%s", said);
	free(buf);
	rp_session_free(s);
}

/* The gens of a node: its samples per generation of the code they ran in. */
static uint64_t node_gen(const struct rp_tree *t, uint32_t node, uint32_t load)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->nr_gens; i++)
		if (t->gens[i].node == node && t->gens[i].load == load)
			n += t->gens[i].samples;
	return n;
}

static uint32_t child_named(const struct rp_tree *t, uint32_t node, const char *sym)
{
	for (uint32_t c = t->n[node].child; c; c = t->n[c].sibling)
		if (t->n[c].f && t->n[c].f->sym && !strcmp(t->n[c].f->sym, sym))
			return c;
	return 0;
}

/* drive() in two generations with kernel() inlined, kernel() in a generation of its own that
 * takes no sample here: the inlined kernel frame's samples are counted in drive()'s
 * generations (the code it was inlined into), never in kernel()'s own; drive()'s frame has
 * all the samples through it, its own and its callee's, per its generation. */
Test(tree, frame_gens_count_the_frames_samples_in_the_code_they_ran_in)
{
	struct rp_session *s = rt_session();
	uint32_t d1 = rt_load(s, 7, "drive", 1, 1, 5, 0x1000, 0x100);
	uint32_t d2 = rt_load(s, 7, "drive", 2, 5, 0, 0x2000, 0x100);
	uint32_t k1 = rt_load(s, 7, "kernel", 1, 1, 0, 0x3000, 0x100);
	for (int i = 0; i < 10; i++) {
		uint32_t host = i < 3 ? d1 : d2;
		const char *dso = i < 3 ? "jitted-7-1.so" : "jitted-7-2.so";
		struct rt_frame inl[] = {
			{ .dso = dso, .sym = "kernel", .flags = RP_FRAME_INLINED, .ip = 0x10 },
			{ .dso = dso, .sym = "drive", .load = host, .ip = 0x10 },
			{ .dso = "libjvm.so", .sym = "call_stub", .ip = 0x99 },
			{ 0 } };
		struct rt_frame own[] = {
			{ .dso = dso, .sym = "drive", .load = host, .ip = 0x20 },
			{ .dso = "libjvm.so", .sym = "call_stub", .ip = 0x99 },
			{ 0 } };
		rt_sample(s, "java", 7, 10 + i, 1, i % 2 ? inl : own);
	}
	rp_session_finish(s);
	struct rp_tree t;
	cr_assert_eq(rp_trees_build(&t, NULL, s, 1), 0);
	uint32_t comm = t.n[0].child, stub = child_named(&t, comm, "call_stub");
	uint32_t drive = child_named(&t, stub, "drive"), kernel = child_named(&t, drive, "kernel");
	cr_assert(drive && kernel);
	cr_assert_eq(t.n[drive].count, 10);
	cr_assert_eq(node_gen(&t, drive, d1), 3);
	cr_assert_eq(node_gen(&t, drive, d2), 7);
	/* odd i: 1 in generation 1, 5 7 9 in generation 2 */
	cr_assert_eq(t.n[kernel].count, 5);
	cr_assert_eq(node_gen(&t, kernel, d1), 1);
	cr_assert_eq(node_gen(&t, kernel, d2), 4);
	cr_assert_eq(node_gen(&t, kernel, k1), 0, "kernel()'s own code never ran here");
	cr_assert_eq(node_gen(&t, stub, d1) + node_gen(&t, stub, d2), 0, "native: none");
	rp_tree_free(&t);
	/* Not asked: none. */
	cr_assert_eq(rp_trees_build(&t, NULL, s, 0), 0);
	cr_assert_eq(t.nr_gens, 0);
	rp_tree_free(&t);
	rp_session_free(s);
}
