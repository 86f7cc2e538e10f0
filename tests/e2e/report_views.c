/* report_views.c - the flame graph and the options every view shares, on samples/java
 * Generations (phase 1's C2 code of total() inlines Square.area()): the SVG parses (xmllint),
 * is fitted and merged, shows the inlined area() frames by default and they hold what
 * --sort srcline charges to area()'s lines inside other methods; --no-inline and
 * --split-generations change that; --pid/--tid/--time/--method filter; options that cannot
 * apply are usage errors. */
#include <math.h>

#include "tests/e2e/report_util.h"

#define home rx_home
#define data rx_data

TestSuite(report_views, .init = rx_setup_recording, .fini = rx_teardown, .timeout = 300);

/* The first and last line of Square.area() in the sample's source: computed here, not
 * remembered. */
static void area_lines(unsigned *first, unsigned *last)
{
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/../samples/java/Generations.java", tu_build("."));
	size_t len;
	char *text = tu_read_file(src, &len);
	if (!text)
		text = tu_read_file("samples/java/Generations.java", &len);
	cr_assert_not_null(text, "samples/java/Generations.java not found");
	unsigned line = 1;
	int in_square = 0;
	*first = *last = 0;
	for (char *p = text; *p; p++) {
		if (!strncmp(p, "class Square", 12))
			in_square = 1;
		if (in_square && !*first && !strncmp(p, "double area()", 13))
			*first = line;
		if (*first && !*last && *p == '}')
			*last = line;
		if (*p == '\n')
			line++;
	}
	free(text);
	cr_assert(*first && *last >= *first, "Square.area() not found in the source");
}

static double xpath_num(const char *svg, const char *expr)
{
	struct tu_result r;
	rx_ok(&r, "xmllint --xpath '%s' '%s'", expr, svg);
	double v = strtod(r.out, NULL);
	tu_result_free(&r);
	return v;
}

#define AREA_I "jitprof.samples.Generations$Square.area()_[i]"

