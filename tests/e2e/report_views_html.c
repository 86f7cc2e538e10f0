/* report_views_html.c - `jitprof report --html` on samples/java Generations in a real headless
 * Chromium (tests/browser/html_report.js, puppeteer-core): the page opens with no network
 * request and no script error, the flame graph renders (pixel statistics of screenshots kept
 * in build/screenshots/), searching the inlined area() frames highlights them and prints the
 * share the folded stacks give, a click zooms, and the timeline has one lane per generation of
 * total() as --generations counts them, each marked where its activity ended as --generations
 * says (the replaced ones naming their successor); a Java name typed into the search as shown
 * is found as text. */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/e2e/report_util.h"

#define home rx_home
#define data rx_data

TestSuite(report_views_html, .init = rx_setup_recording, .fini = rx_teardown, .timeout = 300);

#define TOTAL "jitprof.samples.Generations.total(jitprof.samples.Generations$Shape[])"

/* The number that follows "key":TEXT in the script's one-line JSON (TEXT "" for a number,
 * "\"Matched: " for what the search box printed). */
static double jnum_as(const char *json, const char *key, const char *text)
{
	char k[128];
	snprintf(k, sizeof(k), "\"%s\":%s", key, text);
	const char *p = strstr(json, k);
	cr_assert_not_null(p, "no %s in %s", k, json);
	return strtod(p + strlen(k), NULL);
}

#define jnum(json, key) jnum_as(json, key, "")
#define jmatched(json, key) jnum_as(json, key, "\"Matched: ")

/* The page of samples/java Generations (-g) in dir/r.html, and the browser script NAME's path
 * in script (the test skipped where it cannot run). */
static void html_of_generations(char *script, const char *name)
{
	if (!rx_have_browser(script, name))
		cr_skip_test("node, /usr/bin/chromium or tests/browser's npm packages (make deps) "
			     "are missing");
	rx_record_java(home, "-g", "Generations 600");
	rx_report_to_file("--html", "r.html");
}

