/* report_formats.c - the other outputs of `jitprof report` on a real recording (minijit,
 * perf record -g, jitprof inject): --collapsed matches the call graph and the table,
 * --flamegraph is XML (xmllint) holding the expected frames, --no-demangle shows the raw
 * names, and --help / bad input behave. */
#include "tests/e2e/report_util.h"

#define home rx_home
#define data rx_data

TestSuite(report_formats, .init = rx_setup_recording, .fini = rx_teardown, .timeout = 240);

static void recording(void)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	rx_record_minijit(dir, home);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
}

/* Sum of the counts of folded lines whose leaf frame is leaf (exactly). */
static unsigned long leaf_total(const char *folded, const char *leaf)
{
	unsigned long total = 0;
	size_t ll = strlen(leaf);
	for (const char *p = folded; *p;) {
		const char *e = strchr(p, '\n');
		const char *sp = e ? e : p + strlen(p);
		while (sp > p && *sp != ' ')
			sp--;
		const char *semi = sp;
		while (semi > p && semi[-1] != ';')
			semi--;
		if ((size_t)(sp - semi) == ll && !memcmp(semi, leaf, ll))
			total += strtoul(sp + 1, NULL, 10);
		if (!e)
			break;
		p = e + 1;
	}
	return total;
}

Test(report_formats, collapsed_matches_call_graph)
{
	recording();
	struct tu_result c, t, g;
	/* Leaves as the table keys them: one frame per generation, no inlined frames. */
	rx_ok(&c, "HOME='%s' '%s' report -i '%s' --collapsed --split-generations --no-inline "
	      "2>/dev/null", home, rx_jitprof, data);
	/* Per leaf: the folded counts add up to the table's samples for that row. */
	rx_ok(&t, "HOME='%s' '%s' report -i '%s' --sort generation,sym --json 2>/dev/null | "
	      "python3 -c 'import json,sys\n"
	      "for r in json.load(sys.stdin)[\"rows\"]:\n"
	      "  if r[\"generation\"] != \"-\": print(r[\"samples\"], r[\"sym\"], \"[\" + "
	      "r[\"generation\"].split()[0] + \" \" + r[\"generation\"].split()[1] + \"]\")'",
	      home, rx_jitprof, data);
	int rows = 0;
	for (const char *p = t.out; *p; rows++) {
		unsigned long n;
		char name[256], tag[64];
		cr_assert_eq(sscanf(p, "%lu %255s %63[^\n]", &n, name, tag), 3, "%s", t.out);
		char leaf[400];
		snprintf(leaf, sizeof(leaf), "%s %s", name, tag);
		cr_assert_eq(leaf_total(c.out, leaf), n, "%s: folded %lu, table %lu\n%s", leaf,
			     leaf_total(c.out, leaf), n, c.out);
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	cr_assert_geq(rows, 3, "%s", t.out);
	/* The caller-first call graph's trunk for the top row (or its first branch: the row of
	 * a method's generations summed may start from several roots) is a folded stacks'
	 * root. */
	rx_ok(&g, "HOME='%s' '%s' report -i '%s' -g caller --sort sym -n 1 --no-inline 2>/dev/null",
	      home, rx_jitprof, data);
	const char *trunk = strstr(g.out, "---"), *branch = strstr(g.out, "%--");
	cr_assert(trunk || branch, "%s", g.out);
	char root[256];
	sscanf(trunk ? trunk + 3 : branch + 3, "%255[^\n]", root);
	char needle[300];
	snprintf(needle, sizeof(needle), "minijit;%s;", root);
	cr_assert(strstr(c.out, needle), "root %s not in the folded stacks\n%s", root, c.out);
	tu_result_free(&c);
	tu_result_free(&t);
	tu_result_free(&g);
}

Test(report_formats, flamegraph_svg)
{
	recording();
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --flamegraph '%s/fg.svg' --split-generations "
	      "2>/dev/null", home, rx_jitprof, data, dir);
	tu_result_free(&r);
	if (tu_have("xmllint")) {
		rx_ok(&r, "xmllint --noout '%s/fg.svg'", dir);
		tu_result_free(&r);
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/fg.svg", dir);
	size_t len;
	char *svg = tu_read_file(path, &len);
	cr_assert_not_null(svg);
	cr_assert(strstr(svg, "data-n=\"checksum [gen 1]\""), "generation 1 frame missing");
	cr_assert(strstr(svg, "data-n=\"checksum [gen 2]\""), "generation 2 frame missing");
	cr_assert(strstr(svg, "data-n=\"fill [gen 1]\""), "fill missing");
	cr_assert(strstr(svg, "data-n=\"minijit\""), "comm root missing");
	free(svg);
}

Test(report_formats, no_demangle_and_errors)
{
	struct tu_result r;
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	if (rx_fixture(dir))
		cr_skip_test("fixture %s is not on this machine", RX_FIXTURE);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' -n 12 2>/dev/null", home, rx_jitprof, data);
	cr_assert(strstr(r.out, "[.] Fixture.fold(Fixture$Op[], int)"), "%s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' -n 12 --no-demangle 2>/dev/null", home,
	      rx_jitprof, data);
	cr_assert(strstr(r.out, "[.] LFixture;fold([LFixture$Op;I)J"), "%s", r.out);
	tu_result_free(&r);

	rx_ok(&r, "'%s' report --help", rx_jitprof);
	cr_assert(strstr(r.out, "usage: jitprof report"), "%s", r.out);
	cr_assert(strstr(r.out, "--generations"), "%s", r.out);
	tu_result_free(&r);
	cr_assert_eq(rx_sh(&r, "'%s' report -i '%s/missing.data'", rx_jitprof, dir), 0);
	cr_assert_neq(r.status, 0);
	cr_assert(strstr(r.err, "missing.data"), "%s", r.err);
	tu_result_free(&r);
	cr_assert_eq(rx_sh(&r, "'%s' report -i '%s' --sort dso,nonsense", rx_jitprof, data), 0);
	cr_assert_neq(r.status, 0);
	cr_assert(strstr(r.err, "nonsense"), "%s", r.err);
	tu_result_free(&r);
}

Test(report_formats, truncated_input_reports_what_was_read)
{
	recording();
	struct tu_result r;
	rx_ok(&r, "cd '%s' && head -c $(( $(stat -c %%s perf.jit.data) * 2 / 3 )) perf.jit.data > "
	      "cut.data && HOME='%s' '%s' report -q -i cut.data", dir, home, rx_jitprof);
	cr_assert(strstr(r.err, "cut.data: offset "), "the damage is not named: %s", r.err);
	/* What came before the cut is reported: some of the samples, in rows. Which ones is the
	 * file's order: perf writes each CPU's buffer in turn, so the exec's COMM (the name
	 * "minijit"; before it perf's child is "perf-exec") and inject's jitted maps may lie
	 * beyond the cut, and only the samples and their rows are certain. */
	const char *h = strstr(r.out, "# Samples: ");
	cr_assert_not_null(h, "%s", r.out);
	unsigned long cut = strtoul(h + 11, NULL, 10);
	cr_assert(strstr(r.out, "%  minijit  ") || strstr(r.out, "%  perf-exec  "), "%s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -q -i perf.jit.data", dir, home, rx_jitprof);
	h = strstr(r.out, "# Samples: ");
	cr_assert_not_null(h, "%s", r.out);
	unsigned long whole = strtoul(h + 11, NULL, 10);
	cr_assert(cut > 0 && cut < whole, "%lu of %lu samples reported from two thirds of the file",
		  cut, whole);
	tu_result_free(&r);
}
