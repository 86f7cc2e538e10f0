/* test_plan.c - recorder/profile/plan.c (and the output format by extension, which profile
 * takes from report's table, recorder/report/formats.c): the data directory, runtimes and the
 * flags they get, the agent's location, durations. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/cmd/cmd_report.h"
#include "recorder/profile/profile.h"
#include "tests/lib/testutil.h"

Test(plan, format_by_extension)
{
	cr_assert_null(rp_format_of("x.txt")->flag);
	cr_assert_str_eq(rp_format_of("a/b.svg")->flag, "--flamegraph");
	cr_assert(rp_format_of("a/b.svg")->flag_takes_file);
	cr_assert_str_eq(rp_format_of("b.json")->flag, "--json");
	cr_assert_str_eq(rp_format_of("b.collapsed")->flag, "--collapsed");
	cr_assert_str_eq(rp_format_of("p.pb.gz")->flag, "--pprof");
	cr_assert_str_eq(rp_format_of("p.html")->flag, "--html");
	cr_assert_str_eq(rp_format_of("p.speedscope.json")->flag, "--speedscope",
			 "the longer extension wins");
	cr_assert_str_eq(rp_format_of("p.jfr")->flag, "--jfr");
	cr_assert(rp_format_of("p.jfr")->flag_takes_file);
	cr_assert_null(rp_format_of("x.gz"));
	cr_assert_null(rp_format_of(".txt"), "an extension alone is no name");
	cr_assert_null(rp_format_of("x"));
}

/* One directory per output: p.html and p.svg of the same stem keep a recording each. */
Test(plan, data_dir_named_after_the_whole_output)
{
	char buf[64], other[64];

	cr_assert_eq(prof_data_dir("out/x.txt", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "out/x.txt.jitprof");
	cr_assert_eq(prof_data_dir("p.pb.gz", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "p.pb.gz.jitprof");
	cr_assert_eq(prof_data_dir("p.html", buf, sizeof(buf)), 0);
	cr_assert_eq(prof_data_dir("p.svg", other, sizeof(other)), 0);
	cr_assert_str_neq(buf, other);
	cr_assert_eq(prof_data_dir("a-very-long-name.txt", buf, 8), -ENAMETOOLONG);
}

Test(plan, runtime_of_command)
{
	cr_assert_eq(prof_runtime_of("java", PROF_RT_OTHER), PROF_RT_JAVA);
	cr_assert_eq(prof_runtime_of("/usr/lib/jvm/x/bin/java", PROF_RT_OTHER), PROF_RT_JAVA);
	cr_assert_eq(prof_runtime_of("./gradlew", PROF_RT_JAVA), PROF_RT_JAVA);
	cr_assert_eq(prof_runtime_of("./gradlew", PROF_RT_OTHER), PROF_RT_OTHER);
	cr_assert_eq(prof_runtime_of("javac", PROF_RT_OTHER), PROF_RT_OTHER);
	cr_assert_eq(prof_runtime_of("/usr/bin/node", PROF_RT_OTHER), PROF_RT_NODE);
	cr_assert_eq(prof_runtime_of("nodejs", PROF_RT_OTHER), PROF_RT_NODE);
	cr_assert_eq(prof_runtime_of("npm", PROF_RT_NODE), PROF_RT_NODE);
	/* Flags on the command line only when the command is the runtime itself. */
	cr_assert(prof_runtime_direct("/usr/bin/java", PROF_RT_JAVA));
	cr_assert_not(prof_runtime_direct("./gradlew", PROF_RT_JAVA));
	cr_assert(prof_runtime_direct("node", PROF_RT_NODE));
	cr_assert_not(prof_runtime_direct("npm", PROF_RT_NODE));
	cr_assert_not(prof_runtime_direct("java", PROF_RT_NODE));
}

Test(plan, java_args_and_refusals)
{
	char ap[256], err[256];
	const char *a[PROF_JAVA_NARGS];

	cr_assert_eq(prof_java_args(ap, sizeof(ap), "/l/libagent.so", "/d/x.jitprof", 1, a,
				    JP_ERRBUF_LOG(err)), 2);
	cr_assert_str_eq(a[0], "-agentpath:/l/libagent.so=dir=/d/x.jitprof");
	cr_assert_str_eq(a[1], "-XX:+PreserveFramePointer");
	/* the dwarf mode: the agent alone */
	cr_assert_eq(prof_java_args(ap, sizeof(ap), "/l/libagent.so", "/d/x.jitprof", 0, a,
				    JP_ERRBUF_LOG(err)), 1);
	cr_assert_str_eq(a[0], "-agentpath:/l/libagent.so=dir=/d/x.jitprof");
	cr_assert_eq(prof_java_args(ap, sizeof(ap), "/l/libagent.so", "/d/a,b", 1, a,
				    JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "'/d/a,b' holds a comma"), "%s", err);
	cr_assert_eq(prof_java_args(ap, sizeof(ap), "/l/lib agent.so", "/d", 0, a,
				    JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert_eq(prof_java_args(ap, 20, "/l/libagent.so", "/d/x", 1, a, JP_ERRBUF_LOG(err)),
		     -ENAMETOOLONG);
}

Test(plan, call_graph_spellings)
{
	struct prof_call_graph cg;
	char err[256];

	cr_assert_eq(prof_parse_call_graph("fp", &cg, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(cg.mode, PROF_CG_FP);
	cr_assert_eq(prof_parse_call_graph("dwarf", &cg, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(cg.mode, PROF_CG_DWARF);
	cr_assert_eq(cg.size, PROF_JAVA_STACK_SIZE);
	cr_assert_eq(prof_parse_call_graph("dwarf,16384", &cg, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(cg.size, 16384);
	cr_assert_eq(prof_parse_call_graph("dwarf,1", &cg, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(cg.size, 8, "rounded up to 8, as record does");
	cr_assert_eq(prof_parse_call_graph("dwarf,65528", &cg, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(cg.size, 65528);
	const char *const range[] = { "dwarf,0", "dwarf,65529", "dwarf,", "dwarf,-8", "dwarf,8k",
				      "dwarf,99999999999999999999" };
	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		cr_assert_eq(prof_parse_call_graph(range[i], &cg, JP_ERRBUF_LOG(err)), -ERANGE,
			     "%s", range[i]);
		cr_assert(strstr(err, "from 1 to 65528"), "%s: %s", range[i], err);
	}
	const char *const bad[] = { "lbr", "fp,8", "dwarfx", "", "DWARF" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(prof_parse_call_graph(bad[i], &cg, JP_ERRBUF_LOG(err)), -EINVAL,
			     "%s", bad[i]);
		cr_assert(strstr(err, "(fp, dwarf[,SIZE])"), "%s", err);
	}
}

Test(plan, call_graph_picked_by_runtime)
{
	struct prof_call_graph none = { PROF_CG_AUTO, 0 }, cg;
	const char *why;

	cg = prof_call_graph_pick(none, 1, &why);
	cr_assert_eq(cg.mode, PROF_CG_DWARF, "a JVM: stack copies");
	cr_assert_eq(cg.size, PROF_JAVA_STACK_SIZE);
	cr_assert(strstr(why, "JVM"), "%s", why);
	cg = prof_call_graph_pick(none, 0, &why);
	cr_assert_eq(cg.mode, PROF_CG_FP, "node, native: frame pointers as before");
	cg = prof_call_graph_pick((struct prof_call_graph){ PROF_CG_FP, 0 }, 1, &why);
	cr_assert_eq(cg.mode, PROF_CG_FP, "asked for wins");
	cr_assert(strstr(why, "asked"), "%s", why);
	cg = prof_call_graph_pick((struct prof_call_graph){ PROF_CG_DWARF, 4096 }, 0, &why);
	cr_assert_eq(cg.mode, PROF_CG_DWARF);
	cr_assert_eq(cg.size, 4096);
}

Test(plan, jvm_log_args_name_the_log_per_process)
{
	const char *a[PROF_JVMLOG_NARGS];
	char lf[PATH_MAX], err[256];

	cr_assert_eq(prof_jvm_log_args(lf, sizeof(lf), "/d/x.jitprof", a, JP_ERRBUF_LOG(err)), 0);
	cr_assert_str_eq(a[0], "-XX:+UnlockDiagnosticVMOptions");
	cr_assert_str_eq(a[1], "-XX:+LogCompilation");
	cr_assert_str_eq(a[2], "-XX:LogFile=/d/x.jitprof/jvm-%p.log");
	/* HotSpot expands % sequences in LogFile: a directory holding one is refused. */
	cr_assert_eq(prof_jvm_log_args(lf, sizeof(lf), "/d/100%p", a, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "'/d/100%p' holds a '%'"), "%s", err);
	cr_assert_eq(prof_jvm_log_args(lf, 20, "/d/x.jitprof", a, JP_ERRBUF_LOG(err)),
		     -ENAMETOOLONG);
}

Test(plan, jvm_log_pid_from_the_name_hotspot_gives)
{
	cr_assert_eq(prof_jvm_log_pid("jvm-pid4242.log"), 4242);
	cr_assert_eq(prof_jvm_log_pid("jvm-pid1.log"), 1);
	const char *not[] = { "jvm-pid.log", "jvm-pid0.log", "jvm-pid012.log", "jvm-pid12.log.1",
			      "jvm-pid12", "jvm-12.log", "jvm-pid-3.log", "jvm-pid99999999999.log",
			      "perf.data", "" };
	for (size_t i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		cr_expect_eq(prof_jvm_log_pid(not[i]), 0, "'%s'", not[i]);
}

Test(plan, argv_insert_after_the_program)
{
	char *argv[] = { "java", "-cp", "x", "Main", NULL };
	const char *add[] = { "-A", "-B" };
	char **v = prof_argv_insert(argv, add, 2);

	cr_assert_not_null(v);
	const char *want[] = { "java", "-A", "-B", "-cp", "x", "Main" };
	for (int i = 0; i < 6; i++)
		cr_assert_str_eq(v[i], want[i]);
	cr_assert_null(v[6]);
	free(v);
}

Test(plan, env_append_keeps_what_was_there)
{
	char buf[64];
	const char *add[] = { "-A", "-B" };

	cr_assert_eq(prof_env_append(buf, sizeof(buf), NULL, add, 2), 0);
	cr_assert_str_eq(buf, "-A -B");
	cr_assert_eq(prof_env_append(buf, sizeof(buf), "-Xmx1g", add, 2), 0);
	cr_assert_str_eq(buf, "-Xmx1g -A -B");
	cr_assert_eq(prof_env_append(buf, 8, "-Xmx1g", add, 2), -ENAMETOOLONG);
}

Test(plan, durations)
{
	unsigned long ms;

	cr_assert_eq(prof_parse_duration("3", &ms), 0);
	cr_assert_eq(ms, 3000);
	cr_assert_eq(prof_parse_duration("2.5", &ms), 0);
	cr_assert_eq(ms, 2500);
	cr_assert_eq(prof_parse_duration("500ms", &ms), 0);
	cr_assert_eq(ms, 500);
	cr_assert_eq(prof_parse_duration("2m", &ms), 0);
	cr_assert_eq(ms, 120000);
	cr_assert_eq(prof_parse_duration("0", &ms), -EINVAL);
	cr_assert_eq(prof_parse_duration("-1", &ms), -EINVAL);
	cr_assert_eq(prof_parse_duration("3x", &ms), -EINVAL);
	cr_assert_eq(prof_parse_duration("", &ms), -EINVAL);
	cr_assert_eq(prof_parse_duration("nan", &ms), -EINVAL);
}

/* Build tree (beside the executable) first, then the installed lib directory. */
Test(plan, agent_found_beside_the_executable_or_in_lib)
{
	char *dir = tu_tmpdir("plan");
	char bin[PATH_MAX], exe[PATH_MAX + 16], lib[PATH_MAX + 32], so[PATH_MAX], err[512];

	unsetenv("JITPROF_AGENT");
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(exe, sizeof(exe), "%s/jitprof", bin);
	cr_assert_eq(mkdir(bin, 0755), 0);
	cr_assert_eq(prof_find_agent(exe, so, sizeof(so), JP_ERRBUF_LOG(err)), -ENOENT);
	cr_assert(strstr(err, "JITPROF_AGENT="), "%s", err);
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	cr_assert_eq(mkdir(lib, 0755), 0);
	snprintf(lib, sizeof(lib), "%s/lib/libjitprof-agent.so", dir);
	cr_assert_eq(tu_write_file(lib, "x", 1), 0);
	cr_assert_eq(prof_find_agent(exe, so, sizeof(so), JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert(strstr(so, "/lib/libjitprof-agent.so"), "%s", so);
	/* the build tree's old name, beside the executable, comes after an installed agent */
	snprintf(lib, sizeof(lib), "%s/libagent.so", bin);
	cr_assert_eq(tu_write_file(lib, "x", 1), 0);
	cr_assert_eq(prof_find_agent(exe, so, sizeof(so), JP_ERRBUF_LOG(err)), 0);
	cr_assert(strstr(so, "/lib/libjitprof-agent.so"), "%s", so);
	snprintf(lib, sizeof(lib), "%s/libjitprof-agent.so", bin);
	cr_assert_eq(tu_write_file(lib, "x", 1), 0);
	cr_assert_eq(prof_find_agent(exe, so, sizeof(so), JP_ERRBUF_LOG(err)), 0);
	cr_assert(strstr(so, "/bin/libjitprof-agent.so"), "%s", so);
	setenv("JITPROF_AGENT", "/nonexistent/libagent.so", 1);
	cr_assert_eq(prof_find_agent(exe, so, sizeof(so), JP_ERRBUF_LOG(err)), -ENOENT);
	cr_assert(strstr(err, "JITPROF_AGENT=/nonexistent/libagent.so"), "%s", err);
	unsetenv("JITPROF_AGENT");
	tu_rmtree(dir);
	free(dir);
}

/* Every output profile chooses by extension is one report makes, with a file argument where
 * profile passes one: the two commands' tables cannot drift apart unseen. */
Test(plan, every_format_is_an_option_of_report)
{
	const char *exts[] = { ".svg", ".speedscope.json", ".json", ".collapsed", ".html",
			       ".pb.gz", ".jfr" };
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		char out[64];
		snprintf(out, sizeof(out), "p%s", exts[i]);
		const struct rp_format *f = rp_format_of(out);
		cr_assert_not_null(f, "%s", out);
		cr_assert_not_null(f->flag, "%s", out);
		int takes = -1;
		cr_assert_eq(report_has_option(f->flag, &takes), 1, "%s: report has no %s", out,
			     f->flag);
		cr_assert_eq(takes, f->flag_takes_file, "%s: %s's argument", out, f->flag);
	}
	cr_assert_eq(report_has_option("--no-such-output", NULL), 0);
	cr_assert_eq(report_has_option("html", NULL), 0, "long options only");
}
