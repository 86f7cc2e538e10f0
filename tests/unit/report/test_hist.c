/* test_hist.c - recorder/report/hist.c and table.c: aggregation by sort keys, perf's row
 * order (period, then each key ascending, unresolved and unmapped last), the table text. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/unit/report/rptest.h"

#define F(d, s, a) { .dso = d, .sym = s, .ip = a }
#define END { 0 }

static struct jp_str keybuf;	/* the last key: static, as the tests read it after */
static const char *key(const struct rp_hist *h, size_t i, enum rp_key k)
{
	return rp_entry_key_str(h, &h->entries[i], k, &keybuf);
}

Test(hist, parse_sort)
{
	enum rp_key keys[RP_MAX_KEYS];
	int n;
	char err[256];
	cr_assert_eq(rp_parse_sort("comm,dso,sym", keys, &n, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(keys[0], RP_KEY_COMM);
	cr_assert_eq(keys[2], RP_KEY_SYM);
	cr_assert_eq(rp_parse_sort("srcline,generation,pid", keys, &n, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(keys[1], RP_KEY_GENERATION);
	cr_assert_eq(rp_parse_sort("dso,bogus", keys, &n, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "bogus"), "%s", err);
	cr_assert_eq(rp_parse_sort("", keys, &n, JP_ERRBUF_LOG(err)), -EINVAL);
}

Test(hist, perf_row_order)
{
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { F("x.so", "foo", 0x10), END };
	struct rt_frame b[] = { F("x.so", "bar", 0x20), END };
	struct rt_frame u[] = { F("[unknown]", NULL, 0x7f00), END };
	struct rt_frame r[] = { F("x.so", NULL, 0x30), END };
	struct rt_frame c[] = { F("libjvm.so", "baz", 0x40), END };
	for (int i = 0; i < 3; i++) {
		rt_sample(s, "java", 1, 10, 100, a);
		rt_sample(s, "java", 1, 10, 100, u);
		rt_sample(s, "java", 1, 10, 100, b);
		rt_sample(s, "java", 1, 10, 100, r);
	}
	rt_sample(s, "java", 1, 10, 100, a);	/* foo is heaviest */
	rt_sample(s, "C2 CompilerThre", 1, 10, 300, c);
	enum rp_key keys[] = { RP_KEY_COMM, RP_KEY_DSO, RP_KEY_SYM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 3, 0), 0);
	cr_assert_eq(h.nr_entries, 5);
	cr_assert_eq(h.total_period, 1600);
	cr_assert_str_eq(key(&h, 0, RP_KEY_SYM), "[.] foo");
	cr_assert_eq(h.entries[0].samples, 4);
	/* Ties at 300: comm "C2..." < "java"; then x.so before [unknown] (no map sorts last);
	 * within x.so the named symbol before the unresolved address. */
	cr_assert_str_eq(key(&h, 1, RP_KEY_COMM), "C2 CompilerThre");
	cr_assert_str_eq(key(&h, 2, RP_KEY_SYM), "[.] bar");
	cr_assert_str_eq(key(&h, 3, RP_KEY_SYM), "[.] 0x0000000000000030");
	cr_assert_str_eq(key(&h, 4, RP_KEY_DSO), "[unknown]");
	rp_hist_free(&h);
	rp_session_free(s);
}

Test(hist, same_name_two_symbols_are_two_rows)
{
	struct rp_session *s = rt_session();
	/* Two copies of one static function: perf keys rows by symbol, not by name. */
	struct rp_frame f1 = { .dso = rp_intern(s, "a.so"), .sym = rp_intern(s, "get"),
			       .ip = 0x100, .addr = 0x100, .symoff = 0 };
	struct rp_frame f2 = f1;
	f2.ip = f2.addr = 0x208;
	f2.symoff = 8;
	struct rp_frame f3 = f1;
	f3.ip = f3.addr = 0x104;
	f3.symoff = 4;	/* same symbol as f1 */
	struct rp_sample smp = { .period = 1, .comm = rp_intern(s, "t") };
	cr_assert_eq(rp_add_sample(s, &smp, &f1, 1), 0);
	cr_assert_eq(rp_add_sample(s, &smp, &f2, 1), 0);
	cr_assert_eq(rp_add_sample(s, &smp, &f3, 1), 0);
	enum rp_key keys[] = { RP_KEY_SYM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 1, 0), 0);
	cr_assert_eq(h.nr_entries, 2);
	cr_assert_eq(h.entries[0].samples, 2);
	rp_hist_free(&h);
	rp_session_free(s);
}

Test(hist, srcline_groups)
{
	struct rp_session *s = rt_session();
	struct rt_frame l14[] = { { .dso = "j.so", .sym = "m", .file = "A.java", .line = 14,
				    .ip = 1 }, END };
	struct rt_frame l14b[] = { { .dso = "j.so", .sym = "n", .file = "A.java", .line = 14,
				     .ip = 9 }, END };
	struct rt_frame nofile[] = { F("libc.so.6", "memcpy", 5), END };
	struct rt_frame nosym[] = { { .dso = "[kernel.kallsyms]", .ip = 0xffffffff81000000ull,
				      .flags = RP_FRAME_KERNEL }, END };
	rt_sample(s, "j", 1, 0, 1, l14);
	rt_sample(s, "j", 1, 0, 1, l14b);
	rt_sample(s, "j", 1, 0, 1, nofile);
	rt_sample(s, "j", 1, 0, 1, nosym);
	enum rp_key keys[] = { RP_KEY_SRCLINE };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 1, 0), 0);
	cr_assert_eq(h.nr_entries, 3);
	cr_assert_str_eq(key(&h, 0, RP_KEY_SRCLINE), "A.java:14");
	cr_assert_eq(h.entries[0].samples, 2);
	int seen_qq = 0, seen_k = 0;
	for (size_t i = 1; i < 3; i++) {
		seen_qq |= !strcmp(key(&h, i, RP_KEY_SRCLINE), "??:0");
		seen_k |= !strcmp(key(&h, i, RP_KEY_SRCLINE), "[kernel.kallsyms][ffffffff81000000]");
	}
	cr_assert(seen_qq && seen_k);
	rp_hist_free(&h);
	rp_session_free(s);
}

