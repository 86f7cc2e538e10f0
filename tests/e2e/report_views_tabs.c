/* report_views_tabs.c - a recording of several events (record --off-cpu: cpu-clock and the
 * switches, read as cpu-clock, offcpu and wall) in the views that carry them all: the HTML
 * page has a tab per event, the reported one first, each tab's flame graph total and top row
 * those of `report --event X --json` (headless Chromium clicks each tab:
 * tests/browser/html_event_tabs.js), the frame names once for all tabs; pprof has a pair of
 * sample types per event whose sums (go tool pprof -raw) are each event's samples and time. */
#include <unistd.h>

#include "tests/e2e/report_util.h"

TestSuite(report_views_tabs, .init = rx_setup, .fini = rx_teardown, .timeout = 600);

/* A thread that computes 3 ms and sleeps 5 ms, 150 times. */
static const char prog_src[] =
	"#include <time.h>\n#include <unistd.h>\n"
	"static volatile unsigned long sink;\n"
	"static long ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);\n"
	"  return t.tv_sec * 1000000000L + t.tv_nsec; }\n"
	"__attribute__((noinline)) void compute(void) { long t = ns();\n"
	"  while (ns() - t < 3000000) for (int i = 0; i < 1000; i++) sink += i; }\n"
	"__attribute__((noinline)) void nap(void) { usleep(5000); }\n"
	"int main(void) { for (int i = 0; i < 150; i++) { compute(); nap(); } return 0; }\n";

static const char *const events[] = { "cpu-clock", "offcpu", "wall" };
#define NEV (sizeof(events) / sizeof(events[0]))

static void record(void)
{
	struct tu_result r;
	char path[PATH_MAX];
	if (!tu_have("cc") || !tu_have("python3"))
		cr_skip_test("cc or python3 is not installed");
	snprintf(path, sizeof(path), "%s/naps.c", dir);
	cr_assert_eq(tu_write_file(path, prog_src, sizeof(prog_src) - 1), 0);
	rx_ok(&r, "cd '%s' && cc -O1 -g -fno-omit-frame-pointer -o naps naps.c && "
	      "'%s' record -q --off-cpu -g -o w.data ./naps", dir, rx_jitprof);
	tu_result_free(&r);
	/* Each event's own report: the truth its tab and sample types are held to. */
	for (size_t e = 0; e < NEV; e++) {
		rx_ok(&r, "cd '%s' && '%s' report -q -i w.data --event %s --json > %s.json", dir,
		      rx_jitprof, events[e], events[e]);
		tu_result_free(&r);
	}
}

