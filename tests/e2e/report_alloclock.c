/* report_alloclock.c - allocations and lock contention sampled by the agent (alloc=, lock=)
 * and reported with Java stacks (report --event alloc|lock), on JDK 17 and JDK 25 (each a
 * part skipped where absent). Ground truth is what the programs measure of themselves:
 * AllocRatio the bytes each of its two methods allocated (ThreadMXBean, long[] 3 : 1
 * Payload), LockShare the nanoseconds its waiter spent entering a contended Gate monitor.
 * The report must give each within 10%, under the right method and class. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/e2e/profile_util.h"
#include "tests/lib/testutil.h"

static const char *const jdks[] = { "/usr/lib/jvm/java-17-openjdk-amd64",
				    "/usr/lib/jvm/temurin-25-jdk-amd64" };

static char agent[4096], classes[4096];

static int setup(void)
{
	if (!realpath(tu_build("libagent.so"), agent) || !realpath(tu_build("java"), classes) ||
	    access(tu_build("java/jitprof/samples/AllocRatio.class"), F_OK) ||
	    access(tu_build("java/jitprof/samples/LockShare.class"), F_OK))
		return -1;
	return 0;
}

/* The JDK's java, or NULL (said) when this machine lacks it. */
static const char *java_of(const char *jdk, char *buf, size_t len)
{
	snprintf(buf, len, "%s/bin/java", jdk);
	if (access(buf, X_OK)) {
		tu_skip_part("%s is not installed: its part not run", buf);
		return NULL;
	}
	return buf;
}

/* Sum of the folded stacks' weights whose stack contains every one of needles (NULL-ended). */
static double weight_of(const char *collapsed, const char *const *needles)
{
	double sum = 0;
	char *copy = strdup(collapsed), *save = NULL;
	cr_assert_not_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		int all = 1;
		for (size_t i = 0; needles[i] && all; i++)
			all = strstr(line, needles[i]) != NULL;
		if (all)
			sum += strtod(sp + 1, NULL);
	}
	free(copy);
	return sum;
}

static void within(const char *what, double got, double truth, double tol)
{
	cr_assert(truth > 0, "%s: no ground truth", what);
	cr_assert(fabs(got - truth) <= tol * truth, "%s: %.0f reported, %.0f measured (%.1f%% off)",
		  what, got, truth, 100.0 * (got - truth) / truth);
}

static void sh(const char *dir, struct tu_result *r, const char *cmd, int ok)
{
	cr_assert_eq(tu_sh_in(r, dir, cmd, 300), 0, "cannot run %s", cmd);
	if (ok)
		cr_assert_eq(r->status, 0, "%s: %s", cmd, r->err);
}

/* The companion in dir/jit with its middle SAMPLE record's frame count made 0xffffffff. */
static void damage_a_sample(const char *dir)
{
	struct tu_result r;
	char path[4300], err[512];
	sh(dir, &r, "ls jit/*.jitprof", 1);
	snprintf(path, sizeof(path), "%s/%.*s", dir, (int)strcspn(r.out, "\n"), r.out);
	tu_result_free(&r);
	size_t len;
	uint8_t *buf = tu_read_file(path, &len);
	cr_assert_not_null(buf);
	struct jd_reader *rd;
	struct jd_record rec;
	uint64_t off = 0, n = 0, seen = 0;
	for (int pass = 0; pass < 2; pass++) {	/* count, then the middle one's offset */
		cr_assert_eq(jd_reader_open_mem(&rd, buf, len, path, err, sizeof(err)), 0, "%s",
			     err);
		while (jd_reader_next(rd, &rec) == 1)
			if (rec.id == JD_EXT_SAMPLE && (pass ? seen++ == n / 2 : !!++n))
				off = rec.offset;
		jd_reader_close(rd);
	}
	cr_assert(n > 2 && off, "no samples to damage");
	memset(buf + off + 40, 0xff, 4);
	cr_assert_eq(tu_write_file(path, buf, len), 0);
	free(buf);
}