Test(report_views_html, chromium)
{
	char script[PATH_MAX], shots[PATH_MAX];
	html_of_generations(script, "html_report.js");
	struct tu_result r;
	/* Expectations from the text outputs: the share of stacks through an inlined area(),
	 * and total()'s generations. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --collapsed | awk '{n+=$NF} "
	      "/area\\(\\)_\\[i\\]/ {m+=$NF} END {printf \"%%.4f\\n\", 100*m/n}'", home, rx_jitprof,
	      data);
	double share = strtod(r.out, NULL);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --generations --method '^%s$' --json | "
	      "python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"generations\"]"
	      "[\"methods\"][0][\"generations\"]))'", home, rx_jitprof, data,
	      "jitprof\\.samples\\.Generations\\.total\\(jitprof\\.samples\\.Generations\\$Shape"
	      "\\[\\]\\)");
	int gens = atoi(r.out);
	tu_result_free(&r);
	cr_assert_geq(gens, 2, "total() has %d generations", gens);
	/* How each generation's lane should end: marked by what ended it, unless it ran to the
	 * recording's end. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --generations --method '^%s$' --json | "
	      "python3 -c 'import json,sys\n"
	      "g=json.load(sys.stdin)[\"generations\"][\"methods\"][0][\"generations\"]\n"
	      "print(\";\".join(x[\"ended_by\"][\"kind\"] if x[\"ended_by\"][\"kind\"]!=\"running\""
	      " and x[\"active_until_source\"]!=\"recording_end\" else \"\" for x in g))'", home,
	      rx_jitprof, data,
	      "jitprof\\.samples\\.Generations\\.total\\(jitprof\\.samples\\.Generations\\$Shape"
	      "\\[\\]\\)");
	char want_ends[512];
	snprintf(want_ends, sizeof(want_ends), "%.*s", (int)strcspn(r.out, "\n"), r.out);
	tu_result_free(&r);
	cr_assert(strchr(want_ends, ';') && strstr(want_ends, "replaced"),
		  "total() has no replaced generation: %s", want_ends);

	snprintf(shots, sizeof(shots), "%s", tu_build("screenshots"));
	mkdir(shots, 0755);
	rx_ok(&r, "node '%s' '%s/r.html' '%s' 'area\\(\\)_\\[i\\]' '" TOTAL "' '" TOTAL "'",
	      script, dir, shots);
	const char *o = r.out;
	fprintf(stderr, "report_views_html: %s", o);
	cr_assert(strstr(o, "\"network\":[]"), "the page fetched something: %s", o);
	cr_assert(strstr(o, "\"errors\":[]"), "script errors: %s", o);
	cr_assert_gt(jnum(o, "drawn"), 20, "flame graph frames drawn: %s", o);
	/* Not blank: a good part of the first screen is drawn, in many colours. */
	cr_assert_gt(jnum(strstr(o, "\"page\""), "nonBackground"), 0.1, "%s", o);
	cr_assert_gt(jnum(strstr(o, "\"page\""), "colours"), 20, "%s", o);
	/* Search: highlighted pixels, and the share the folded stacks give (within 1 point:
	 * the page merges frames narrower than 0.1 px). */
	const char *m = strstr(o, "\"matched\":\"Matched: ");
	cr_assert_not_null(m, "%s", o);
	double shown = strtod(m + strlen("\"matched\":\"Matched: "), NULL);
	cr_assert_gt(share, 0, "no inlined area() frame in the folded stacks");
	cr_assert_leq(fabs(shown - share), 1.0, "page says %.2f%%, folded stacks %.2f%%", shown,
		      share);
	cr_assert_gt(jnum(strstr(o, "\"search\""), "magenta"), 50, "no highlight: %s", o);
	/* Click zoom: the frame clicked is the zoomed one, details name it. */
	cr_assert(strstr(o, "\"zoom\":\"" TOTAL "\""), "%s", o);
	cr_assert(strstr(o, "\"details\":\"" TOTAL), "%s", o);
	/* ... drawn as wide as the canvas, its row coloured edge to edge (how much of the shot
	 * is drawn depends on the stacks under it: the kernel's, the JVM's, this machine's). */
	cr_assert_gt(jnum(strstr(o, "\"zoomShot\""), "nonBackground"), 0.05, "%s", o);
	cr_assert_geq(jnum(o, "zoomWidth"), 0.99, "%s", o);
	cr_assert_gt(jnum(strstr(o, "\"zoomRow\""), "nonBackground"), 0.9, "%s", o);
	/* The timeline: one lane per generation, each ending as --generations says (the
	 * replaced ones name their successor beside the marker). */
	cr_assert_eq((int)jnum(o, "lanes"), gens, "%s", o);
	char got_ends[512] = "";
	const char *e = strstr(o, "\"ends\":[");
	cr_assert_not_null(e, "%s", o);
	e += strlen("\"ends\":[");
	for (int first = 1; *e == '"'; first = 0) {
		const char *q = strchr(e + 1, '"'), *colon = strchr(e + 1, ':');
		cr_assert_not_null(q, "%s", o);
		int kind = colon && colon < q ? (int)(colon - e - 1) : 0;
		size_t n = strlen(got_ends);
		snprintf(got_ends + n, sizeof(got_ends) - n, "%s%.*s", first ? "" : ";", kind, e + 1);
		if (kind && !strncmp(e + 1, "replaced", 8))
			cr_expect(!strncmp(colon, ": replaced by gen ", 18), "%.*s", (int)(q - e), e);
		e = q + 1;
		if (*e == ',')
			e++;
	}
	cr_expect_str_eq(got_ends, want_ends, "lanes ended: page %s, --generations %s", got_ends,
			 want_ends);
	/* HotSpot code and no compilation log: the page says how to get the reasons. */
	cr_expect(strstr(o, "\"sources\":\"No HotSpot compilation log: ") &&
		  strstr(o, "--jvm-log FILE, or jitprof profile --jvm-log."), "%s", o);
	cr_assert_gt(jnum(strstr(o, "\"timeline\""), "nonBackground"), 0.05, "%s", o);
	/* A Java name typed as shown ($, parentheses, brackets: no regex would match it), and
	 * its text cut after the '(' (no valid regex at all): both found as text, no error. */
	cr_assert_gt(jmatched(o, "typedMatched"), 0, "%s", o);
	cr_assert_gt(jmatched(o, "unbalancedMatched"), 0, "%s", o);
	cr_assert_lt(jnum(o, "loadMs"), 20000, "%s", o);
	tu_result_free(&r);
}

