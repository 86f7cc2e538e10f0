/* report_names.c - names are never cut (issue 39): this binary, re-run under `perf record -k
 * mono -g` with RN_CHILD set, JIT-compiles two loops named by 5,000-byte Java-style names that
 * share their first 4,800 bytes (a Kotlin lambda or generic class is that long), with a
 * 4,500-byte source file name, and runs each, then two native loops of its own whose symbols
 * are 5,000 bytes, equal but for their last.
 * Every output of `jitprof report` that names frames must carry the four names whole and keep
 * them four: the table, its -g call graph, --collapsed, --json (with -g stacks), speedscope,
 * pprof (go tool pprof), JFR (the JDK's jfr), the HTML page, the flame graph SVG, --methods,
 * and --sort srcline the file whole. */
#include "jitdump/jitdump.h"
#include "tests/e2e/report_util.h"
#include "tests/lib/testjit.h"

#define home rx_home
#define data rx_data

#define COMMON 4800	/* bytes the two jitted names share */
#define FILE_LEN 4500	/* the jitted code's source file name */

/* "rn.Gen<COMMON - 6 'x's>.alpha(long, rn.Param<200 'p'>[])" and the same with beta: the
 * class and the parameter type long, the names differing only after byte COMMON. */
static void long_name(char *buf, size_t len, const char *method)
{
	char cls[COMMON + 1], param[256];
	memcpy(cls, "rn.Gen", 6);
	memset(cls + 6, 'x', COMMON - 6);
	cls[COMMON] = 0;
	snprintf(param, sizeof(param), "rn.Param%0200d", 0);
	memset(param + 8, 'p', 200);
	snprintf(buf, len, "%s.%s(long, %s[])", cls, method, param);
}

/* The source file's name: FILE_LEN bytes (a name in a line table, not a path opened). */
static void long_file(char *buf, size_t len)
{
	if (len < FILE_LEN + 1)
		abort();
	memset(buf, 'f', FILE_LEN - 5);
	memcpy(buf + FILE_LEN - 5, ".java", 6);
}

/* The native loops' symbols: "rn_native_", 5,000 'n's and "_alpha" or "_beta", made by string
 * concatenation (an asm label takes any string; C identifiers of that length would be the
 * same symbol, written out). */
#define N10 "nnnnnnnnnn"
#define N100 N10 N10 N10 N10 N10 N10 N10 N10 N10 N10
#define N1000 N100 N100 N100 N100 N100 N100 N100 N100 N100 N100
#define NATIVE_COMMON "rn_native_" N1000 N1000 N1000 N1000 N1000
static const char native_a[] = NATIVE_COMMON "_alpha", native_b[] = NATIVE_COMMON "_beta";
_Static_assert(sizeof(native_a) > 5000, "the native names pass 4 KiB");

__attribute__((noinline)) uint64_t rn_native_alpha(uint64_t n) __asm__(NATIVE_COMMON "_alpha");
__attribute__((noinline)) uint64_t rn_native_beta(uint64_t n) __asm__(NATIVE_COMMON "_beta");
__attribute__((noinline)) uint64_t rn_native_alpha(uint64_t n)
{
	volatile uint64_t x = n;
	while (x)
		x = x - 1;
	return x;
}

__attribute__((noinline)) uint64_t rn_native_beta(uint64_t n)
{
	volatile uint64_t x = 0;
	while (x < n)
		x = x + 1;
	return x;
}