static int near(double got, double truth, double tol)
{
	return fabs(got - truth) <= tol * truth;
}

/* One AllocRatio run in dir: the bytes it measured and the report's weights under each
 * method and class; r keeps the collapsed report's result. */
static void alloc_run(const char *java, const char *dir, struct tu_result *r, double *arrays,
		      double *payloads, double *gb, double *gs)
{
	char cmd[16384];
	snprintf(cmd, sizeof(cmd), "rm -rf jit a.data && mkdir jit && $J record -q -k mono -o "
		 "a.data -- %s%s -agentpath:'%s'=dir=jit,alloc=32768 -cp '%s' "
		 "jitprof.samples.AllocRatio 200", tu_java_env_sh(agent), java, agent, classes);
	sh(dir, r, cmd, 1);
	cr_assert_eq(sscanf(r->out, "arrays %lf payloads %lf", arrays, payloads), 2, "%s", r->out);
	tu_result_free(r);
	sh(dir, r, "$J report -i a.data --event alloc --collapsed", 1);
	const char *big[] = { "AllocRatio.bigArrays(int);[alloc] long[]", NULL };
	const char *small[] = { "AllocRatio.smallObjects(int);[alloc] jitprof.samples."
				"AllocRatio$Payload", NULL };
	*gb = weight_of(r->out, big);
	*gs = weight_of(r->out, small);
}

/* The JVM samples one allocation per 32 KiB on average at random, so each figure carries
 * sampling noise: each within 10% and their ratio too is met by most runs, not all (CI,
 * two JVMs under ASan: 3 runs in about 40 had the ratio 10.8% off). A run that misses is
 * run again, at most three times; lost or misplaced samples fail every time. */
