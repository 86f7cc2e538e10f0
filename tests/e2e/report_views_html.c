/* report_views_html.c - `jitprof report --html` on samples/java Generations in a real headless
 * Chromium (tests/browser/html_report.js, puppeteer-core): the page opens with no network
 * request and no script error, the flame graph renders (pixel statistics of screenshots kept
 * in build/screenshots/), searching the inlined area() frames highlights them and prints the
 * share the folded stacks give, a click zooms, and the timeline has one lane per generation of
 * total() as --generations counts them. */
#include <math.h>
#include <unistd.h>

#include "tests/e2e/report_util.h"

#define home rx_home
#define data rx_data

TestSuite(report_views_html, .init = rx_setup_recording, .fini = rx_teardown, .timeout = 300);

#define TOTAL "jitprof.samples.Generations.total(jitprof.samples.Generations$Shape[])"

/* A number after "key": in the script's one-line JSON. */
static double jnum(const char *json, const char *key)
{
	char k[128];
	snprintf(k, sizeof(k), "\"%s\":", key);
	const char *p = strstr(json, k);
	cr_assert_not_null(p, "no %s in %s", key, json);
	return strtod(p + strlen(k), NULL);
}

Test(report_views_html, chromium)
{
	char script[PATH_MAX], shots[PATH_MAX];
	if (!rx_have_browser(script, "html_report.js"))
		cr_skip_test("node, /usr/bin/chromium or tests/browser's npm packages (make deps) "
			     "are missing");
	rx_record_java(home, "-g", "Generations 600");
	rx_report_to_file("--html", "r.html");
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
	cr_assert_gt(jnum(strstr(o, "\"zoomShot\""), "nonBackground"), 0.3, "%s", o);
	/* The timeline: one lane per generation. */
	cr_assert_eq((int)jnum(o, "lanes"), gens, "%s", o);
	cr_assert_gt(jnum(strstr(o, "\"timeline\""), "nonBackground"), 0.05, "%s", o);
	cr_assert_lt(jnum(o, "loadMs"), 20000, "%s", o);
	tu_result_free(&r);
}