#ifdef TU_HAVE_JIT
static int run_jit(const char *jdir)
{
	static char names[2][COMMON + 1024], file[FILE_LEN + 1];
	long_name(names[0], sizeof(names[0]), "alpha");
	long_name(names[1], sizeof(names[1]), "beta");
	long_file(file, sizeof(file));
	struct jd_writer_opts o = { .size = sizeof(o), .dir = jdir };
	struct jd_writer *w;
	if (jd_writer_open(&w, &o))
		return 10;
	const uint8_t *codes[] = { tu_jit_alpha, tu_jit_beta };
	size_t sizes[] = { sizeof(tu_jit_alpha), sizeof(tu_jit_beta) };
	uint8_t *mem = tu_jit_place(codes, sizes, 2);
	if (!mem)
		return 11;
	for (int i = 0; i < 2; i++) {
		uint8_t *code = mem + TU_JIT_STRIDE * i;
		uint64_t a = (uint64_t)(uintptr_t)code;
		struct jd_line lines[] = { { a, 10 + i, 0, file } };
		struct jd_ext_load_info info = { .generation = 1, .tier = JD_TIER_OTHER };
		struct jd_load_desc d = { .name = names[i], .code_addr = a, .code = code,
					  .code_size = sizes[i], .lines = lines, .nr_lines = 1,
					  .info = &info };
		if (jd_write_load(w, &d, NULL) || jd_writer_flush(w))
			return 13;
		tu_jit_spin((uint64_t (*)(uint64_t))(void *)code, 300);
	}
	tu_jit_spin(rn_native_alpha, 300);
	tu_jit_spin(rn_native_beta, 300);
	return jd_writer_close(w) ? 14 : 0;
}

TU_CHILD_MODE("RN_CHILD", run_jit)
#endif

TestSuite(report_names, .init = rx_setup_recording, .fini = rx_teardown, .timeout = 300);

static char name_a[COMMON + 1024], name_b[COMMON + 1024], file[FILE_LEN + 1];

/* This binary recorded running its two long-named loops, injected into rx_data. */
static void record_self(void)
{
#ifndef TU_HAVE_JIT
	cr_skip_test("the test JIT emits x86-64 code only");
#endif
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	long_name(name_a, sizeof(name_a), "alpha");
	long_name(name_b, sizeof(name_b), "beta");
	long_file(file, sizeof(file));
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	cr_assert_gt(n, 0);
	self[n] = 0;
	struct tu_result r;
	cr_assert_eq(rx_sh(&r, "mkdir -p '%s/jit' '%s' && cd '%s' && RN_CHILD='%s/jit' HOME='%s' "
			   "perf record -q -k mono -g -e cpu-clock -F 2000 -o perf.data '%s'", dir, home,
			   dir, dir, home, self), 0);
	if (r.status && strstr(r.err, "perf_event_paranoid"))
		cr_skip_test("perf may not record here: %s", r.err);
	cr_assert_eq(r.status, 0, "perf record: %s", r.err);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
}

/* `jitprof report -q -i rx_data ARGS` to stdout (caller frees). */
#define report(r, ...) rx_ok((r), "HOME='%s' '%s' report -q -i '%s' " __VA_ARGS__)

/* The four names whole in text, each exactly `times` times, or at least -times times when
 * times < 0: none is a part of another. */
static void names_whole(const char *what, const char *text, long times)
{
	const char *names[] = { name_a, name_b, native_a, native_b };
	static const char *const which[] = { "jitted alpha", "jitted beta", "native alpha",
					     "native beta" };
	for (int i = 0; i < 4; i++) {
		long n = (long)tu_count(text, names[i]);
		if (times > 0)
			cr_assert_eq(n, times, "%s: %s's name found %ld times, not %ld (%zu bytes)",
				     what, which[i], n, times, strlen(text));
		else
			cr_assert_geq(n, -times, "%s: %s's name whole %ld times, not %ld or more "
				      "(%zu bytes):\n%.300s...", what, which[i], n, -times,
				      strlen(text), text);
	}
}


/* What a file written by the report holds: both names whole. */
static void file_has_both(const char *option, const char *file_name)
{
	rx_report_to_file(option, file_name);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, file_name);
	size_t len;
	char *text = tu_read_file(path, &len);
	cr_assert_not_null(text);
	names_whole(option, text, -1);
	free(text);
}