static struct rp_hist *table_hist;
static int print_table(FILE *fp, void *arg)
{
	return rp_print_table(fp, table_hist, arg);
}

Test(table, perf_layout_and_callgraph)
{
	struct rp_session *s = rt_session();
	struct rt_frame leaf_main[] = { F("x.so", "leaf", 1), F("x.so", "mid", 2),
					F("x.so", "main", 3), END };
	struct rt_frame leaf_other[] = { F("x.so", "leaf", 1), F("x.so", "other", 4),
					 F("x.so", "main", 3), END };
	for (int i = 0; i < 3; i++)
		rt_sample(s, "prog", 7, 0, 1000, leaf_main);
	rt_sample(s, "prog", 7, 0, 1000, leaf_other);
	enum rp_key keys[] = { RP_KEY_COMM, RP_KEY_DSO, RP_KEY_SYM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 3, 1), 0);
	table_hist = &h;
	struct rp_table_opts o = { .graph = RP_GRAPH_CALLEE, .graph_min_percent = 0.5 };
	char *out = rt_capture(print_table, &o);
	cr_assert(strstr(out, "# Samples: 4  of event 'cpu-clock'"), "%s", out);
	cr_assert(strstr(out, "# Event count (approx.): 4000"), "%s", out);
	cr_assert(strstr(out, "# Overhead  Command  Shared Object  Symbol"), "%s", out);
	cr_assert(strstr(out, "   100.00%  prog     x.so           [.] leaf"), "%s", out);
	/* callee order: leaf first, then the two callers with their shares. */
	cr_assert(strstr(out, "---leaf"), "%s", out);
	cr_assert(strstr(out, "|--75.00%--mid"), "%s", out);
	cr_assert(strstr(out, "--25.00%--other"), "%s", out);
	free(out);
	o.graph = RP_GRAPH_CALLER;
	out = rt_capture(print_table, &o);
	cr_assert(strstr(out, "---main"), "%s", out);
	free(out);
	rp_hist_free(&h);
	rp_session_free(s);
}

/* perf's graph: branches from the start when the first frames differ (no "---" trunk), no
 * blank lines inside, kernel frames unmarked, no graph under a row below the threshold, and
 * with min_percent (--percent-limit) no rows below it. */
