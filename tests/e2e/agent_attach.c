/* agent_attach.c - late attach: `jcmd PID JVMTI.agent_load libagent.so dir=...` into a running
 * JVM back-fills the code that already exists (flagged BACKFILLED, generation 0 = unknown),
 * then records new compiles normally; the JVM finishes unaffected. The JVM's own list of its
 * compiled code (`jcmd PID Compiler.codelist`) is the oracle for the tiers and compile ids the
 * agent read from VMStructs. On every JDK found. */
#include "tests/e2e/agent_util.h"

#include <sys/wait.h>

#define MAX_CODES 4096

struct code {		/* one line of Compiler.codelist */
	uint64_t begin;
	int level, id;
};

/* "<id> <level> <state> <name> [<blob>, <code begin> - <code end>]" lines into codes;
 * returns how many, 0 while the hot method is not yet compiled at level 4. */
static size_t codelist(const struct ag_jdk *jdk, pid_t pid, struct code *codes)
{
	char cmd[PATH_MAX + 64], *line, *save = NULL;
	struct tu_result r;
	size_t n = 0;
	int hot = 0;

	AG_FMT(cmd, "%s/bin/jcmd %d Compiler.codelist", jdk->home, (int)pid);
	if (tu_sh(&r, cmd, 60) || r.status != 0) {
		tu_result_free(&r);
		return 0;
	}
	for (line = strtok_r(r.out, "\n", &save); line && n < MAX_CODES;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long blob, begin, end;
		int id, level, state;
		char name[1024];

		if (sscanf(line, "%d %d %d %1023s [0x%llx, 0x%llx - 0x%llx]", &id, &level, &state,
			   name, &blob, &begin, &end) != 7)
			continue;
		codes[n].begin = begin;
		codes[n].id = id;
		codes[n++].level = level;
		hot |= level == 4 && strstr(name, "Generations.total(") != NULL;
	}
	tu_result_free(&r);
	return hot ? n : 0;
}

