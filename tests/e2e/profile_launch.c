/* profile_launch.c - `jitprof profile -o OUT -- CMD`: a java command gets the agent, frame
 * pointers and the clock without being asked, and the report names the hot method with its
 * generations; the output format follows OUT's extension; the data stays beside OUT; a
 * program that writes no jitdump still gets its (native) report, with a warning; usage
 * errors exit 2. On every JDK under /usr/lib/jvm. */
#include <dirent.h>

#include "tests/e2e/profile_util.h"

static void launch_one(const struct ag_jdk *jdk)
{
	char *dir = tu_tmpdir("profile-launch"), out[PATH_MAX], java[PATH_MAX], path[PATH_MAX + 64];
	char want[PATH_MAX + 64], complog[PATH_MAX + 16];
	const char *args[40];
	struct tu_result r;
	int n = 0;

	AG_FMT(out, "%s/x.txt", dir);
	AG_FMT(java, "%s/bin/java", jdk->home);
	/* The JVM's own account of what it installed, to check the report against. */
	AG_FMT(complog, "-XX:LogFile=%s/comp.log", dir);
	args[n++] = "-o";
	args[n++] = out;
	args[n++] = "--";
	args[n++] = java;
	for (int i = 0; pf_gen_jvmargs[i]; i++)
		args[n++] = pf_gen_jvmargs[i];
	args[n++] = "-XX:+UnlockDiagnosticVMOptions";
	args[n++] = "-XX:+LogCompilation";
	args[n++] = complog;
	args[n++] = "-cp";
	args[n++] = ag_classpath();
	args[n++] = "jitprof.samples.Generations";
	args[n++] = "400";
	args[n] = NULL;
	pf_profile(&r, args, 300);
	cr_assert_eq(r.status, 0, "JDK %d: %s", jdk->major, r.err);
	/* The workload's own output is left alone, on stdout. */
	cr_expect(strstr(r.out, "generations done true"), "JDK %d stdout: %s", jdk->major, r.out);
	char last[4096];
	snprintf(last, sizeof(last), "%s", pf_last_line(r.err));
	AG_FMT(want, "jitprof profile: %s (text report) from ", out);
	cr_expect(ag_starts(pf_last_line(r.err), want), "JDK %d, last line: %s", jdk->major,
		  pf_last_line(r.err));
	/* The closing line names the hottest Java method, the method table's first row. */
	const char *hot = strstr(pf_last_line(r.err), "; hottest Java method: ");
	cr_expect(hot && !strncmp(hot + 23, "jitprof.samples.Generations.", 28),
		  "JDK %d, last line: %s", jdk->major, pf_last_line(r.err));
	cr_expect(strstr(r.err, "jitprof agent: writing "), "JDK %d: %s", jdk->major, r.err);

	char *rep = tu_read_file(out, NULL);
	cr_assert_not_null(rep, "JDK %d: no %s", jdk->major, out);
	cr_expect(pf_method_row(rep, PF_TOTAL, NULL), "JDK %d: total() not in the table:\n%s",
		  jdk->major, rep);
	if (hot) {
		char name[512];
		int first = 0;
		const char *pct = strstr(hot + 23, "%)");
		cr_assert_not_null(pct, "%s", hot);
		snprintf(name, sizeof(name), "%.*s", (int)(pct - (hot + 23)), hot + 23);
		*strrchr(name, ' ') = 0;	/* " (P" */
		cr_expect(pf_method_row(rep, name, &first) && first, "JDK %d: '%s' is not the "
			  "first method row:\n%.3000s", jdk->major, name, rep);
	}
	/* The generations table lists a method the JVM installed twice or more, with every
	 * generation, sampled or not: as many as the JVM's compilation log has nmethods of it
	 * (how many is the JIT's choice: on a loaded machine tier 4 may not come within the
	 * run, and a method compiled once is no row). The dump must hold each of them too. */
	AG_FMT(path, "%s/comp.log", dir);
	size_t installed = pf_jvm_nmethods(path, "jitprof.samples.Generations total (");
	cr_expect_geq(installed, 1, "JDK %d: the JVM's log %s has no nmethod of total()",
		      jdk->major, path);
	cr_expect_eq((size_t)pf_generations(rep, PF_TOTAL), installed > 1 ? installed : 0,
		     "JDK %d: generations of total(), the JVM installed %zu:\n%s", jdk->major,
		     installed, rep);
	AG_FMT(path, "%s/x.txt.jitprof", dir);
	char *gdump = ag_find_dump(path);
	cr_expect_eq(pf_dump_loads(gdump, "Generations;total("), installed,
		     "JDK %d: loads of total() in %s", jdk->major, gdump ? gdump : "(no dump)");
	if (installed < 2)
		cr_log_warn("JDK %d: the JVM compiled total() only %zu time(s) in this run; the "
			    "report's generations were checked against that", jdk->major, installed);
	free(gdump);
	free(rep);

	/* Kept for later: the merged recording and the dump; no ELF file (inject --no-elfs: the
	 * report built the sampled generations in memory). A JVM is recorded with stack copies,
	 * which perf.jit.data keeps (--keep-stacks): perf.data, their second copy, is gone. */
	AG_FMT(path, "%s/x.txt.jitprof/perf.data", dir);
	cr_expect(!pf_exists(path), "%s kept beside perf.jit.data: the stack copies twice", path);
	AG_FMT(path, "%s/x.txt.jitprof/perf.jit.data", dir);
	cr_expect(pf_exists(path), "%s", path);
	char msg[8192];
	cr_expect_eq(tu_check_generations(path, NULL, msg, sizeof(msg)), 0, "JDK %d: %s",
		     jdk->major, msg);
	/* The closing line's counts are inject's (the file is not read again for them): perf
	 * must count as many samples and jitted code loads in the injected file. */
	unsigned long long said_samples = 0, said_loads = 0;
	const char *from = strstr(last, ") from ");
	cr_expect(from && sscanf(from, ") from %llu samples, %llu jitted code loads",
				 &said_samples, &said_loads) == 2, "JDK %d: %s", jdk->major, last);
	struct tu_result ps;
	char pcmd[2 * PATH_MAX];
	AG_FMT(pcmd, "perf script -i %s -F pid 2>/dev/null | wc -l; perf script -i %s "
	       "--show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP2.*/jitted-'", path, path);
	cr_assert_eq(tu_sh(&ps, pcmd, 120), 0);
	unsigned long long perf_samples = 0, perf_loads = 0;
	cr_expect_eq(sscanf(ps.out, "%llu %llu", &perf_samples, &perf_loads), 2, "%s", ps.out);
	cr_expect_eq(said_samples, perf_samples, "JDK %d: the closing line says %llu samples, "
		     "perf script counts %llu in %s", jdk->major, said_samples, perf_samples, path);
	cr_expect_eq(said_loads, perf_loads, "JDK %d: the closing line says %llu jitted code "
		     "loads, perf script shows %llu MMAP2s of jitted-*.so", jdk->major, said_loads,
		     perf_loads);
	cr_expect_gt(said_loads, 0, "JDK %d: %s", jdk->major, last);
	tu_result_free(&ps);
	AG_FMT(path, "%s/x.txt.jitprof", dir);
	char *dump = ag_find_dump(path);
	cr_expect_not_null(dump, "no jitdump in %s", path);
	free(dump);
	cr_expect_eq(pf_count_elfs(path), 0, "JDK %d: ELF files written by default in %s",
		     jdk->major, path);

	/* Call chains through compiled Java frames (the Java mode's stack copies, unwound
	 * through the CFI of their prologues): some stack has a jitted caller of total(). */
	char cmd[2 * PATH_MAX], exe[PATH_MAX];
	AG_FMT(exe, "%s", tu_build("jitprof"));
	AG_FMT(cmd, "%s report -q -i %s/x.txt.jitprof/perf.jit.data --collapsed", exe, dir);
	tu_result_free(&r);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "jitprof.samples.Generations.runPhase(") &&
		  strstr(r.out, ";" PF_TOTAL), "JDK %d: no stack reaches total() through its "
		  "callers:\n%.2000s", jdk->major, r.out);
	cr_expect_null(strstr(r.err, "frame pointers"), "JDK %d: %s", jdk->major, r.err);
	tu_result_free(&r);

	/* What the help says for perf report: the ELFs written afterwards, one per sampled
	 * generation, and perf resolves the hot method in them. */
	AG_FMT(cmd, "%s inject --elfs-for %s/x.txt.jitprof/perf.jit.data", exe, dir);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_expect_eq(r.status, 0, "JDK %d: %s", jdk->major, r.err);
	AG_FMT(path, "%s/x.txt.jitprof", dir);
	cr_expect_gt(pf_count_elfs(path), 0, "JDK %d: --elfs-for wrote no ELF in %s", jdk->major,
		     path);
	tu_result_free(&r);
	AG_FMT(cmd, "perf report -i %s/x.txt.jitprof/perf.jit.data --stdio --no-children -g none "
	       "--sort sym 2>&1", dir);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_expect(strstr(r.out, "] jitprof.samples.Generations."), "JDK %d: perf report names "
		  "no Generations method:\n%.2000s", jdk->major, r.out);
	tu_result_free(&r);

	/* archive packs the sampled generations' ELFs and leaves out the others, which no
	 * report needs and inject never made, without calling them missing. */
	AG_FMT(cmd, "%s archive -v -i %s/x.txt.jitprof/perf.jit.data -o %s/x.tar.zst", exe, dir, dir);
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_expect_eq(r.status, 0, "JDK %d: %s", jdk->major, r.err);
	const char *left = strstr(r.err, " files no sample landed in left out (not found, not "
				  "needed)");
	const char *num = left;
	while (num && num > r.err && num[-1] >= '0' && num[-1] <= '9')
		num--;
	cr_expect(left && num < left && atol(num) > 0, "JDK %d: %s", jdk->major, r.err);
	for (const char *p = r.err; (p = strstr(p, "/jitted-")); p++) {
		const char *eol = strchr(p, '\n');
		const char *bad = strstr(p, "not found, not archived");
		cr_expect(!bad || (eol && bad > eol), "JDK %d: a sampled generation's ELF is "
			  "missing: %.300s", jdk->major, p);
	}
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

