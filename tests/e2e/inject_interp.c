/* inject_interp.c - interpreted Java frames through `jitprof inject --jit` (issue 35 item 3): a
 * program of known call structure (main -> outer -> inner, inner spinning), its lines marked
 * in its source written here, recorded with `jitprof record --call-graph dwarf` and the agent's
 * method table, interpreted (-Xint, then only inner and outer excluded from compilation), on
 * JDK 17 and 25 (each a part skipped where absent), injected without the stack copies: `perf
 * script` names the interpreted frames `Interp.inner(long)_[int]` ... in the program's real
 * order, with inner's line (perf reads the ELF inject writes per process); `jitprof report` on
 * that file shows the same Java stacks and the same `--sort sym,srcline` rows as on the file
 * injected with --keep-stacks (where it unwinds the copies itself). The ground truth is the
 * source: its lines are found by their markers. */
#include "tests/e2e/report_util.h"
#include "tests/lib/javac.h"

TestSuite(inject_interp, .init = rx_setup, .fini = rx_teardown, .timeout = 600);

static const char interp_java[] =
	"public class Interp {\n"
	"    static volatile long sink;\n"
	"    static long inner(long x) {\n"
	"        long s = 0;\n"
	"        for (int i = 0; i < 3000; i++) s += (x * 31 + i) % 11; // INNER\n"
	"        return s;\n"
	"    }\n"
	"    static long outer(long x) { return inner(x) * 3; } // CALL_OUTER\n"
	"    public static void main(String[] args) {\n"
	"        long end = System.nanoTime() + Long.parseLong(args[0]) * 1000000L;\n"
	"        for (long i = 0; System.nanoTime() < end; i++) sink += outer(i); // CALL_MAIN\n"
	"    }\n"
	"}\n";

static const char *const homes[] = { "/usr/lib/jvm/java-17-openjdk-amd64",
				     "/usr/lib/jvm/temurin-25-jdk-amd64" };

static int line_of(const char *marker)
{
	int line = 1;
	const char *m = strstr(interp_java, marker);
	cr_assert_not_null(m);
	for (const char *p = interp_java; p < m; p++)
		line += *p == '\n';
	return line;
}

/* Javac once for every case (tests/lib/javac.h). 0, or -1 without a javac. */
static int compile(void)
{
	return tu_javac(dir, "Interp", interp_java, "--release 17 -g");
}

/* perf script's three innermost frames of each sample in inner: inner, then outer, then main
 * (the real path, interpreted frames marked), inner at its loop's line. Returns how many
 * samples are in inner; *wrong: those whose frames are not that path. */
static unsigned long check_script(const char *out, unsigned long *wrong, unsigned long *lined)
{
	static const char *const want[] = { "Interp.inner(long)_[int]", "Interp.outer(long)_[int]",
					     "Interp.main(java.lang.String[])_[int]" };
	char line[4096], srcl[64];
	unsigned long n = 0;
	size_t at = 0;
	int in_sample = 0, bad = 0, expect_line = 0;
	snprintf(srcl, sizeof(srcl), "Interp.java:%d", line_of("// INNER"));
	*wrong = *lined = 0;
	for (const char *p = out;;) {
		int more = rx_next_line(&p, line, sizeof(line));
		if (!more || !line[0]) {	/* a sample ends */
			if (in_sample) {
				n++;
				*wrong += bad || at != 3;
			}
			in_sample = bad = expect_line = 0;
			at = 0;
			if (!more)
				break;
			continue;
		}
		if (expect_line) {	/* -F +srcline: the frame's line on the next line */
			*lined += strstr(line, srcl) != NULL;
			expect_line = 0;
			continue;
		}
		const char *java = line[0] == '\t' ? strstr(line, " Interp.") : NULL;
		if (!java)	/* another frame, or the line of a frame not inner's */
			continue;
		if (!strncmp(java + 1, want[0], strlen(want[0])) && at == 0) {
			in_sample = expect_line = 1;
			at = 1;
			continue;
		}
		if (!in_sample)
			continue;
		if (at < 3 && !strncmp(java + 1, want[at], strlen(want[at])))
			at++;
		else
			bad = 1;
	}
	return n;
}

/* report's Java stacks (frames of Interp only, counts summed) or its Interp rows of
 * --sort sym,srcline, on file. */
