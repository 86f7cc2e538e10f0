/* report_callgraph.c - `jitprof report -g` against `perf report -g --stdio --no-children` on
 * a recording with deep stacks (a recursive program built here): about as many lines as
 * perf's (within 1.5x), no whitespace-only lines, no graph under rows below the threshold,
 * --percent-limit hiding rows, kernel frames without flamegraph.pl's "_[k]"; a recording with
 * --call-graph dwarf unwound; and the same size check on a JVM recording injected. */
#include "tests/e2e/report_util.h"

TestSuite(report_callgraph, .init = rx_setup, .fini = rx_teardown, .timeout = 300);

static const char deep_c[] =
	"#include <stdlib.h>\n"
	"volatile unsigned long sink;\n"
	"__attribute__((noinline)) static void leaf(int n)\n"
	"{ for (int i = 0; i < n; i++) sink += i * 7; }\n"
	"__attribute__((noinline)) static void leaf2(int n)\n"
	"{ for (int i = 0; i < n; i++) sink ^= i * 3; }\n"
	"__attribute__((noinline)) static void rec(int d, int w)\n"
	"{\n"
	"	if (d == 0) { if (w & 1) leaf(2000); else leaf2(1000); return; }\n"
	"	rec(d - 1, w);\n"
	"	if (d % 3 == 0) rec(d - 2 > 0 ? d - 2 : 0, w + 1);\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long n = argc > 1 ? atol(argv[1]) : 300;\n"
	"	for (long i = 0; i < n; i++) rec(14, (int)i);\n"
	"	return 0;\n"
	"}\n";

/* Lines with something other than blanks. */
static size_t nonblank(const char *s)
{
	size_t n = 0;
	char line[4096];
	for (const char *p = s; rx_next_line(&p, line, sizeof(line));)
		n += strspn(line, " \t") < strlen(line);
	return n;
}

static void no_blank_runs(const char *out)
{
	char line[4096];
	for (const char *p = out; rx_next_line(&p, line, sizeof(line));)
		cr_assert(!line[0] || strspn(line, " \t") < strlen(line),
			  "a whitespace-only line in\n%s", out);
}

/* perf report -g and ours on dir/DATA: within 1.5x of each other in non-blank lines, ours
 * without whitespace-only lines. Returns our output (valid until the next call). */
static const char *compare_sizes(const char *home, const char *data)
{
	static struct tu_result ours;
	struct tu_result perf;
	tu_result_free(&ours);
	rx_ok(&perf, "cd '%s' && HOME='%s' perf report -i '%s' -g --stdio --no-children "
	      "2>/dev/null", dir, home, data);
	rx_ok(&ours, "cd '%s' && HOME='%s' '%s' report -i '%s' -g 2>/dev/null", dir, home,
	      rx_jitprof, data);
	size_t np = nonblank(perf.out), no = nonblank(ours.out);
	cr_assert_gt(np, 20, "perf printed little:\n%s", perf.out);
	cr_assert(no * 2 <= np * 3 && np * 2 <= no * 3,
		  "%zu non-blank lines, perf %zu:\n%s\n---- perf:\n%s", no, np, ours.out, perf.out);
	no_blank_runs(ours.out);
	tu_result_free(&perf);
	return ours.out;
}

Test(report_callgraph, size_and_shape_like_perf)
{
	char home[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_build_and_record(home, "deep", deep_c, "-O1 -fno-omit-frame-pointer",
			    "-g -F 2000", "100000");
	const char *ours = compare_sizes(home, "perf.data");
	cr_assert_null(strstr(ours, "_[k]"), "%s", ours);
	/* The recursion's branches: perf's "|--P%--rec" lines appear in ours too. */
	cr_assert_gt(tu_count(ours, "--rec\n"), 2, "%s", ours);
	cr_assert(strstr(ours, "            ---"), "%s", ours);
	struct tu_result r;
	/* --percent-limit: rows and branches under it are gone. */
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.data -g --percent-limit 5 "
	      "2>/dev/null", dir, home, rx_jitprof);
	char line[4096];
	for (const char *p = r.out; rx_next_line(&p, line, sizeof(line));) {
		double pct;
		if (line[0] != '#' && sscanf(line, " %lf%%", &pct) == 1)
			cr_assert_geq(pct, 5.0, "row under the limit: %s", line);
		const char *b = strstr(line, "--");
		if (b && sscanf(b, "--%lf%%--", &pct) == 1)
			cr_assert_geq(pct, 5.0, "branch under the limit: %s", line);
	}
	tu_result_free(&r);
}