Test(profile_launch, java_command_gives_hot_methods_with_generations, .timeout = 900)
{
	ag_each_jdk(launch_one);
}

/* One short run per format: the file is what report makes for that flag. */
Test(profile_launch, format_follows_the_extension, .timeout = 600)
{
	/* flag: offered only where this build's report has it (checked in its --help). */
	static const struct { const char *name, *starts, *flag; } fmts[] = {
		{ "p.svg", "<?xml", NULL }, { "p.json", "{", NULL }, { "p.collapsed", NULL, NULL },
		{ "p.html", "<", "--html " }, { "p.speedscope.json", "{", "--speedscope " },
		{ "p.pb.gz", "\x1f\x8b", "--pprof " }, { "p.jfr", "FLR", "--jfr " },
	};
	struct ag_jdk jdk;
	char *dir = tu_tmpdir("profile-fmt"), out[PATH_MAX], java[PATH_MAX], help[PATH_MAX + 32];
	struct tu_result r, h;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(java, "%s/bin/java", jdk.home);
	AG_FMT(help, "%s report --help", tu_build("jitprof"));
	cr_assert_eq(tu_sh(&h, help, 30), 0);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if (fmts[i].flag && !strstr(h.out, fmts[i].flag)) {
			fprintf(stderr, "profile_launch: %s not checked: report has no %s\n",
				fmts[i].name, fmts[i].flag);
			continue;
		}
		AG_FMT(out, "%s/%s", dir, fmts[i].name);
		/* --elfs once (the first format): the ELF files beside the data, for perf */
		const char *args[12];
		int n = 0;
		args[n++] = "-q";
		args[n++] = "-o";
		args[n++] = out;
		if (!i)
			args[n++] = "--elfs";
		const char *rest[] = { "--", java, "-cp", ag_classpath(),
				       "jitprof.samples.Generations", "100", NULL };
		memcpy(args + n, rest, sizeof(rest));
		pf_profile(&r, args, 300);
		cr_assert_eq(r.status, 0, "%s: %s", fmts[i].name, r.err);
		size_t len = 0;
		char *s = tu_read_file(out, &len);
		cr_assert_not_null(s, "no %s", out);
		if (fmts[i].starts)
			cr_expect(ag_starts(s, fmts[i].starts), "%s starts with %.40s", fmts[i].name,
				  s);
		else	/* folded stacks: the main thread's lines are there */
			cr_expect(ag_starts(s, "java;") || strstr(s, "\njava;"), "%.200s", s);
		char data[PATH_MAX + 16];
		AG_FMT(data, "%s/%s.jitprof", dir, fmts[i].name);
		if (i)
			cr_expect_eq(pf_count_elfs(data), 0, "%s: ELF files without --elfs", data);
		else
			cr_expect_gt(pf_count_elfs(data), 0, "%s: no ELF file with --elfs", data);
		if (strcmp(fmts[i].name, "p.pb.gz"))	/* compressed; JFR's strings are bytes */
			cr_expect(memmem(s, len, "Generations", 11), "%s names no Generations method",
				  fmts[i].name);
		free(s);
		tu_result_free(&r);
	}
	tu_result_free(&h);
	tu_rmtree(dir);
	free(dir);
}

