/* profile_prereq.c - every prerequisite `jitprof profile` takes care of, forgotten by hand,
 * gets its message instead of a silently poorer result: report -g of a recording without
 * call chains (recorded without -k, which no longer matters: record's clock is mono); a JVM
 * without -XX:+PreserveFramePointer (jitted samples without callers); a
 * recording not injected; a JVM without the agent (report warns, inject exits 3). The
 * agent's own messages are in agent_options.c. One JDK: these are the tools' messages. */
#include "tests/e2e/profile_util.h"

struct rec {
	char *dir;
	char data[PATH_MAX], jit[PATH_MAX];
};

static char exe[PATH_MAX];

/* `jitprof record [-k mono] [-g] -o DIR/perf.data -- java [agent] Generations`. */
static void record_java(struct rec *rc, int mono, int callchain, int agent)
{
	struct ag_jdk jdk;
	struct ag_cmd c;
	struct tu_result r;
	const char *argv[80];
	char opts[PATH_MAX + 16];
	const char *const gen_args[] = { "300", NULL };
	int n = 0;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(exe, "%s", tu_build("jitprof"));
	rc->dir = tu_tmpdir("profile-prereq");
	AG_FMT(rc->data, "%s/perf.data", rc->dir);
	AG_FMT(rc->jit, "%s/perf.jit.data", rc->dir);
	AG_FMT(opts, "dir=%s,quiet", rc->dir);
	ag_cmd(&c, &jdk, agent ? opts : NULL, NULL, "jitprof.samples.Generations", gen_args);
	argv[n++] = exe;
	argv[n++] = "record";
	argv[n++] = "-q";
	if (mono) {
		argv[n++] = "-k";
		argv[n++] = "mono";
	}
	if (callchain)
		argv[n++] = "-g";
	argv[n++] = "-o";
	argv[n++] = rc->data;
	argv[n++] = "--";
	for (int i = 0; c.argv[i] && n < 79; i++)
		argv[n++] = c.argv[i];
	argv[n] = NULL;
	cr_assert_eq(tu_run(&r, (char *const *)argv, ag_env(), NULL, 0, 300), 0);
	cr_assert_eq(r.status, 0, "record: %s", r.err);
	tu_result_free(&r);
}

static void run(struct tu_result *r, const char *const *args)
{
	const char *argv[20] = { exe };
	int n = 1;

	for (int i = 0; args[i] && n < 19; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cr_assert_eq(tu_run(r, (char *const *)argv, NULL, NULL, 0, 300), 0);
}

/* stderr of a `jitprof ARGS` that must succeed (malloc'd). */
static char *err_of(const char *const *args)
{
	struct tu_result r;
	char *e;

	run(&r, args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	e = strdup(r.err);
	tu_result_free(&r);
	return e;
}

static void inject_ok(const struct rec *rc)
{
	struct tu_result r;
	const char *args[] = { "inject", "-q", "-i", rc->data, "-o", rc->jit, NULL };

	run(&r, args);
	cr_assert_eq(r.status, 0, "inject: %s", r.err);
	tu_result_free(&r);
}

static void done(struct rec *rc)
{
	tu_rmtree(rc->dir);
	free(rc->dir);
}

Test(profile_prereq, call_graph_of_a_recording_without_chains, .timeout = 300)
{
	struct rec rc;
	char want[PATH_MAX + 200];

	/* Without -k: record's default clock is the dumps' one, so inject succeeds. */
	record_java(&rc, 0, 0, 1);
	inject_ok(&rc);
	const char *args[] = { "report", "-g", "-i", rc.jit, NULL };
	char *err = err_of(args);
	AG_FMT(want, "jitprof report: warning: call chains asked for (-g, --collapsed, "
	       "--flamegraph) but %s was recorded without them: record with -g (jitprof "
	       "record -g, perf record -g); only the sampled functions are shown", rc.jit);
	cr_expect(strstr(err, want), "%s", err);
	free(err);
	done(&rc);
}

/* HotSpot without -XX:+PreserveFramePointer: its compiled frames break the walk. Also the
 * same recording before inject. */
Test(profile_prereq, no_frame_pointers_and_not_injected, .timeout = 300)
{
	struct rec rc;
	char want[PATH_MAX + 200], *err;

	record_java(&rc, 1, 1, 1);
	const char *raw[] = { "report", "-i", rc.data, NULL };
	err = err_of(raw);
	cr_expect(strstr(err, "%) are in JIT code and "), "%s", err);
	AG_FMT(want, "names 1 jitdump(s) (%s/jit-", rc.dir);
	cr_expect(strstr(err, want), "%s", err);
	AG_FMT(want, "but was not injected: run 'jitprof inject -i %s' and report its output "
	       "(perf.jit.data)", rc.data);
	cr_expect(strstr(err, want), "%s", err);
	free(err);

	inject_ok(&rc);
	const char *g[] = { "report", "-g", "-i", rc.jit, NULL };
	err = err_of(g);
	cr_expect(strstr(err, " samples in jitted code have no caller: Java frames have no "
			 "frame pointers: record with --call-graph dwarf (jitprof profile's "
			 "default for a JVM, launched or -p), or start the JVM with "
			 "-XX:+PreserveFramePointer"), "%s", err);
	cr_expect_null(strstr(err, "not injected"), "%s", err);
	free(err);
	/* A flat report needs no frame pointers: no warning there. */
	const char *flat[] = { "report", "-i", rc.jit, NULL };
	err = err_of(flat);
	cr_expect_null(strstr(err, "frame pointers"), "%s", err);
	free(err);
	done(&rc);
}

Test(profile_prereq, jvm_without_the_agent, .timeout = 300)
{
	struct rec rc;
	struct tu_result r;
	char want[PATH_MAX + 300];

	record_java(&rc, 1, 0, 0);
	const char *rep[] = { "report", "-i", rc.data, NULL };
	char *err = err_of(rep);
	AG_FMT(want, "are in JIT code (anonymous executable memory) and no jitdump was injected: "
	       "no process of %s mapped one (expected jit-", rc.data);
	cr_expect(strstr(err, want), "%s", err);
	cr_expect(strstr(err, ".dump in libagent.so's dir=, default $JITDUMPDIR or "
			 "~/.debug/jit, or in node's working directory with --perf-prof): start "
			 "java with -agentpath:libagent.so, or use 'jitprof profile'"), "%s", err);
	free(err);

	const char *inj[] = { "inject", "-q", "-i", rc.data, "-o", rc.jit, NULL };
	run(&r, inj);
	cr_expect_eq(r.status, 3, "inject with nothing to inject: %s", r.err);
	AG_FMT(want, "jitprof inject: error: %s names no jitdump (no jit-PID.dump mapping: the "
	       "program ran without a JIT agent, e.g. java -agentpath:libagent.so, or node "
	       "--perf-prof): nothing injected", rc.data);
	cr_expect(strstr(r.err, want), "%s", r.err);
	tu_result_free(&r);
	done(&rc);
}
