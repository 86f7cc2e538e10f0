/* interp_names.c - HotSpot interpreter frames named, with their lines (issue 35): a Java
 * program of known call structure (main -> rec x6 -> a -> b -> c -> leaf, leaf spinning),
 * its call lines marked in its source, recorded with `jitprof record --call-graph dwarf` on
 * JDK 17 and JDK 25 (each a part skipped where absent), all interpreted (-Xint), then mixed
 * (a and leaf kept interpreted, the rest compiled, -XX:+PreserveFramePointer): every sampled
 * stack's Java frames are a prefix of the real path, >= 95% of the main thread's samples
 * reach main, interpreted frames are marked _[int], leaf's samples get its line in --sort
 * srcline, and each caller its call's line (go tool pprof -lines -traces of --pprof). The
 * ground truth is the source written here: the lines are found by their markers. inject
 * --all: a jitted caller seen only in unwound stacks (no sample's ip in it) has no ELF
 * otherwise (inject picks generations by the samples' ips and fp call chains). Then all
 * compiled (C2, C1) without frame pointers: the CFI synth writes for HotSpot prologues. */
#include "tests/e2e/report_util.h"
#include "tests/lib/javac.h"

TestSuite(interp_names, .init = rx_setup, .fini = rx_teardown, .timeout = 600);

static const char calls_java[] =
	"public class Calls {\n"
	"    static volatile long sink;\n"
	"    static long leaf(long x) {\n"
	"        long s = 0;\n"
	"        for (int i = 0; i < 2000; i++) s += (x ^ i) % 7; // LEAF\n"
	"        return s;\n"
	"    }\n"
	"    static long c(long x) { return leaf(x) + 1; } // CALL_C\n"
	"    static long b(long x) { return c(x) + 2; } // CALL_B\n"
	"    static long a(long x) { return b(x) + 3; } // CALL_A\n"
	"    static long rec(int d, long x) { return d == 0 ? a(x) : rec(d - 1, x) + 1; } // CALL_REC\n"
	"    public static void main(String[] args) {\n"
	"        long end = System.nanoTime() + Long.parseLong(args[0]) * 1000000L;\n"
	"        long i = 0;\n"
	"        while (System.nanoTime() < end) sink += rec(5, i++); // CALL_MAIN\n"
	"    }\n"
	"}\n";

/* The real path, outermost first, and the markers of the first and last line each frame
 * may be at: a caller at its call's line; main also before its loop (parseLong, nanoTime),
 * leaf anywhere in its body. */
static const struct { const char *name, *first, *last; } path[] = {
	{ "Calls.main(java.lang.String[])", "long end", "CALL_MAIN" },
	{ "Calls.rec(int, long)", "CALL_REC", "CALL_REC" },
	{ "Calls.rec(int, long)", "CALL_REC", "CALL_REC" },
	{ "Calls.rec(int, long)", "CALL_REC", "CALL_REC" },
	{ "Calls.rec(int, long)", "CALL_REC", "CALL_REC" },
	{ "Calls.rec(int, long)", "CALL_REC", "CALL_REC" },
	{ "Calls.rec(int, long)", "CALL_REC", "CALL_REC" },
	{ "Calls.a(long)", "CALL_A", "CALL_A" }, { "Calls.b(long)", "CALL_B", "CALL_B" },
	{ "Calls.c(long)", "CALL_C", "CALL_C" }, { "Calls.leaf(long)", "long s = 0", "return s" },
};
#define PATH_N (sizeof(path) / sizeof(path[0]))

/* The 1-based line of the source holding marker. */
static int line_of(const char *marker)
{
	return rx_line_of(calls_java, marker);
}

/* Javac once for every case (tests/lib/javac.h). 0, or -1 without a javac. */
static int compile(void)
{
	return tu_javac(dir, "Calls", calls_java, "--release 17 -g");
}

/* The Java frames of one folded stack (outermost first), their marks cut off; *marks gets
 * how many carried _[int]. NULL-terminated into out (at most max - 1). */
