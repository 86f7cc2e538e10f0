/* java_stacks.c - `jitprof profile`'s Java mode (issue 35, items 1 and 5): a JVM is recorded
 * with stack copies (--call-graph dwarf) and no -XX:+PreserveFramePointer, launched and
 * attached (-p, a JVM started without the flag), on JDK 17 and 25 (each a part skipped where
 * absent). The program's call structure is known: main, and a worker thread's run(), each
 * -> rec x6 -> a -> b -> c -> leaf, a and leaf kept interpreted (CompileCommand=exclude), the
 * rest compiled. Every sampled stack's frames of the program must be a real path of it (or a
 * part of one when the walk was cut), >= 95% of the program threads' samples reach main or
 * run(), interpreted frames are named (_[int]) and leaf gets its source line. The ground truth
 * is the source written here; lines are found by their markers. `--call-graph fp` keeps the
 * old mode: -g, -XX:+PreserveFramePointer, no copies, interpreted frames unnamed. */
#include "tests/e2e/profile_util.h"
#include "tests/e2e/report_util.h"
#include "tests/lib/javac.h"
#include "recorder/perfdata/perfdata.h"

TestSuite(java_stacks, .init = rx_setup, .fini = rx_teardown, .timeout = 900);

static const char paths_java[] =
	"public class Paths {\n"
	"    static volatile long sink;\n"
	"    static volatile long end;\n"
	"    static long leaf(long x) {\n"
	"        long s = 0;\n"
	"        for (int i = 0; i < 2000; i++) s += (x ^ i) % 7; // LEAF\n"
	"        return s;\n"
	"    }\n"
	"    static long c(long x) { return leaf(x) + 1; }\n"
	"    static long b(long x) { return c(x) + 2; }\n"
	"    static long a(long x) { return b(x) + 3; }\n"
	"    static long rec(int d, long x) { return d == 0 ? a(x) : rec(d - 1, x) + 1; }\n"
	"    static void loop() { long i = 0; while (System.nanoTime() < end) sink += rec(5, i++); }\n"
	"    static class Worker extends Thread {\n"
	"        Worker() { super(\"paths-worker\"); }\n"
	"        public void run() { long i = 0; while (System.nanoTime() < end) sink += rec(5, i++); }\n"
	"    }\n"
	"    public static void main(String[] args) throws Exception {\n"
	"        end = System.nanoTime() + Long.parseLong(args[0]) * 1000000L;\n"
	"        Worker w = new Worker();\n"
	"        w.start();\n"
	"        long i = 0;\n"
	"        while (System.nanoTime() < end) sink += rec(5, i++);\n"
	"        w.join();\n"
	"    }\n"
	"}\n";

/* The real path below a root (main or Worker.run), outermost first: rec six times (depth 5
 * to 0), then a, b, c, leaf. */
static const char *const below[] = {
	"Paths.rec(int, long)", "Paths.rec(int, long)", "Paths.rec(int, long)",
	"Paths.rec(int, long)", "Paths.rec(int, long)", "Paths.rec(int, long)",
	"Paths.a(long)", "Paths.b(long)", "Paths.c(long)", "Paths.leaf(long)",
};
#define BELOW_N (sizeof(below) / sizeof(below[0]))
#define ROOT_MAIN "Paths.main(java.lang.String[])"
#define ROOT_RUN "Paths$Worker.run()"

static const char *const homes[] = { "/usr/lib/jvm/java-17-openjdk-amd64",
				     "/usr/lib/jvm/temurin-25-jdk-amd64" };
#define NR_HOMES (sizeof(homes) / sizeof(homes[0]))

/* a and leaf interpreted, kept as frames; the rest compiled as the JVM likes. No
 * -XX:+PreserveFramePointer. */
static const char *const mixed[] = {
	"-XX:CompileCommand=quiet", "-XX:CompileCommand=exclude,Paths::a",
	"-XX:CompileCommand=dontinline,Paths::a", "-XX:CompileCommand=exclude,Paths::leaf",
	"-XX:CompileCommand=dontinline,Paths::leaf", "-XX:+IgnoreUnrecognizedVMOptions",
	"-XX:+EnableDynamicAgentLoading",
};
#define NR_MIXED (sizeof(mixed) / sizeof(mixed[0]))

