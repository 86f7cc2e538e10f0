/* report_archive.c - "another machine": record and inject with HOME=A, `jitprof archive`,
 * then report with HOME=B (empty), the dump directory and A gone and --symfs pointing at an
 * empty directory, so only the archive can supply ELFs: the same table, symbol for symbol.
 * The generations view of a JVM recorded with the agent is the same from the archive as
 * beside its dumps (every generation, its level and compile id). And a file whose build-id
 * differs from the recorded one is refused, naming both ids. */
#include "tests/e2e/report_util.h"
#include "tests/e2e/agent_util.h"

TestSuite(report_archive, .init = rx_setup, .fini = rx_teardown, .timeout = 240);

/* minijit recorded and injected by jitprof with HOME=dir/A; the report as machine A sees it. */
static char *record_on_a(void)
{
	char home[PATH_MAX];
	snprintf(home, sizeof(home), "%s/A", dir);
	rx_record_minijit(dir, home);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && mkdir -p B empty && HOME='%s' '%s' inject --jit -q -i perf.data "
	      "-o perf.jit.data", dir, home, rx_jitprof);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data 2>/dev/null", dir, home,
	      rx_jitprof);
	char *out = strdup(r.out);
	tu_result_free(&r);
	return out;
}

Test(report_archive, another_machine_same_symbols)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char *a = record_on_a();
	cr_assert(strstr(a, "[.] checksum"), "%s", a);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s/A' '%s' archive -i perf.jit.data -o perf.tar.zst", dir, dir,
	      rx_jitprof);
	tu_result_free(&r);
	/* Machine B: nothing but the recording and the archive. */
	rx_ok(&r, "cd '%s' && mv A A.gone && mv jit jit.gone && HOME='%s/B' '%s' report -i "
	      "perf.jit.data --archive perf.tar.zst --symfs '%s/empty' 2>/dev/null", dir, dir,
	      rx_jitprof, dir);
	cr_assert_str_eq(r.out, a, "machine B's report differs:\n%s\nmachine A's:\n%s", r.out, a);
	tu_result_free(&r);
	/* Without the archive B has no jitted symbols at all: the test above is not vacuous. */
	rx_ok(&r, "cd '%s' && HOME='%s/B' '%s' report -i perf.jit.data --symfs '%s/empty' "
	      "2>/dev/null", dir, dir, rx_jitprof, dir);
	cr_assert_null(strstr(r.out, "[.] checksum"), "%s", r.out);
	tu_result_free(&r);
	free(a);
}

Test(report_archive, mismatched_build_id_refused)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char *a = record_on_a();
	free(a);
	struct tu_result r;
	/* Another generation's ELF where checksum's fourth load should be. */
	rx_ok(&r, "cd '%s/jit' && for f in jitted-*-1.so; do cp \"$f\" \"${f%%-1.so}-4.so\"; done",
	      dir);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && eu-readelf -n jit/jitted-*-1.so | sed -n 's/.*Build ID: //p'", dir);
	char wrong[64] = "";
	sscanf(r.out, "%63s", wrong);
	tu_result_free(&r);
	cr_assert(strlen(wrong) == 40, "no build-id read");
	rx_ok(&r, "cd '%s' && HOME='%s/B' '%s' report -i perf.jit.data --symfs /", dir, dir,
	      rx_jitprof);
	char expect[128];
	snprintf(expect, sizeof(expect), "build-id %s differs", wrong);
	cr_assert(strstr(r.err, expect), "no refusal naming %s:\n%s", wrong, r.err);
	cr_assert(strstr(r.err, "refused"), "%s", r.err);
	/* The recorded id is named too, and the refused file lends no symbol to its rows. */
	const char *line = strstr(r.err, expect);
	cr_assert(strstr(line, "recorded build-id "), "%s", r.err);
	const char *row = strstr(r.out, "-4.so ");
	cr_assert_not_null(row, "%s", r.out);
	cr_assert(strncmp(strstr(row, "[.] "), "[.] checksum", 12), "%s", r.out);
	tu_result_free(&r);
}

/* Rows of a generations view whose level and compile id are numbers ("   3  C2  4  16 ..."). */
static int rows_with_ids(const char *view)
{
	char line[512], tier[16];
	unsigned gen, lvl, id;
	int n = 0;

	for (const char *p = view; rx_next_line(&p, line, sizeof(line));)
		n += sscanf(line, " %u %15s %u %u", &gen, tier, &lvl, &id) == 4;
	return n;
}

/* Issue 38: a JVM under the agent, injected --no-elfs (profile's way: no ELF for a generation
 * no sample landed in), archived; on "another machine" (the dumps moved away, HOME empty, a
 * fresh directory) report --archive --generations shows the rows it shows beside the dumps,
 * generations without samples, levels and compile ids included, with at most two warnings. */
Test(report_archive, generations_from_the_archive, .timeout = 300)
{
	struct ag_jdk jdk;
	struct tu_result r;

	if (ag_jdks(&jdk, 1) < 1) {
		tu_skip_part("no JDK under /usr/lib/jvm: the generations of a JVM not archived");
		return;
	}
	/* (with a sanitized build, the JVM gets the agent's runtime: ag_env_sh) */
	rx_ok(&r, "cd '%s' && mkdir -p B fresh away && %s'%s' profile -q -o p.txt -- "
	      "'%s/bin/java' -cp '%s' jitprof.samples.Generations 100 >/dev/null && "
	      "'%s' report -q -i p.txt.jitprof/perf.jit.data --generations", dir, ag_env_sh(),
	      rx_jitprof, jdk.home, ag_classpath(), rx_jitprof);
	char *a = strdup(r.out);
	tu_result_free(&r);
	cr_assert_geq(rows_with_ids(a), 2, "JDK %d: no generations with levels and ids:\n%s",
		      jdk.major, a);
	if (!strstr(a, " 0.00% "))
		cr_log_warn("JDK %d: every generation had samples this run: those without were "
			    "not checked", jdk.major);
	rx_ok(&r, "cd '%s' && '%s' archive -i p.txt.jitprof/perf.jit.data -o p.tar.zst && "
	      "mv p.txt.jitprof/jit-* away/", dir, rx_jitprof);
	cr_expect(strstr(r.err, "; 1 jitdump"), "%s", r.err);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s/fresh' && HOME='%s/B' '%s' report -i ../p.txt.jitprof/perf.jit.data "
	      "--archive ../p.tar.zst --generations", dir, dir, rx_jitprof);
	cr_expect_str_eq(r.out, a, "the archive's generations differ:\n%s\nbeside the dumps:\n%s",
			 r.out, a);
	size_t lines = 0;
	for (const char *p = r.err; (p = strchr(p, '\n')); p++)
		lines++;
	cr_expect_leq(lines, 2, "%zu warning lines:\n%s", lines, r.err);
	tu_result_free(&r);
	free(a);
}
