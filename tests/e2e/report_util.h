/* report_util.h - what the report e2e tests share (static helpers, one copy per test binary):
 * shell commands with a formatted command line, a private copy of the perf-jvmti fixture,
 * fresh minijit recordings, and the rows of a perf-style table normalised for comparison. */
#ifndef JITPROF_REPORT_UTIL_H
#define JITPROF_REPORT_UTIL_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

#define RX_FIXTURE "../shared/fixtures/perf-jvmti"
#define RX_FIXTURE_DUMP "/var/jitfix/out/.debug/jit/java-jit-20261129.XXhElaKC/jit-27543.dump"

static char rx_jitprof[PATH_MAX], rx_minijit[PATH_MAX];
static char *dir;	/* each test's own temporary directory */

/* Absolute paths of the built tools (the commands below change directory) and a fresh
 * directory: every suite's .init. */
__attribute__((unused)) static void rx_setup(void)
{
	cr_assert_not_null(realpath(tu_build("jitprof"), rx_jitprof), "jitprof is not built");
	if (!realpath(tu_build("minijit"), rx_minijit))
		rx_minijit[0] = 0;
	dir = tu_tmpdir("report");
}

/* Tests on one recording: dir/home as HOME, dir/perf.jit.data as the injected file. */
__attribute__((unused)) static char rx_home[PATH_MAX], rx_data[PATH_MAX];
__attribute__((unused)) static void rx_setup_recording(void)
{
	rx_setup();
	snprintf(rx_home, sizeof(rx_home), "%s/home", dir);
	snprintf(rx_data, sizeof(rx_data), "%s/perf.jit.data", dir);
}

__attribute__((unused)) static void rx_teardown(void)
{
	if (!getenv("JITPROF_KEEP_TEST_DIR"))
		tu_rmtree(dir);
	free(dir);
}

/* Runs a formatted shell command line (at most 5 minutes). */
__attribute__((format(printf, 2, 3)))
__attribute__((unused)) static int rx_sh(struct tu_result *r, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n < sizeof(cmd), "command line too long");
	return tu_sh(r, cmd, 300);
}

/* Like rx_sh but the command must succeed; returns its stdout (caller frees r). */
#define rx_ok(r, ...)                                                                       \
	do {                                                                                \
		cr_assert_eq(rx_sh((r), __VA_ARGS__), 0);                                   \
		cr_assert_eq((r)->status, 0, "command failed (%d): %s", (r)->status,        \
			     (r)->err);                                                     \
	} while (0)

/* The fixture recorded by perf names its dump under /var/jitfix, a path other runs share.
 * Copy it into dir with the dump's path in the MMAP record rewritten to dir/jit (a shorter
 * path, NUL-padded: the record keeps its size), so perf inject writes its ELFs there.
 * Returns 0, or -1 when the fixture is not on this machine. */
/* The invariant on data (every sample inside its generation's active period, running
 * generations until the end: jitprof report --check-generations) with home's build-id cache. */
__attribute__((unused)) static void rx_check_generations(const char *home, const char *data)
{
	char msg[8192], extra[PATH_MAX + 32];
	snprintf(extra, sizeof(extra), "--buildid-dir '%s/.debug'", home);
	cr_assert_eq(tu_check_generations(data, extra, msg, sizeof(msg)), 0, "%s", msg);
}