/* Javac once for every case (tests/lib/javac.h). 0, or -1 without a javac. */
static int compile(void)
{
	return tu_javac(dir, "Paths", paths_java, "--release 17 -g");
}

struct verdict {
	unsigned long ours, reach, named_interp, wrong;
	char first_wrong[2048];
};

/* f[0..n) (the program's frames, outermost first, marks cut) is a real path: a root then
 * below[] from its start, or, cut short by an [unknown] frame, any run of root+below[]. */
static int real_path(const char **f, size_t n, int cut)
{
	const char *all[BELOW_N + 1];

	for (int r = 0; r < 2; r++) {
		all[0] = r ? ROOT_RUN : ROOT_MAIN;
		memcpy(all + 1, below, sizeof(below));
		for (size_t j = 0; j + n <= BELOW_N + 1 && (j == 0 || cut); j++) {
			size_t i = 0;
			while (i < n && !strcmp(f[i], all[j + i]))
				i++;
			if (i == n)
				return 1;
		}
	}
	return 0;
}

/* One folded stack of the program's threads (main once main() runs, the worker): its frames
 * of Paths in order, each checked. */
static void check_stack(char *line, unsigned long cnt, struct verdict *v)
{
	char copy[2048];
	const char *f[64];
	size_t n = 0;
	int cut = strstr(line, "[unknown]") != NULL;

	snprintf(copy, sizeof(copy), "%.2000s", line);
	for (char *tok = strtok(line, ";"); tok; tok = strtok(NULL, ";")) {
		size_t l = strlen(tok);
		if (strncmp(tok, "Paths", 5))
			continue;
		if (l > 6 && !strcmp(tok + l - 6, "_[int]")) {
			tok[l - 6] = 0;
			v->named_interp += cnt;
		} else if (l > 4 && !strcmp(tok + l - 4, "_[i]")) {
			tok[l - 4] = 0;
		}
		if (n < 63)
			f[n++] = tok;
	}
	v->ours += cnt;
	if (n && !cut && (!strcmp(f[0], ROOT_MAIN) || !strcmp(f[0], ROOT_RUN)))
		v->reach += cnt;
	if (n && !real_path(f, n, cut)) {
		if (!v->wrong)
			memcpy(v->first_wrong, copy, sizeof(copy));
		v->wrong += cnt;
	}
}

/* The program threads' stacks in a --collapsed output: the worker (its name) and the main
 * thread from the call of main() on (jni_CallStaticVoidMethod). */
static void check_folded(const char *folded, struct verdict *v)
{
	char line[32768];

	memset(v, 0, sizeof(*v));
	for (const char *p = folded; rx_next_line(&p, line, sizeof(line));) {
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		if (strncmp(line, "paths-worker;", 13) &&
		    !(!strncmp(line, "java;", 5) && strstr(line, ";jni_CallStaticVoidMethod;")))
			continue;
		check_stack(line, strtoul(sp + 1, NULL, 10), v);
	}
}

/* The injected file in file order (how inject's unwinder and every reader of its records in
 * order see it): each generation's MMAP2 (jitted-PID-N.so) comes before every sample later
 * than its load, so a return address into code loaded a moment before the sample finds its
 * map and CFI (made at the round's end, 1 javac walk in 30 stopped there). The number of
 * jitted maps is returned; a map after a later sample fails. */
static size_t maps_before_their_samples(const char *path)
{
	struct pd_reader *r;
	struct pd_reader_opts o = { .sz = sizeof(o) };
	struct pd_event ev;
	uint64_t newest_sample = 0, maps = 0, late = 0;
	char first_late[512] = "";
	int rc;

	cr_assert_eq(pd_reader_open(&r, path, &o), 0, "%s: cannot read", path);
	while ((rc = pd_reader_next(r, &ev)) > 0) {
		uint64_t t = pd_event_time(&ev);
		if (ev.type == PERF_RECORD_SAMPLE && t > newest_sample)
			newest_sample = t;
		if (ev.type != PERF_RECORD_MMAP2 || !ev.u.mmap.filename ||
		    !strstr(ev.u.mmap.filename, "/jitted-") ||
		    strstr(ev.u.mmap.filename, "-interp.so"))
			continue;
		maps++;
		if (t < newest_sample && !late++)
			snprintf(first_late, sizeof(first_late), "%s at %llu after a sample at %llu",
				 ev.u.mmap.filename, (unsigned long long)t,
				 (unsigned long long)newest_sample);
	}
	pd_reader_close(r);
	cr_assert_geq(rc, 0, "%s: read error", path);
	cr_assert_eq(late, 0, "%s: %llu of %llu jitted maps after a later sample (first: %s)",
		     path, (unsigned long long)late, (unsigned long long)maps, first_late);
	return maps;
}