/* --html --diff: the page's flame graph coloured by change. A recording against itself is
 * all white with no change; two generations of minijit's checksum (the later one's samples
 * against the earlier one's) give red frames (what grew), a legend that says so, and the change
 * the SVG of the same comparison gives. */
Test(report_views_html, diff)
{
	char script[PATH_MAX], shots[PATH_MAX];
	if (!rx_have_browser(script, "html_diff.js"))
		cr_skip_test("node, /usr/bin/chromium or tests/browser's npm packages (make deps) "
			     "are missing");
	if (!tu_have("perf") || !tu_have("xmllint"))
		cr_skip_test("perf or xmllint is not installed");
	rx_record_minijit(dir, home);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	snprintf(shots, sizeof(shots), "%s", tu_build("screenshots"));
	mkdir(shots, 0755);

	rx_ok(&r, "HOME='%s' '%s' report -q --diff '%s' '%s' --html '%s/self.html'", home,
	      rx_jitprof, data, data, dir);
	cr_assert_str_eq(r.out, "", "nothing but the file on stdout");
	tu_result_free(&r);
	rx_ok(&r, "node '%s' '%s/self.html' '%s' html-diff-self.png", script, dir, shots);
	fprintf(stderr, "report_views_html diff (self): %s", r.out);
	cr_assert(strstr(r.out, "\"network\":[]") && strstr(r.out, "\"errors\":[]"), "%s", r.out);
	cr_assert(strstr(r.out, "a larger share of samples than in the base"), "%s", r.out);
	cr_assert_eq(jnum(r.out, "maxChange"), 0, "%s", r.out);
	cr_assert_eq(jnum(r.out, "red") + jnum(r.out, "blue"), 0, "%s", r.out);
	cr_assert_gt(jnum(r.out, "white"), 0.2 * jnum(r.out, "pixels"), "%s", r.out);
	tu_result_free(&r);

	/* The sampled generations of checksum, the two heaviest, later against earlier. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --generations --method '^checksum$' --json | "
	      "python3 -c 'import json,sys\n"
	      "g=[x for x in json.load(sys.stdin)[\"generations\"][\"methods\"][0][\"generations\"]"
	      " if x[\"samples\"]]\n"
	      "g=sorted(sorted(g, key=lambda x: -x[\"samples\"])[:2], key=lambda x: x[\"generation\"])\n"
	      "print(*[x[\"generation\"] for x in g])'", home, rx_jitprof, data);
	unsigned ga, gb;
	if (sscanf(r.out, "%u %u", &ga, &gb) != 2) {
		fprintf(stderr, "report_views_html: fewer than two sampled generations of checksum "
			"(%s), the coloured diff not checked\n", r.out);
		tu_result_free(&r);
		return;
	}
	tu_result_free(&r);
	const char *cmp = "--diff-generations '^checksum$'";
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' %s %u %u --html '%s/gen.html' --flamegraph "
	      "'%s/gen.svg'", home, rx_jitprof, data, cmp, ga, gb, dir, dir);
	tu_result_free(&r);
	rx_ok(&r, "node '%s' '%s/gen.html' '%s' html-diff-generations.png", script, dir, shots);
	fprintf(stderr, "report_views_html diff (generations %u, %u): %s", ga, gb, r.out);
	cr_assert(strstr(r.out, "\"errors\":[]"), "%s", r.out);
	cr_assert(strstr(r.out, "differential"), "%s", r.out);
	double page = jnum(r.out, "maxChange");
	/* html_diff.js counts a pixel red or blue from 15 levels off white: a change of 0.3
	 * points at full colour at 5. Two generations this JVM ran alike may move less, or move
	 * only in frames too narrow to draw: the colours are checked on the drawn frames. */
	double drawn = jnum(r.out, "maxDrawnChange");
	if (drawn >= 0.5)
		cr_assert_gt(jnum(r.out, "red") + jnum(r.out, "blue"), 0, "no frame coloured: %s",
			     r.out);
	else
		fprintf(stderr, "report_views_html: generations %u and %u differ by %.2f points in the "
			"drawn frames, too little to colour a pixel; the colours not checked\n", ga, gb,
			drawn);
	tu_result_free(&r);
	/* The SVG of the same comparison: its largest change, from its tooltips. */
	rx_ok(&r, "xmllint --xpath '//*[local-name()=\"title\"]/text()' '%s/gen.svg' | "
	      "grep -o '[-+][0-9.]* points since' | tr -d '+-' | sort -g | tail -1", dir);
	double svg = strtod(r.out, NULL);
	tu_result_free(&r);
	/* Generations that ran alike can differ by nothing at all (both all one stack): then
	 * the page and the SVG must both say 0; a drawn change must show in both. */
	if (drawn >= 0.5)
		cr_assert_gt(page, 0);
	cr_assert_leq(fabs(page - svg), 0.011, "page %.2f points, SVG %.2f", page, svg);
}