Test(table, graph_like_perf)
{
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { F("x.so", "leaf", 1), F("x.so", "main", 3), END };
	struct rt_frame b[] = { F("x.so", "leaf", 1), F("[kernel.kallsyms]", "do_syscall_64", 9),
				END };
	struct rt_frame rare[] = { F("x.so", "rare", 5), F("x.so", "main", 3), END };
	b[1].flags = RP_FRAME_KERNEL;
	for (int i = 0; i < 600; i++)
		rt_sample(s, "prog", 7, 0, 1000, i % 3 ? a : b);
	rt_sample(s, "prog", 7, 0, 1000, rare);
	enum rp_key keys[] = { RP_KEY_SYM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 1, 1), 0);
	table_hist = &h;
	struct rp_table_opts o = { .graph = RP_GRAPH_CALLER, .graph_min_percent = 0.5 };
	char *out = rt_capture(print_table, &o);
	/* leaf's callers in caller order start at main or at the kernel frame: two branches. */
	const char *leaf = strstr(out, "[.] leaf\n");
	cr_assert_not_null(leaf, "%s", out);
	cr_assert(!strncmp(leaf + 9, "            |          \n            |--66.", 41), "%s", out);
	cr_assert(strstr(out, " --33.28%--do_syscall_64\n"), "kernel frame unmarked:\n%s", out);
	cr_assert_null(strstr(out, "_[k]"), "%s", out);
	cr_assert_null(strstr(out, "---"), "no trunk over two first frames:\n%s", out);
	/* rare (0.17%) is a row without a graph: the next line is the end of the output. */
	const char *r = strstr(out, "[.] rare\n");
	cr_assert_not_null(r, "%s", out);
	cr_assert_eq(r[9], '\0', "a graph under a row below 0.5%%:\n%s", out);
	for (const char *p = out; *p; p = strchr(p, '\n') + 1) {
		size_t l = strcspn(p, "\n"), sp = strspn(p, " ");
		cr_assert(l == 0 || sp < l, "whitespace-only line in\n%s", out);
		if (!p[l])
			break;
	}
	free(out);
	o.min_percent = 1;
	out = rt_capture(print_table, &o);
	cr_assert_null(strstr(out, "rare"), "--percent-limit hides rows:\n%s", out);
	free(out);
	rp_hist_free(&h);
	rp_session_free(s);
}

/* -g: a method's generations (each its own ELF) are one frame unless split, then one per
 * generation named " [gen N]" with the same samples in all; runtime code (a stub loaded
 * twice) never splits. */
Test(table, graph_generations_one_frame)
{
	struct rp_session *s = rt_session();
	uint32_t g1 = rt_load(s, 5, "loop", 1, 10, 20, 0x1000, 0x100);
	uint32_t g2 = rt_load(s, 5, "loop", 2, 20, 0, 0x2000, 0x100);
	uint32_t st1 = rt_load(s, 5, "call_stub", 1, 5, 0, 0x3000, 0x100);
	uint32_t st2 = rt_load(s, 5, "call_stub", 1, 5, 0, 0x4000, 0x100);
	rp_load_at(s, st1)->runtime = rp_load_at(s, st2)->runtime = 1;
	struct rt_frame a[] = { F("libc.so.6", "work", 0x10),
				{ .dso = "jitted-5-1.so", .sym = "loop", .load = g1, .ip = 0x1001 },
				{ .dso = "jitted-5-3.so", .sym = "call_stub", .load = st1, .ip = 0x3001 },
				F("app", "main", 0x50), END };
	struct rt_frame b[] = { F("libc.so.6", "work", 0x10),
				{ .dso = "jitted-5-2.so", .sym = "loop", .load = g2, .ip = 0x2001 },
				{ .dso = "jitted-5-4.so", .sym = "call_stub", .load = st2, .ip = 0x4001 },
				F("app", "main", 0x50), END };
	for (int i = 0; i < 4; i++)
		rt_sample(s, "app", 5, 15, 1000, a);
	for (int i = 0; i < 6; i++)
		rt_sample(s, "app", 5, 25, 1000, b);
	rp_session_finish(s);
	enum rp_key keys[] = { RP_KEY_COMM };
	struct rp_hist h;
	cr_assert_eq(rp_hist_build(&h, s, keys, 1, 1), 0);
	table_hist = &h;
	struct rp_table_opts o = { .graph = RP_GRAPH_CALLER, .graph_min_percent = 0.5 };
	char *out = rt_capture(print_table, &o);
	/* One chain: main, the stub, loop, work, each on its own line. */
	cr_assert(strstr(out, "---main\n               call_stub\n               loop\n"
			      "               work\n"), "%s", out);
	cr_assert_null(strstr(out, "[gen"), "%s", out);
	cr_assert_null(strstr(out, "%--"), "a branch where there is one chain:\n%s", out);
	free(out);
	rp_set_split_generations(s, 1);
	out = rt_capture(print_table, &o);
	cr_assert(strstr(out, "---main\n               call_stub\n"), "%s", out);
	cr_assert(strstr(out, "|--60.00%--loop [gen 2]\n"), "%s", out);
	cr_assert(strstr(out, " --40.00%--loop [gen 1]\n"), "%s", out);
	cr_assert_null(strstr(out, "call_stub [gen"), "%s", out);
	free(out);
	rp_hist_free(&h);
	rp_session_free(s);
}

