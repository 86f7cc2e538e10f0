/* agent_dump.c - libagent.so inside a real JVM, on every JDK under /usr/lib/jvm: the dump and
 * its companion parse cleanly; every Java load with line information carries DEBUG_INFO; the
 * lines of a known method match its source; Generations' hot method shows several generations
 * with tiers read from the JVM; inline stacks (version 2: a bci per frame, one line per bci),
 * stubs, unloads and the agent's stats appear. */
#include "tests/e2e/agent_util.h"

#include <signal.h>
#include <sys/wait.h>

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

#define GEN "Ljitprof/samples/Generations;"
#define TOTAL GEN "total([Ljitprof/samples/Generations$Shape;)D"
#define MIX GEN "mix(JI)J"
#define SRC "samples/java/Generations.java"

/* Reads every record of path and checks the reader found no damage; returns the count. */
static uint64_t parse_clean(const char *path)
{
	struct jd_reader *r;
	struct jd_record rec;
	uint64_t n = 0;
	int rc;

	cr_assert_eq(jd_reader_open(&r, path, jd_err, sizeof(jd_err)), 0, "%s does not open", path);
	while ((rc = jd_reader_next(r, &rec)) > 0)
		n++;
	cr_assert_eq(rc, 0, "%s: %s", path, jd_reader_error(r));
	cr_expect_eq(jd_reader_stats(r)->truncated_bytes, 0, "%s has a partial tail", path);
	cr_expect_eq(jd_reader_stats(r)->unknown_skipped, 0, "%s has unknown records", path);
	jd_reader_close(r);
	return n;
}

/* Lines strictly between the "// mix-begin" and "// mix-end" markers of the sample's source. */
static void mix_range(int *lo, int *hi)
{
	size_t len;
	char *src = tu_read_file(SRC, &len), *p, *nl;
	int line = 0;

	cr_assert_not_null(src, "run from the repository root: %s not found", SRC);
	*lo = *hi = 0;
	for (p = src; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		if (strstr(p, "// mix-begin"))
			*lo = line + 1;
		if (strstr(p, "// mix-end"))
			*hi = line - 1;
	}
	free(src);
	cr_assert(*lo > 0 && *hi > *lo, "markers missing in %s", SRC);
}

/* A pc of total() whose innermost frame is an inlined area() and outermost is total(). */
static int inlined_area(const struct jd_ext_inline *inl)
{
	for (uint32_t i = 0; inl && i < inl->nr_pcs; i++) {
		const struct jd_inline_pc *pc = &inl->pcs[i];

		if (pc->depth >= 2 &&
		    strstr(inl->methods[pc->frames[0].method].name, "area()D") &&
		    strcmp(inl->methods[pc->frames[pc->depth - 1].method].name, TOTAL) == 0)
			return 1;
	}
	return 0;
}

/* INLINE version 2: every frame with a line has the bci it came from, and one (method, bci)
 * is on one line wherever it appears in the load (a bci has one line in the class file). */
static void check_bcis(const struct ag_jdk *jdk, const char *name, const struct jd_ext_inline *inl)
{
	if (!inl)
		return;
	cr_expect(inl->flags & JD_INLINE_BCI, "JDK %d: %s: INLINE version 1", jdk->major, name);
	for (uint32_t i = 0; i < inl->nr_pcs; i++)
		for (uint32_t f = 0; f < inl->pcs[i].depth; f++) {
			const struct jd_inline_frame *a = &inl->pcs[i].frames[f];
			if (a->line > 0)
				cr_expect_geq(a->bci, 0, "JDK %d: %s: line %d without a bci",
					      jdk->major, name, a->line);
			for (uint32_t j = 0; a->bci >= 0 && j < i; j++)
				for (uint32_t g = 0; g < inl->pcs[j].depth; g++) {
					const struct jd_inline_frame *b = &inl->pcs[j].frames[g];
					cr_expect(b->method != a->method || b->bci != a->bci ||
						  b->line == a->line, "JDK %d: %s: bci %d on lines "
						  "%d and %d", jdk->major, name, a->bci, a->line,
						  b->line);
				}
		}
}