__attribute__((unused)) static int rx_fixture(const char *dir)
{
	size_t len;
	char *data = tu_read_file(RX_FIXTURE "/perf.data", &len);
	if (!data)
		return -1;
	char newpath[PATH_MAX], path[PATH_MAX];
	snprintf(newpath, sizeof(newpath), "%s/jit/jit-27543.dump", dir);
	size_t ol = strlen(RX_FIXTURE_DUMP), nl = strlen(newpath);
	cr_assert(nl <= ol, "temporary directory path too long for the fixture rewrite");
	int hits = 0;
	for (size_t i = 0; i + ol <= len; i++) {
		if (!memcmp(data + i, RX_FIXTURE_DUMP, ol)) {
			memset(data + i, 0, ol);
			memcpy(data + i, newpath, nl);
			hits++;
		}
	}
	cr_assert_eq(hits, 1, "the fixture's dump path appears %d times", hits);
	snprintf(path, sizeof(path), "%s/jit", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	cr_assert_eq(tu_write_file(path, data, len), 0);
	free(data);
	size_t dlen;
	char *dump = tu_read_file(RX_FIXTURE "/jit-27543.dump", &dlen);
	cr_assert_not_null(dump);
	cr_assert_eq(tu_write_file(newpath, dump, dlen), 0);
	free(dump);
	return 0;
}

/* perf record -k mono -g of minijit into dir/perf.data, its dump in dir/jit. */
__attribute__((unused)) static void rx_record_minijit(const char *dir, const char *home)
{
	struct tu_result r;
	cr_assert(rx_minijit[0], "minijit is not built");
	rx_ok(&r, "mkdir -p '%s/jit' '%s' && cd '%s' && HOME='%s' perf record -q -k mono -g "
	      "-F 2000 -o perf.data '%s' --dir '%s/jit' --seconds 0.3 >/dev/null", dir, home, dir,
	      home, rx_minijit, dir);
	tu_result_free(&r);
}

/* The 1-based line of src holding marker (a test's own source: its ground truth). */
__attribute__((unused)) static int rx_line_of(const char *src, const char *marker)
{
	int line = 1;
	const char *m = strstr(src, marker);
	cr_assert_not_null(m, "no %s in the source", marker);
	for (const char *p = src; p < m; p++)
		line += *p == '\n';
	return line;
}

/* The next line of *p into line (cut to fit), *p moved past it; 0 at the end of the text. */
__attribute__((unused)) static int rx_next_line(const char **p, char *line, size_t len)
{
	if (!**p)
		return 0;
	const char *e = strchr(*p, '\n');
	size_t l = e ? (size_t)(e - *p) : strlen(*p);
	snprintf(line, len, "%.*s", (int)(l < len ? l : len - 1), *p);
	*p += l + (e ? 1 : 0);
	return 1;
}

/* A C program built in dir from src (cc CFLAGS -o prog prog.c) and run under
 * `perf record RECORD_OPTS -o perf.data ./prog ARGS`, HOME=home. Skips the test (saying why on
 * stderr) where cc or perf is missing or perf record cannot run. */
__attribute__((unused)) static void rx_build_and_record(const char *home, const char *prog,
							const char *src, const char *cflags,
							const char *record_opts, const char *args)
{
	if (!tu_have("perf") || !tu_have("cc"))
		cr_skip_test("perf or cc is not installed");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s.c", dir, prog);
	cr_assert_eq(tu_write_file(path, src, strlen(src)), 0);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && cc %s -o %s %s.c", dir, cflags, prog, prog);
	tu_result_free(&r);
	cr_assert_eq(rx_sh(&r, "mkdir -p '%s' && cd '%s' && HOME='%s' perf record -q %s "
			 "-o perf.data ./%s %s", home, dir, home, record_opts, prog, args), 0);
	if (r.status != 0) {
		cr_skip_test("%s: perf record failed here: %s", prog, r.err);
	}
	tu_result_free(&r);
}

/* `perf record -q -k mono PERF_OPTS -o perf.data java -agentpath:libagent.so=dir=DIR/jit -cp
 * <samples> jitprof.samples.MAIN` in dir (MAIN with its arguments), then `jitprof inject` into
 * dir/perf.jit.data. Skips the test where perf, java, the agent or the samples are missing. */
/* The agent's and samples/java's absolute paths; the test skipped without perf, java or
 * them. */
__attribute__((unused)) static void rx_need_java(char *agent, char *classes)
{
	if (!tu_have("perf") || !tu_have("java"))
		cr_skip_test("perf or java is not installed");
	if (!realpath(tu_build("libagent.so"), agent) || !realpath(tu_build("java"), classes))
		cr_skip_test("the agent or samples/java are not built");
}

__attribute__((unused)) static void rx_record_java(const char *home, const char *perf_opts,
						   const char *main)
{
	char agent[PATH_MAX], classes[PATH_MAX];
	rx_need_java(agent, classes);
	struct tu_result r;
	rx_ok(&r, "mkdir -p '%s/jit' '%s' && cd '%s' && HOME='%s' perf record -q -k mono %s "
	      "-o perf.data %sjava -agentpath:'%s'=dir='%s/jit' -cp '%s' jitprof.samples.%s "
	      ">/dev/null", dir, home, dir, home, perf_opts, tu_java_env_sh(agent), agent, dir,
	      classes, main);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
}

/* 1 when tests/browser/NAME can run here (node, /usr/bin/chromium, the npm packages that
 * `make deps` installs); its absolute path in script. Tests run from the checkout's root. */
__attribute__((unused)) static int rx_have_browser(char *script, const char *name)
{
	char rel[128];
	snprintf(rel, sizeof(rel), "tests/browser/%s", name);
	return tu_have("node") && !access("/usr/bin/chromium", X_OK) && realpath(rel, script) &&
	       !access("tests/browser/node_modules/puppeteer-core", F_OK);
}

/* jitprof report -q -i rx_data OPTION dir/FILE: the file written, nothing on stdout. */
__attribute__((unused)) static void rx_report_to_file(const char *option, const char *file)
{
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -q -i '%s' %s '%s/%s'", rx_home, rx_jitprof, rx_data,
	      option, dir, file);
	cr_assert_str_eq(r.out, "", "%s: nothing but the file on stdout: %s", option, r.out);
	tu_result_free(&r);
}