/* The checks of one profile's output (OUT.collapsed) and its data directory. */
static void check_profile(const char *home, const char *how, const char *out)
{
	char path[PATH_MAX + 64], want[64];
	struct tu_result r;
	struct verdict v;
	char *folded = tu_read_file(out, NULL);

	cr_assert_not_null(folded, "%s %s: no %s", home, how, out);
	check_folded(folded, &v);
	free(folded);
	/* (a sanitized agent under load: ~100 in 3 s) */
	cr_assert_geq(v.ours, 100, "%s %s: %lu samples of the program's threads", home, how,
		      v.ours);
	cr_assert_geq(v.reach * 100, v.ours * 95, "%s %s: %lu of %lu reach main or run()", home,
		      how, v.reach, v.ours);
	cr_assert_gt(v.named_interp, 0, "%s %s: no interpreted frame named", home, how);
	/* Interpreted frames are decoded exactly and compiled ones by the CFI of their
	 * prologues (a sample in a prologue included): never a made-up path (12-03: 0 of
	 * 988-3,384 a run). */
	cr_assert_eq(v.wrong, 0, "%s %s: %lu samples on no path of the program, as\n%s", home,
		     how, v.wrong, v.first_wrong);
	/* leaf (interpreted) with its line: the method table's line table */
	snprintf(path, sizeof(path), "%s.jitprof/perf.jit.data", out);
	cr_assert_gt(maps_before_their_samples(path), 0, "%s %s: no jitted map", home, how);
	rx_ok(&r, "HOME='%s' '%s' report -f -i '%s' --sort sym,srcline -n 3", dir, rx_jitprof,
	      path);
	snprintf(want, sizeof(want), "Paths.java:%d", rx_line_of(paths_java, "// LEAF"));
	cr_assert(strstr(r.out, "Paths.leaf(long)") && strstr(r.out, want), "%s %s: %s", home,
		  how, r.out);
	tu_result_free(&r);
}

/* jitprof profile ARGS -- java MIXED... -cp dir Paths MS, or (cmd NULL) ARGS alone. */
static void profile(struct tu_result *r, const char *home, const char *const *args, int java,
		    const char *ms)
{
	const char *argv[64];
	char java_[PATH_MAX + 16];
	size_t n = 0;

	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	if (java) {
		snprintf(java_, sizeof(java_), "%s/bin/java", home);
		argv[n++] = "--";
		argv[n++] = java_;
		for (size_t i = 0; i < NR_MIXED; i++)
			argv[n++] = mixed[i];
		argv[n++] = "-cp";
		argv[n++] = dir;
		argv[n++] = "Paths";
		argv[n++] = ms;
	}
	argv[n] = NULL;
	pf_profile(r, argv, 600);
}

Test(java_stacks, launch)
{
	char out[PATH_MAX];
	struct tu_result r;

	if (compile())
		cr_skip_test("no javac here");
	for (size_t i = 0; i < NR_HOMES; i++) {
		snprintf(out, sizeof(out), "%s/l%zu.collapsed", dir, i);
		if (access(homes[i], X_OK)) {
			tu_skip_part("%s is not installed", homes[i]);
			continue;
		}
		const char *args[] = { "-o", out, NULL };
		profile(&r, homes[i], args, 1, "3000");
		cr_assert_eq(r.status, 0, "%s: %s", homes[i], r.err);
		cr_expect(strstr(r.err, "jitprof profile: call graphs: --call-graph dwarf,32768 (a "
				 "JVM: "), "%s", r.err);
		cr_expect_null(strstr(r.err, "PreserveFramePointer"), "%s", r.err);
		tu_result_free(&r);
		check_profile(homes[i], "launch", out);
	}
}

