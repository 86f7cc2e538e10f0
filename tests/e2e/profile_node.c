/* profile_node.c - `jitprof profile -o OUT -- node ...`: node gets the flags that make it write
 * a jitdump and name its JavaScript functions, on its own command line or through
 * NODE_OPTIONS, leaves nothing beside the user's files, and its generations keep the
 * invariant (every sample inside its generation's period). */
#include "tests/e2e/profile_util.h"

/* node gets --perf-prof --interpreted-frames-native-stack: its JS functions are named. On
 * node's command line, and with --node through NODE_OPTIONS for a command that starts it. */
Test(profile_node, node_command, .timeout = 300)
{
	char *dir = tu_tmpdir("profile-node"), out[PATH_MAX], js[PATH_MAX];
	struct tu_result r;
	static const char prog[] =
		"function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);"
		" return s; }\nlet t = 0; const end = Date.now() + 1000;\n"
		"while (Date.now() < end) t += hot(100000);\nconsole.log('node done', t > 0);\n";

	if (!tu_have("node")) {
		tu_rmtree(dir);
		cr_skip_test("node is not installed");
	}
	AG_FMT(out, "%s/n.txt", dir);
	AG_FMT(js, "%s/hot.js", dir);
	cr_assert_eq(tu_write_file(js, prog, sizeof(prog) - 1), 0);
	char cmd[4 * PATH_MAX], exe[PATH_MAX];
	cr_assert_not_null(realpath(tu_build("jitprof"), exe));
	for (int way = 0; way < 2; way++) {
		/* node writes its dump in its working directory: the test's own (profile moves it
		 * into the data directory afterwards). */
		if (way == 0)
			AG_FMT(cmd, "cd %s && %s profile -o %s -- node %s", dir, exe, out, js);
		else
			AG_FMT(cmd, "cd %s && %s profile --node -o %s -- sh -c 'exec node %s'", dir,
			       exe, out, js);
		cr_assert_eq(tu_sh(&r, cmd, 300), 0);
		cr_assert_eq(r.status, 0, "%s", r.err);
		cr_expect(strstr(r.out, "node done true"), "%s", r.out);
		char *s = tu_read_file(out, NULL);
		cr_assert_not_null(s);
		cr_expect(pf_method_row(s, "JS:*hot ", NULL) || pf_method_row(s, "JS:~hot ", NULL),
			  "way %d:\n%.3000s", way, s);
		free(s);
		tu_result_free(&r);
		/* node's dump and V8's log went into the data directory: nothing is left beside
		 * the user's files, and the report reads the dump there again. */
		AG_FMT(cmd, "cd %s && ls jit-*.dump isolate-*.log 2>/dev/null; echo; ls n.txt.jitprof",
		       dir);
		cr_assert_eq(tu_sh(&r, cmd, 30), 0);
		cr_expect_eq(r.out[0], '\n', "way %d: left in the working directory: %s", way, r.out);
		cr_expect(strstr(r.out, "\njit-"), "way %d: no dump in n.txt.jitprof: %s", way, r.out);
		tu_result_free(&r);
		AG_FMT(cmd, "%s report -q -i %s/n.txt.jitprof/perf.jit.data -n 5", exe, dir);
		cr_assert_eq(tu_sh(&r, cmd, 120), 0);
		cr_expect(strstr(r.out, "JS:"), "way %d: %s%s", way, r.out, r.err);
		tu_result_free(&r);
		char data[PATH_MAX + 32], msg[8192];
		AG_FMT(data, "%s/n.txt.jitprof/perf.jit.data", dir);
		cr_expect_eq(tu_check_generations(data, NULL, msg, sizeof(msg)), 0, "way %d: %s",
			     way, msg);
	}
	tu_rmtree(dir);
	free(dir);
}
