/* report_deopts.c - `jitprof report --generations --jvm-log` on samples/java/Deopts under our
 * agent and perf, on every JDK found: the unstable_if trap, the class check and the broken CHA
 * dependency each end the first C2 generation of their method; active periods are ordered and
 * normal-entry generations do not overlap; every compile id `jcmd Compiler.codelist` listed
 * during the run is the generation with that level and code address; the JSON validates
 * against docs/generations.schema.json (checks in report_deopts.py); --html's timeline marks
 * the lanes the trap and the dependency ended; the unstable_if trap and
 * poly's inlined area() call are on the lines Deopts.java marks ("// MARK ..."). Also: without the log the
 * report still works and says what it lacks; another process's log is refused; a cut log is
 * used up to the cut and the report says so. The same run's Flight Recording (the agent's jfr
 * option: what a JVM we attach to can give) ends generations as the log does
 * (report_deopts_jfr.py). */
#include "tests/e2e/report_util.h"
#include "tests/e2e/agent_util.h"

TestSuite(report_deopts, .init = rx_setup, .fini = rx_teardown, .timeout = 900);

static const char *METHODS = "Deopts\\.(branchy|poly|cha)\\(";

/* args: Deopts' own (ms per phase, and "jfr" to wait for the Flight Recording first). */
static void run_deopts(const struct ag_jdk *jdk, const char *wd, const char *agent,
		       const char *agent_opts, const char *classes, const char *args)
{
	struct tu_result r;
	/* The JVM prints its pid, then each phase; the codelist is taken once phase 2 began
	 * (everything compiled, the first deoptimization on its way). */
	rx_ok(&r, "mkdir -p '%s/jit' && cd '%s' && "
	      "(perf record -q -k mono -g -o perf.data %s'%s/bin/java' -agentpath:'%s'=dir='%s/jit'%s "
	      "-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile='%s/comp.log' "
	      "-cp '%s' jitprof.samples.Deopts %s >out.txt 2>&1 & P=$!; "
	      "for i in $(seq 900); do grep -q '^phase 2' out.txt && break; sleep 0.1; done; "
	      "'%s/bin/jcmd' \"$(sed -n 's/^pid //p' out.txt)\" Compiler.codelist >codelist.txt; "
	      "wait $P) && grep -q 'deopts done true' out.txt && "
	      "'%s' inject --jit -q -i perf.data -o perf.jit.data",
	      wd, wd, tu_java_env_sh(agent), jdk->home, agent, wd, agent_opts, wd, classes, args,
	      jdk->home, rx_jitprof);
	tu_result_free(&r);
}

/* The line of Deopts.java carrying "// MARK what", 0 when none: expectations come from the
 * source, never a number written here. */
static int marked_line(const char *src, const char *what)
{
	char buf[512], mark[64];
	int no = 0, found = 0;
	FILE *f = fopen(src, "r");
	snprintf(mark, sizeof(mark), "// MARK %s", what);
	while (f && !found && fgets(buf, sizeof(buf), f)) {
		no++;
		found = strstr(buf, mark) != NULL;
	}
	if (f)
		fclose(f);
	return found ? no : 0;
}

/* A second run with the agent's jfr option (a Flight Recording of compiles and traps, what a
 * JVM we attach to can give) and the log: from the recording, no generation gets an end the
 * log does not give it, and branchy's trap is found when the log has it. Its own run: JFR's
 * start-up compiles enough to move the first run's C2 compiles past its checkpoints. */
static void check_jfr(const struct ag_jdk *jdk, const char *agent, const char *classes)
{
	char wd[PATH_MAX + 32], jfr_script[PATH_MAX];
	struct tu_result r;

	snprintf(wd, sizeof(wd), "%s/jdk%d-jfr", dir, jdk->major);
	/* Deopts waits for the recording before its phases: JFR's start took over 2 s under ASan
	 * on a loaded machine, past branchy's trap, which the recording then could not see. */
	run_deopts(jdk, wd, agent, ",jfr=on", classes, "1500 jfr");
	rx_ok(&r, "grep '^jfr ' '%s/out.txt'", wd);
	cr_expect(strstr(r.out, "jfr running"), "JDK %d: no Flight Recording began: %s", jdk->major,
		  r.out);
	tu_result_free(&r);
	cr_assert_not_null(realpath("tests/e2e/report_deopts_jfr.py", jfr_script));
	rx_ok(&r, "cd '%s' && '%s' report -i perf.jit.data --generations --json --jvm-log comp.log "
	      ">log.json && '%s' report -i perf.jit.data --generations --json --jvm-log "
	      "jit/jit-*.jfr >jfr.json && python3 '%s' log.json jfr.json && '%s' report -i "
	      "perf.jit.data --generations --jvm-log jit/jit-*.jfr --method '%s'", wd, rx_jitprof,
	      rx_jitprof, jfr_script, rx_jitprof, METHODS);
	fprintf(stderr, "report_deopts: JDK %d, Flight Recording: %.*s\n", jdk->major,
		(int)strcspn(r.out, "\n"), r.out);
	cr_expect(!strstr(r.out, "FAIL"), "JDK %d:\n%s", jdk->major, r.out);
	cr_expect(strstr(r.out, "# JVM's Flight Recording (compiles and uncommon traps"),
		  "JDK %d:\n%s", jdk->major, r.out);
	tu_result_free(&r);
}