/* A JVM started without -XX:+PreserveFramePointer (as any JVM one attaches to). */
static pid_t start_jvm(const char *home, const char *log)
{
	char java[PATH_MAX + 16];
	const char *argv[32];
	size_t n = 0;

	snprintf(java, sizeof(java), "%s/bin/java", home);
	argv[n++] = java;
	for (size_t i = 0; i < NR_MIXED; i++)
		argv[n++] = mixed[i];
	argv[n++] = "-cp";
	argv[n++] = dir;
	argv[n++] = "Paths";
	argv[n++] = "60000";
	argv[n] = NULL;
	return ag_spawn_argv(argv, log);
}

Test(java_stacks, attach_without_frame_pointers)
{
	char out[PATH_MAX], log[PATH_MAX], pid_s[16];
	struct tu_result r;

	if (compile())
		cr_skip_test("no javac here");
	for (size_t i = 0; i < NR_HOMES; i++) {
		if (access(homes[i], X_OK)) {
			tu_skip_part("%s is not installed", homes[i]);
			continue;
		}
		snprintf(out, sizeof(out), "%s/a%zu.collapsed", dir, i);
		snprintf(log, sizeof(log), "%s/jvm%zu.log", dir, i);
		pid_t pid = start_jvm(homes[i], log);
		ag_sleep_ms(2000);	/* main() running, the path compiled */
		snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
		const char *args[] = { "-d", "4", "-p", pid_s, "-o", out, NULL };
		profile(&r, homes[i], args, 0, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		cr_assert_eq(r.status, 0, "%s: %s", homes[i], r.err);
		cr_expect(strstr(r.err, "jitprof profile: call graphs: --call-graph dwarf,32768 (a "
				 "JVM: "), "%s", r.err);
		/* nothing false: no flag a running JVM cannot be given, no broken stacks */
		cr_expect_null(strstr(r.err, "adds it"), "%s", r.err);
		cr_expect_null(strstr(r.err, "have no caller"), "%s", r.err);
		tu_result_free(&r);
		check_profile(homes[i], "attach", out);
	}
}

/* --call-graph fp: today's mode, -g with -XX:+PreserveFramePointer: compiled callers chained
 * by rbp, interpreted frames unnamed (no copies to decode), ~100 bytes a sample. */
Test(java_stacks, fp_keeps_the_frame_pointer_mode)
{
	char out[PATH_MAX], data[PATH_MAX + 32];
	struct tu_result r;
	struct stat st;
	size_t i = 0;
	unsigned long long samples = 0;

	if (compile())
		cr_skip_test("no javac here");
	while (i < NR_HOMES && access(homes[i], X_OK))
		i++;
	if (i == NR_HOMES)
		cr_skip_test("no JDK 17 or 25 here");
	snprintf(out, sizeof(out), "%s/fp.collapsed", dir);
	const char *args[] = { "--call-graph", "fp", "-o", out, NULL };
	profile(&r, homes[i], args, 1, "2000");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "jitprof profile: call graphs: frame pointers, -g (as asked "
			 "(--call-graph))"), "%s", r.err);
	const char *from = strstr(r.err, " from ");
	cr_assert(from && sscanf(from, " from %llu samples", &samples) == 1, "%s", r.err);
	tu_result_free(&r);
	snprintf(data, sizeof(data), "%s.jitprof/perf.data", out);
	cr_assert_eq(stat(data, &st), 0);
	cr_assert_gt(samples, 100);
	cr_expect_lt((unsigned long long)st.st_size / samples, 2048, "%lld bytes for %llu "
		     "samples: stack copies?", (long long)st.st_size, samples);
	char *folded = tu_read_file(out, NULL);
	cr_assert_not_null(folded);
	cr_expect_null(strstr(folded, "_[int]"), "an interpreted frame named without copies");
	/* compiled b walked by rbp to its interpreted caller a: the JVM got
	 * -XX:+PreserveFramePointer */
	cr_expect(strstr(folded, "Interpreter;Paths.b(long)"), "%.4000s", folded);
	free(folded);
}