static size_t java_frames(char *stack, const char **out, size_t max, size_t *interp,
			  size_t *unnamed_mid)
{
	size_t n = 0, last_named = 0, unnamed_at = 0, seen_unnamed = 0;
	*interp = 0;
	for (char *tok = strtok(stack, ";"); tok; tok = strtok(NULL, ";")) {
		size_t l = strlen(tok);
		if (!strcmp(tok, "Interpreter")) {
			seen_unnamed++;
			unnamed_at = n;
			continue;
		}
		if (strncmp(tok, "Calls.", 6))
			continue;
		if (l > 6 && !strcmp(tok + l - 6, "_[int]")) {
			tok[l - 6] = 0;
			(*interp)++;
		} else if (l > 4 && !strcmp(tok + l - 4, "_[i]")) {
			tok[l - 4] = 0;
		}
		if (n + 1 < max)
			out[n++] = tok;
		last_named = n;
	}
	/* An unnamed interpreter frame below a named one and above another: a frame decoded
	 * wrongly or not at all in the middle of the path. */
	*unnamed_mid = seen_unnamed && unnamed_at < last_named && unnamed_at > 0;
	out[n] = NULL;
	return n;
}

struct verdict {
	unsigned long main_thread, reach_main, in_leaf, leaf_interp, unnamed_mid, wrong;
	char first_wrong[2048];
};

/* f[0..n) is path[j..j+n) for j 0, or for any j when the walk was cut short (an [unknown]
 * frame): a real path of the program, or part of one. */