/* A program that writes no jitdump: recorded and reported all the same, with the reason
 * the report has no jitted code. */
Test(profile_launch, program_without_jitdump_gets_a_native_report, .timeout = 120)
{
	char *dir = tu_tmpdir("profile-native"), out[PATH_MAX];
	struct tu_result r;

	AG_FMT(out, "%s/n.txt", dir);
	const char *args[] = { "-o", out, "--", "sh", "-c",
			       "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; echo ran", NULL };
	pf_profile(&r, args, 120);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "ran\n");
	cr_expect(strstr(r.err, "jitprof profile: warning: no process of the recording wrote a "
			 "jitdump: the report shows native code only"), "%s", r.err);
	cr_expect(strstr(pf_last_line(r.err), "0 jitted code loads"), "%s", r.err);
	char *s = tu_read_file(out, NULL);
	cr_assert_not_null(s);
	/* The methods view of a native program: no method table, the code grouped, and the
	 * closing line names the heaviest symbol listed. */
	cr_expect(strstr(s, "# No sample in a compiled or interpreted method: where the samples are\n") &&
		  strstr(s, "  native: "), "%s", s);
	cr_expect(strstr(pf_last_line(r.err), "; hottest: "), "%s", r.err);
	free(s);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

Test(profile_launch, usage_errors_exit_2)
{
	struct tu_result r;
	const char *none[] = { NULL };
	const char *both[] = { "-p", "1", "--", "true", NULL };
	char *dir = tu_tmpdir("profile-usage"), html_out[PATH_MAX];
	AG_FMT(html_out, "%s/x.html", dir);	/* may succeed: never in the working directory */
	const char *html[] = { "-o", html_out, "--", "true", NULL };
	const char *bad[] = { "-o", "x.docx", "--", "true", NULL };
	const char *dur[] = { "-d", "soon", "--", "true", NULL };
	const char *cg[] = { "--call-graph", "lbr", "--", "true", NULL };
	const char *cgsz[] = { "--call-graph", "dwarf,65529", "--", "true", NULL };

	pf_profile(&r, none, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "nothing to profile: give -p PID or -- COMMAND"), "%s", r.err);
	tu_result_free(&r);
	pf_profile(&r, both, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "-p and a command exclude each other"), "%s", r.err);
	tu_result_free(&r);
	pf_profile(&r, bad, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "-o x.docx: unknown output format"), "%s", r.err);
	tu_result_free(&r);
	pf_profile(&r, dur, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "-d: 'soon' is not a duration"), "%s", r.err);
	tu_result_free(&r);
	pf_profile(&r, cg, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--call-graph: unknown mode 'lbr' (fp, dwarf[,SIZE])"), "%s",
		  r.err);
	tu_result_free(&r);
	pf_profile(&r, cgsz, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--call-graph dwarf: stack dump size '65529' is not a number of "
			 "bytes from 1 to 65528"), "%s", r.err);
	tu_result_free(&r);
	pf_profile(&r, html, 30);
	if (r.status == 2)	/* a build whose report makes no HTML: refused by name */
		cr_expect(strstr(r.err, "x.html: the HTML report needs 'jitprof report --html', "
				 "which this build does not have"), "%s", r.err);
	else
		cr_expect_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* --java: a command not called java (here a shell that execs it) gets the agent through
 * JAVA_TOOL_OPTIONS, and the Java mode (stack copies, no -XX:+PreserveFramePointer needed). */
