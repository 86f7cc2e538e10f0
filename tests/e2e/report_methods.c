/* report_methods.c - method-centric rows and `report --methods` on samples/java HotLines'
 * "inlined" case, whose work is, by construction, in helper(), a callee C2 inlines into
 * inlined(): the callee must rank first (perf's rows charge the caller), marked inlined; a
 * method's generations are one row whose samples are those of its generations' rows (from
 * --split-generations); the hot lines never show "??:0", each names its method, and the
 * samples said to have no line are those of --sort srcline's rows without one. */
#include <stdlib.h>

#include "tests/e2e/report_util.h"

#define home rx_home
#define data rx_data

TestSuite(report_methods, .init = rx_setup_recording, .fini = rx_teardown, .timeout = 300);

#define HELPER "jitprof.samples.HotLines.helper(long, long, long)"
#define CALLER "jitprof.samples.HotLines.inlined(long, long)"

/* The samples of --sort sym's JSON row of name (inlined: its "inlined" flag), -1 if none. */
static long sym_samples(const char *opts, const char *name, int inlined)
{
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --sort sym --json %s | python3 -c '"
	      "import json,sys\n"
	      "n=[r[\"samples\"] for r in json.load(sys.stdin)[\"rows\"] if r[\"sym\"]==sys.argv[1] "
	      "and bool(r.get(\"inlined\"))==bool(int(sys.argv[2]))]\n"
	      "print(sum(n) if n else -1)' '%s' %d", home, rx_jitprof, data, opts, name, inlined);
	long n = atol(r.out);
	tu_result_free(&r);
	return n;
}

Test(report_methods, inlined_callee_ranks_first_and_generations_sum)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	rx_record_java(home, "", "HotLines 2500 inlined");
	long helper = sym_samples("", HELPER, 1), caller = sym_samples("", CALLER, 0);
	long perf_caller = sym_samples("--no-inline", CALLER, 0);
	cr_assert_gt(perf_caller, 50, "too few samples in %s to judge", CALLER);
	/* The inlined callee does the work: most of what perf charges the caller is its. */
	cr_assert_gt(helper, caller, "helper %ld, inlined %ld", helper, caller);
	cr_assert_eq(helper + (caller > 0 ? caller : 0), perf_caller,
		     "the caller's samples divided between it and its callee");

	/* Generations summed: every HotLines method once among the rows (not inlined; native
	 * code keeps perf's rows, where two symbols may share a name), and each row's samples
	 * those of its name's rows per generation. */
	struct tu_result r;
	rx_ok(&r, "cd '%s' && for o in --no-inline --split-generations; do HOME='%s' '%s' report "
	      "-q -i '%s' --sort sym --json $o > $o.json; done; python3 -c '"
	      "import json,collections\n"
	      "a=json.load(open(\"--no-inline.json\"))[\"rows\"]\n"
	      "b=json.load(open(\"--split-generations.json\"))[\"rows\"]\n"
	      "names=[r[\"sym\"] for r in a if r[\"sym\"].startswith(\"jitprof.\")]\n"
	      "assert len(names)==len(set(names)), \"a name twice\"\n"
	      "split=collections.Counter()\n"
	      "for r in b: split[r[\"sym\"]]+=r[\"samples\"]\n"
	      "multi=[n for n in set(r[\"sym\"] for r in b) if sum(1 for x in b if x[\"sym\"]==n)>1 "
	      "and n.startswith(\"jitprof.\")]\n"
	      "for r in a:\n"
	      "  if r[\"sym\"] in names: assert r[\"samples\"]==split[r[\"sym\"]], r\n"
	      "assert names\n"
	      "print(len(multi))'", dir, home, rx_jitprof, data);
	int multi = atoi(r.out);
	tu_result_free(&r);
	if (!multi)
		tu_skip_part("no HotLines method got two sampled generations in this run: the sums "
			     "were checked on one generation each");

	/* --methods: the callee first, marked, named by the closing comment; the rest after. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --methods", home, rx_jitprof, data);
	const char *m = strstr(r.out, "# Methods, compiled or interpreted:"), *rest = strstr(r.out,
										"# Outside those methods:");
	cr_assert(m && rest && m < rest, "%s", r.out);
	const char *first = strstr(m, "ms  ");
	cr_assert(first && !strncmp(first + 4, HELPER "_[i]\n", strlen(HELPER) + 5), "%s", r.out);
	cr_assert(strstr(r.out, "# hottest Java method: " HELPER "_[i] ("), "%s", r.out);
	cr_assert(strstr(r.out, "# Legend: _[i] inlined"), "%s", r.out);
	tu_result_free(&r);
}

Test(report_methods, hot_lines_name_methods_and_count_lines_apart)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	rx_record_java(home, "", "HotLines 1500 inlined div3");
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --methods", home, rx_jitprof, data);
	const char *h = strstr(r.out, "# Hottest source lines: ");
	cr_assert(h, "%s", r.out);
	unsigned long none, total;
	cr_assert_eq(sscanf(h, "# Hottest source lines: %lu of %lu samples", &none, &total), 2,
		     "%s", h);
	cr_assert_null(strstr(h, "??:0"), "%s", h);
	/* Every row (after the column titles): numbers, "file:line", two spaces, a method. */
	size_t rows = 0;
	const char *titles = strchr(h, '\n');
	cr_assert(titles && !strncmp(titles + 1, "# Overhead", 10), "%s", h);
	for (const char *p = strchr(titles + 1, '\n'); p && p[1] && p[1] != '#';
	     p = strchr(p + 1, '\n')) {
		const char *line = p + 1, *end = strchr(line, '\n');
		const char *loc = strstr(line, " ms  ");
		cr_assert(loc && loc < end, "%.*s", (int)(end - line), line);
		const char *meth = strstr(loc + 5, "  ");
		cr_assert(meth && meth < end && meth + 2 < end && meth[2] != ' ', "no method: %.*s",
			  (int)(end - line), line);
		rows++;
	}
	cr_assert_gt(rows, 0, "%s", h);
	cr_assert(strstr(h, "HotLines.java:"), "%s", h);
	char text[4096];
	snprintf(text, sizeof(text), "%s", h);
	tu_result_free(&r);
	/* The samples without a line: --sort srcline's "??:0" and "dso[addr]" rows. */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --sort srcline --json | python3 -c '"
	      "import json,sys,re\n"
	      "d=json.load(sys.stdin)\n"
	      "n=sum(r[\"samples\"] for r in d[\"rows\"] if r[\"srcline\"]==\"??:0\" or "
	      "re.search(r\"\\[[0-9a-f]+\\]$\", r[\"srcline\"]))\n"
	      "print(n, d[\"samples\"])'", home, rx_jitprof, data);
	unsigned long want_none, want_total;
	cr_assert_eq(sscanf(r.out, "%lu %lu", &want_none, &want_total), 2, "%s", r.out);
	cr_assert_eq(total, want_total, "%s", text);
	cr_assert_eq(none, want_none, "no-line samples: --methods %lu, --sort srcline %lu\n%s",
		     none, want_none, text);
	tu_result_free(&r);
}

