/* report_jfr.c - `report --jfr` read by the JDK's own `jfr` tool, of JDK 17 and of JDK 25
 * (each where installed), on samples/java Generations recorded with the agent: `jfr summary`
 * and `jfr print` count every sample jitprof's table counts, the hottest method as many times
 * as the table (its top non-inlined frame, as the table's leaf), frames with source lines and
 * each frame type (JIT compiled, Inlined, Native), the threads' names; `jfr print --json`
 * parses, and its first and last sample are as far apart as perf script's. A report of no
 * sample (a --time window past the end) is a JFR file the tools read too. */
#include <unistd.h>

#include "tests/e2e/report_util.h"

#define home rx_home
#define data rx_data

TestSuite(report_jfr, .init = rx_setup_recording, .fini = rx_teardown, .timeout = 300);

static const char *const jdks[] = {
	"/usr/lib/jvm/java-17-openjdk-amd64/bin/jfr",
	"/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr",
};

/* jitprof's own numbers: samples, the hottest method (name before '(', rows of its
 * generations summed) and its samples, the threads' names (comm) one a line. */
static void table_numbers(long *samples, char *top, size_t len, long *top_n, char **comms)
{
	struct tu_result r;
	/* --no-inline: each sample charged to the method of its address, as JFR's first frame
	 * that is not inlined (sym rows are the innermost method by default) */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --json --sort sym --no-inline | python3 -c "
	      "'import json,sys\n"
	      "d=json.load(sys.stdin); by={}\n"
	      "for r in d[\"rows\"]: n=r[\"sym\"].split(\"(\")[0]; by[n]=by.get(n,0)+r[\"samples\"]\n"
	      "t=max(by,key=by.get); print(d[\"samples\"], by[t], t)'", home, rx_jitprof, data);
	cr_assert_eq(sscanf(r.out, "%ld %ld %1023s", samples, top_n, top), 3, "%s", r.out);
	cr_assert_lt(strlen(top), len);
	tu_result_free(&r);
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --json --sort comm | python3 -c 'import json,sys\n"
	      "[print(r[\"comm\"]) for r in json.load(sys.stdin)[\"rows\"]]'", home, rx_jitprof,
	      data);
	*comms = strdup(r.out);
	tu_result_free(&r);
}