static char *java_view(const char *file, int srcline)
{
	struct tu_result r;
	if (srcline)
		rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i '%s' --sort sym,srcline -n 0 "
		      "2>/dev/null | grep 'Interp\\.' | sort", dir, dir, rx_jitprof, file);
	else
		rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i '%s' --collapsed 2>/dev/null | "
		      "awk '{ n = $NF; s = \"\"; k = split($0, f, \";\"); for (i = 1; i <= k; i++) "
		      "if (f[i] ~ /^Interp\\./) s = s \";\" f[i]; sub(/ [0-9]+$/, \"\", s); "
		      "if (s != \"\") c[s] += n } END { for (s in c) print c[s], s }' | sort", dir,
		      dir, rx_jitprof, file);
	char *v = strdup(r.out);
	tu_result_free(&r);
	return v;
}

static void run(const char *home, const char *jvm_flags)
{
	char java[PATH_MAX + 16], agent[PATH_MAX];
	struct tu_result r;

	snprintf(java, sizeof(java), "%s/bin/java", home);
	if (access(java, X_OK)) {
		tu_skip_part("%s is not installed", java);
		return;
	}
	cr_assert_not_null(realpath(tu_build("libagent.so"), agent));
	rx_ok(&r, "cd '%s' && rm -rf jit .debug perf.data perf.jit.data perf.keep.data && mkdir jit "
	      "&& HOME='%s' '%s' record -q -k mono --call-graph dwarf -o perf.data -- %s'%s' "
	      "-agentpath:'%s'=dir='%s/jit',methods=on,quiet %s Interp 2000 >/dev/null", dir, dir,
	      rx_jitprof, tu_java_env_sh(agent), java, agent, dir, jvm_flags);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data && "
	      "HOME='%s' '%s' inject --jit --keep-stacks -q -i perf.data -o perf.keep.data && "
	      "cd jit && ls jitted-*-interp.so", dir, dir, rx_jitprof, dir, rx_jitprof);
	char elf[128];
	cr_assert_eq(sscanf(r.out, "%127s", elf), 1, "no ELF of interpreted methods in jit/");
	tu_result_free(&r);

	if (!tu_have("perf")) {
		tu_skip_part("perf is not installed: the injected frames through perf script");
	} else {
		unsigned long wrong, lined;
		/* The samples in that ELF, their three innermost frames (perf's srcline of
		 * every libjvm frame would take minutes) */
		rx_ok(&r, "cd '%s' && HOME='%s' perf script -i perf.jit.data -F ip,sym,srcline "
		      "--dsos '%s' --max-stack 3 2>/dev/null", dir, dir, elf);
		unsigned long n = check_script(r.out, &wrong, &lined);
		cr_assert_geq(n, 300, "%s %s: %lu samples in Interp.inner(long)_[int] in perf "
			      "script:\n%.3000s", home, jvm_flags, n, r.out);
		cr_assert_leq(wrong * 100, n, "%s %s: %lu of %lu samples in inner not under "
			      "outer and main", home, jvm_flags, wrong, n);
		cr_assert_geq(lined * 10, n * 9, "%s %s: %lu of %lu inner frames at Interp.java:%d",
			      home, jvm_flags, lined, n, line_of("// INNER"));
		tu_result_free(&r);
	}
	for (int srcline = 0; srcline < 2; srcline++) {
		char *a = java_view("perf.jit.data", srcline), *b = java_view("perf.keep.data",
									       srcline);
		cr_assert(strstr(a, "Interp.inner(long)"), "%s", a);
		cr_assert_str_eq(a, b, "%s %s: report differs without the copies (first) and with "
				 "them", home, jvm_flags);
		free(a);
		free(b);
	}
}

Test(inject_interp, all_interpreted)
{
	if (compile())
		cr_skip_test("no javac here");
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		run(homes[i], "-Xint");
}

Test(inject_interp, excluded_methods)
{
	if (compile())
		cr_skip_test("no javac here");
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		run(homes[i], "-XX:CompileCommand=quiet -XX:CompileCommand=exclude,Interp::inner "
		    "-XX:CompileCommand=exclude,Interp::outer -XX:CompileCommand=exclude,Interp::main");
}
