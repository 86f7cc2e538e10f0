/* agent_lines.c - source lines of compiled Java code against ground truth: samples/java Lines
 * has methods whose one expensive line (marked EXPENSIVE in the source) costs far more than
 * the others; C2 compiles hot() on its own and outer() with inner() inlined. Recorded with
 * jitprof record and libagent.so, >= 90% of each method's samples must be on its expensive
 * line, few without a line, and every line table must start at the code (the prologue is on
 * the method's first line: descriptors cover the instructions before them). */
#include "tests/e2e/report_util.h"

TestSuite(agent_lines, .init = rx_setup, .fini = rx_teardown, .timeout = 300);

/* The line of samples/java/Lines.java that holds marker. */
static int marked_line(const char *marker)
{
	FILE *f = fopen("samples/java/Lines.java", "r");
	cr_assert_not_null(f, "samples/java/Lines.java not found (tests run from the checkout)");
	char buf[512];
	int n = 0, found = 0;
	while (!found && fgets(buf, sizeof(buf), f)) {
		n++;
		found = strstr(buf, marker) != NULL;
	}
	fclose(f);
	cr_assert(found, "no %s in Lines.java", marker);
	return n;
}

struct share {
	double all, on_line, no_line;
};

/* Sums the `--sort sym,srcline` rows of method (a prefix of the readable name). */
static struct share method_share(const char *out, const char *method, int line)
{
	struct share s = { 0 };
	char want[64];
	snprintf(want, sizeof(want), "Lines.java:%d", line);
	char row[1024];
	for (const char *p = out; rx_next_line(&p, row, sizeof(row));) {
		double pct;
		if (row[0] == '#' || sscanf(row, " %lf%%", &pct) != 1 || !strstr(row, method))
			continue;
		char *end = row + strlen(row);
		while (end > row && end[-1] == ' ')
			*--end = 0;
		const char *src = strrchr(row, ' ');
		src = src ? src + 1 : row;
		s.all += pct;
		s.on_line += strcmp(src, want) == 0 ? pct : 0;
		s.no_line += strncmp(src, "??", 2) == 0 ? pct : 0;
	}
	return s;
}

/* In the dump, every DEBUG_INFO of a Lines method starts at its load's code address. */
static void tables_start_at_the_code(const char *dumpdir)
{
	struct tu_result r;
	rx_ok(&r, "'%s' jitdump '%s'/jit-*.dump", rx_jitprof, dumpdir);
	size_t checked = 0;
	for (const char *p = strstr(r.out, "CODE_DEBUG_INFO"); p;
	     p = strstr(p + 1, "CODE_DEBUG_INFO")) {
		unsigned long long code = 0, first = 0;
		const char *c = strstr(p, "code_addr=0x"), *a = strstr(p, "addr=0x");
		const char *load = strstr(p, "CODE_LOAD");
		a = a ? strstr(a + 1, "addr=0x") : NULL;	/* past code_addr= */
		if (!c || !a || !load || sscanf(c, "code_addr=0x%llx", &code) != 1 ||
		    sscanf(a, "addr=0x%llx", &first) != 1)
			continue;
		const char *nl = strchr(load, '\n');
		if (!nl || !memmem(load, (size_t)(nl - load), "Ljitprof/samples/Lines;", 23))
			continue;
		cr_assert_eq(first, code, "a Lines line table starts at 0x%llx, its code at 0x%llx",
			     first, code);
		checked++;
	}
	cr_assert_gt(checked, 0, "no line table of a Lines method in the dump");
	tu_result_free(&r);
}

Test(agent_lines, expensive_line_gets_the_samples)
{
	char agent[PATH_MAX], classes[PATH_MAX], home[PATH_MAX], data[PATH_MAX], jit[PATH_MAX];
	if (!tu_have("java"))
		cr_skip_test("java is not installed");
	if (!realpath(tu_build("libagent.so"), agent) || !realpath(tu_build("java"), classes))
		cr_skip_test("the agent or samples/java are not built");
	int hot_line = marked_line("EXPENSIVE hot"), inner_line = marked_line("EXPENSIVE inner");
	snprintf(home, sizeof(home), "%s/home", dir);
	snprintf(jit, sizeof(jit), "%s/jit", dir);
	struct tu_result r;
	/* hot() and outer() stay methods of their own (main would inline them); inner() is
	 * inlined into outer(). */
	int rc = rx_sh(&r, "mkdir -p '%s' '%s' && cd '%s' && HOME='%s' '%s' record -q -k mono "
		       "-F 2000 -o perf.data -- %sjava -XX:CompileCommand=quiet "
		       "-XX:CompileCommand=dontinline,jitprof.samples.Lines::hot "
		       "-XX:CompileCommand=dontinline,jitprof.samples.Lines::outer "
		       "-agentpath:'%s'=dir='%s' -cp '%s' jitprof.samples.Lines 2500 >/dev/null",
		       jit, home, dir, home, rx_jitprof, tu_java_env_sh(agent), agent, jit,
		       classes);
	cr_assert_eq(rc, 0);
	if (r.status != 0 && strstr(r.err, "perf_event_open")) {
		cr_skip_test("no perf events here: %s", r.err);
	}
	cr_assert_eq(r.status, 0, "record failed: %s", r.err);
	tu_result_free(&r);
	tables_start_at_the_code(jit);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --sort sym,srcline 2>/dev/null", home,
	      rx_jitprof, data);
	struct share hot = method_share(r.out, "jitprof.samples.Lines.hot(", hot_line);
	struct share outer = method_share(r.out, "jitprof.samples.Lines.outer(", inner_line);
	cr_assert_gt(hot.all, 5.0, "hot() has %.2f%% of the samples:\n%s", hot.all, r.out);
	cr_assert_gt(outer.all, 5.0, "outer() has %.2f%% of the samples:\n%s", outer.all, r.out);
	cr_assert_geq(hot.on_line, 0.9 * hot.all, "hot(): %.2f%% of %.2f%% on line %d:\n%s",
		      hot.on_line, hot.all, hot_line, r.out);
	cr_assert_geq(outer.on_line, 0.9 * outer.all,
		      "outer(): %.2f%% of %.2f%% on inlined inner()'s line %d:\n%s",
		      outer.on_line, outer.all, inner_line, r.out);
	cr_assert_lt(hot.no_line + outer.no_line, 0.05 * (hot.all + outer.all),
		     "%.2f%% of the samples without a line:\n%s", hot.no_line + outer.no_line,
		     r.out);
	tu_result_free(&r);
}
