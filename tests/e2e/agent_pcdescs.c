/* agent_pcdescs.c - issue 36 item 2's question, answered on each JDK: does an nmethod keep
 * debug points (PcDescs) that JVMTI's compile_info does not hand the agent, so that reading
 * them through VMStructs would place more pcs on lines? The JVM's own -XX:+PrintNMethods
 * sizes each nmethod's PcDesc table; agent_pcdescs.py compares it, per compile id, with the
 * agent's inline records of the same run. */
#include "tests/e2e/agent_util.h"

static const char pcs_java[] =
	"public class Pcs {\n"
	"  static int sq(int x) { return x * x; }\n"
	"  static int mix(int x) { int y = sq(x) + 3; if ((y & 15) == 0) y = y / 3; return y; }\n"
	"  static long walk(int[] a) { long s = 0; for (int v : a) s += mix(v); return s; }\n"
	"  public static void main(String[] args) {\n"
	"    int[] a = new int[1000]; long s = 0;\n"
	"    for (int i = 0; i < a.length; i++) a[i] = i * 7;\n"
	"    for (int r = 0; r < 20000; r++) s += walk(a);\n"
	"    System.out.println(s);\n"
	"  }\n"
	"}\n";

static void check_jdk(const struct ag_jdk *jdk)
{
	char agent[PATH_MAX], jitprof[PATH_MAX], script[PATH_MAX], src[PATH_MAX + 32];
	char *dir = tu_tmpdir("agent_pcdescs");
	struct tu_result r;

	if (!realpath(tu_build("libagent.so"), agent) || !realpath(tu_build("jitprof"), jitprof))
		cr_skip_test("the agent or jitprof is not built");
	cr_assert_not_null(realpath("tests/e2e/agent_pcdescs.py", script));
	snprintf(src, sizeof(src), "%s/Pcs.java", dir);
	cr_assert_eq(tu_write_file(src, pcs_java, sizeof(pcs_java) - 1), 0);
	char cmd[6 * PATH_MAX + 512];
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/bin/javac' Pcs.java && %s'%s/bin/java' "
		 "-agentpath:'%s'=dir='%s',quiet -XX:+UnlockDiagnosticVMOptions -XX:+PrintNMethods "
		 "-cp . Pcs >nm.txt 2>&1 && '%s' jitdump --json --all jit-*.dump.jitprof >c.json && "
		 "python3 '%s' nm.txt c.json", dir, jdk->home, tu_java_env_sh(agent), jdk->home,
		 agent, dir, jitprof, script);
	cr_assert_eq(tu_sh(&r, cmd, 600), 0);
	fprintf(stderr, "agent_pcdescs: JDK %d: %s", jdk->major, r.out);
	cr_expect_eq(r.status, 0, "JDK %d: %s%s", jdk->major, r.out, r.err);
	cr_expect(strstr(r.out, "OK ") && !strstr(r.out, "FAIL"), "JDK %d:\n%s", jdk->major, r.out);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

Test(agent_pcdescs, jvmti_hands_over_every_pcdesc, .timeout = 900)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	ag_each_jdk(check_jdk);
}
