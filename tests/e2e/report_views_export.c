/* report_views_export.c - exports that existing viewers open, on samples/java Generations:
 * --speedscope is accepted by speedscope's own importer (its page from npm, in headless
 * Chromium: tests/browser/speedscope_import.js), holds every sample in time order with the
 * inlined area() frames; --pprof is read by `go tool pprof`, whose -top lists the functions
 * jitprof's table puts first, with inlined functions as their own lines, under a header that
 * names the program that ran. */
#include <math.h>
#include <unistd.h>

#include "tests/e2e/report_util.h"

#define home rx_home
#define data rx_data

TestSuite(report_views_export, .init = rx_setup_recording, .fini = rx_teardown,
	  .timeout = 300);

Test(report_views_export, speedscope)
{
	char script[PATH_MAX];
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	rx_record_java(home, "-g", "Generations 600");
	rx_report_to_file("--speedscope", "p.speedscope.json");
	struct tu_result r;
	/* Every sample once (the JSON report counts them), one weight per sample, and samples
	 * through the inlined area() (the time order is unit-tested: the file has no times). */
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --json | python3 -c 'import json,sys; "
	      "print(json.load(sys.stdin)[\"samples\"])'", home, rx_jitprof, data);
	long samples = atol(r.out);
	tu_result_free(&r);
	rx_ok(&r, "python3 -c 'import json,sys\n"
	      "d=json.load(open(sys.argv[1]))\n"
	      "fr=d[\"shared\"][\"frames\"]\n"
	      "n=sum(len(p[\"samples\"]) for p in d[\"profiles\"])\n"
	      "ok=all(len(p[\"samples\"])==len(p[\"weights\"]) and p[\"type\"]==\"sampled\" "
	      "for p in d[\"profiles\"])\n"
	      "inl=sum(1 for p in d[\"profiles\"] for s in p[\"samples\"] "
	      "if any(fr[i][\"name\"].endswith(\"Square.area()_[i]\") for i in s))\n"
	      "print(n, int(ok), inl)' '%s/p.speedscope.json'", dir);
	long n, ok, inl;
	cr_assert_eq(sscanf(r.out, "%ld %ld %ld", &n, &ok, &inl), 3, "%s", r.out);
	cr_assert_eq(n, samples, "speedscope %ld samples, report %ld", n, samples);
	cr_assert_eq(ok, 1);
	cr_assert_gt(inl, 0, "no sample through an inlined Square.area()");
	tu_result_free(&r);

	if (!rx_have_browser(script, "speedscope_import.js") ||
	    access("tests/browser/node_modules/speedscope", F_OK)) {
		tu_skip_part("speedscope import: node, chromium or tests/browser's npm packages "
			     "(make deps) are missing");
		return;
	}
	char shots[PATH_MAX];
	snprintf(shots, sizeof(shots), "%s", tu_build("screenshots"));
	mkdir(shots, 0755);
	rx_ok(&r, "node '%s' '%s/p.speedscope.json' '%s'", script, dir, shots);
	cr_assert(strstr(r.out, "\"alerts\":[],\"errors\":[]"), "speedscope refused it: %s", r.out);
	cr_assert(strstr(r.out, " - speedscope\""), "no profile loaded: %s", r.out);
	cr_assert(strstr(r.out, "Time Order"), "%s", r.out);
	tu_result_free(&r);
}

/* "name share" lines, name cut at '(' (pprof drops Java parameter lists): from jitprof's
 * --sort sym JSON summed per name, or from pprof -top's flat column. */