Test(profile_launch, java_flag_through_java_tool_options, .timeout = 300)
{
	struct ag_jdk jdk;
	char *dir = tu_tmpdir("profile-javaflag"), out[PATH_MAX], sh[2 * PATH_MAX];
	struct tu_result r;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(out, "%s/j.txt", dir);
	AG_FMT(sh, "exec %s/bin/java -cp %s jitprof.samples.Generations 200", jdk.home,
	       ag_classpath());
	const char *args[] = { "-o", out, "--java", "--", "sh", "-c", sh, NULL };
	pf_profile(&r, args, 300);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "Picked up JAVA_TOOL_OPTIONS: -agentpath:"), "%s", r.err);
	cr_expect_null(strstr(r.err, "-XX:+PreserveFramePointer"), "%s", r.err);
	cr_expect(strstr(r.err, "call graphs: --call-graph dwarf,32768 (a JVM: "), "%s", r.err);
	char *s = tu_read_file(out, NULL);
	cr_assert_not_null(s);
	cr_expect(pf_method_row(s, "jitprof.samples.Generations.", NULL), "%.3000s", s);
	free(s);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* How many files in dir are named prefix...suffix. */
static int files_named(const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t np = strlen(prefix), ns = strlen(suffix);
	int n = 0;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		n += len > np + ns && !strncmp(de->d_name, prefix, np) &&
		     !strcmp(de->d_name + len - ns, suffix);
	}
	if (d)
		closedir(d);
	return n;
}