/* The rows of a perf-style table ("  12.34%  comm  dso  [.] sym"), whitespace runs made one
 * space. Symbol text is cut at the first '(' and at " [clone": perf 6.1 prints C++ names
 * without parameters and Java signatures wrongly (issue 7), so only names compare. */
__attribute__((unused)) static size_t rx_rows(const char *out, char (*rows)[512], size_t max)
{
	size_t n = 0;
	char line[1024];
	for (const char *p = out; n < max && rx_next_line(&p, line, sizeof(line));) {
		double pct;
		int off = 0;
		if (line[0] == '#' || sscanf(line, " %lf%%%n", &pct, &off) != 1 || !off)
			continue;
		char *cut = strchr(line, '(');
		if (cut)
			*cut = 0;
		if ((cut = strstr(line, " [clone")))
			*cut = 0;
		char *w = rows[n];
		int space = 1;
		for (const char *q = line; *q && w < rows[n] + 511; q++) {
			if (*q == ' ' || *q == '\t') {
				if (!space)
					*w++ = ' ';
				space = 1;
			} else {
				*w++ = *q;
				space = 0;
			}
		}
		while (w > rows[n] && w[-1] == ' ')
			w--;
		*w = 0;
		n++;
	}
	return n;
}

/* 1 when data was recorded on the running kernel build. perf report names kernel samples
 * from the running kernel's kallsyms whatever the recording says, so its kernel rows are an
 * oracle only there; elsewhere we refuse to name them and perf prints this machine's names. */
__attribute__((unused)) static int rx_same_kernel(const char *home, const char *data)
{
	struct tu_result r;
	rx_ok(&r, "rec=$(HOME='%s' perf buildid-list -i '%s' 2>/dev/null | awk '$2 == "
	      "\"[kernel.kallsyms]\" { print $1; exit }'); run=$(perf buildid-list -k "
	      "2>/dev/null); [ -n \"$run\" ] && [ \"$rec\" = \"$run\" ] && echo same || echo "
	      "other", home, data);
	int same = !strncmp(r.out, "same", 4);
	tu_result_free(&r);
	return same;
}

/* Rows of a kernel DSO dropped (in place), the others kept in order; returns how many stay. */
__attribute__((unused)) static size_t rx_drop_kernel_rows(char (*rows)[512], size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!strstr(rows[i], "[kernel.kallsyms]") && !strstr(rows[i], "[k] "))
			memmove(rows[k++], rows[i], 512);
	return k;
}

/* Our table against perf report's for the same file: the top `top` rows equal. On another
 * kernel build than the recording's, the kernel rows are left out of the comparison (said on
 * stderr): the user-space rows keep their order in both tables. */