static void check_jdk(const struct ag_jdk *jdk)
{
	char agent[PATH_MAX], classes[PATH_MAX], script[PATH_MAX], schema[PATH_MAX], src[PATH_MAX];
	char wd[PATH_MAX + 32];
	struct tu_result r;

	if (!realpath(tu_build("libagent.so"), agent) || !realpath(tu_build("java"), classes))
		cr_skip_test("the agent or samples/java are not built");
	cr_assert_not_null(realpath("tests/e2e/report_deopts.py", script));
	cr_assert_not_null(realpath("docs/generations.schema.json", schema));
	cr_assert_not_null(realpath("samples/java/Deopts.java", src));
	snprintf(wd, sizeof(wd), "%s/jdk%d", dir, jdk->major);
	run_deopts(jdk, wd, agent, "", classes, "1500");

	rx_ok(&r, "cd '%s' && '%s' report -i perf.jit.data --generations --json --jvm-log comp.log "
	      "--method '%s' >g.json && python3 '%s' g.json codelist.txt '%s' '%s'", wd,
	      rx_jitprof, METHODS, script, schema, src);
	fprintf(stderr, "report_deopts: JDK %d:\n%s", jdk->major, r.out);
	cr_expect(!strstr(r.out, "FAIL"), "JDK %d:\n%s", jdk->major, r.out);
	cr_expect(strstr(r.out, "OK branchy trap"), "JDK %d: no trap line:\n%s", jdk->major, r.out);
	cr_expect(strstr(r.out, "OK branchy") && strstr(r.out, "OK poly") && strstr(r.out, "OK cha"),
		  "JDK %d:\n%s", jdk->major, r.out);
	tu_result_free(&r);

	/* The table says the same, with the trap under its generation. */
	rx_ok(&r, "cd '%s' && '%s' report -i perf.jit.data --generations --jvm-log comp.log "
	      "--method '%s'", wd, rx_jitprof, METHODS);
	cr_expect(strstr(r.out, "deoptimized: unstable_if"), "JDK %d:\n%s", jdk->major, r.out);
	/* ... on the line of the if whose never-taken branch C2 pruned (the trap's bci). */
	char at[96];
	int if_line = marked_line(src, "unstable_if");
	cr_assert_gt(if_line, 0, "no \"// MARK unstable_if\" in %s", src);
	snprintf(at, sizeof(at), "Deopts branchy (I)I line %d bci ", if_line);
	cr_expect(strstr(r.out, at), "JDK %d: no \"%s\":\n%s", jdk->major, at, r.out);
	cr_expect(strstr(r.out, "dependency broken: "), "JDK %d:\n%s", jdk->major, r.out);
	cr_expect(!strstr(r.out, "truncated"), "%s", r.out);
	tu_result_free(&r);

	/* --html's timeline says the same per lane: the trap and the broken dependency beside
	 * the lanes they ended (the timeline holds the methods with samples). */
	rx_ok(&r, "cd '%s' && '%s' report -q -i perf.jit.data --html t.html --jvm-log comp.log && "
	      "grep -o '\"ended\":\"[a-z_]*\",\"by_gen\":[0-9a-z]*,\"why\":\"[a-z]*[ a-z]*: "
	      "[a-z_]*' t.html | sort -u", wd, rx_jitprof);
	cr_expect(strstr(r.out, "\"ended\":\"deopt\",\"by_gen\":null,\"why\":\"deoptimized: "
			 "unstable_if"), "JDK %d:\n%s", jdk->major, r.out);
	cr_expect(strstr(r.out, "\"ended\":\"dependency\",\"by_gen\":null,\"why\":\"dependency "
			 "broken: "), "JDK %d:\n%s", jdk->major, r.out);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && grep -o '\"timeline_sources\":\"[^\"]*' t.html", wd);
	cr_expect(strstr(r.out, "HotSpot's compilation log of process "), "JDK %d: %s", jdk->major,
		  r.out);
	tu_result_free(&r);

	/* --compare of cha's first C2 generation and its recompile: the inlining decision about
	 * Cat.sound()/Dog.sound() differs; code of both listed, aligned, with source lines. An
	 * ambiguous pattern is a usage error listing the candidates. */
	rx_ok(&r, "cd '%s' && gens=$('%s' report -i perf.jit.data --generations --json --jvm-log "
	      "comp.log --method 'Deopts\\.cha\\(' | python3 -c 'import json,sys\n"
	      "g=[x for m in json.load(sys.stdin)[\"generations\"][\"methods\"] for x in "
	      "m[\"generations\"] if x[\"level\"]==4 and x[\"osr_bci\"] is None]\n"
	      "print(g[0][\"gen\"], g[-1][\"gen\"])') && '%s' report -i perf.jit.data "
	      "--jvm-log comp.log --compare 'Deopts\\.cha\\(' $gens", wd, rx_jitprof, rx_jitprof);
	cr_expect(strstr(r.out, "# Inlining decisions that differ"), "%s", r.out);
	cr_expect(strstr(r.out, "Cat.sound"), "JDK %d: no differing decision on Cat.sound:\n%s",
		  jdk->major, r.out);
	cr_expect(strstr(r.out, "aligned by code") && strstr(r.out, "; Deopts.java:"), "%s", r.out);
	cr_expect(!strstr(r.out, "(no code"), "%s", r.out);
	tu_result_free(&r);
	/* Every generation's ELF written (inject --all), then the dump moved away: the code and
	 * the interleaved lines come from the ELFs (.text, DWARF line table) alone. */
	rx_ok(&r, "cd '%s' && '%s' inject --jit --all -q -i perf.data -o perf.all.data && "
	      "mkdir -p away && mv jit/jit-*.dump* away/ && gens=$('%s' report -i perf.all.data "
	      "--generations --json --method 'Deopts\\.cha\\(' | python3 -c 'import json,sys\n"
	      "g=[x[\"gen\"] for m in json.load(sys.stdin)[\"generations\"][\"methods\"] for x "
	      "in m[\"generations\"]]\nprint(g[0], g[-1])') && '%s' report -i perf.all.data "
	      "--compare 'Deopts\\.cha\\(' $gens; mv away/* jit/", wd, rx_jitprof, rx_jitprof,
	      rx_jitprof);
	cr_expect(strstr(r.out, "; Deopts.java:"), "JDK %d: no DWARF lines:\n%s", jdk->major, r.out);
	cr_expect(!strstr(r.out, "(no code"), "%s", r.out);
	tu_result_free(&r);
	rx_sh(&r, "cd '%s' && '%s' report -i perf.jit.data --compare 'Deopts\\.' 1 2", wd,
	      rx_jitprof);
	cr_expect_eq(r.status, 2, "ambiguous --compare: status %d", r.status);
	cr_expect(strstr(r.err, "Deopts.cha(") && strstr(r.err, "Deopts.poly("), "%s", r.err);
	/* One candidate a line, as lines: the escape is for names, not for the message. */
	cr_expect(strstr(r.err, "give one exactly:\n  ") && !strstr(r.err, "\\x0a"), "%s", r.err);
	tu_result_free(&r);

	/* Without the log: still a report, saying what it cannot tell. */
	rx_ok(&r, "cd '%s' && '%s' report -i perf.jit.data --generations --method '%s' && "
	      "'%s' report -i perf.jit.data --generations --json --method '%s' | python3 -c "
	      "'import json,sys; d=json.load(sys.stdin)[\"generations\"]; "
	      "print(\"JSON\", d[\"jvm_log\"], d[\"missing\"])'", wd, rx_jitprof, METHODS,
	      rx_jitprof, METHODS);
	cr_expect(strstr(r.out, "# no JVM compilation log (--jvm-log FILE)"), "%s", r.out);
	cr_expect(strstr(r.out, "JSON None no JVM compilation log"), "%s", r.out);
	tu_result_free(&r);

	/* Another process's log (the same file claiming another pid): refused, exit 1. */
	rx_sh(&r, "cd '%s' && sed \"1,3s/process='[0-9]*'/process='1'/\" comp.log >other.log && "
	      "'%s' report -i perf.jit.data --generations --jvm-log other.log", wd, rx_jitprof);
	cr_expect_eq(r.status, 1, "another process's log: status %d", r.status);
	cr_expect(strstr(r.err, "not this run's log"), "%s", r.err);
	tu_result_free(&r);

	/* Cut at two thirds: used up to the cut, and said so. */
	rx_ok(&r, "cd '%s' && head -c $(( $(stat -c %%s comp.log) * 2 / 3 )) comp.log >cut.log && "
	      "'%s' report -i perf.jit.data --generations --jvm-log cut.log --method '%s' 2>&1",
	      wd, rx_jitprof, METHODS);
	cr_expect(strstr(r.out, "# JVM compilation log truncated, used up to the cut: "), "%s",
		  r.out);
	cr_expect(strstr(r.out, "cut.log: cut at byte"), "%s", r.out);
	tu_result_free(&r);

	check_jfr(jdk, agent, classes);
}

Test(report_deopts, every_jdk)
{
	if (!tu_have("perf") || !tu_have("python3"))
		cr_skip_test("perf or python3 is not installed");
	ag_each_jdk(check_jdk);
}