/* A JVM that starts another (ForkJvm, as build tools do): flags on java's command line miss
 * the child, and the report says so, naming --java; with --java both JVMs write a dump and
 * both programs' methods are named. */
Test(profile_launch, a_jvm_that_starts_jvms, .timeout = 300)
{
	struct ag_jdk jdk;
	char *dir = tu_tmpdir("profile-fork"), out[PATH_MAX], java[PATH_MAX];
	char path[PATH_MAX + 64];
	struct tu_result r;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(out, "%s/f.txt", dir);
	AG_FMT(java, "%s/bin/java", jdk.home);
	const char *plain[] = { "-o", out, "--", java, "-cp", ag_classpath(),
				"jitprof.samples.ForkJvm", "400", NULL };
	pf_profile(&r, plain, 300);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "forkjvm parent true, child exit 0"), "stdout: %s", r.out);
	cr_expect(strstr(r.err, "in JIT code that no jitdump describes, while other processes") &&
		  strstr(r.err, "jitprof profile --java"), "%s", r.err);
	tu_result_free(&r);

	const char *forced[] = { "--java", "-o", out, "--", java, "-cp", ag_classpath(),
				 "jitprof.samples.ForkJvm", "400", NULL };
	pf_profile(&r, forced, 300);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.err, "no jitdump describes"), "%s", r.err);
	tu_result_free(&r);
	AG_FMT(path, "%s/f.txt.jitprof", dir);
	int dumps = files_named(path, "jit-", ".dump");
	cr_expect_eq(dumps, 2, "dumps in %s: %d", path, dumps);
	char *rep = tu_read_file(out, NULL);
	cr_assert_not_null(rep, "no %s", out);
	cr_expect(pf_method_row(rep, "jitprof.samples.ForkJvm.spin(long)", NULL) &&
		  pf_method_row(rep, "jitprof.samples.Generations.", NULL), "%.3000s", rep);
	free(rep);
	tu_rmtree(dir);
	free(dir);
}

/* --jvm-log: the JVM writes HotSpot's compilation log into the data directory and the report
 * joins it. Deopts drives branchy() into an unstable_if trap and cha() into a broken
 * dependency: the text report's generations say so under the generation that ended, and the
 * HTML timeline carries the same reason for that lane; of two JVMs a launcher starts, the log
 * of the one with the samples is joined. Where it cannot apply, exit 2. */