static void check_generations_dump(const struct ag_jdk *jdk, const char *dump)
{
	char ext[PATH_MAX], err[512];
	struct jd_index *x;
	size_t n, totals = 0, mixes = 0, stubs = 0, with_lines = 0, c1 = 0, c2 = 0;
	int lo, hi, inl_seen = 0, interp = 0, distinct[4] = { 0 }, nd = 0;
	uint32_t last_gen = 0;

	parse_clean(dump);
	cr_assert_eq(jd_ext_path(dump, ext, sizeof(ext)), 0);
	cr_assert_gt(parse_clean(ext), 0, "JDK %d: empty companion file", jdk->major);
	cr_assert_eq(jd_index_open(&x, dump, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_empty(jd_index_warning(x));
	mix_range(&lo, &hi);
	n = jd_index_nr_loads(x);
	for (size_t i = 0; i < n; i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);
		const char *name = e->load.name;

		cr_assert_not_null(e->info, "JDK %d: load %s has no LOAD_INFO", jdk->major, name);
		if (e->info->tier == JD_TIER_STUB) {
			stubs++;
			interp |= strcmp(name, "Interpreter") == 0;
			continue;
		}
		/* Every compiled method whose inline stacks know a source line has DEBUG_INFO. */
		if (ag_has_source_lines(e->inl)) {
			cr_expect_gt(e->nr_lines, 0, "JDK %d: %s (index %lu) has lines but no DEBUG_INFO",
				     jdk->major, name, (unsigned long)e->load.code_index);
			with_lines++;
		}
		if (ag_starts(name, GEN))
			cr_expect_gt(e->nr_lines, 0, "JDK %d: %s has no DEBUG_INFO", jdk->major, name);
		if (strcmp(name, MIX) == 0) {
			mixes++;
			for (size_t k = 0; k < e->nr_lines; k++) {
				int l = e->lines[k].line, dup = 0;

				cr_expect_str_eq(e->lines[k].file, "jitprof/samples/Generations.java");
				cr_expect(l >= lo && l <= hi, "JDK %d: mix() line %d outside %d-%d",
					  jdk->major, l, lo, hi);
				for (int d = 0; d < nd; d++)
					dup |= distinct[d] == l;
				if (!dup && nd < 4)
					distinct[nd++] = l;
			}
		}
		if (strcmp(name, TOTAL) == 0) {
			totals++;
			cr_expect_eq(e->info->generation, ++last_gen,
				     "JDK %d: total() load %zu has generation %u", jdk->major, totals,
				     e->info->generation);
			cr_expect_eq(e->info->generation, e->generation);
			cr_expect(e->info->tier == JD_TIER_C1 || e->info->tier == JD_TIER_C2,
				  "JDK %d: total() generation %u has tier %u (unknown)", jdk->major,
				  e->info->generation, e->info->tier);
			c1 += e->info->tier == JD_TIER_C1;
			c2 += e->info->tier == JD_TIER_C2;
			inl_seen |= inlined_area(e->inl);
		}
		if (ag_starts(name, GEN))
			check_bcis(jdk, name, e->inl);
	}
	cr_expect_geq(totals, 2, "JDK %d: total() loaded %zu times", jdk->major, totals);
	cr_expect(c1 > 0 && c2 > 0, "JDK %d: total() tiers C1 %zu C2 %zu", jdk->major, c1, c2);
	cr_expect(inl_seen, "JDK %d: no inline stack of area() inside total()", jdk->major);
	cr_expect_gt(mixes, 0, "JDK %d: mix() never compiled", jdk->major);
	cr_expect_geq(nd, 2, "JDK %d: mix() has %d distinct lines", jdk->major, nd);
	cr_expect_gt(with_lines, 10, "JDK %d: only %zu loads with lines", jdk->major, with_lines);
	cr_expect_gt(stubs, 10, "JDK %d: %zu stubs", jdk->major, stubs);
	cr_expect(interp, "JDK %d: no Interpreter stub", jdk->major);
	cr_assert_not_null(jd_index_agent_stats(x), "JDK %d: no AGENT_STATS", jdk->major);
	cr_expect_eq(jd_index_agent_stats(x)->loads, n, "JDK %d: stats say %lu loads, dump has %zu",
		     jdk->major, (unsigned long)jd_index_agent_stats(x)->loads, n);
	cr_expect_gt(jd_index_agent_stats(x)->bytes, 0);
	jd_index_close(x);
}

static void generations_one(const struct ag_jdk *jdk)
{
	const char *args[] = { "150", NULL };
	char *dir = tu_tmpdir("agent-dump"), opts[PATH_MAX + 16], *dump;
	struct tu_result r;

	AG_FMT(opts, "dir=%s", dir);
	ag_java(&r, jdk, opts, NULL, "jitprof.samples.Generations", args, 120);
	cr_assert_eq(r.status, 0, "JDK %d (%s): exit %d: %s", jdk->major, jdk->home, r.status,
		     r.err);
	cr_expect_eq(ag_warnings(r.err), 0, "JDK %d: %s", jdk->major, r.err);
	cr_expect_eq(tu_count(r.err, "jitprof agent: writing "), 1, "JDK %d: %s", jdk->major, r.err);
	dump = ag_find_dump(dir);
	cr_assert_not_null(dump, "JDK %d: no jit-<pid>.dump in %s", jdk->major, dir);
	cr_log_info("JDK %d (%s): %s", jdk->major, jdk->home, dump);
	check_generations_dump(jdk, dump);
	free(dump);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

Test(agent_dump, generations_on_every_jdk, .timeout = 240)
{
	ag_each_jdk(generations_one);
}

/* Loads of the generated classes in the dump at path, and how many of them were unloaded;
 * -1 when the dump cannot be read (yet: the JVM may be writing a record). */
static int count_unloads(const char *path, size_t *generated, size_t *unloaded, int check)
{
	struct jd_index *x;
	char err[512];

	*generated = *unloaded = 0;
	if (jd_index_open(&x, path, err, sizeof(err)) != 0) {
		cr_expect(!check, "%s", err);
		return -1;
	}
	for (size_t k = 0; k < jd_index_nr_loads(x); k++) {
		const struct jd_load_entry *e = jd_index_load(x, k);

		if (check)
			cr_expect_neq(e->info ? e->info->tier : 0, JD_TIER_STUB,
				      "stubs=off wrote %s", e->load.name);
		if (!ag_starts(e->load.name, "Ljitprof/samples/gen/G"))
			continue;
		(*generated)++;
		if (e->unload_time) {
			(*unloaded)++;
			if (check)
				cr_expect_geq(e->unload_time, e->timestamp);
		}
	}
	jd_index_close(x);
	return 0;
}

/* The JVM drops its generated classes and collects until this test has seen their code's
 * unloads in the dump (or 60 s passed): when the GC gets to them is not the test's business,
 * only that each unload reaches the dump and is tied to its load. */
static void unloads_one(const struct ag_jdk *jdk)
{
	const char *jvm[] = { "-Xbatch", NULL };
	char *dir = tu_tmpdir("agent-unload"), opts[PATH_MAX + 16], seen[PATH_MAX], log[PATH_MAX];
	const char *args[] = { "40", "20", "300", "unload", seen, NULL };
	size_t unloaded = 0, generated = 0;
	char *dump = NULL;
	int st = 0;

	AG_FMT(opts, "dir=%s,stubs=off", dir);
	AG_FMT(seen, "%s/seen", dir);
	AG_FMT(log, "%s/jvm.log", dir);
	pid_t pid = ag_spawn(jdk, opts, jvm, "jitprof.samples.StartupHeavy", args, log);
	for (int i = 0; i < 1200 && waitpid(pid, &st, WNOHANG) == 0; i++) {
		if (!dump)
			dump = ag_find_dump(dir);
		if (dump && count_unloads(dump, &generated, &unloaded, 0) == 0 &&
		    generated >= 40 * 20 && unloaded > generated / 2)
			break;
		ag_sleep_ms(100);
	}
	cr_assert_eq(tu_write_file(seen, "", 0), 0);
	for (int i = 0; i < 600 && waitpid(pid, &st, WNOHANG) == 0; i++)
		ag_sleep_ms(100);
	if (kill(pid, 0) == 0 && waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	char *out = tu_read_file(log, NULL);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "JDK %d: status %#x: %s", jdk->major,
		  st, out);
	free(out);
	if (!dump)
		dump = ag_find_dump(dir);
	cr_assert_not_null(dump);
	cr_assert_eq(count_unloads(dump, &generated, &unloaded, 1), 0);
	/* Compiled code of the dropped classes is unloaded and tied to its load. */
	cr_expect_geq(generated, 40 * 20, "JDK %d: %zu generated loads", jdk->major, generated);
	cr_expect_gt(unloaded, generated / 2, "JDK %d: %zu of %zu generated loads unloaded",
		     jdk->major, unloaded, generated);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

Test(agent_dump, unloads_match_their_loads, .timeout = 240)
{
	ag_each_jdk(unloads_one);
}