Test(report_views, flamegraph_java_inlined)
{
	if (!tu_have("xmllint") || !tu_have("python3"))
		cr_skip_test("xmllint or python3 is not installed");
	rx_record_java(home, "-g", "Generations 600");
	char svg[PATH_MAX];
	snprintf(svg, sizeof(svg), "%s/fg.svg", dir);
	rx_report_to_file("--flamegraph", "fg.svg");
	struct tu_result r;
	rx_ok(&r, "xmllint --noout '%s'", svg);
	tu_result_free(&r);

	double frames = xpath_num(svg, "count(//*[@class=\"f\"])");
	double total = xpath_num(svg, "sum(//*[@class=\"f\" and @data-d=\"0\"]/@data-c)");
	double narrow = xpath_num(svg, "count(//*[@class=\"f\"][@data-w < 1])");
	double area = xpath_num(svg, "sum(//*[@class=\"f\" and @data-n=\"" AREA_I "\"]/@data-c)");
	double area_k = xpath_num(svg, "count(//*[@data-n=\"" AREA_I "\" and @data-k=\"inlined\"])");
	double height = xpath_num(svg, "string(/*/@height)");
	cr_assert_geq(frames, 10, "too few frames (%g)", frames);
	cr_assert_eq(narrow, 0, "%g frames narrower than a pixel", narrow);
	cr_assert_gt(area, 0, "no inlined Square.area() frame by default");
	cr_assert_geq(area_k, 1, "inlined frames not marked as such");
	cr_assert_lt(height, 84 + 16 * 200, "height %g", height);
	/* Search says its share; a legend; the title names the samples. */
	rx_ok(&r, "grep -c 'Matched: ' '%s' && grep -c '>inlined</text>' '%s' && "
	      "grep -c ', %g samples, ' '%s'", svg, svg, total, svg);
	tu_result_free(&r);

	/* Opened in Chromium: the first screen shows the root (scrolled to the bottom), the
	 * header pinned over it, a good part of it drawn. */
	char script[PATH_MAX];
	if (rx_have_browser(script, "flamegraph_svg.js")) {
		char shots[PATH_MAX];
		snprintf(shots, sizeof(shots), "%s", tu_build("screenshots"));
		mkdir(shots, 0755);
		rx_ok(&r, "node '%s' '%s' '%s' '" AREA_I "'", script, svg, shots);
		fprintf(stderr, "report_views: %s", r.out);
		double h = strtod(strstr(r.out, "\"height\":") + 9, NULL);
		double sc = strtod(strstr(r.out, "\"scrolled\":") + 11, NULL);
		char pin[64];
		snprintf(pin, sizeof(pin), "\"pinned\":\"translate(0,%g)\"", sc);
		cr_assert(strstr(r.out, "\"errors\":[]"), "%s", r.out);
		cr_assert_leq(fabs(sc - (h > 600 ? h - 600 : 0)), 1, "not at the root: %s", r.out);
		cr_assert(strstr(r.out, pin), "header not pinned: %s", r.out);
		cr_assert_gt(strtod(strstr(r.out, "\"nonBackground\":") + 16, NULL), 0.05, "%s",
			     r.out);
		/* area()'s frame name typed as shown ($, parentheses, brackets: as a regex it
		 * would match nothing) finds the frames, their share as the file gives it. */
		const char *m = strstr(r.out, "\"matched\":\"Matched: ");
		cr_assert_not_null(m, "%s", r.out);
		double shown = strtod(m + strlen("\"matched\":\"Matched: "), NULL);
		cr_assert_leq(fabs(shown - 100 * area / total), 0.01, "search says %.2f%%, frames "
			      "%.2f%%", shown, 100 * area / total);
		tu_result_free(&r);
	} else {
		fprintf(stderr, "report_views: SVG not opened in Chromium: node, chromium or "
			"tests/browser's npm packages (make deps) are missing\n");
	}
	/* --method takes Java names as shown ($, parentheses, brackets): total() by its full
	 * name is the one method --generations lists; the inlined-only area() keeps samples in
	 * the flat table (its frames come from the leaf's inline chain), as many as have it
	 * innermost, no more than those with it anywhere on the stack (-g). */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --generations --method "
	      "'jitprof.samples.Generations.total(jitprof.samples.Generations$Shape[])' --json | "
	      "python3 -c 'import json,sys\nm=json.load(sys.stdin)[\"generations\"][\"methods\"]\n"
	      "print(len(m), m[0][\"method\"])'", home, rx_jitprof, data);
	cr_assert_str_eq(r.out, "1 jitprof.samples.Generations.total(jitprof.samples."
			 "Generations$Shape[])\n");
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --method 'Generations$Square.area()' --json",
	      home, rx_jitprof, data);
	unsigned long flat = strtoul(strstr(r.out, "\"samples\": ") + 11, NULL, 10);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --method 'Generations$Square.area()' -g "
	      "--json", home, rx_jitprof, data);
	unsigned long stacked = strtoul(strstr(r.out, "\"samples\": ") + 11, NULL, 10);
	tu_result_free(&r);
	cr_assert(flat > 0 && flat <= stacked, "area(): %lu samples flat, %lu with -g", flat,
		  stacked);

	/* What --sort srcline charges to area()'s lines inside other methods' code. */
	unsigned first, last;
	area_lines(&first, &last);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --sort sym,srcline --json | python3 -c '"
	      "import json,sys\n"
	      "n=0\n"
	      "for r in json.load(sys.stdin)[\"rows\"]:\n"
	      "  f,_,l=r[\"srcline\"].rpartition(\":\")\n"
	      "  if f==\"Generations.java\" and l.isdigit() and %u<=int(l)<=%u and "
	      "\"Square.area\" not in r[\"sym\"]: n+=r[\"samples\"]\n"
	      "print(n)'", home, rx_jitprof, data, first, last);
	double expect = strtod(r.out, NULL);
	tu_result_free(&r);
	cr_assert_gt(expect, 0, "no samples on Square.area()'s lines %u-%u", first, last);
	/* Shares of all samples within 1 point (the line table and the inline scopes of one
	 * pc may disagree at the edges of an inlined range). */
	cr_assert_leq(fabs(area - expect), total * 0.01,
		      "inlined area() frames %g samples, srcline %g, of %g", area, expect, total);

	/* --no-inline: gone; --split-generations: total() as several generations. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --flamegraph '%s' --no-inline", home,
	      rx_jitprof, data, svg);
	tu_result_free(&r);
	cr_assert_eq(xpath_num(svg, "count(//*[@data-n=\"" AREA_I "\"])"), 0);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --flamegraph '%s' --split-generations "
	      "--min-width 0.01", home, rx_jitprof, data, svg);
	tu_result_free(&r);
	cr_assert_geq(xpath_num(svg, "count(//*[starts-with(@data-n, \"jitprof.samples.Generations"
				".total(jitprof.samples.Generations$Shape[]) [gen \")])"), 2);
	cr_assert_eq(xpath_num(svg, "count(//*[starts-with(@data-n, \"Interpreter [gen\")])"), 0,
		     "the interpreter carries no generation");
	/* A recording against itself: nothing changed, every frame white. */
	rx_ok(&r, "HOME='%s' '%s' report -q --diff '%s' '%s' --flamegraph '%s'", home, rx_jitprof,
	      data, data, svg);
	tu_result_free(&r);
	cr_assert_gt(xpath_num(svg, "count(//*[@class=\"f\"])"), 10);
	cr_assert_eq(xpath_num(svg, "count(//*[@class=\"f\"]/*[local-name()=\"rect\" and "
			       "@fill!=\"rgb(255,255,255)\"])"), 0, "a change against itself");
	/* Two sampled generations of total(): the later one against the earlier, coloured. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --generations --method '^%s' --json | "
	      "python3 -c 'import json,sys\n"
	      "g=[x for x in json.load(sys.stdin)[\"generations\"][\"methods\"][0][\"generations\"]"
	      " if x[\"samples\"]]\n"
	      "g=sorted(sorted(g, key=lambda x: -x[\"samples\"])[:2], key=lambda x: x[\"generation\"])\n"
	      "print(*[x[\"generation\"] for x in g])'", home, rx_jitprof, data,
	      "jitprof\\.samples\\.Generations\\.total\\(");
	unsigned ga, gb;
	if (sscanf(r.out, "%u %u", &ga, &gb) == 2) {
		tu_result_free(&r);
		rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --flamegraph '%s' --diff-generations "
		      "'Generations\\.total\\(' %u %u", home, rx_jitprof, data, svg, ga, gb);
		cr_assert_geq(xpath_num(svg, "count(//*[@class=\"f\"]/*[local-name()=\"rect\" and "
					"@fill!=\"rgb(255,255,255)\"])"), 1, "generations %u and %u alike", ga,
			      gb);
		/* The samples of those generations are the Java main thread's ("java"): a stray
		 * sample whose thread's name perf recorded late may name another command. */
		double all = xpath_num(svg, "sum(//*[@data-d=\"0\"]/@data-c)");
		double java = xpath_num(svg, "sum(//*[@data-d=\"1\" and @data-n=\"java\"]/@data-c)");
		if (java < all) {
			struct tu_result names;
			rx_ok(&names, "xmllint --xpath '//*[@data-d=\"1\"]/@data-n' '%s'", svg);
			fprintf(stderr, "report_views: --diff-generations, commands: %s (java %g of "
				"%g samples)\n", names.out, java, all);
			tu_result_free(&names);
		}
		cr_assert_geq(java, all * 0.95, "java: %g of %g samples", java, all);
	} else {
		fprintf(stderr, "report_views: fewer than two sampled generations of total(), "
			"--diff-generations not checked: %s\n", r.out);
	}
	tu_result_free(&r);
	/* Reversed: the inlined leaf sits right on the root. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --flamegraph '%s' --reverse", home,
	      rx_jitprof, data, svg);
	tu_result_free(&r);
	cr_assert_eq(xpath_num(svg, "count(//*[@data-d=\"1\" and @data-n=\"" AREA_I "\"])"), 1);
}

/* Sums the counts of folded stacks (on stdin) with a frame named exactly NAME, or starting
 * with NAME when it ends in a space: one count per stack. */