Test(profile_launch, jvm_log_explains_deopts, .timeout = 600)
{
	struct ag_jdk jdk;
	char *dir = tu_tmpdir("profile-jvmlog"), out[PATH_MAX], html[PATH_MAX], java[PATH_MAX];
	char path[PATH_MAX + 64];
	struct tu_result r;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(out, "%s/d.txt", dir);
	AG_FMT(java, "%s/bin/java", jdk.home);
	const char *args[] = { "--jvm-log", "-o", out, "--", java, "-cp", ag_classpath(),
			       "jitprof.samples.Deopts", "700", NULL };
	pf_profile(&r, args, 400);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "deopts done true"), "stdout: %s", r.out);
	tu_result_free(&r);
	char *rep = tu_read_file(out, NULL);
	cr_assert_not_null(rep, "no %s", out);
	cr_expect(strstr(rep, "# JVM compilation log: process "), "%.3000s", rep);
	cr_expect(strstr(rep, "deoptimized: unstable_if"), "no unstable_if trap:\n%s", rep);
	cr_expect(strstr(rep, "dependency broken: "), "no broken dependency:\n%s", rep);
	free(rep);
	AG_FMT(path, "%s/d.txt.jitprof", dir);
	int logs = files_named(path, "jvm-pid", ".log");
	cr_expect_eq(logs, 1, "compilation logs in %s: %d", path, logs);
	/* With the log's not-entrant times too, every sample is inside its generation's period. */
	char data[PATH_MAX + 64], extra[2 * PATH_MAX], msg[8192];
	AG_FMT(data, "%s/perf.jit.data", path);
	AG_FMT(extra, "--jvm-log \"$(ls '%s'/jvm-pid*.log | head -1)\"", path);
	cr_expect_eq(tu_check_generations(data, extra, msg, sizeof(msg)), 0, "%s", msg);

	/* The HTML timeline: a lane that ended by branchy()'s trap (in branchy() or where C2
	 * inlined it: the timeline shows the methods with samples). */
	AG_FMT(html, "%s/d.html", dir);
	args[2] = html;
	pf_profile(&r, args, 400);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	char *page = tu_read_file(html, NULL);
	cr_assert_not_null(page, "no %s", html);
	cr_expect(strstr(page, "\"ended\":\"deopt\",\"by_gen\":null,\"why\":\"deoptimized: "
			 "unstable_if, action "), "no lane of the timeline ended by the trap");
	free(page);

	/* A launcher starting two JVMs (through JAVA_TOOL_OPTIONS): each writes its log, the
	 * one with the samples is joined, and said so. */
	char sh[3 * PATH_MAX];
	AG_FMT(sh, "'%s' -version 2>/dev/null; exec '%s' -cp '%s' jitprof.samples.Deopts 300",
	       java, java, ag_classpath());
	const char *two[] = { "--jvm-log", "--java", "-o", out, "--", "sh", "-c", sh, NULL };
	pf_profile(&r, two, 400);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "2 JVMs wrote a compilation log: joining that of process "),
		  "%s", r.err);
	tu_result_free(&r);
	rep = tu_read_file(out, NULL);
	cr_assert_not_null(rep, "no %s", out);
	cr_expect(strstr(rep, "# JVM compilation log: process "), "%.3000s", rep);
	free(rep);

	/* Where it cannot apply: an output without generations, no JVM (a running JVM: its
	 * Flight Recording, profile_attach.c). */
	AG_FMT(path, "%s/d.svg", dir);
	const char *svg[] = { "--jvm-log", "-o", path, "--", java, "-version", NULL };
	pf_profile(&r, svg, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--jvm-log explains generations: in the text report (.txt) and "
			 "the HTML report's timeline (.html), not in the flame graph SVG"), "%s",
		  r.err);
	tu_result_free(&r);
	const char *other[] = { "--jvm-log", "-o", out, "--", "true", NULL };
	pf_profile(&r, other, 30);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--jvm-log is HotSpot's compilation log, and true starts no JVM"),
		  "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* -d ends the recording (and the command) and the report follows; a command's own failure is
 * profile's exit status (N, 128+S for a signal), said on stderr with the report written; a
 * stop of ours is not a failure. */