/* Issue 34 finding 13: names that would change the HTML parser's state if the page embedded
 * them raw ("<!--<script>" put the data block in the script-data escaped states, the page's
 * own code was then read as data and the page stayed blank). A program whose functions and
 * command name are such names, recorded by perf: the page renders them, runs its code with no
 * error, and clicking a hostile frame zooms into it. */
static const char hostile_src[] =
	"#include <sys/prctl.h>\n#include <time.h>\n"
	"static volatile unsigned long sink;\n"
	"#define SPIN(fn, label, n) __attribute__((noinline)) void fn(void) __asm__(label); \\\n"
	"	void fn(void) { for (unsigned long i = 0; i < (n); i++) sink += i * 7; }\n"
	"SPIN(f1, \"\\\"A.<!--<script>()\\\"\", 40000000UL)\n"
	"SPIN(f2, \"\\\"B.</script><script>x()\\\"\", 30000000UL)\n"
	"SPIN(f3, \"\\\"C.line\\xe2\\x80\\xa8sep\\xe2\\x80\\xa9()\\\"\", 20000000UL)\n"
	"SPIN(f4, \"\\\"D.\\xe2\\x80\\xaeright-to-left&amp;()\\\"\", 20000000UL)\n"
	"int main(void)\n{\n	prctl(PR_SET_NAME, \"<!--<script>\");\n"
	"	struct timespec t0, t;\n	clock_gettime(CLOCK_MONOTONIC, &t0);\n"
	"	do {\n		f1(); f2(); f3(); f4();\n"
	"		clock_gettime(CLOCK_MONOTONIC, &t);\n"
	"	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < "
	"300000000L);\n	return 0;\n}\n";

Test(report_views_html, hostile_names)
{
	char script[PATH_MAX], shots[PATH_MAX];
	if (!rx_have_browser(script, "html_report.js"))
		cr_skip_test("node, /usr/bin/chromium or tests/browser's npm packages (make deps) "
			     "are missing");
	rx_build_and_record(home, "hostile", hostile_src, "-O1", "-F 2000", "");
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s/perf.data' --html '%s/h.html'", home,
	      rx_jitprof, dir, dir);
	tu_result_free(&r);
	/* the right-to-left override and the separators are shown as \uXXXX text, never raw */
	char html[PATH_MAX];
	snprintf(html, sizeof(html), "%s/h.html", dir);
	size_t len;
	char *page = tu_read_file(html, &len);
	cr_assert_not_null(page);
	cr_assert_null(memmem(page, len, "\xe2\x80\xae", 3), "a raw U+202E in the page");
	cr_assert_null(memmem(page, len, "\xe2\x80\xa8", 3), "a raw U+2028 in the page");
	const char *shown = "D.\\\\u202eright-to-left";	/* JSON's escape of "D.\\u202e..." */
	cr_assert_not_null(memmem(page, len, shown, strlen(shown)));
	free(page);
	snprintf(shots, sizeof(shots), "%s", tu_build("screenshots/hostile"));
	rx_ok(&r, "mkdir -p '%s' && node '%s' '%s/h.html' '%s' script '%s' '%s'", shots, script,
	      dir, shots, "A.<!--<script>()", "A.<!--<script>()");
	const char *o = r.out;
	fprintf(stderr, "report_views_html hostile names: %s", o);
	cr_assert(strstr(o, "\"network\":[]"), "the page fetched something: %s", o);
	cr_assert(strstr(o, "\"errors\":[]"), "script errors: %s", o);
	cr_assert_geq(jnum(o, "drawn"), 4, "flame graph frames drawn: %s", o);
	cr_assert_gt(jnum(strstr(o, "\"page\""), "nonBackground"), 0.1, "blank page: %s", o);
	cr_assert(strstr(o, "\"zoom\":\"A.<!--<script>()\""), "%s", o);
	cr_assert(strstr(o, "\"details\":\"A.<!--<script>()"), "%s", o);
	cr_assert_gt(jmatched(o, "typedMatched"), 0, "%s", o);
	tu_result_free(&r);
}

