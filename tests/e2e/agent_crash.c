/* agent_crash.c - a JVM killed with SIGKILL mid-run: thanks to the periodic flush (flush=MS)
 * the dump on disk is readable and holds the code loaded up to shortly before the kill (perf's
 * agent, which never flushes, leaves a dump cut at a stdio buffer boundary). */
#include "tests/e2e/agent_util.h"

#include <signal.h>
#include <sys/wait.h>

/* 1 when the dump in dir already holds a total() load with its companion record. */
static int hot_method_on_disk(const char *dir)
{
	char *dump = ag_find_dump(dir), err[256];
	struct jd_index *x;
	int found = 0;

	if (dump && jd_index_open(&x, dump, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < jd_index_nr_loads(x) && !found; i++)
			found = strstr(jd_index_load(x, i)->load.name, "Generations;total(") &&
				jd_index_load(x, i)->info;
		jd_index_close(x);
	}
	free(dump);
	return found;
}

static void kill_one(const struct ag_jdk *jdk)
{
	const char *args[] = { "5000", NULL };
	char *dir = tu_tmpdir("agent-crash"), out[PATH_MAX], opts[PATH_MAX + 32], err[512], *dump;
	struct jd_index *x;
	size_t java_loads = 0, totals = 0;
	int status;
	pid_t pid;

	AG_FMT(out, "%s/java.out", dir);
	AG_FMT(opts, "dir=%s,flush=100", dir);
	pid = ag_spawn(jdk, opts, NULL, "jitprof.samples.Generations", args, out);
	/* Phase 1 of 4, each 5 s. Wait until total()'s load is readable on disk (it only gets
	 * there through the periodic flush: the buffers are far from full), then kill. */
	for (int tries = 0; tries < 100 && !hot_method_on_disk(dir); tries++)
		ag_sleep_ms(200);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status), "JDK %d: the JVM ended before the kill", jdk->major);
	dump = ag_find_dump(dir);
	cr_assert_not_null(dump, "JDK %d: no dump", jdk->major);
	/* No CODE_CLOSE, maybe a partial last record: the index salvages what is whole. */
	cr_assert_eq(jd_index_open(&x, dump, err, sizeof(err)), 0, "JDK %d: %s", jdk->major, err);
	for (size_t i = 0; i < jd_index_nr_loads(x); i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);

		java_loads += e->load.name[0] == 'L';
		/* total() is compiled within the first few hundred ms; without the periodic
		 * flush it would still sit in the writer's buffers when the kill comes. */
		if (strstr(e->load.name, "Generations;total(")) {
			totals++;
			cr_expect_gt(e->nr_lines, 0);
			cr_expect_not_null(e->info, "JDK %d: companion record lost", jdk->major);
		}
	}
	cr_expect_gt(totals, 0, "JDK %d: the hot method's loads were lost", jdk->major);
	cr_expect_gt(jd_index_nr_loads(x), 100, "JDK %d: %zu loads survived", jdk->major,
		     jd_index_nr_loads(x));
	cr_expect_gt(java_loads, 5, "JDK %d: %zu compiled methods survived", jdk->major,
		     java_loads);
	jd_index_close(x);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

Test(agent_crash, sigkill_leaves_a_readable_dump, .timeout = 120)
{
	ag_each_jdk(kill_one);
}