static void alloc_on(const char *java)
{
	struct tu_result r;
	char *dir = tu_tmpdir("alloc");
	double arrays = 0, payloads = 0, gb = 0, gs = 0;

	for (int run = 1; run <= 3; run++) {
		alloc_run(java, dir, &r, &arrays, &payloads, &gb, &gs);
		cr_assert(arrays > 0 && payloads > 0 && gs > 0, "no ground truth or samples:\n%s",
			  r.out);
		if (near(gb, arrays, 0.10) && near(gs, payloads, 0.10) &&
		    near(gb / gs, arrays / payloads, 0.10))
			break;
		fprintf(stderr, "report_alloclock: %s run %d: long[] %.0f of %.0f, Payload %.0f "
			"of %.0f bytes: run again\n", java, run, gb, arrays, gs, payloads);
		if (run < 3)
			tu_result_free(&r);
	}
	within("long[] bytes from bigArrays", gb, arrays, 0.10);
	within("Payload bytes from smallObjects", gs, payloads, 0.10);
	within("long[] : Payload", gb / gs, arrays / payloads, 0.10);
	cr_assert(strstr(r.err, "reporting alloc:"), "the line naming the samples: %s", r.err);
	tu_result_free(&r);
	/* The table by class: bytes and sample counts; no lock samples in this run. */
	sh(dir, &r, "$J report -i a.data --event alloc --sort sym", 1);
	cr_assert(strstr(r.out, "Bytes   Samples") && strstr(r.out, "[.] [alloc] long[]"), "%s",
		  r.out);
	tu_result_free(&r);
	/* speedscope and pprof weigh bytes too */
	sh(dir, &r, "$J report -q -i a.data --event alloc --speedscope s.json --pprof p.pb.gz && "
	   "grep -c '\"unit\":\"bytes\"' s.json && gzip -dc p.pb.gz | grep -c bytes", 1);
	cr_assert(r.out[0] >= '1' && strchr(r.out, '\n') && strchr(r.out, '\n')[1] >= '1', "%s",
		  r.out);
	tu_result_free(&r);
	sh(dir, &r, "$J report -i a.data --event lock", 0);
	cr_assert_neq(r.status, 0);
	cr_assert(strstr(r.err, "wrote no lock samples") && strstr(r.err, "alloc: "), "%s",
		  r.err);
	tu_result_free(&r);
	/* A hostile record: said with its file and offset, the samples before it reported. */
	damage_a_sample(dir);
	sh(dir, &r, "$J report -i a.data --event alloc --sort sym", 1);
	cr_assert(strstr(r.err, "SAMPLE frame count 4294967295 cannot fit") &&
		  strstr(r.err, "offset") && strstr(r.err, "samples after the damage left out"),
		  "%s", r.err);
	cr_assert(strstr(r.out, "[alloc] long[]"), "%s", r.out);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* One LockShare run: the nanoseconds its waiter measured and the lock report's weight under
 * waitGate and the Gate class. The uncontended monitor must have no waits in any run. */
static void lock_run(const char *java, double *measured, double *reported)
{
	struct tu_result r;
	char cmd[16384], *dir = tu_tmpdir("lock");

	snprintf(cmd, sizeof(cmd), "mkdir jit && $J record -q -k mono -o l.data -- %s%s "
		 "-agentpath:'%s'=dir=jit,lock -cp '%s' jitprof.samples.LockShare 200",
		 tu_java_env_sh(agent), java, agent, classes);
	sh(dir, &r, cmd, 1);
	cr_assert_eq(sscanf(r.out, "blocked %lf", measured), 1, "%s", r.out);
	tu_result_free(&r);
	sh(dir, &r, "$J report -i l.data --event lock --collapsed", 1);
	const char *gate[] = { "LockShare.waitGate();[lock] jitprof.samples.LockShare$Gate",
			       NULL };
	const char *quiet[] = { "LockShare$Quiet", NULL };
	*reported = weight_of(r.out, gate);
	cr_assert_eq(weight_of(r.out, quiet), 0, "the uncontended monitor has waits:\n%s", r.out);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* The program's measure includes HotSpot's spin before it posts MonitorContendedEnter,
 * which no JVMTI agent sees: a waiter preempted while spinning (two JVMs on two cores,
 * under ASan) loses whole time slices there, and the report then falls short of it (one
 * run in about thirty in CI: 89%). So a run that is short is run again, at most three
 * times; one over, or three short, fails: lost or misplaced samples fail every time. */
static void lock_on(const char *java)
{
	double measured = 0, reported = 0;
	for (int run = 1; run <= 3; run++) {
		lock_run(java, &measured, &reported);
		cr_assert(measured > 0, "no ground truth");
		if (fabs(reported - measured) <= 0.10 * measured || reported > measured)
			break;
		fprintf(stderr, "report_alloclock: %s run %d: %.0f ns reported, %.0f measured "
			"(%.1f%% short): run again\n", java, run, reported, measured,
			100.0 * (measured - reported) / measured);
	}
	within("ns waited on Gate in waitGate", reported, measured, 0.10);
}

/* The part of each JDK installed here. */
static void on_each_jdk(void (*part)(const char *java))
{
	char java[4200];
	if (setup())
		cr_skip_test("the agent or samples/java are not built");
	for (size_t i = 0; i < sizeof(jdks) / sizeof(jdks[0]); i++)
		if (java_of(jdks[i], java, sizeof(java)))
			part(java);
}

Test(report_alloclock, alloc_bytes_by_class_and_method, .timeout = 600)
{
	on_each_jdk(alloc_on);
}

Test(report_alloclock, lock_waits_by_monitor_and_method, .timeout = 600)
{
	on_each_jdk(lock_on);
}

/* profile -e alloc: the agent gets the option, the report is of allocations. */
Test(report_alloclock, profile_alloc, .timeout = 600)
{
	struct tu_result r;
	char out[4200];
	if (setup() || !tu_have("java"))
		cr_skip_test("java, the agent or samples/java are missing");
	char *dir = tu_tmpdir("profile-alloc");
	snprintf(out, sizeof(out), "%s/p.collapsed", dir);
	const char *args[] = { "-q", "-e", "alloc", "-o", out, "--", "java", "-cp", classes,
			       "jitprof.samples.AllocRatio", "100", NULL };
	pf_profile(&r, args, 300);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	size_t len;
	char *text = tu_read_file(out, &len);
	cr_assert(text && strstr(text, "AllocRatio.bigArrays(int);[alloc] long[] "), "%s",
		  text ? text : "(no report)");
	free(text);
	/* -e cpu-clock,alloc is -e cpu-clock -e alloc: cpu-clock reported, alloc beside it */
	const char *both[] = { "-q", "-e", "cpu-clock,alloc", "-o", out, "--", "java", "-cp",
			       classes, "jitprof.samples.AllocRatio", "50", NULL };
	pf_profile(&r, both, 300);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	text = tu_read_file(out, &len);
	cr_assert(text && strstr(text, "AllocRatio") && !strstr(text, "[alloc] "), "%s",
		  text ? text : "(no report)");
	free(text);
	sh(dir, &r, "$J report -i p.collapsed.jitprof/perf.jit.data --sort sym > /dev/null", 1);
	cr_assert(strstr(r.err, "cpu-clock (") && strstr(r.err, "samples from the JVM); "
		  "reporting cpu-clock"), "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* "N" of the first line holding key ("# Samples: 782  of event 'alloc'"), or -1. */
static long count_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* A recording of cpu-clock whose JVM also sampled allocations: the report of cpu-clock
 * lists alloc among its events with the JVM's count; the HTML page has an alloc tab weighed
 * in bytes whose summary names the allocating methods; pprof an alloc sample type in bytes.
 * Each against `report --event alloc` of the same file. */
Test(report_alloclock, alloc_among_the_events_of_every_view, .timeout = 600)
{
	struct tu_result r, a;
	char cmd[16384], java[4200];
	if (setup())
		cr_skip_test("the agent or samples/java are not built");
	if (!java_of(jdks[0], java, sizeof(java)) && !java_of(jdks[1], java, sizeof(java)))
		cr_skip_test("no JDK of this test's is installed");
	char *dir = tu_tmpdir("alloc-tabs");
	snprintf(cmd, sizeof(cmd), "mkdir jit && $J record -q -k mono -g -o a.data -- %s%s "
		 "-agentpath:'%s'=dir=jit,alloc=65536 -cp '%s' jitprof.samples.AllocRatio 100",
		 tu_java_env_sh(agent), java, agent, classes);
	sh(dir, &r, cmd, 1);
	tu_result_free(&r);
	sh(dir, &a, "$J report -i a.data --event alloc --json > alloc.json && "
	   "$J report -i a.data --event alloc | head -8", 1);
	long n = count_after(a.out, "# Samples: ");
	cr_assert(n > 50, "alloc samples: %s", a.out);
	tu_result_free(&a);

	/* the report of cpu-clock names the JVM's samples among the recording's events */
	sh(dir, &r, "$J report -i a.data --sort sym > /dev/null", 1);
	char want[128];
	snprintf(want, sizeof(want), "cpu-clock (");
	cr_assert(strstr(r.err, want), "%s", r.err);
	snprintf(want, sizeof(want), "alloc (%ld samples from the JVM); reporting cpu-clock", n);
	cr_assert(strstr(r.err, want), "want '%s' in:\n%s", want, r.err);
	tu_result_free(&r);

	/* HTML: a tab per event, alloc's weighed in bytes */
	sh(dir, &r, "$J report -q -i a.data --html p.html && python3 -c 'import json,re\n"
	   "h=open(\"p.html\").read(); d=json.loads(re.search(r\"<script id=\\\"data\\\" "
	   "type=\\\"application/json\\\">(.*?)</script>\", h, re.S).group(1))\n"
	   "ts=[d]+d.get(\"tabs\",[])\n"
	   "print(\",\".join(t[\"event\"] for t in ts), [t[\"bytes\"] for t in ts])'", 1);
	cr_expect_str_eq(r.out, "cpu-clock,alloc [False, True]\n", "%s", r.out);
	tu_result_free(&r);

	/* pprof: alloc_samples and alloc (bytes) beside cpu-clock's, summed as --event alloc */
	if (!tu_have("go")) {
		tu_skip_part("go is not installed: the pprof profile not read");
	} else {
		sh(dir, &r, "$J report -q -i a.data --pprof p.pb.gz && HOME=$PWD GOCACHE=$PWD/gc "
		   "go tool pprof -raw p.pb.gz 2>/dev/null | python3 -c 'import sys\n"
		   "ls=sys.stdin.read().split(\"\\n\"); i=ls.index(\"Samples:\")\n"
		   "ty=ls[i+1].split(); s=[0]*len(ty)\n"
		   "for l in ls[i+2:]:\n"
		   " if not l.strip() or l.startswith(\"Locations\"): break\n"
		   " if \":\" in l and not l.strip().startswith(\"pid\"):\n"
		   "  v=l.split(\":\")[0].split(); s=[a+int(b) for a,b in zip(s,v)]\n"
		   "print(\" \".join(\"%s=%d\" % x for x in zip(ty,s)))'; python3 -c 'import json; "
		   "d=json.load(open(\"alloc.json\")); print(\"alloc_samples/count=%d "
		   "alloc/bytes=%d\" % (d[\"samples\"], d[\"total_period\"]))'", 1);
		char *nl = strchr(r.out, '\n'), got[2048];
		cr_assert_not_null(nl, "%s", r.out);
		snprintf(got, sizeof(got), " %.*s ", (int)(nl - r.out), r.out);
		char *w = strtok(nl + 1, " \n");
		cr_assert_not_null(w);
		for (; w; w = strtok(NULL, " \n")) {
			snprintf(want, sizeof(want), " %s ", w);
			cr_expect(strstr(got, want), "pprof: want '%s' in%s", w, got);
		}
		tu_result_free(&r);
	}

	/* The tab in a browser: its button in bytes, its total the bytes of --event alloc, its
	 * summary's first method the one that allocates most (bigArrays: 3 of every 4 bytes). */
	char script[4096], shots[4096];
	if (!tu_have("node") || access("/usr/bin/chromium", X_OK) ||
	    !realpath("tests/browser/html_event_tabs.js", script) ||
	    access("tests/browser/node_modules/puppeteer-core", F_OK)) {
		tu_skip_part("the tabs in a browser: node, chromium or tests/browser's npm packages "
			     "(make deps) are missing");
	} else {
		mkdir(tu_build("screens"), 0755);
		cr_assert_not_null(realpath(tu_build("screens"), shots));
		snprintf(cmd, sizeof(cmd), "node '%s' p.html '%s/alloc-tabs' > tabs.out && "
			 "python3 -c 'import json\no=json.load(open(\"tabs.out\"))\n"
			 "a=json.load(open(\"alloc.json\"))\n"
			 "t=[t for t in o[\"tabs\"] if t[\"event\"]==\"alloc\"][0]\n"
			 "print(len(o[\"errors\"]), o[\"buttons\"][1], t[\"total\"]==a[\"total_period\"],"
			 " t[\"method\"], \"|\", t[\"methods_head\"])'", script, shots);
		sh(dir, &r, cmd, 1);
		double mib = 0;
		sh(dir, &a, "python3 -c 'import json; print(json.load(open(\"alloc.json\"))"
		   "[\"total_period\"] / 1048576)'", 1);
		/* rounded as the page's toFixed(1) does: a tie (103.25) goes up, where printf's
		 * %.1f of the exact binary value goes to even */
		mib = floor(atof(a.out) * 10 + 0.5) / 10;
		tu_result_free(&a);
		snprintf(want, sizeof(want), "0 alloc: %.1f MiB True "
			 "jitprof.samples.AllocRatio.bigArrays(int) | Methods that allocate most",
			 mib);
		cr_expect(!strncmp(r.out, want, strlen(want)), "want '%s' in:\n%s", want, r.out);
		tu_result_free(&r);
	}
	tu_rmtree(dir);
	free(dir);
}