#define SUM_FRAMES "python3 -c 'import sys\n" \
	"n=sys.argv[1]\nt=0\n" \
	"for l in sys.stdin:\n" \
	"  s,_,c=l.rstrip().rpartition(\" \")\n" \
	"  fr=s.split(\";\")\n" \
	"  if any(f==n or (n.endswith(\" \") and f.startswith(n)) for f in fr): t+=int(c)\n" \
	"print(t)'"

/* -g callee --sort comm: the first-level branches (12 spaces, then "|--" or " --") named
 * NAME, or starting with NAME when it ends in a space: how many, and their sum. */
#define FIRST_LEVEL "python3 -c 'import sys,re\n" \
	"n=sys.argv[1]\nk=0\nt=0.0\n" \
	"for l in sys.stdin:\n" \
	"  m=re.match(r\"^ {12}[| ]--([0-9.]+)%%--(.*)$\", l.rstrip(\"\\n\"))\n" \
	"  if m and (m.group(2)==n or (n.endswith(\" \") and m.group(2).startswith(n))):\n" \
	"    k+=1; t+=float(m.group(1))\n" \
	"print(k, t)'"

/* A method's generations are one frame by default in -g and --collapsed, one per generation
 * with --split-generations, with the same samples: minijit's checksum has three. */