/* "warnings":[...] as tests/browser/html_first_screen.js prints them: the warnings `jitprof
 * report -i INPUT --html dir/HTML` gives on stderr, which writes that page. */
static char *stderr_warnings(const char *input, const char *html)
{
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i '%s' --html '%s' 2>&1 >/dev/null | "
	      "sed -n 's/^jitprof report: warning: //p' | python3 -c 'import json,sys; "
	      "print(json.dumps([l.rstrip(\"\\n\") for l in sys.stdin], separators=(\",\",\":\")))'",
	      dir, home, rx_jitprof, input, html);
	char *want = malloc(strlen(r.out) + 32), page[PATH_MAX];
	cr_assert_not_null(want);
	sprintf(want, "\"warnings\":%.*s", (int)strcspn(r.out, "\n"), r.out);
	tu_result_free(&r);
	snprintf(page, sizeof(page), "%s/%s", dir, html);
	cr_assert_eq(access(page, R_OK), 0, "report wrote no %s", page);	/* a pipe's status */
	return want;
}

/* Issue 38: the page is the place to start. Its first screen (1366x768, no scrolling) shows
 * what was profiled, the hottest method of Java code with the samples `report --sort sym`
 * gives its rows, the links to every section, and the warnings stderr gave (the recording,
 * and the recording reported without its jitdumps injected); hovering the widest command's frame shows its name and the
 * samples the folded stacks give it, hovering a timeline lane its method and generation;
 * after Invert the widest first frame is the leaf function the folded stacks end in most. The
 * page is at most 1 MiB and a few bytes per stack node (both trees per node, as JSON objects,
 * made 100 per node). Screenshots in build/screens/. */