Test(report_views_tabs, html_tab_per_event)
{
	char script[PATH_MAX], shots[PATH_MAX];
	struct tu_result r;
	record();
	/* Reported offcpu: its tab first, then the recording's order. */
	rx_ok(&r, "cd '%s' && '%s' report -q -i w.data --event offcpu --html o.html && "
	      "'%s' report -q -i w.data --html c.html && python3 -c 'import json,re,sys\n"
	      "for f in sys.argv[1:]:\n"
	      " h=open(f).read(); d=json.loads(re.search(r\"<script id=\\\"data\\\" "
	      "type=\\\"application/json\\\">(.*?)</script>\", h, re.S).group(1))\n"
	      " names=[]; p=\"\"\n"
	      " for e in d[\"names\"]:\n"
	      "  k,_,rest=e.partition(\":\"); p=p[:int(k)]+rest; names.append(p)\n"
	      " ev=[d[\"event\"]]+[t[\"event\"] for t in d.get(\"tabs\",[])]\n"
	      " used=max(max(t[\"n\"]) for t in [d[\"tree\"]]+d.get(\"tab_trees\",[]))\n"
	      " print(\",\".join(ev), len(names)==len(set(names)), used<len(names), "
	      "h.count(\"\\\"names\\\":\"))' o.html c.html", dir, rx_jitprof, rx_jitprof);
	/* The names once (one table, every tree's indexes in it). */
	cr_assert_str_eq(r.out, "offcpu,cpu-clock,wall True True 1\n"
				"cpu-clock,offcpu,wall True True 1\n", "%s", r.out);
	tu_result_free(&r);

	if (!rx_have_browser(script, "html_event_tabs.js")) {
		tu_skip_part("the tabs in a browser: node, chromium or tests/browser's npm packages "
			     "(make deps) are missing");
		return;
	}
	mkdir(tu_build("screens"), 0755);
	cr_assert_not_null(realpath(tu_build("screens"), shots));
	rx_ok(&r, "cd '%s' && node '%s' c.html '%s/tabs' > tabs.out", dir, script, shots);
	tu_result_free(&r);
	/* Per tab: EVENT, its button is the one on, drawn, total, top row's share and symbol
	 * (the table's "[.] " mark left out, as --json leaves it). */
	rx_ok(&r, "cd '%s' && python3 -c 'import json,re\n"
	      "o=json.load(open(\"tabs.out\"))\n"
	      "print(\"errors\", len(o[\"errors\"]), \"buttons\", len(o[\"buttons\"]))\n"
	      "for t in o[\"tabs\"]:\n"
	      " r=t[\"top\"]\n"
	      " print(t[\"event\"], t[\"on\"]==t[\"event\"], t[\"drawn\"]>0, t[\"total\"], "
	      "\"%%.2f\" %% r[\"pct\"], re.sub(r\"^\\[.\\] \", \"\", r[\"v\"][-1]))'", dir);
	char head[64];
	cr_assert(sscanf(r.out, "%63[^\n]", head) == 1);
	cr_assert_str_eq(head, "errors 0 buttons 3", "%s", r.out);
	/* Each tab (clicked last first, then the first again) as its event's own report. */
	for (size_t e = 0; e < NEV; e++) {
		struct tu_result j;
		char want[512], *nl;
		rx_ok(&j, "cd '%s' && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		      "r=d[\"rows\"][0]; t=d[\"total_period\"] if sys.argv[2]!=\"cpu-clock\" "
		      "else d[\"samples\"]; print(t, \"%%.2f\" %% r[\"overhead\"], r[\"sym\"])' "
		      "%s.json %s", dir, events[e], events[e]);
		if ((nl = strchr(j.out, '\n')))
			*nl = 0;
		snprintf(want, sizeof(want), "\n%s True True %s\n", events[e], j.out);
		cr_expect(strstr(r.out, want), "tab %s: want '%s' in:\n%s", events[e], want + 1,
			  r.out);
		tu_result_free(&j);
	}
	tu_result_free(&r);
}

Test(report_views_tabs, pprof_sample_types)
{
	struct tu_result r;
	record();
	if (!tu_have("go")) {
		tu_skip_part("go is not installed: the pprof profile not read");
		return;
	}
	/* go tool pprof's raw listing, each column summed: TYPE SUM per sample type. */
	rx_ok(&r, "cd '%s' && '%s' report -q -i w.data --pprof p.pb.gz && HOME='%s' GOCACHE='%s/gc' "
	      "go tool pprof -raw p.pb.gz 2>/dev/null | python3 -c 'import sys\n"
	      "ls=sys.stdin.read().split(\"\\n\"); i=ls.index(\"Samples:\")\n"
	      "ty=[t.split(\"/\")[0] for t in ls[i+1].split()]; s=[0]*len(ty)\n"
	      "for l in ls[i+2:]:\n"
	      " if not l.strip() or l.startswith(\"Locations\"): break\n"
	      " if \":\" in l and not l.strip().startswith(\"pid\"):\n"
	      "  v=l.split(\":\")[0].split(); s=[a+int(b) for a,b in zip(s,v)]\n"
	      "print(\" \".join(\"%%s %%d\" %% x for x in zip(ty,s)))'", dir, rx_jitprof, dir, dir);
	char sums[1024];
	snprintf(sums, sizeof(sums), " %.*s ", (int)strcspn(r.out, "\n"), r.out);
	tu_result_free(&r);
	cr_expect(strstr(sums, " samples ") && strstr(sums, " cpu ") &&
		  strstr(sums, " offcpu_samples ") && strstr(sums, " offcpu ") &&
		  strstr(sums, " wall_samples ") && strstr(sums, " wall "), "%s", sums);
	/* Each event's samples and its weight (cpu-clock's period is nanoseconds too). */
	static const char *const type[NEV][2] = { { "samples", "cpu" },
						  { "offcpu_samples", "offcpu" },
						  { "wall_samples", "wall" } };
	for (size_t e = 0; e < NEV; e++) {
		char want[256];
		rx_ok(&r, "cd '%s' && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		      "print(\" %s %%d %s %%d \" %% (d[\"samples\"], d[\"total_period\"]))' %s.json",
		      dir, type[e][0], type[e][1], events[e]);
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(r.out, "\n"), r.out);
		cr_expect(strstr(sums, want),
			  "%s: want '%s' in '%s'", events[e], want, sums);
		tu_result_free(&r);
	}
	/* pprof's default is the reported event's weight. */
	rx_ok(&r, "cd '%s' && '%s' report -q -i w.data --event offcpu --pprof o.pb.gz && "
	      "HOME='%s' GOCACHE='%s/gc' go tool pprof -raw o.pb.gz 2>/dev/null | grep -o "
	      "'offcpu/nanoseconds\\[dflt\\]'", dir, rx_jitprof, dir, dir);
	cr_expect_str_eq(r.out, "offcpu/nanoseconds[dflt]\n", "%s", r.out);
	tu_result_free(&r);
}