/* rp_session_reserve: the room made ahead is used (no sample moves while it lasts), a recording
 * of unknown size reserves nothing, and past the room the arrays grow as before. */
Test(model, reserved_room_holds_samples_in_place)
{
	struct rp_session *s;
	cr_assert_eq(rp_session_new(&s), 0);
	rp_session_reserve(s, 0, 1, 1);
	struct rp_frame f = { .dso = rp_intern(s, "a.so"), .sym = rp_intern(s, "f") };
	struct rp_sample smp = { .time = 1, .period = 1 };
	cr_assert_eq(rp_add_sample(s, &smp, &f, 1), 0);
	cr_assert_eq(rp_nr_samples(s), 1);
	rp_session_free(s);

	cr_assert_eq(rp_session_new(&s), 0);
	rp_session_reserve(s, 32 * 1000, 0, 0);	/* 1000 samples of at least 32 bytes */
	f = (struct rp_frame){ .dso = rp_intern(s, "a.so"), .sym = rp_intern(s, "f") };
	cr_assert_eq(rp_add_sample(s, &smp, &f, 1), 0);
	const struct rp_sample *first = rp_sample_at(s, 0);
	for (int i = 1; i < 1000; i++)
		cr_assert_eq(rp_add_sample(s, &smp, &f, 1), 0);
	cr_assert_eq(rp_sample_at(s, 0), first, "the samples moved within the reserved room");
	for (int i = 0; i < 5000; i++)
		cr_assert_eq(rp_add_sample(s, &smp, &f, 1), 0);
	cr_assert_eq(rp_nr_samples(s), 6000);
	cr_assert_str_eq(rp_sample_frame(s, rp_sample_at(s, 5999), 0)->sym, "f");
	rp_session_free(s);

	/* Loads: room for one per 72 bytes (an MMAP2 record's least), asked for or not. */
	for (int want = 0; want < 2; want++) {
		cr_assert_eq(rp_session_new(&s), 0);
		rp_session_reserve(s, 72 * 600, 0, want);
		struct rp_load l = { .pid = 1, .method = rp_intern(s, "m") };
		cr_assert_eq(rp_add_load(s, &l), 1);
		const struct rp_load *l1 = rp_load_at(s, 1);
		for (int i = 1; i < 600; i++)
			cr_assert_eq(rp_add_load(s, &l), (uint32_t)i + 1);
		if (want)	/* without: realloc may or may not move them */
			cr_assert_eq(rp_load_at(s, 1), l1, "the loads moved within the reserved room");
		for (int i = 0; i < 1000; i++)
			cr_assert_neq(rp_add_load(s, &l), 0);
		cr_assert_str_eq(rp_load_at(s, 1600)->method, "m");
		rp_session_free(s);
	}
}

/* Shared frames (call-graph sessions): equal frames are stored once, yet every sample reads
 * its own frames back, in order, as it gave them; a frame that differs in any field is a
 * frame of its own; and the same samples read the same without sharing. */