Test(report_views, generations_one_frame_minijit)
{
	if (!tu_have("perf") || !tu_have("python3"))
		cr_skip_test("perf or python3 is not installed");
	rx_record_minijit(dir, home);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	/* Folded stacks: no generation by default; split, each of the three is there. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --collapsed", home, rx_jitprof, data);
	cr_assert_null(strstr(r.out, "[gen "), "%.2000s", r.out);
	cr_assert(strstr(r.out, ";checksum"), "%.2000s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --collapsed --split-generations", home,
	      rx_jitprof, data);
	unsigned gens = 0;
	for (unsigned g = 1; g <= 3; g++) {
		char name[64];
		snprintf(name, sizeof(name), ";checksum [gen %u]", g);
		gens += strstr(r.out, name) != NULL;
	}
	/* A generation can go unsampled on a loaded machine: at least two must show. */
	cr_assert_geq(gens, 2, "%.3000s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --collapsed | " SUM_FRAMES " checksum", home,
	      rx_jitprof, data);
	unsigned long merged = strtoul(r.out, NULL, 10);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --collapsed --split-generations | "
	      SUM_FRAMES " 'checksum [gen '", home, rx_jitprof, data);
	unsigned long split = strtoul(r.out, NULL, 10);
	tu_result_free(&r);
	cr_assert_gt(merged, 0);
	cr_assert_eq(merged, split, "checksum: %lu samples merged, %lu split", merged, split);

	/* -g (callee order, one row): checksum once at the first level, its generations
	 * several times with --split-generations, the same share in all. */
	unsigned n1, n2;
	double p1, p2;
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' -g callee --sort comm --percent-limit 0 | "
	      FIRST_LEVEL " checksum", home, rx_jitprof, data);
	cr_assert_eq(sscanf(r.out, "%u %lf", &n1, &p1), 2, "%s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' -g callee --sort comm --percent-limit 0 "
	      "--split-generations | " FIRST_LEVEL " 'checksum [gen '", home, rx_jitprof, data);
	cr_assert_eq(sscanf(r.out, "%u %lf", &n2, &p2), 2, "%s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' -g callee --sort comm --percent-limit 0",
	      home, rx_jitprof, data);
	cr_assert_null(strstr(r.out, "[gen "), "%.3000s", r.out);
	tu_result_free(&r);
	cr_assert_eq(n1, 1, "checksum %u times at the first level", n1);
	cr_assert_geq(n2, 2, "checksum's generations %u times at the first level", n2);
	/* Each printed share is rounded to 0.01. */
	cr_assert_leq(fabs(p1 - p2), 0.01 * (n2 + 1), "checksum %.2f%%, its generations %.2f%%",
		      p1, p2);

	/* The flame graph's one checksum frame says its generations in its tooltip. */
	char svg[PATH_MAX];
	size_t len;
	snprintf(svg, sizeof(svg), "%s/gens.svg", dir);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --flamegraph '%s'", home, rx_jitprof, data,
	      svg);
	tu_result_free(&r);
	char *text = tu_read_file(svg, &len);
	cr_assert_not_null(text);
	const char *tip = strstr(text, "<title>checksum (");
	cr_assert_not_null(tip, "no checksum frame");
	cr_assert(strstr(tip, "; generations: gen 1 ") &&
		  strstr(tip, "; generations: gen 1 ") < strstr(tip, "</title>"),
		  "checksum's tooltip: %.200s", tip);
	/* All three, sampled or not (a mapping no frame landed in is made a load once the
	 * replay shows its method sampled). */
	for (unsigned g = 1; g <= 3; g++) {
		char want[32];
		snprintf(want, sizeof(want), " gen %u ", g);
		const char *at = strstr(tip, want);
		cr_assert(at && at < strstr(tip, "</title>"), "no%s in checksum's tooltip: %.300s",
			  want, tip);
	}
	free(text);
}