/* perf record --call-graph dwarf copies user stacks for a later unwinder: jitprof report
 * unwinds them (recorder/unwind/, tests/e2e/report_unwind.c) and says how the walks went,
 * not the old "does not unwind" warning; the recursion shows its callers. */
Test(report_callgraph, dwarf_stack_copies_are_unwound)
{
	char home[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_build_and_record(home, "deep", deep_c, "-O1", "--call-graph dwarf,4096 -F 500",
			    "20000");
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.data --collapsed 2>&1", dir, home,
	      rx_jitprof);
	cr_assert_null(strstr(r.out, "does not unwind"), "%s", r.out);
	cr_assert(strstr(r.out, ";main;rec;rec;"), "%s", r.out);
	tu_result_free(&r);
}

/* The same on jitted code: a JVM under perf record -g with our agent, injected; every jitted
 * frame is a method generation. */
Test(report_callgraph, java_size_like_perf)
{
	char home[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_record_java(home, "-g -F 1000", "Generations 300");
	compare_sizes(home, "perf.jit.data");
}

/* Stack outputs name only the sampled generations, and an ELF inject wrote carries its
 * method's runtime name in its note: they read no dump (strace: never opened), where a Java
 * start-up's is tens of MB, read whole for a few thousand sampled loads. With the dumps moved
 * away, -g, the folded stacks and pprof's export are the same as with them; --generations,
 * which lists every generation, still needs them and says so, once per dump. */
Test(report_callgraph, stack_outputs_need_no_dump)
{
	char home[PATH_MAX];
	struct tu_result r;
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_record_java(home, "-g -F 1000", "Generations 300");
	static const char *const outs[] = { "-g", "--collapsed", "--json -g" };
	char *with[3];
	for (int i = 0; i < 3; i++) {
		rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data %s 2>/dev/null", dir,
		      home, rx_jitprof, outs[i]);
		with[i] = strdup(r.out);
		tu_result_free(&r);
	}
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -q -i perf.jit.data --pprof with.pb.gz", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	/* Not even opened while it is there; of its companion only the header is read (40
	 * bytes: whether the JVM wrote allocation or lock samples, the recording's other
	 * events), never mapped. */
	if (tu_have("strace")) {
		/* LeakSanitizer cannot run under ptrace (a SANITIZE=1 build): leaks not asked */
		rx_ok(&r, "cd '%s' && HOME='%s' ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}"
		      "detect_leaks=0\" strace -f -y -e trace=open,openat,read,pread64,mmap "
		      "-o trace.txt '%s' report -q -i perf.jit.data -g >/dev/null && python3 -c '"
		      "import re\nopens=0; got=0; maps=0\n"
		      "for l in open(\"trace.txt\"):\n"
		      " if re.search(r\"open(at)?\\(.*jit-[0-9]+\\.dump\\\"\", l): opens+=1\n"
		      " if \".dump.jitprof>\" in l:\n"
		      "  m=re.search(r\"^\\d+ +(\\w+)\\(.*= (\\d+)\", l)\n"
		      "  if m and m.group(1) in (\"read\", \"pread64\"): got+=int(m.group(2))\n"
		      "  if m and m.group(1)==\"mmap\": maps+=1\n"
		      "print(opens, got, maps)'", dir, home, rx_jitprof);
		int opens = -1, got = -1, maps = -1;
		cr_assert_eq(sscanf(r.out, "%d %d %d", &opens, &got, &maps), 3, "%s", r.out);
		cr_expect_eq(opens, 0, "report -g opened the dump %d times", opens);
		cr_expect(got <= 40 && maps == 0, "report -g read %d bytes of the companion and "
			  "mapped it %d times", got, maps);
		tu_result_free(&r);
	} else {
		tu_skip_part("strace is not installed (make deps installs it)");
	}
	rx_ok(&r, "cd '%s' && mkdir away && mv jit/jit-*.dump* away/", dir);
	tu_result_free(&r);
	for (int i = 0; i < 3; i++) {
		rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data %s 2>/dev/null", dir,
		      home, rx_jitprof, outs[i]);
		cr_expect_str_eq(r.out, with[i], "%s differs without the dump", outs[i]);
		tu_result_free(&r);
		free(with[i]);
	}
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -q -i perf.jit.data --pprof without.pb.gz && "
	      "cmp with.pb.gz without.pb.gz", dir, home, rx_jitprof);
	tu_result_free(&r);
	cr_assert_eq(rx_sh(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data --generations",
			   dir, home, rx_jitprof), 0);
	cr_expect(strstr(r.err, "jit-") && strstr(r.err, ".dump"), "the missing dump unsaid: %s",
		  r.err);
	tu_result_free(&r);
}
