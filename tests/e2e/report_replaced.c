/* report_replaced.c - a library replaced after the recording (same path, other build-id): the
 * report must refuse the new file or use the cached copy of the recorded one, never name the
 * samples from the wrong file. The new library puts a function `impostor` where `hot` was;
 * the recordings: jitprof record (file and pipe mode, no copy cached: refused) and perf
 * record (which caches the library: the copy is used). */
#include "tests/e2e/report_util.h"

TestSuite(replaced, .init = rx_setup, .fini = rx_teardown, .timeout = 240);

static const char lib_v1[] =
	"volatile unsigned long sink;\n"
	"void hot(void) { for (unsigned long i = 0; i < 100000; i++) sink += i * i; }\n";
static const char lib_v2[] =
	"volatile unsigned long sink;\n"
	"void impostor(void) { for (unsigned long i = 0; i < 100000; i++) sink -= i * 3; }\n"
	"void hot(void) { for (unsigned long i = 0; i < 100000; i++) sink ^= i; }\n";
static const char prog[] =
	"#include <time.h>\n"
	"void hot(void);\n"
	"int main(void) { struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);\n"
	" do { hot(); clock_gettime(CLOCK_MONOTONIC, &b); } while ((b.tv_sec - a.tv_sec) *"
	" 1000000000L + b.tv_nsec - a.tv_nsec < 300000000L); return 0; }\n";

static void build(void)
{
	char p[PATH_MAX];
	struct tu_result r;
	snprintf(p, sizeof(p), "%s/x1.c", dir);
	cr_assert_eq(tu_write_file(p, lib_v1, sizeof(lib_v1) - 1), 0);
	snprintf(p, sizeof(p), "%s/x2.c", dir);
	cr_assert_eq(tu_write_file(p, lib_v2, sizeof(lib_v2) - 1), 0);
	snprintf(p, sizeof(p), "%s/prog.c", dir);
	cr_assert_eq(tu_write_file(p, prog, sizeof(prog) - 1), 0);
	rx_ok(&r, "cd '%s' && mkdir -p h && cc -O1 -shared -fPIC -o libx.so x1.c && "
	      "cc -O1 -o prog prog.c -L. -lx -Wl,-rpath,'%s'", dir, dir);
	tu_result_free(&r);
}

/* input: the report's input arguments ("-i f.data", "-i - < p.data"). */
static void replace_and_check(const char *input, int cached)
{
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= '%s' report %s --sort dso,sym "
	      "2>/dev/null", dir, rx_jitprof, input);
	cr_assert(strstr(r.out, "[.] hot"), "before: %s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && cc -O1 -shared -fPIC -o libx.so.new x2.c && mv libx.so.new libx.so",
	      dir);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= '%s' report %s --sort dso,sym 2>&1",
	      dir, rx_jitprof, input);
	cr_assert_null(strstr(r.out, "impostor"), "named from the replaced file:\n%s", r.out);
	if (cached)
		cr_assert(strstr(r.out, "[.] hot"), "the cached copy was not used:\n%s", r.out);
	else
		cr_assert(strstr(r.out, "libx.so: build-id") && strstr(r.out, "refused"),
			  "no refusal said:\n%s", r.out);
	tu_result_free(&r);
}

Test(replaced, jitprof_record_file_refuses_the_new_file)
{
	struct tu_result r;
	build();
	rx_ok(&r, "cd '%s' && HOME=$PWD/h '%s' record -q -o j.data -- ./prog", dir, rx_jitprof);
	tu_result_free(&r);
	replace_and_check("-i j.data", 0);
	char data[PATH_MAX + 16], msg[8192];
	snprintf(data, sizeof(data), "%s/j.data", dir);
	cr_assert_eq(tu_check_generations(data, NULL, msg, sizeof(msg)), 0, "%s", msg);
}

Test(replaced, jitprof_record_pipe_refuses_the_new_file)
{
	struct tu_result r;
	build();
	rx_ok(&r, "cd '%s' && HOME=$PWD/h '%s' record -q -o - -- ./prog > p.data", dir,
	      rx_jitprof);
	tu_result_free(&r);
	replace_and_check("-i - < p.data", 0);
}

Test(replaced, perf_record_cached_copy_is_used)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	struct tu_result r;
	build();
	rx_ok(&r, "cd '%s' && HOME=$PWD/h perf record -q -o f.data ./prog >/dev/null 2>&1", dir);
	tu_result_free(&r);
	replace_and_check("-i f.data", 1);
}