/* Filters on a quick minijit recording: every output sees the same samples. */
Test(report_views, filters_and_usage_errors)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	rx_record_minijit(dir, home);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	/* --pid of the heaviest process keeps its samples (its --sort pid row), a pid no
	 * process has keeps nothing. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --sort pid --json | python3 -c 'import json,"
	      "sys\nd=json.load(sys.stdin)\nr=d[\"rows\"][0]\n"
	      "print(d[\"samples\"], r[\"samples\"], r[\"pid\"].split(\":\")[0])'",
	      home, rx_jitprof, data);
	unsigned long all, mine, pid;
	cr_assert_eq(sscanf(r.out, "%lu %lu %lu", &all, &mine, &pid), 3, "%s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --pid %lu --collapsed | awk '{n+=$NF} END "
	      "{print n}'", home, rx_jitprof, data, pid);
	cr_assert_eq(strtoul(r.out, NULL, 10), mine, "%s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --pid 2147483647 --json", home, rx_jitprof,
	      data);
	cr_assert(strstr(r.out, "\"samples\": 0,"), "%s", r.out);
	tu_result_free(&r);
	/* A time window keeps a part; --method keeps samples with checksum on the stack. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --time 0,0.1 --json", home, rx_jitprof, data);
	unsigned long part = strtoul(strstr(r.out, "\"samples\": ") + 11, NULL, 10);
	cr_assert(part > 0 && part < all, "window 0-0.1 s: %lu of %lu", part, all);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --method '^checksum$' --collapsed", home,
	      rx_jitprof, data);
	for (const char *p = r.out; *p; p = strchr(p, '\n') + 1) {
		cr_assert(strstr(p, ";checksum") && strstr(p, ";checksum") < strchr(p, '\n'),
			  "a stack without checksum: %.200s", p);
	}
	tu_result_free(&r);

	/* --method that is no regex: matched as typed (nothing here has a '(' in its name),
	 * with a warning that says so. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --method 'checksum(' --json", home,
	      rx_jitprof, data);
	cr_assert(strstr(r.out, "\"samples\": 0,"), "%s", r.out);
	cr_assert(strstr(r.err, "'checksum(' is no regular expression"), "%s", r.err);
	tu_result_free(&r);

	/* --json honours -g callee (stacks leaf first: the row's symbol is the first frame after
	 * the inlined ones, or a kernel frame interrupted it; a jitted method's inlined callee is
	 * its own row, "inlined", its stacks' first frame) and --percent-limit (rows at or over
	 * it). */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --json -g callee --sort sym | python3 -c '"
	      "import json,sys\n"
	      "for row in json.load(sys.stdin)[\"rows\"]:\n"
	      "  for st in row[\"stacks\"]:\n"
	      "    if row.get(\"inlined\"):\n"
	      "      assert st[\"frames\"][0] == row[\"sym\"] + \"_[i]\", (row, st)\n"
	      "      continue\n"
	      "    f=[x for x in st[\"frames\"] if not x.endswith(\"_[i]\")][0]\n"
	      "    a=f.rsplit(\"+0x\",1)\n"	/* unnamed: dso+0xADDR, the row: 0xADDR */
	      "    same=len(a)==2 and row[\"sym\"].startswith(\"0x\") and "
	      "int(a[1],16)==int(row[\"sym\"],16)\n"
	      "    assert row[\"sym\"].startswith(f) or same or f.endswith(\"_[k]\"), "
	      "(row[\"sym\"], st)\n"
	      "print(\"ok\")'", home, rx_jitprof, data);
	cr_assert_str_eq(r.out, "ok\n");
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --json --sort sym --percent-limit 10 | "
	      "python3 -c 'import json,sys\nrows=json.load(sys.stdin)[\"rows\"]\n"
	      "print(len(rows), min(r[\"overhead\"] for r in rows))'", home, rx_jitprof, data);
	unsigned nrows;
	double least;
	cr_assert_eq(sscanf(r.out, "%u %lf", &nrows, &least), 2, "%s", r.out);
	cr_assert_geq(least, 10.0, "a row under --percent-limit 10: %s", r.out);
	tu_result_free(&r);

	/* Usage errors: exit 2 with the reason. */
	static const char *const bad[][2] = {
		{ "--time 5,1", "--time" }, { "--pid x", "--pid" }, { "--min-width 0", "--min-width" },
		{ "--json --collapsed", "ask for one" }, { "--flamegraph x.svg --sort sym", "--sort" },
		{ "--reverse", "--reverse" }, { "--generations -g", "-g adds" },
		{ "--pprof x.pb.gz -n 3", "-n limits" },
		{ "--split-generations --generations", "--split-generations splits a method's rows" },
		{ "--methods --collapsed", "ask for one" },
		{ "--collapsed -g callee", "outermost first" },
		{ "--flamegraph x.svg --percent-limit 5", "--percent-limit" },
		{ "--jvm-log x.log", "--jvm-log explains generations" },
		{ "--compare checksum 1 2 --method fill", "names its method" },
		{ "--diff a.data", "two recordings" },
		{ "--flamegraph x.svg --diff-generations m 1", "GEN_A GEN_B" },
		{ "--diff a b --pprof x.pb.gz", "--flamegraph or --html only" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(rx_sh(&r, "HOME='%s' '%s' report -q -i '%s' %s", home, rx_jitprof, data,
				   bad[i][0]), 0);
		cr_assert_eq(r.status, 2, "%s: exit %d", bad[i][0], r.status);
		cr_assert(strstr(r.err, bad[i][1]), "%s: %s", bad[i][0], r.err);
		tu_result_free(&r);
	}
}