Test(report_views_html, first_screen)
{
	char script[PATH_MAX], shot[PATH_MAX];
	html_of_generations(script, "html_first_screen.js");
	struct tu_result r;
	/* The table's hottest Java method (a dotted name with a signature: no C++ or C symbol,
	 * no runtime stub), its rows (one per generation) summed, and its samples. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --sort sym --json | python3 -c 'import json,"
	      "re,sys\nrows=json.load(sys.stdin)[\"rows\"]\nn={}\n"
	      "for x in rows:\n"
	      " if re.match(r\"^[A-Za-z_$][\\w$]*(\\.[\\w$<>]+)+\\(\", x[\"sym\"]):\n"
	      "  n[x[\"sym\"]]=n.get(x[\"sym\"],0)+x[\"samples\"]\n"
	      "top=max(n, key=lambda k: n[k])\nprint(n[top]); print(top)'", home, rx_jitprof, data);
	char top[1024];
	long top_samples = strtol(r.out, NULL, 10);
	const char *nl = strchr(r.out, '\n');
	cr_assert(nl && top_samples > 0, "%s", r.out);
	snprintf(top, sizeof(top), "%.*s", (int)strcspn(nl + 1, "\n"), nl + 1);
	tu_result_free(&r);

	/* The command with the most samples in the folded stacks: the widest frame under the
	 * root, whose tooltip the script shows. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --collapsed | awk '{n = $NF; sub(/;.*/, \"\"); "
	      "c[$0] += n} END {for (k in c) print c[k] \" \" k}' | sort -nr | head -1", home,
	      rx_jitprof, data);
	char comm[256];
	long comm_samples = strtol(r.out, NULL, 10);
	const char *sp = strchr(r.out, ' ');
	cr_assert(sp && comm_samples > 0, "%s", r.out);
	snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(sp + 1, "\n"), sp + 1);
	tu_result_free(&r);

	/* The leaf function with the most samples: the widest first level after Invert (the
	 * callers' tree the page builds from the callees'). */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --collapsed | awk '{n = $NF; sub(/ [0-9]+$/, "
	      "\"\"); sub(/.*;/, \"\"); c[$0] += n} END {for (k in c) print c[k] \" \" k}' | "
	      "sort -nr | head -1", home, rx_jitprof, data);
	char leaf[512];
	long leaf_samples = strtol(r.out, NULL, 10);
	sp = strchr(r.out, ' ');
	cr_assert(sp && leaf_samples > 0, "%s", r.out);
	snprintf(leaf, sizeof(leaf), "%.*s", (int)strcspn(sp + 1, "\n"), sp + 1);
	tu_result_free(&r);

	snprintf(shot, sizeof(shot), "%s", tu_build("screens"));
	mkdir(shot, 0755);
	snprintf(shot, sizeof(shot), "%s", tu_build("screens/html-first-screen.png"));
	rx_ok(&r, "node '%s' '%s/r.html' '%s'", script, dir, shot);
	const char *o = r.out;
	fprintf(stderr, "report_views_html first screen: %s", o);
	cr_assert(strstr(o, "\"errors\":[]"), "script errors: %s", o);
	/* What was profiled: the JVM's pid and its samples. */
	cr_assert(strstr(o, "\"profiled\":\"java (pid "), "%s", o);
	char want[1200];
	snprintf(want, sizeof(want), "[\"%ld\",", top_samples);
	const char *m = strstr(o, "\"methods\":[[");
	cr_assert(m && !strncmp(m + strlen("\"methods\":["), want, strlen(want)),
		  "the first method row does not have the table's %ld samples: %s", top_samples, o);
	snprintf(want, sizeof(want), "\"%s\"]", top);
	cr_assert(strstr(m, want), "the table's hottest Java method %s is not the first row: %s",
		  top, o);
	cr_assert(strstr(o, "\"links\":[\"Summary\",\"Flame graph\",\"Generations\",\"Top\","
			 "\"Hot lines\"]"), "%s", o);
	char *want_w = stderr_warnings("perf.jit.data", "r2.html");
	cr_assert(strstr(o, want_w), "the page's warnings are not stderr's %s: %s", want_w, o);
	free(want_w);
	/* Hover: the command's name and samples, a lane's method and generation. */
	snprintf(want, sizeof(want), "\"tip\":\"%s\\n", comm);
	cr_assert(strstr(o, want), "no tooltip naming %s: %s", comm, o);
	snprintf(want, sizeof(want), ": %ld samples, ", comm_samples);
	cr_assert(strstr(strstr(o, "\"tip\":"), want), "tooltip without the %ld samples: %s",
		  comm_samples, o);
	cr_assert(strstr(o, "\"laneTip\":\"jitprof.samples.") && strstr(o, "\\ngen "), "%s", o);
	const char *inv = strstr(o, "\"inverted\":");
	cr_assert_not_null(inv, "%s", o);
	snprintf(want, sizeof(want), "\"widest\":{\"name\":\"%s\",\"samples\":%ld,", leaf,
		 leaf_samples);
	cr_assert(strstr(inv, want), "inverted: not %s: %s", want, inv);
	/* Size: at most 1 MiB, and compact per node. */
	struct stat st;
	char page[PATH_MAX];
	snprintf(page, sizeof(page), "%s/r.html", dir);
	cr_assert_eq(stat(page, &st), 0);
	double nodes = jnum(o, "nodes");
	cr_assert_gt(nodes, 100, "%s", o);
	cr_assert_leq(st.st_size, 1 << 20, "page %lld bytes", (long long)st.st_size);
	cr_assert_leq(st.st_size, 64 * 1024 + 40 * nodes, "page %lld bytes for %.0f nodes",
		      (long long)st.st_size, nodes);
	fprintf(stderr, "report_views_html: page %lld bytes, %.0f nodes, flame graph drawn in "
		"%.0f ms\n", (long long)st.st_size, nodes, jnum(o, "loadMs"));
	tu_result_free(&r);

	/* Not injected: the warning stderr gives, with its fix, is in the first screen. */
	want_w = stderr_warnings("perf.data", "w.html");
	cr_assert(strstr(want_w, "was not injected: run 'jitprof inject"), "%s", want_w);
	snprintf(shot, sizeof(shot), "%s", tu_build("screens/html-first-screen-warning.png"));
	rx_ok(&r, "node '%s' '%s/w.html' '%s'", script, dir, shot);
	cr_assert(strstr(r.out, want_w), "the page's warnings are not stderr's %s: %s", want_w,
		  r.out);
	free(want_w);
	tu_result_free(&r);
}