Test(model, shared_frames_read_back_per_sample)
{
	struct rp_session *v[2];
	const char *names[] = { "main", "work", "leaf", "other" };
	for (int share = 0; share < 2; share++) {
		struct rp_session *s;
		cr_assert_eq(rp_session_new(&s), 0);
		if (share)
			rp_session_share_frames(s);
		for (int i = 0; i < 3000; i++) {
			struct rp_frame fr[4];
			uint32_t nr = 1 + i % 4;
			for (uint32_t k = 0; k < nr; k++)
				fr[k] = (struct rp_frame){ .dso = rp_intern(s, "a.so"),
							   .sym = rp_intern(s, names[(i + k) % 4]),
							   .ip = 0x1000 + 16 * ((i + k) % 4),
							   .line = (uint32_t)(k == 0 ? i % 3 : 0),
							   .flags = k == 1 && i % 5 == 0 ?
								    RP_FRAME_INLINED : 0 };
			struct rp_sample smp = { .time = (uint64_t)i, .period = 1 };
			cr_assert_eq(rp_add_sample(s, &smp, fr, nr), 0);
		}
		v[share] = s;
	}
	for (size_t i = 0; i < 3000; i++) {
		const struct rp_sample *a = rp_sample_at(v[0], i), *b = rp_sample_at(v[1], i);
		cr_assert_eq(a->nr, b->nr);
		for (uint32_t k = 0; k < a->nr; k++) {
			const struct rp_frame *x = rp_sample_frame(v[0], a, k);
			const struct rp_frame *y = rp_sample_frame(v[1], b, k);
			cr_assert_str_eq(x->sym, y->sym, "sample %zu frame %u", i, k);
			cr_assert_eq(x->ip, y->ip);
			cr_assert_eq(x->line, y->line);
			cr_assert_eq(x->flags, y->flags);
		}
	}
	/* 4 symbols x 3 lines at the leaf, the inlined variant: a few dozen distinct frames */
	cr_assert_lt(v[1]->nr_frames, 64, "%zu frames stored for 7500 references",
		     v[1]->nr_frames);
	cr_assert_eq(v[0]->nr_frames, v[0]->nr_chain, "unshared: one frame per reference");
	for (int share = 0; share < 2; share++)
		rp_session_free(v[share]);
}

/* 4000 samples of 2-5 frames (an inlined one at times) that repeat their outer frames, in two
 * threads and two commands; with equal frames shared or each frame stored apart. */
static struct rp_session *repeating_stacks(int share)
{
	const char *names[] = { "main", "run", "work", "leafA", "leafB", "inl" };
	struct rp_session *s;
	cr_assert_eq(rp_session_new(&s), 0);
	if (share)
		rp_session_share_frames(s);
	unsigned seed = 5;
	for (int i = 0; i < 4000; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = seed >> 16;
		/* leaf first: [inl] leaf work [run [main]] */
		struct rp_frame fr[5];
		uint32_t nr = 0;
		if (r % 3 == 0)
			fr[nr++] = (struct rp_frame){ .dso = rp_intern(s, "a.so"),
						      .sym = rp_intern(s, names[5]), .ip = 0x40,
						      .flags = RP_FRAME_INLINED };
		fr[nr++] = (struct rp_frame){ .dso = rp_intern(s, "a.so"),
					      .sym = rp_intern(s, names[3 + r % 2]),
					      .ip = 0x40 + r % 4 };
		for (int k = 2; k >= (int)(r % 3); k--)
			fr[nr++] = (struct rp_frame){ .dso = rp_intern(s, "a.so"),
						      .sym = rp_intern(s, names[k]),
						      .ip = 0x10 * (uint64_t)(k + 1) };
		struct rp_sample smp = { .time = (uint64_t)i, .period = 1, .tid = 1 + r % 2,
					 .comm = rp_intern(s, r % 7 ? "app" : "gc") };
		cr_assert_eq(rp_add_sample(s, &smp, fr, nr), 0);
	}
	return s;
}

/* The stack tree of samples that repeat their outer frames (taken again from the sample
 * before) and whole stacks (shared frames: built once per distinct stack, weighted) is the
 * tree of the same samples where no frame is shared (every sample its own stack, each frame
 * looked up): node for node, in both directions. */
Test(model, tree_reuses_the_previous_path_exactly)
{
	struct rp_session *v[2] = { repeating_stacks(0), repeating_stacks(1) };
	for (int reverse = 0; reverse < 2; reverse++) {
		struct rp_tree a, b;
		cr_assert_eq(rp_tree_build(&a, v[0], reverse), 0);
		cr_assert_eq(rp_tree_build(&b, v[1], reverse), 0);
		cr_assert_eq(a.nr, b.nr, "reverse %d: %zu and %zu nodes", reverse, a.nr, b.nr);
		cr_assert_gt(a.nr, 10);
		for (size_t i = 0; i < a.nr; i++) {
			cr_assert_eq(a.n[i].count, b.n[i].count, "node %zu", i);
			cr_assert_eq(a.n[i].parent, b.n[i].parent);
			cr_assert_eq(a.n[i].depth, b.n[i].depth);
			cr_assert_eq(a.n[i].comm ? strcmp(a.n[i].comm, b.n[i].comm) : !!b.n[i].comm, 0);
			cr_assert_eq(!a.n[i].f, !b.n[i].f);
			if (a.n[i].f)
				cr_assert_str_eq(a.n[i].f->sym, b.n[i].f->sym);
			cr_assert_arr_eq(a.n[i].kinds, b.n[i].kinds, sizeof(a.n[i].kinds));
		}
		rp_tree_free(&a);
		rp_tree_free(&b);
	}
	for (int share = 0; share < 2; share++)
		rp_session_free(v[share]);
}