static int real_path(const char **f, size_t n, int cut)
{
	for (size_t j = 0; j + n <= PATH_N && (j == 0 || cut); j++) {
		size_t i = 0;
		while (i < n && !strcmp(f[i], path[j + i].name))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

/* compiled: a main deoptimized back into the interpreter shows as the 'Interpreter' frame
 * above call_stub (inject's chains name no interpreter frame): the path from its callee on. */
static void check_folded(const char *folded, int all_interp, int compiled, struct verdict *v)
{
	char line[32768];
	memset(v, 0, sizeof(*v));
	for (const char *p = folded; rx_next_line(&p, line, sizeof(line));) {
		char *sp = strrchr(line, ' ');
		if (!sp || strncmp(line, "java;", 5))
			continue;
		*sp = 0;
		unsigned long cnt = strtoul(sp + 1, NULL, 10);
		int main_thread = strstr(line, ";jni_CallStaticVoidMethod;") != NULL;
		int cut = strstr(line, "[unknown]") != NULL ||
			  (compiled && strstr(line, ";call_stub;Interpreter;"));
		char copy[2048];
		snprintf(copy, sizeof(copy), "%.2000s", line);
		const char *f[64];
		size_t interp, mid, n = java_frames(line, f, 64, &interp, &mid);
		/* Every stack with a frame of ours: the real path from main on, or part of it
		 * when cut short. */
		if (n && !real_path(f, n, cut)) {
			if (!v->wrong)
				memcpy(v->first_wrong, copy, sizeof(copy));
			v->wrong += cnt;
		}
		if (all_interp)
			cr_assert_eq(interp, n, "-Xint, yet %zu of %zu frames not _[int]", n - interp,
				     n);
		if (!main_thread)
			continue;
		v->main_thread += cnt;
		v->reach_main += n ? cnt : 0;
		v->unnamed_mid += mid ? cnt : 0;
		if (n == PATH_N) {
			v->in_leaf += cnt;
			v->leaf_interp += interp == n || !all_interp ? cnt : 0;
		}
	}
}

/* Each caller's line in the traces of go tool pprof -lines: its call's line, always. */
static void check_lines(const char *traces)
{
	char want[PATH_N][128];
	unsigned long hits = 0, exact = 0;
	for (size_t i = 0; i < PATH_N; i++) {
		const char *paren = strchr(path[i].name, '(');
		snprintf(want[i], sizeof(want[i]), "%.*s", (int)(paren - path[i].name),
			 path[i].name);
	}
	char line[4096];
	for (const char *p = traces; rx_next_line(&p, line, sizeof(line));) {
		const char *at = strstr(line, " Calls.java:");
		if (!at)
			continue;
		int got = atoi(at + strlen(" Calls.java:"));
		for (size_t i = 0; i < PATH_N; i++)
			if (strstr(line, want[i]) && (line[strspn(line, " 0123456789.ms")] == 'C')) {
				const char *name = line + strspn(line, " 0123456789.ms");
				if (strncmp(name, want[i], strlen(want[i])) ||
				    (name[strlen(want[i])] != '(' && name[strlen(want[i])] != ' '))
					continue;
				int lo = line_of(path[i].first), hi = line_of(path[i].last);
				cr_assert(got >= lo && got <= hi, "%s: line %d, the frame is at "
					  "%d-%d", line, got, lo, hi);
				exact += got == line_of(path[i].last) && i < PATH_N - 1;
				hits++;
				break;
			}
	}
	cr_assert_geq(hits, PATH_N, "too few Java frames with lines:\n%s", traces);
	cr_assert_geq(exact, PATH_N - 1, "too few callers at their call's line:\n%s", traces);
}

/* report's own walk of the copies (recorder/report/unwound.c) on `perf inject --jit`'s output
 * (perf's ELFs, its .text elsewhere than ours): the same checks. */
static void check_report_walk(const char *home, const char *jvm_flags)
{
	struct tu_result r;
	struct verdict v;

	if (!tu_have("perf")) {
		tu_skip_part("perf is not installed: report's walk of perf inject's output");
		return;
	}
	rx_ok(&r, "cd '%s' && rm -f perf.pj.data && perf inject --jit -i perf.data -o perf.pj.data "
	      ">/dev/null 2>&1 && HOME='%s' '%s' report -i perf.pj.data --collapsed", dir, dir,
	      rx_jitprof);
	check_folded(r.out, 0, 1, &v);
	tu_result_free(&r);
	cr_assert_geq(v.main_thread, 200, "%s %s, report's walk: %lu samples of main's thread",
		      home, jvm_flags, v.main_thread);
	cr_assert_geq(v.reach_main * 100, v.main_thread * 95, "%s %s, report's walk: %lu of %lu "
		      "reach main", home, jvm_flags, v.reach_main, v.main_thread);
	cr_assert_leq(v.wrong * 100, v.main_thread, "%s %s, report's walk: %lu samples on no "
		      "path of the program, as\n%s", home, jvm_flags, v.wrong, v.first_wrong);
}

/* -Xint: the interpreted methods are the methods of the method-centric views, not "JIT runtime
 * code": --methods ranks leaf first, marked _[int], and closes on it as the hottest Java
 * method; the HTML page's summary ranks it first too, with 0 compiled generations. */
static void check_interpreted_methods(const char *home)
{
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data --methods", dir, dir,
	      rx_jitprof);
	const char *m = strstr(r.out, "# Methods, compiled or interpreted: ");
	cr_assert(m, "%s: %s", home, r.out);
	/* the first row after the column titles */
	const char *row = strstr(m, "\n# Overhead");
	row = row ? strchr(row + 1, '\n') : NULL;
	const char *end = row ? strchr(row + 1, '\n') : NULL;
	const char *want = "  Calls.leaf(long)_[int]";
	cr_assert(end && (size_t)(end - row) > strlen(want) &&
		  !strncmp(end - strlen(want), want, strlen(want)),
		  "%s: leaf is not the first method:\n%s", home, r.out);
	cr_assert(strstr(r.out, "# hottest Java method: Calls.leaf(long)_[int] ("), "%s: %s", home,
		  r.out);
	cr_assert(strstr(r.out, "_[int] interpreted: the JVM's interpreter ran it"), "%s", r.out);
	tu_result_free(&r);
	if (!tu_have("python3")) {
		tu_skip_part("python3 is not installed: the HTML summary's data not read");
		return;
	}
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -q -i perf.jit.data --html p.html && "
	      "python3 -c 'import json,re\n"
	      "h=open(\"p.html\").read()\n"
	      "d=json.loads(re.search(r\"<script id=.data. type=.application/json.>(.*?)</script>\","
	      " h, re.S).group(1))\n"
	      "m=d[\"summary\"][\"methods\"][0]\n"
	      "print(m[\"name\"], m[\"gens\"], sep=\"|\")'", dir, dir, rx_jitprof);
	cr_assert_str_eq(r.out, "Calls.leaf(long)|0\n", "%s: the page's first method", home);
	tu_result_free(&r);
}