static void attach_one(const struct ag_jdk *jdk)
{
	char *dir = tu_tmpdir("agent-attach"), out[PATH_MAX], cmd[3 * PATH_MAX + 128], *dump;
	char err[512], *log;
	struct tu_result r;
	struct jd_index *x;
	size_t back_java = 0, back_stubs = 0, live = 0, with_lines = 0;
	const char *jvmargs[] = { "-XX:+IgnoreUnrecognizedVMOptions",
				  "-XX:+EnableDynamicAgentLoading", NULL };
	const char *args[] = { "1500", NULL };
	int status, back_total = 0;
	static struct code codes[MAX_CODES];
	size_t ncodes = 0, tiers_checked = 0;
	pid_t pid;

	AG_FMT(out, "%s/java.out", dir);
	/* JDK 21+ wants dynamic agent loading allowed explicitly (JEP 451); older JDKs ignore
	 * the flag thanks to IgnoreUnrecognizedVMOptions. */
	pid = ag_spawn(jdk, NULL, jvmargs, "jitprof.samples.Generations", args, out);
	/* Attach once the JVM answers jcmd and its hot method has reached C2 (phase 1 or 2). */
	for (int tries = 0; tries < 40 && !(ncodes = codelist(jdk, pid, codes)); tries++)
		ag_sleep_ms(250);
	cr_assert_gt(ncodes, 0, "JDK %d: Generations.total never listed at level 4", jdk->major);
	/* jcmd splits key=value arguments itself: the agent's options go in double quotes. */
	AG_FMT(cmd, "%s/bin/jcmd %d JVMTI.agent_load %s '\"dir=%s\"'", jdk->home,
		 (int)pid, ag_agent_path(), dir);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_expect_eq(r.status, 0, "JDK %d: jcmd failed: %s%s", jdk->major, r.out, r.err);
	cr_expect(strstr(r.out, "return code: 0"), "JDK %d: jcmd says: %s", jdk->major, r.out);
	tu_result_free(&r);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	log = tu_read_file(out, NULL);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "JDK %d: JVM status %d: %s",
		  jdk->major, status, log);
	cr_expect(log && strstr(log, "generations done true"), "JDK %d: %s", jdk->major, log);
	cr_expect(log && !ag_warnings(log), "JDK %d: %s", jdk->major, log);
	cr_expect(log && strstr(log, "jitprof agent: writing "), "JDK %d: %s", jdk->major, log);
	dump = ag_find_dump(dir);
	cr_assert_not_null(dump, "JDK %d: no dump after attach", jdk->major);
	cr_assert_eq(jd_index_open(&x, dump, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_empty(jd_index_warning(x));
	for (size_t i = 0; i < jd_index_nr_loads(x); i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);

		cr_assert_not_null(e->info);
		if (!(e->info->flags & JD_LOAD_BACKFILLED)) {
			cr_expect_gt(e->info->generation, 0, "%s: live load without generation",
				     e->load.name);
			live++;
			continue;
		}
		cr_expect_eq(e->info->generation, 0, "back-filled %s claims generation %u",
			     e->load.name, e->info->generation);
		back_total |= strstr(e->load.name, "Generations;total(") != NULL;
		/* The tier the agent read from the code cache = the JVM's own word for it. */
		for (size_t k = 0; k < ncodes && e->info->tier != JD_TIER_STUB; k++)
			if (codes[k].begin == e->load.code_addr) {
				cr_expect_eq(e->info->level, codes[k].level,
					     "JDK %d: %s at %#lx: level %d, the JVM says %d",
					     jdk->major, e->load.name,
					     (unsigned long)e->load.code_addr, e->info->level,
					     codes[k].level);
				/* and so is its compile id, version-2 LOAD_INFO */
				cr_expect(e->info->flags & JD_LOAD_IDS, "%s: no ids", e->load.name);
				cr_expect_eq(e->info->compile_id, codes[k].id,
					     "JDK %d: %s at %#lx: compile id %d, the JVM says %d",
					     jdk->major, e->load.name,
					     (unsigned long)e->load.code_addr, e->info->compile_id,
					     codes[k].id);
				tiers_checked++;
			}
		if (e->info->tier == JD_TIER_STUB)
			back_stubs++;
		else
			back_java++;
		/* Code compiled before the attach has scope pcs only at safepoints (HotSpot adds
		 * the others only while compiled-method events are on), so some loads have no
		 * line at all; those that have one must carry it. */
		if (ag_has_source_lines(e->inl)) {
			with_lines++;
			cr_expect_gt(e->nr_lines, 0, "back-filled %s has no DEBUG_INFO", e->load.name);
		}
	}
	cr_expect_geq(back_java, 5, "JDK %d: %zu compiled methods back-filled", jdk->major,
		      back_java);
	cr_expect(back_total, "JDK %d: the hot total() was not back-filled", jdk->major);
	cr_expect_geq(tiers_checked, 5, "JDK %d: only %zu back-filled tiers matched the codelist",
		      jdk->major, tiers_checked);
	cr_log_info("JDK %d: %zu back-filled compiled loads, %zu tiers checked against the codelist",
		    jdk->major, back_java, tiers_checked);
	cr_expect_gt(back_stubs, 10, "JDK %d: %zu stubs back-filled", jdk->major, back_stubs);
	cr_expect_gt(live, 0, "JDK %d: nothing compiled after the attach", jdk->major);
	cr_expect_geq(with_lines, 3, "JDK %d: %zu back-filled loads with lines", jdk->major,
		     with_lines);
	cr_expect_not_null(jd_index_agent_stats(x));
	jd_index_close(x);
	free(log);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

static void attach_if_jcmd(const struct ag_jdk *jdk)
{
	char jcmd[PATH_MAX + 16];

	AG_FMT(jcmd, "%s/bin/jcmd", jdk->home);
	if (access(jcmd, X_OK)) {
		/* stderr: a Criterion warning would make the binary exit 1 */
		tu_skip_part("JDK %s has no jcmd: attach not tested there",
			jdk->home);
		return;
	}
	attach_one(jdk);
}

Test(agent_attach, backfills_a_running_jvm, .timeout = 240)
{
	ag_each_jdk(attach_if_jcmd);
}