/* The HTML page's hottest lines name the method each line is in, as --methods does: the
 * inlined callee's line is the callee's (perf's sym of the ip, the caller, named it before),
 * and every line both views list names the same method (the page marks no _[i]). */
Test(report_methods, html_hot_lines_name_the_inlined_method)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	rx_record_java(home, "", "HotLines 2000 inlined");
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -q -i '%s' --methods > m.txt && "
	      "HOME='%s' '%s' report -q -i '%s' --html p.html && python3 -c '"
	      "import json,re\n"
	      "t=open(\"m.txt\").read().split(\"# Hottest source lines: \")[1]\n"
	      "text={}\n"
	      "for l in t.split(\"\\n\")[2:]:\n"
	      "    m=re.match(r\" +[0-9.]+%% +[0-9]+ +[0-9.]+ ms  (\\S+)  (.*)$\", l)\n"
	      "    if m: text.setdefault(m.group(1), m.group(2).removesuffix(\"_[i]\"))\n"
	      "h=open(\"p.html\").read()\n"
	      "d=json.loads(re.search(r\"<script id=.data. type=.application/json.>(.*?)</script>\","
	      " h, re.S).group(1))\n"
	      "lines=d[\"lines\"]\n"
	      "both=[(x[\"line\"], x[\"method\"], text[x[\"line\"]]) for x in lines "
	      "if x.get(\"code\") and x[\"line\"] in text]\n"
	      "print(len(both))\n"
	      "[print(\"|\".join(b)) for b in both]'",
	      dir, home, rx_jitprof, data, home, rx_jitprof, data);
	unsigned long n = strtoul(r.out, NULL, 10);
	cr_assert_gt(n, 0, "no Java line in both views:\n%s", r.out);
	int helper_line = 0;
	for (const char *l = strchr(r.out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		const char *a = strchr(l + 1, '|'), *b = a ? strchr(a + 1, '|') : NULL;
		const char *end = strchr(l + 1, '\n');
		cr_assert(a && b && end, "%s", r.out);
		cr_assert(b - a - 1 == end - b - 1 && !strncmp(a + 1, b + 1, (size_t)(b - a - 1)),
			  "the page and --methods name different methods: %.*s", (int)(end - l - 1),
			  l + 1);
		helper_line |= !strncmp(a + 1, HELPER "|", strlen(HELPER) + 1);
	}
	cr_assert(helper_line, "no line of the inlined %s on the page:\n%s", HELPER, r.out);
	tu_result_free(&r);
}

Test(report_methods, profile_closing_line_names_the_hottest_java_method)
{
	char agent[PATH_MAX], classes[PATH_MAX];
	rx_need_java(agent, classes);
	struct tu_result r;
	/* the sanitizer's runtime for a sanitized agent, as the other Java runs get it */
	rx_ok(&r, "cd '%s' && HOME='%s' %s'%s' profile -q -o p.txt -- java -cp '%s' "
	      "jitprof.samples.HotLines 2000 inlined", dir, home, tu_java_env_sh(agent),
	      rx_jitprof, classes);
	cr_assert(strstr(r.err, "; hottest Java method: " HELPER "_[i] ("), "%s", r.err);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && head -5 p.txt", dir);
	cr_assert(strstr(r.out, "# Methods, compiled or interpreted:"), "the text report starts with the methods:"
		  "\n%s", r.out);
	tu_result_free(&r);
}