/* Both trees from one pass over the stacks (the HTML report's) are the trees built one at a
 * time, node for node, and the reversed one is not the forward one. */
Test(model, tree_pair_is_the_two_trees)
{
	struct rp_session *s = repeating_stacks(1);
	struct rp_tree pair[2], one[2];
	cr_assert_eq(rp_trees_build(&pair[0], &pair[1], s, 0), 0);
	for (int reverse = 0; reverse < 2; reverse++) {
		cr_assert_eq(rp_tree_build(&one[reverse], s, reverse), 0);
		const struct rp_tree *a = &pair[reverse], *b = &one[reverse];
		cr_assert_eq(a->nr, b->nr, "reverse %d: %zu and %zu nodes", reverse, a->nr, b->nr);
		cr_assert_eq(a->max_depth, b->max_depth);
		for (size_t i = 0; i < a->nr; i++) {
			cr_assert_eq(a->n[i].count, b->n[i].count, "node %zu", i);
			cr_assert_eq(a->n[i].parent, b->n[i].parent);
			cr_assert_eq(a->n[i].child, b->n[i].child);
			cr_assert_eq(a->n[i].sibling, b->n[i].sibling);
			cr_assert_eq(a->n[i].f, b->n[i].f);
			cr_assert_eq(a->n[i].comm, b->n[i].comm);
			cr_assert_arr_eq(a->n[i].kinds, b->n[i].kinds, sizeof(a->n[i].kinds));
		}
	}
	int differ = pair[0].nr != pair[1].nr;
	for (size_t i = 1; !differ && i < pair[0].nr; i++)
		differ = pair[0].n[i].f != pair[1].n[i].f;
	cr_assert(differ, "the callers' tree is another tree");
	struct rp_tree only;
	cr_assert_eq(rp_trees_build(&only, NULL, s, 0), 0, "the forward tree alone");
	cr_assert_eq(only.nr, one[0].nr);
	for (int k = 0; k < 2; k++) {
		rp_tree_free(&pair[k]);
		rp_tree_free(&one[k]);
	}
	rp_tree_free(&only);
	rp_session_free(s);
}

/* Folded stacks: samples whose frame references were seen fold to the string made once; the
 * stacks and counts are those of the same samples with nothing shared. */
Test(model, folded_stacks_of_repeated_references)
{
	struct rp_session *v[2] = { repeating_stacks(0), repeating_stacks(1) };
	struct rp_stacks a, b;
	cr_assert_eq(rp_collapse(v[0], &a), 0);
	cr_assert_eq(rp_collapse(v[1], &b), 0);
	cr_assert_eq(a.n, b.n);
	cr_assert_gt(a.n, 5);
	uint64_t total = 0;
	for (size_t i = 0; i < a.n; i++) {
		cr_assert_str_eq(a.v[i].stack, b.v[i].stack);
		cr_assert_eq(a.v[i].count, b.v[i].count, "%s", a.v[i].stack);
		total += b.v[i].count;
	}
	cr_assert_eq(total, 4000);
	rp_stacks_free(&a);
	rp_stacks_free(&b);
	for (int share = 0; share < 2; share++)
		rp_session_free(v[share]);
}

/* speedscope's file: a frame reference seen before gets its id at once; the file is the one
 * the same samples give with nothing shared. */
Test(model, speedscope_of_repeated_references)
{
	char *buf[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	for (int share = 0; share < 2; share++) {
		struct rp_session *s = repeating_stacks(share);
		FILE *f = open_memstream(&buf[share], &len[share]);
		cr_assert_not_null(f);
		cr_assert_eq(rp_write_speedscope(f, s, "t"), 0);
		fclose(f);
		rp_session_free(s);
	}
	cr_assert_gt(len[0], 1000);
	cr_assert(len[0] == len[1] && !memcmp(buf[0], buf[1], len[0]),
		  "the files differ:\n%.400s\n---\n%.400s", buf[0], buf[1]);
	free(buf[0]);
	free(buf[1]);
}
