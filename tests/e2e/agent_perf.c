/* agent_perf.c - perf itself as the oracle for our dump: `perf record -k mono` a JVM running
 * libagent.so, `perf inject --jit` (must accept the dump without a flood of warnings), then
 * `perf report` must show Java method names from the jitted ELFs. On every JDK found. */
#include "tests/e2e/agent_util.h"

static void perf_one(const struct ag_jdk *jdk)
{
	char *dir = tu_tmpdir("agent-perf"), cmd[4 * PATH_MAX + 512];
	struct tu_result r;
	size_t lines;

	/* HOME in the scratch dir keeps perf's build-id cache out of the user's ~/.debug. */
	AG_FMT(cmd, "cd %s && HOME=%s perf record -q -k mono -F 999 -o perf.data -- "
	       "%s%s/bin/java -agentpath:%s=dir=%s -cp %s jitprof.samples.Generations 250",
	       dir, dir, ag_env_sh(), jdk->home, ag_agent_path(), dir, ag_classpath());
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "JDK %d: perf record: %s", jdk->major, r.err);
	cr_expect(strstr(r.out, "generations done true"), "JDK %d: %s", jdk->major, r.out);
	tu_result_free(&r);

	AG_FMT(cmd, "cd %s && HOME=%s perf inject --jit -i perf.data -o perf.jit.data", dir, dir);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "JDK %d: perf inject: %s", jdk->major, r.err);
	lines = tu_count(r.err, "\n");
	cr_expect_leq(lines, 2, "JDK %d: perf inject printed %zu lines:\n%.2000s", jdk->major,
		      lines, r.err);
	tu_result_free(&r);

	AG_FMT(cmd, "cd %s && HOME=%s perf report -i perf.jit.data --stdio --no-children "
	       "--sort dso,sym -g none 2>&1", dir, dir);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "JDK %d: perf report: %s", jdk->major, r.out);
	cr_expect(strstr(r.out, "jitted-"), "JDK %d: no jitted DSO in the report:\n%.3000s",
		  jdk->major, r.out);
	/* perf's Java demangler turns our names into dotted Java names. */
	cr_expect(strstr(r.out, "jitprof.samples.Generations.runPhase(") ||
		  strstr(r.out, "jitprof.samples.Generations.total("),
		  "JDK %d: no Generations method in the report:\n%.3000s", jdk->major, r.out);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

Test(agent_perf, perf_inject_and_report_accept_our_dump, .timeout = 300)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	ag_each_jdk(perf_one);
}
