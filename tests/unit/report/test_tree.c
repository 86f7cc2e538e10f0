/* test_tree.c - recorder/report/tree.c's stack trees under a hostile recording: distinct deep
 * stacks stop at the node limit (issue 34, finding 9: 50k samples of distinct 512-frame chains
 * made 25 million nodes, 3.3 GB), every sample still counted, the cut said once. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report/report_int.h"
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
	cr_assert_eq(rp_trees_build(&t[0], &t[1], s), 0);
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