static size_t top_names(const char *cmd_out, char (*names)[256], double *share, size_t max)
{
	size_t n = 0;
	for (const char *p = cmd_out; *p && n < max;) {
		if (sscanf(p, "%lf %255[^\n]", &share[n], names[n]) == 2)
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

Test(report_views_export, pprof_top)
{
	if (!tu_have("go") || !tu_have("python3"))
		cr_skip_test("go (golang-go) or python3 is not installed");
	rx_record_java(home, "-g", "Generations 600");
	rx_report_to_file("--pprof", "p.pb.gz");
	struct tu_result r;
	/* Both ways of charging inlined code: to the function it was inlined into (--no-inline,
	 * pprof -noinlines) and to the innermost function (the default of both). */
	static const char *const ways[][2] = { { "--no-inline", "-noinlines" }, { "", "" } };
	for (int w = 0; w < 2; w++) {
		/* jitprof: samples per symbol name (generations summed), top 3. */
		rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' --sort sym --json %s | python3 -c "
		      "'import json,sys,collections\nd=json.load(sys.stdin)\nc=collections.Counter()\n"
		      "for r in d[\"rows\"]: c[r[\"sym\"].split(\"(\")[0]]+=r[\"overhead\"]\n"
		      "for k,v in c.most_common(3): print(\"%%.2f %%s\" %% (v,k))'", home, rx_jitprof,
		      data, ways[w][0]);
		/* pprof's top 6: two names whose weights differ by a sample or two may be in
		 * either order in the two tools (CI: row 2 a tie), so each of jitprof's top 3 is
		 * looked up by name among pprof's top 6 and its share compared. */
		char ours[3][256], theirs[6][256];
		double os[3], ts[6];
		cr_assert_eq(top_names(r.out, ours, os, 3), 3, "%s", r.out);
		tu_result_free(&r);
		/* pprof's flat%% and the name (cut at '(', " (inline)" with it). */
		rx_ok(&r, "cd '%s' && HOME='%s' GOCACHE='%s/go' GOPATH='%s/go' go tool pprof -top "
		      "%s p.pb.gz 2>/dev/null | awk '$2 ~ /%%$/ && $1 != \"flat\" {sub(/%%/,\"\","
		      "$2); name=$6; for(i=7;i<=NF;i++) name=name\" \"$i; sub(/\\(.*/,\"\",name); "
		      "sub(/ +$/,\"\",name); print $2, name}' | head -6", dir, home, dir, dir, ways[w][1]);
		size_t nt = top_names(r.out, theirs, ts, 6);
		cr_assert_geq(nt, 3, "%s", r.out);
		for (int i = 0; i < 3; i++) {
			size_t j = 0;
			while (j < nt && strcmp(ours[i], theirs[j]))
				j++;
			cr_assert_lt(j, nt, "%s row %d: jitprof's %s is not in pprof's top %zu\n%s",
				     ways[w][0], i, ours[i], nt, r.out);
			cr_assert_leq(fabs(os[i] - ts[j]), 0.1, "%s: jitprof %.2f%%, pprof %.2f%%",
				      ours[i], os[i], ts[j]);
			/* and it is where its share puts it: within a tie of pprof's row i */
			cr_assert_leq(fabs(ts[j] - ts[i]), 0.2, "%s row %d: jitprof %s %.2f%%, pprof's "
				      "row %d %s %.2f%%", ways[w][0], i, ours[i], os[i], i, theirs[i],
				      ts[i]);
		}
		tu_result_free(&r);
	}
	/* With inlines (the default) the inlined area() is a line of its own. */
	rx_ok(&r, "cd '%s' && HOME='%s' GOCACHE='%s/go' go tool pprof -top p.pb.gz 2>/dev/null",
	      dir, home, dir);
	cr_assert(strstr(r.out, "area() (inline)"), "%s", r.out);
	tu_result_free(&r);
	/* Its header names the program that ran (the JVM's binary, as this machine resolves
	 * `java`), not the DSO of the first sample's leaf. */
	rx_ok(&r, "cd '%s' && echo \"File: $(basename \"$(readlink -f \"$(command -v java)\")\")\" "
	      "&& HOME='%s' GOCACHE='%s/go' go tool pprof -top p.pb.gz 2>/dev/null | head -1", dir,
	      home, dir);
	const char *nl = strchr(r.out, '\n');
	cr_assert(nl && !strncmp(r.out, nl + 1, (size_t)(nl - r.out + 1)), "pprof's header, "
		  "then the expected one:\n%s", r.out);
	tu_result_free(&r);
	/* Jitted code's mappings carry the ELFs' build-ids. */
	rx_ok(&r, "cd '%s' && HOME='%s' GOCACHE='%s/go' go tool pprof -raw p.pb.gz 2>/dev/null | "
	      "grep -E '^ *[0-9]+: .* jitted-[0-9]+-[0-9]+\\.so [0-9a-f]{40} ' | head -1", dir, home,
	      dir);
	cr_assert(r.out[0], "no jitted mapping with a build-id");
	tu_result_free(&r);
	/* Native ones carry the build-ids the recording holds (buildid-list's, for libc). */
	rx_ok(&r, "cd '%s' && want=$(HOME='%s' '%s' buildid-list -i perf.jit.data | "
	      "awk '$2 ~ /\\/libc\\.so\\.6$/ {print $1; exit}') && if [ -z \"$want\" ]; then "
	      "echo none; else HOME='%s' GOCACHE='%s/go' go tool pprof -raw p.pb.gz 2>/dev/null | "
	      "grep -cE \"^ *[0-9]+: .* libc\\.so\\.6 $want \" || true; fi", dir, home,
	      rx_jitprof, home, dir);
	if (!strncmp(r.out, "none", 4))
		fprintf(stderr, "report_views_export: no libc build-id recorded, not compared\n");
	else
		cr_assert_geq(atoi(r.out), 1, "libc's mapping lacks its build-id");
	tu_result_free(&r);
}

/* Frame-only outputs name only the loads some frame lands in (most of a JVM's are never
 * sampled); beside a flame graph, whose tooltips list every generation, all are named. What
 * they print must not change: stdout and files compared both ways. */
Test(report_views_export, frame_outputs_same_with_every_load_named)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	rx_record_java(home, "-g", "Generations 600");
	/* (the text table is no output beside a flame graph: its -g is --json's tree) */
	static const char *const outputs[] = { "--collapsed", "--collapsed --no-inline",
					       "--json -g", "--json -g caller --sort dso,sym",
					       "--pprof @.pb.gz", "--speedscope @.json" };
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		char a[256], b[256];
		const char *at = strchr(outputs[i], '@');
		int n = at ? (int)(at - outputs[i]) : (int)strlen(outputs[i]);
		snprintf(a, sizeof(a), "%.*s%s%s", n, outputs[i], at ? "\"$D\"/a" : "", at ? at + 1 : "");
		snprintf(b, sizeof(b), "%.*s%s%s", n, outputs[i], at ? "\"$D\"/b" : "", at ? at + 1 : "");
		struct tu_result r;
		rx_ok(&r, "D='%s'; cd \"$D\" && HOME='%s' '%s' report -q -i '%s' %s > a.out && "
		      "HOME='%s' '%s' report -q -i '%s' %s --flamegraph fg.svg > b.out && "
		      "cmp a.out b.out && if [ -e a%s ]; then "
		      "python3 -c 'import gzip,sys\n"
		      "r=lambda p: gzip.open(p).read() if p.endswith(\".gz\") else open(p,\"rb\").read()\n"
		      "sys.exit(r(sys.argv[1]) != r(sys.argv[2]))' a%s b%s; fi && wc -c < a.out",
		      dir, home, rx_jitprof, data, a, home, rx_jitprof, data, b,
		      at ? at + 1 : ".none", at ? at + 1 : "", at ? at + 1 : "");
		cr_assert(at || atol(r.out) > 0, "%s: nothing printed", outputs[i]);
		tu_result_free(&r);
	}
}