static void check_tool(const char *jfr, long samples, const char *top, long top_n,
		       const char *comms)
{
	struct tu_result r;
	rx_ok(&r, "'%s' summary '%s/p.jfr'", jfr, dir);
	long n = -1;
	const char *row = strstr(r.out, "jdk.ExecutionSample");
	cr_assert_not_null(row, "%s summary: %s", jfr, r.out);
	cr_assert_eq(sscanf(row, "jdk.ExecutionSample %ld", &n), 1);
	cr_assert_eq(n, samples, "%s summary: %ld samples, the table %ld", jfr, n, samples);
	cr_assert(strstr(r.out, "Version: 2."), "%s", r.out);
	tu_result_free(&r);

	rx_ok(&r, "'%s' print --events jdk.ExecutionSample '%s/p.jfr' > '%s/p.txt' && "
	      "grep -c '^jdk.ExecutionSample {' '%s/p.txt'; grep -c ' line: [1-9]' '%s/p.txt'",
	      jfr, dir, dir, dir, dir);
	long events = -1, lines = -1;
	cr_assert_eq(sscanf(r.out, "%ld %ld", &events, &lines), 2, "%s", r.out);
	cr_assert_eq(events, samples, "%s print: %ld events, the table %ld", jfr, events, samples);
	cr_assert_gt(lines, samples / 2, "%s print: %ld frames with a line", jfr, lines);
	tu_result_free(&r);
	for (const char *c = comms; *c;) {	/* every thread by its name */
		size_t l = strcspn(c, "\n");
		rx_ok(&r, "grep -cF 'sampledThread = \"%.*s\" (osThreadId = ' '%s/p.txt'", (int)l, c,
		      dir);
		cr_assert_gt(atol(r.out), 0, "%s print: no sample of thread '%.*s'", jfr, (int)l, c);
		tu_result_free(&r);
		c += l + (c[l] == '\n');
	}

	/* --json: it parses; the top method's samples by the first frame that is not inlined;
	 * the frame types; the time from the first to the last sample */
	rx_ok(&r, "'%s' print --json --events jdk.ExecutionSample '%s/p.jfr' | python3 -c "
	      "'import json,sys\n"
	      "ev=json.load(sys.stdin)[\"recording\"][\"events\"]; top=0; types=set()\n"
	      "def ns(t):\n"
	      "  hms=t.split(\"T\")[1].rstrip(\"Z\"); h,m,s=hms.split(\":\"); w,_,f=s.partition(\".\")\n"
	      "  return ((int(h)*60+int(m))*60+int(w))*10**9+int((f+\"000000000\")[:9])\n"
	      "for e in ev:\n"
	      "  fr=e[\"values\"][\"stackTrace\"][\"frames\"]; types.update(f[\"type\"] for f in fr)\n"
	      "  o=[f for f in fr if f[\"type\"]!=\"Inlined\"]\n"
	      "  m=o[0][\"method\"] if o else None\n"
	      "  n=m and m[\"type\"][\"name\"].replace(\"/\",\".\")+\".\"+m[\"name\"]\n"
	      "  top+=n==sys.argv[1]\n"
	      "t=[ns(e[\"values\"][\"startTime\"]) for e in ev]\n"
	      "ty=\",\".join(sorted(types)).replace(\" \",\"_\")\n"
	      "print(len(ev), top, t[-1]-t[0], ty)' '%s'", jfr, dir, top);
	long jn = -1, jtop = -1, span = -1;
	char types[256] = "";
	cr_assert_eq(sscanf(r.out, "%ld %ld %ld %255s", &jn, &jtop, &span, types), 4, "%s", r.out);
	cr_assert_eq(jn, samples);
	cr_assert_eq(jtop, top_n, "%s: %s in %ld samples, the table %ld", jfr, top, jtop, top_n);
	cr_assert(strstr(types, "JIT_compiled") && strstr(types, "Inlined") &&
		  strstr(types, "Native") && strstr(types, "Interpreted"), "frame types %s", types);
	tu_result_free(&r);

	/* perf's own first and last sample (µs) */
	rx_ok(&r, "perf script -i '%s' -F time 2>/dev/null | sed -n '1p;$p' | tr -d ': .' | "
	      "tr '\\n' ' '", data);
	long long a, b;
	cr_assert_eq(sscanf(r.out, "%lld %lld", &a, &b), 2, "%s", r.out);
	long long want = (b - a) * 1000;
	cr_assert(span > want - 2000 && span < want + 2000, "%s: samples over %ld ns, perf %lld",
		  jfr, span, want);
	tu_result_free(&r);
}

Test(report_jfr, jdk_tools_read_it)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	rx_record_java(home, "-g", "Generations 600");
	rx_report_to_file("--jfr", "p.jfr");
	long samples, top_n;
	char top[1024], *comms;
	table_numbers(&samples, top, sizeof(top), &top_n, &comms);
	cr_assert_gt(samples, 100);
	cr_assert(strstr(top, "jitprof.samples.Generations."), "the hottest: %s", top);
	int tools = 0;
	for (size_t i = 0; i < sizeof(jdks) / sizeof(jdks[0]); i++) {
		if (access(jdks[i], X_OK)) {
			tu_skip_part("%s is not installed: that JDK's reading not checked", jdks[i]);
			continue;
		}
		check_tool(jdks[i], samples, top, top_n, comms);
		tools++;
	}
	free(comms);

	/* no sample left: still a file the tools read, with no sample in it */
	rx_report_to_file("--time 100000, --jfr", "empty.jfr");
	for (size_t i = 0; i < sizeof(jdks) / sizeof(jdks[0]); i++) {
		if (access(jdks[i], X_OK))
			continue;
		struct tu_result r;
		rx_ok(&r, "'%s' summary '%s/empty.jfr' && '%s' print --json '%s/empty.jfr' | "
		      "python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"recording\"]"
		      "[\"events\"]))'", jdks[i], dir, jdks[i], dir);
		cr_assert(strstr(r.out, "Chunks: 1"), "%s", r.out);
		const char *last = strrchr(r.out, '\n');
		cr_assert(last && last > r.out);
		while (last > r.out && last[-1] != '\n')
			last--;
		cr_assert_eq(atol(last), 0, "events in the empty file: %s", r.out);
		tu_result_free(&r);
	}
	if (!tools)
		tu_skip_part("no jfr tool (JDK 17 or 25) installed: the file was written, not read");
}