__attribute__((unused))
static void rx_compare_with_perf(const char *home, const char *data, size_t top)
{
	static char ours[4096][512], theirs[4096][512];
	struct tu_result a, b;
	rx_ok(&a, "HOME='%s' '%s' report -i '%s' 2>/dev/null", home, rx_jitprof, data);
	rx_ok(&b, "HOME='%s' perf report -i '%s' --stdio --no-children -g none 2>/dev/null", home,
	      data);
	size_t na = rx_rows(a.out, ours, 4096), nb = rx_rows(b.out, theirs, 4096);
	if (!rx_same_kernel(home, data)) {
		size_t ka = rx_drop_kernel_rows(ours, na), kb = rx_drop_kernel_rows(theirs, nb);
		/* stderr, not cr_log_warn: Criterion 2.4 turns a warning into exit status 1 */
		tu_skip_part("%s: %zu of our and %zu of perf's kernel rows not "
			"compared: recorded on another kernel build than the running one", data,
			na - ka, nb - kb);
		na = ka, nb = kb;
	}
	cr_assert(na >= 3 && nb >= 3, "too few rows: ours %zu, perf %zu\n%s", na, nb, b.out);
	size_t n = top < na ? top : na;
	if (nb < n)
		n = nb;
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(ours[i], theirs[i], "row %zu differs from perf report's\nours:\n%s\n"
				 "perf:\n%s", i + 1, a.out, b.out);
	tu_result_free(&a);
	tu_result_free(&b);
}

/* Call graphs without frame pointers: dir/cg, built with -O2 -fomit-frame-pointer, calls
 * main -> a -> b -> c (c burns the CPU for argv[1] iterations). */
__attribute__((unused)) static const char rx_cg_c[] =
	"#include <stdlib.h>\n"
	"volatile unsigned long sink;\n"
	"__attribute__((noinline)) void c(unsigned long n)\n"
	"{ unsigned long x = 0; for (unsigned long i = 0; i < n; i++) x += i * i ^ (x >> 3);"
	" sink = x; }\n"
	"__attribute__((noinline)) void b(unsigned long n) { c(n); sink++; }\n"
	"__attribute__((noinline)) void a(unsigned long n) { b(n); sink++; }\n"
	"int main(int argc, char **argv)\n"
	"{ a(argc > 1 ? strtoul(argv[1], 0, 0) : 100000000UL); sink++; return 0; }\n";

__attribute__((unused)) static void rx_build_cg(void)
{
	struct tu_result r;
	char path[PATH_MAX];
	if (!tu_have("cc"))
		cr_skip_test("cc is not installed");
	snprintf(path, sizeof(path), "%s/cg.c", dir);
	cr_assert_eq(tu_write_file(path, rx_cg_c, strlen(rx_cg_c)), 0);
	rx_ok(&r, "cd '%s' && cc -O2 -fomit-frame-pointer -o cg cg.c", dir);
	tu_result_free(&r);
}

/* dir/cg (rx_build_cg) recorded by `perf record --call-graph dwarf` into dir/perf.data; the
 * test is skipped where perf is absent or cannot record so. */
__attribute__((unused)) static void rx_perf_record_cg(void)
{
	struct tu_result r;
	rx_build_cg();
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	if (rx_sh(&r, "cd '%s' && HOME='%s' perf record -q --call-graph dwarf -o perf.data ./cg "
		  "100000000", dir, dir) || r.status) {
		tu_result_free(&r);
		cr_skip_test("perf record --call-graph dwarf failed here");
	}
	tu_result_free(&r);
}

/* `jitprof record -q -k mono --call-graph dwarf` of java (JDK home) with libagent.so dumping
 * into dir/jit, running args (JVM flags, the main class and its arguments) from dir, into
 * dir/perf.data. 0, or -1 with the part skipped when that JDK is not installed. */
__attribute__((unused)) static int rx_record_java_dwarf(const char *home, const char *args)
{
	char java[PATH_MAX + 16], agent[PATH_MAX];
	struct tu_result r;

	snprintf(java, sizeof(java), "%s/bin/java", home);
	if (access(java, X_OK)) {
		tu_skip_part("%s is not installed", java);
		return -1;
	}
	cr_assert_not_null(realpath(tu_build("libagent.so"), agent));
	rx_ok(&r, "cd '%s' && rm -rf jit perf.data perf.jit.data && mkdir jit && HOME='%s' '%s' "
	      "record -q -k mono --call-graph dwarf -o perf.data -- %s'%s' "
	      "-agentpath:'%s'=dir='%s/jit',quiet %s >/dev/null", dir, dir, rx_jitprof,
	      tu_java_env_sh(agent), java, agent, dir, args);
	tu_result_free(&r);
	return 0;
}

#endif