Test(profile_launch, duration_and_exit_status, .timeout = 120)
{
	char *dir = tu_tmpdir("profile-dur"), out[PATH_MAX];
	struct tu_result r;

	AG_FMT(out, "%s/d.txt", dir);
	const char *spin[] = { "-d", "1", "-o", out, "--", "sh", "-c", "while :; do :; done",
			       NULL };
	pf_profile(&r, spin, 100);	/* would never end without -d */
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.err, "exited with status"), "%s", r.err);
	cr_expect(pf_exists(out));
	tu_result_free(&r);
	unlink(out);
	const char *fail[] = { "-o", out, "--", "sh", "-c", "exit 3", NULL };
	pf_profile(&r, fail, 100);
	cr_expect_eq(r.status, 3, "the command's status is profile's: %d %s", r.status, r.err);
	cr_expect(strstr(pf_last_line(r.err), "the profiled program exited with status 3; the "
			 "profile was written"), "%s", r.err);
	cr_expect(strstr(r.err, "jitprof profile: ") && !strstr(r.err, "error:"), "%s", r.err);
	cr_expect(pf_exists(out), "the report is written all the same");
	tu_result_free(&r);
	/* Killed by a signal: 128+S, as a shell reports it; S computed here, not remembered. */
	char want[128];
	const char *killed[] = { "-o", out, "--", "sh", "-c", "kill -KILL $$", NULL };
	pf_profile(&r, killed, 100);
	cr_expect_eq(r.status, 128 + SIGKILL, "%d %s", r.status, r.err);
	AG_FMT(want, "killed by signal %d (%s), exit status %d; the profile was written",
	       SIGKILL, strsignal(SIGKILL), 128 + SIGKILL);
	cr_expect(strstr(r.err, want), "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* Two outputs of one stem keep a recording each (p.txt.jitprof/, p.svg.jitprof/): the
 * second never deletes the first's; a profile into the same OUT again replaces its own. */
Test(profile_launch, each_output_keeps_its_data, .timeout = 200)
{
	char *dir = tu_tmpdir("profile-keep"), txt[PATH_MAX], svg[PATH_MAX], path[PATH_MAX + 64];
	struct tu_result r;
	struct stat st;

	AG_FMT(txt, "%s/p.txt", dir);
	AG_FMT(svg, "%s/p.svg", dir);
	const char *one[] = { "-o", txt, "--", "sh", "-c", "i=0; while [ $i -lt 200000 ]; do "
			      "i=$((i+1)); done", NULL };
	pf_profile(&r, one, 100);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "; data in "), "%s", r.err);
	AG_FMT(path, "%s/p.txt.jitprof/", dir);
	cr_expect(strstr(r.err, path), "the closing line names %s: %s", path, r.err);
	tu_result_free(&r);
	AG_FMT(path, "%s/p.txt.jitprof/perf.data", dir);
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	ino_t first = st.st_ino;
	const char *two[] = { "-o", svg, "--", "sh", "-c", "i=0; while [ $i -lt 200000 ]; do "
			      "i=$((i+1)); done", NULL };
	pf_profile(&r, two, 100);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	cr_expect_eq(stat(path, &st), 0, "the svg's profile deleted the txt's recording %s", path);
	cr_expect_eq(st.st_ino, first, "%s was replaced by another output's run", path);
	AG_FMT(path, "%s/p.svg.jitprof/perf.data", dir);
	cr_expect(pf_exists(path), "%s", path);
	/* The same OUT again: its own data replaced, the other's kept. */
	pf_profile(&r, one, 100);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	AG_FMT(path, "%s/p.txt.jitprof/perf.data", dir);
	cr_expect(pf_exists(path), "%s", path);
	AG_FMT(path, "%s/p.svg.jitprof/perf.data", dir);
	cr_expect(pf_exists(path), "the txt's second run deleted %s", path);
	tu_rmtree(dir);
	free(dir);
}

/* Any other program that writes its own jitdump (samples/minijit, a toy JIT): recorded and
 * merged with nothing added; its three generations of checksum are in the report. */
Test(profile_launch, program_with_its_own_jitdump, .timeout = 300)
{
	char *dir = tu_tmpdir("profile-minijit"), out[PATH_MAX], mj[PATH_MAX];
	struct tu_result r;

	AG_FMT(out, "%s/m.txt", dir);
	cr_assert_not_null(realpath(tu_build("minijit"), mj), "minijit not built");
	const char *args[] = { "-o", out, "--", mj, NULL };
	pf_profile(&r, args, 300);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.err, "no process of the recording wrote a jitdump"), "%s", r.err);
	char *s = tu_read_file(out, NULL);
	cr_assert_not_null(s);
	cr_expect(pf_method_row(s, "checksum", NULL), "%.2000s", s);
	cr_expect_eq(pf_generations(s, "checksum"), 3, "%.4000s", s);
	free(s);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