Test(report_names, long_names_whole_in_every_output)
{
	record_self();
	struct tu_result r;

	/* The table: one row each (names equal in their first 4,400 bytes stay two rows). */
	report(&r, "--sort sym", home, rx_jitprof, data);
	names_whole("the table", r.out, 1);
	tu_result_free(&r);
	report(&r, "--collapsed", home, rx_jitprof, data);
	names_whole("--collapsed", r.out, -1);	/* once per distinct stack */
	tu_result_free(&r);

	/* JSON: the rows' names as parsed, each once. */
	if (tu_have("python3")) {
		report(&r, "--sort sym --json | python3 -c 'import json,sys\n"
		       "for r in json.load(sys.stdin)[\"rows\"]: print(r[\"sym\"])'", home,
		       rx_jitprof, data);
		names_whole("--json", r.out, 1);
		tu_result_free(&r);
	} else {
		tu_skip_part("python3 is not installed: --json not parsed");
	}
	/* -g: the call graph's lines and the JSON rows' stacks name the frames whole too. */
	report(&r, "--sort sym -g caller", home, rx_jitprof, data);
	names_whole("-g", r.out, -2);	/* its row, and its frame in the graph under it */
	tu_result_free(&r);
	report(&r, "--sort sym -g --json", home, rx_jitprof, data);
	names_whole("-g --json", r.out, -2);	/* its row, and a stack of it */
	tu_result_free(&r);
	report(&r, "--methods", home, rx_jitprof, data);
	names_whole("--methods", r.out, -1);
	tu_result_free(&r);

	/* --sort srcline: the file's 4,500-byte name whole, the two lines apart. */
	report(&r, "--sort srcline", home, rx_jitprof, data);
	char line[FILE_LEN + 16];
	for (int i = 0; i < 2; i++) {
		snprintf(line, sizeof(line), "%s:%d", file, 10 + i);
		cr_assert_eq(tu_count(r.out, line), 1, "--sort srcline: %s:%d not whole",
			     "the long file", 10 + i);
	}
	tu_result_free(&r);

	file_has_both("--speedscope", "p.speedscope.json");
	file_has_both("--flamegraph", "fg.svg");
	file_has_both("--html", "p.html");

	/* pprof: its own reader prints the functions' names. */
	rx_report_to_file("--pprof", "p.pb.gz");
	if (tu_have("go")) {
		rx_ok(&r, "cd '%s' && HOME='%s' GOCACHE='%s/go' GOPATH='%s/go' go tool pprof -raw "
		      "p.pb.gz 2>/dev/null", dir, home, dir, dir);
		names_whole("pprof -raw", r.out, -1);
		tu_result_free(&r);
	} else {
		tu_skip_part("go (golang-go) is not installed: the pprof file not read back");
	}

	/* JFR: the JDK's reader splits class and method; the method names whole, the class
	 * whole as its own field. */
	rx_report_to_file("--jfr", "p.jfr");
	if (tu_have("jfr") && tu_have("python3")) {
		rx_ok(&r, "jfr print --json --events jdk.ExecutionSample '%s/p.jfr' | python3 -c "
		      "'import json,sys\n"
		      "seen=set()\n"
		      "for e in json.load(sys.stdin)[\"recording\"][\"events\"]:\n"
		      " for f in e[\"values\"][\"stackTrace\"][\"frames\"]:\n"
		      "  m=f[\"method\"]; seen.add(m[\"type\"][\"name\"]+\".\"+m[\"name\"])\n"
		      "[print(s) for s in sorted(seen)]'", dir);
		char cls_a[6000];	/* the class in JFR's internal form */
		snprintf(cls_a, sizeof(cls_a), "%.*s", COMMON, name_a);
		for (char *p = cls_a; (p = strchr(p, '.'));)
			*p = '/';
		for (int i = 0; i < 2; i++) {
			char want[sizeof(native_a) + 8 > 6100 ? sizeof(native_a) + 8 : 6100];
			snprintf(want, sizeof(want), "%s.%s\n", cls_a, i ? "beta" : "alpha");
			cr_assert_eq(tu_count(r.out, want), 1, "jfr: %s not whole:\n%.300s",
				     i ? "beta" : "alpha", r.out);
			/* a native frame: its DSO as the class, the symbol as the method */
			snprintf(want, sizeof(want), ".%s\n", i ? native_b : native_a);
			cr_assert_eq(tu_count(r.out, want), 1, "jfr: native %s not whole",
				     i ? "beta" : "alpha");
		}
		tu_result_free(&r);
	} else {
		tu_skip_part("jfr (a JDK) or python3 is not installed: the JFR file not read back");
	}
}
