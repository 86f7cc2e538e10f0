/* faults_agent.c - issue 8's "many compiler threads" fault: a JVM with -XX:CICompilerCount=32
 * compiles a burst of generated methods while our agent writes the dump from all of those
 * threads at once. The dump must read whole (no salvage warning), every load must be one the
 * agent counted, code indexes must be unique, and no record may be torn. */
#include "tests/e2e/agent_util.h"

#include "jitdump/jitdump.h"

static void many_compilers_one(const struct ag_jdk *jdk)
{
	const char *jvm[] = { "-XX:CICompilerCount=32", NULL };
	const char *args[] = { "40", "20", "20000", NULL };
	char *dir = tu_tmpdir("faults-agent"), opts[PATH_MAX + 16], *dump, err[512] = "";
	struct tu_result r;
	struct jd_index *x = NULL;

	AG_FMT(opts, "dir=%s", dir);
	ag_java(&r, jdk, opts, jvm, "jitprof.samples.StartupHeavy", args, 120);
	cr_assert_eq(r.status, 0, "JDK %d: exit %d: %s", jdk->major, r.status, r.err);
	cr_expect_eq(ag_warnings(r.err), 0, "JDK %d: %s", jdk->major, r.err);
	tu_result_free(&r);
	dump = ag_find_dump(dir);
	cr_assert_not_null(dump, "JDK %d: no dump in %s", jdk->major, dir);
	cr_assert_eq(jd_index_open(&x, dump, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(jd_index_warning(x), "", "JDK %d: %s", jdk->major, jd_index_warning(x));
	size_t n = jd_index_nr_loads(x), generated = 0;
	cr_assert_gt(n, 500, "JDK %d: only %zu loads", jdk->major, n);
	cr_log_info("JDK %d: %zu loads with -XX:CICompilerCount=32", jdk->major, n);
	uint64_t *ci = malloc(n * sizeof(*ci));
	for (size_t k = 0; k < n; k++) {
		const struct jd_load_entry *e = jd_index_load(x, k);
		ci[k] = e->load.code_index;
		generated += ag_starts(e->load.name, "Ljitprof/samples/gen/G");
		cr_assert_gt(e->load.code_size, 0, "JDK %d: %s", jdk->major, e->load.name);
		cr_assert_not_null(e->info, "JDK %d: load %zu without its companion record",
				   jdk->major, k);
	}
	for (size_t k = 1; k < n; k++)	/* the writer hands them out increasing */
		cr_assert_gt(ci[k], ci[k - 1], "JDK %d: code_index %llu after %llu", jdk->major,
			     (unsigned long long)ci[k], (unsigned long long)ci[k - 1]);
	cr_assert_geq(generated, 40 * 20 / 4, "JDK %d: %zu generated loads", jdk->major, generated);
	cr_assert_not_null(jd_index_agent_stats(x));
	cr_assert_eq(jd_index_agent_stats(x)->loads, n, "JDK %d: stats say %llu loads, dump has "
		     "%zu", jdk->major, (unsigned long long)jd_index_agent_stats(x)->loads, n);
	cr_assert_eq(jd_index_agent_stats(x)->dropped, 0);
	free(ci);
	jd_index_close(x);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

Test(faults_agent, many_compiler_threads_write_one_whole_dump, .timeout = 240)
{
	ag_each_jdk(many_compilers_one);
}