/* One recording of the program on JDK home with extra JVM flags; the report's checks. */
static void run(const char *home, const char *jvm_flags, int all_interp, int compiled)
{
	char args[1024];
	struct tu_result r;
	struct verdict v;

	snprintf(args, sizeof(args), "%s Calls 2500", jvm_flags);
	if (rx_record_java_dwarf(home, args))
		return;
	/* --keep-stacks: report unwinds the copies again itself and names interpreted frames */
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit --all --keep-stacks -q -i perf.data "
	      "-o perf.jit.data", dir,
	      dir, rx_jitprof);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data --collapsed", dir, dir,
	      rx_jitprof);
	check_folded(r.out, all_interp, compiled, &v);
	tu_result_free(&r);
	cr_assert_geq(v.main_thread, 200, "%s %s: %lu samples of main's thread", home, jvm_flags,
		      v.main_thread);
	cr_assert_geq(v.reach_main * 100, v.main_thread * 95, "%s %s: %lu of %lu reach main",
		      home, jvm_flags, v.reach_main, v.main_thread);
	cr_assert_geq(v.in_leaf * 2, v.main_thread, "%s %s: %lu of %lu in leaf", home, jvm_flags,
		      v.in_leaf, v.main_thread);
	cr_assert_leq(v.unnamed_mid * 20, v.main_thread, "%s %s: %lu stacks with an unnamed "
		      "interpreter frame between named ones", home, jvm_flags, v.unnamed_mid);
	/* Interpreted frames are decoded exactly: never a wrong path. Jitted code walked by its
	 * frame pointer loses its caller when sampled in its prologue (before push rbp): a
	 * few in a thousand (docs/unwind.md). */
	cr_assert_leq(v.wrong * (all_interp ? 1 : 100), all_interp ? 0 : v.main_thread,
		      "%s %s: %lu samples whose Java frames are no path of the program, as\n%s",
		      home, jvm_flags, v.wrong, v.first_wrong);
	/* leaf gets its line in the table (interpreted: the method table; compiled: its ELF). */
	/* (compiled, C2 calls SharedRuntime::lrem for its %: leaf's row comes second) */
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data --sort sym,srcline -n %d", dir,
	      dir, rx_jitprof, compiled ? 5 : 1);
	char want[64];
	snprintf(want, sizeof(want), "Calls.java:%d", line_of("// LEAF"));
	cr_assert(strstr(r.out, "Calls.leaf(long)") && strstr(r.out, want), "%s", r.out);
	tu_result_free(&r);
	if (compiled)
		check_report_walk(home, jvm_flags);
	if (!all_interp)
		return;
	check_interpreted_methods(home);
	if (!tu_have("go")) {
		tu_skip_part("go is not installed: callers' lines not read from --pprof");
		return;
	}
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.jit.data --pprof p.pb.gz && "
	      "HOME='%s' GOCACHE='%s/go' go tool pprof -lines -traces p.pb.gz 2>/dev/null", dir,
	      dir, rx_jitprof, dir, dir);
	check_lines(r.out);
	tu_result_free(&r);
}

static const char *const homes[] = { "/usr/lib/jvm/java-17-openjdk-amd64",
				     "/usr/lib/jvm/temurin-25-jdk-amd64" };

Test(interp_names, all_interpreted)
{
	if (compile())
		cr_skip_test("no javac here");
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		run(homes[i], "-Xint -XX:+PreserveFramePointer", 1, 0);
}

Test(interp_names, mixed_with_frame_pointers)
{
	if (compile())
		cr_skip_test("no javac here");
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		run(homes[i], "-XX:+PreserveFramePointer -XX:CompileCommand=quiet "
		    "-XX:CompileCommand=exclude,Calls::a -XX:CompileCommand=dontinline,Calls::a "
		    "-XX:CompileCommand=exclude,Calls::leaf "
		    "-XX:CompileCommand=dontinline,Calls::leaf", 0, 0);
}

/* Without -XX:+PreserveFramePointer: compiled frames are stepped through the CFI synth reads
 * off their prologues (synth/prologue.c), C2 then C1. -Xcomp with compileonly compiles each
 * method of the program before its first call (main included: no interpreted or OSR main),
 * dontinline keeps every frame of the path. Without that CFI no walk passes the leaf's frame
 * and no sample reaches main's thread root. */
Test(interp_names, compiled_without_frame_pointers)
{
	static const char *const modes[] = { "-XX:-TieredCompilation",
					      "-XX:TieredStopAtLevel=1" };
	if (compile())
		cr_skip_test("no javac here");
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		for (size_t k = 0; k < 2; k++) {
			char flags[512];
			snprintf(flags, sizeof(flags), "-Xcomp %s -XX:CompileCommand=quiet "
				 "-XX:CompileCommand=compileonly,Calls::* "
				 "-XX:CompileCommand=dontinline,Calls::*", modes[k]);
			run(homes[i], flags, 0, 1);
		}
}
