/* symbols_buildid_list.c - `jitprof buildid-list` against `perf buildid-list` as the oracle:
 * on the perf-jvmti fixture, on a fresh `perf record` (file and pipe mode, with and without
 * --with-hits) and on one ELF file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/lib/testutil.h"

#define FIXTURE "../shared/fixtures/perf-jvmti/perf.data"

static char *run(const char *cmd)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	char *out = strdup(r.out);
	tu_result_free(&r);
	return out;
}

/* Our output must be perf's, line for line. perf 6.1 names a pipe recording's vdso by the
 * temporary copy it made of this machine's vdso (/tmp/perf-vdso.so-XXXXXX, a new name each
 * run); the recording says "[vdso]", and so do we. */
static void same_as_perf(const char *args, const char *env)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "%s perf buildid-list %s 2>/dev/null | "
		 "sed 's|/[^ ]*/perf-vdso\\.so-[A-Za-z0-9]*$|[vdso]|'", env, args);
	char *want = run(cmd);
	snprintf(cmd, sizeof(cmd), "%s %s buildid-list %s", env, tu_build("jitprof"), args);
	char *got = run(cmd);
	cr_expect_str_eq(got, want, "buildid-list %s", args);
	cr_expect_gt(strlen(want), 40, "perf listed nothing for %s", args);
	free(want);
	free(got);
}

Test(buildid_list, perf_jvmti_fixture, .timeout = 120)
{
	struct stat st;
	if (stat(FIXTURE, &st))
		cr_skip_test(FIXTURE " is absent");
	cr_assert(tu_have("perf"), "perf is installed here");
	same_as_perf("-i " FIXTURE, "");
	same_as_perf("-H -i " FIXTURE, "");
}

static const char *spin_src =
	"#include <stdlib.h>\n"
	"#include <time.h>\n"
	"volatile unsigned long sink;\n"
	"__attribute__((noinline)) void spin(void) { for (int i = 0; i < 100000; i++) sink += i; }\n"
	"int main(void)\n"
	"{\n"
	"	struct timespec a, b;\n"
	"	clock_gettime(CLOCK_MONOTONIC, &a);\n"
	"	do {\n"
	"		spin();\n"
	"		clock_gettime(CLOCK_MONOTONIC, &b);\n"
	"	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 300000000L);\n"
	"	return 0;\n"
	"}\n";

Test(buildid_list, fresh_perf_record, .timeout = 300)
{
	cr_assert(tu_have("perf"), "perf is installed here");
	char *dir = tu_tmpdir("bidlist");
	char path[4200], cmd[16384], env[4300];
	snprintf(path, sizeof(path), "%s/spin.c", dir);
	cr_assert_eq(tu_write_file(path, spin_src, strlen(spin_src)), 0);
	snprintf(env, sizeof(env), "HOME=%s", dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && gcc -O1 -g -o spin spin.c && "
		 "HOME=%s perf record -q -F 999 -o file.data ./spin 2>&1 && "
		 "HOME=%s perf record -q -F 999 -o - ./spin > pipe.data 2>/dev/null", dir, dir, dir);
	free(run(cmd));
	snprintf(cmd, sizeof(cmd), "-i %s/file.data", dir);
	same_as_perf(cmd, env);
	snprintf(cmd, sizeof(cmd), "-H -i %s/file.data", dir);
	same_as_perf(cmd, env);
	snprintf(cmd, sizeof(cmd), "-i %s/pipe.data", dir);
	same_as_perf(cmd, env);
	/* the recorded program itself must be among them */
	snprintf(cmd, sizeof(cmd), "%s buildid-list -i %s/file.data", tu_build("jitprof"), dir);
	char *out = run(cmd);
	cr_expect(strstr(out, "/spin\n"), "%s", out);
	free(out);
	/* one ELF file: its build-id alone */
	snprintf(cmd, sizeof(cmd), "-i %s/spin", dir);
	same_as_perf(cmd, "");
	tu_rmtree(dir);
	free(dir);
}

/* Issue 34 finding 12: a recorded path is printed through the one escaping path, in the table
 * as recorded and with --with-hits: a directory name holding an OSC title sequence, a
 * right-to-left override and a line separator shows them as \xNN and \uXXXX, never raw. */
Test(buildid_list, recorded_paths_are_escaped, .timeout = 300)
{
	cr_assert(tu_have("perf"), "perf is installed here");
	char *dir = tu_tmpdir("bidlist-esc");
	char path[4200], evil[4300], cmd[16384];
	snprintf(path, sizeof(path), "%s/spin.c", dir);
	cr_assert_eq(tu_write_file(path, spin_src, strlen(spin_src)), 0);
	snprintf(evil, sizeof(evil), "%s/t\x1b]0;pwned\x07\xe2\x80\xaegpj\xe2\x80\xa8", dir);
	cr_assert_eq(mkdir(evil, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && gcc -O1 -o spin spin.c && cp spin '%s/' && "
		 "HOME=%s perf record -q -F 999 -o file.data '%s/spin' 2>&1", dir, evil, dir, evil);
	free(run(cmd));
	for (int hits = 0; hits < 2; hits++) {
		snprintf(cmd, sizeof(cmd), "HOME=%s %s buildid-list %s -i %s/file.data", dir,
			 tu_build("jitprof"), hits ? "-H" : "", dir);
		char *out = run(cmd);
		cr_expect(strstr(out, "/t\\x1b]0;pwned\\x07\\u202egpj\\u2028/spin\n"), "%s", out);
		cr_expect(!strchr(out, '\x1b') && !strchr(out, '\x07') && !strstr(out, "\xe2\x80"),
			  "raw controls in %s", out);
		free(out);
	}
	tu_rmtree(dir);
	free(dir);
}

Test(buildid_list, bad_input)
{
	char cmd[4200];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "%s buildid-list -i /nonexistent/perf.data", tu_build("jitprof"));
	cr_assert_eq(tu_sh(&r, cmd, 30), 0);
	cr_expect_neq(r.status, 0);
	cr_expect(strstr(r.err, "/nonexistent/perf.data"), "%s", r.err);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "%s buildid-list --bogus", tu_build("jitprof"));
	cr_assert_eq(tu_sh(&r, cmd, 30), 0);
	cr_expect_eq(r.status, 2);
	tu_result_free(&r);
}

/* A file that is not perf.data gets the reader's precise message (file, offset, cause), the
 * same words report prints, not a bare errno string. */
Test(buildid_list, not_perf_data_names_offset_and_cause)
{
	char *dir = tu_tmpdir("bidl-bad");
	char path[4200], want[4400], cmd[8800];
	struct tu_result r;
	snprintf(path, sizeof(path), "%s/not.data", dir);
	cr_assert_eq(tu_write_file(path, "NOTPERF!........", 16), 0);
	snprintf(want, sizeof(want), "%s: offset 0: not a perf.data file (bad magic)", path);
	const char *verbs[] = { "buildid-list -i", "report --stdio -i" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s %s %s", tu_build("jitprof"), verbs[i], path);
		cr_assert_eq(tu_sh(&r, cmd, 30), 0);
		cr_expect_eq(r.status, 1, "%s: exit %d", verbs[i], r.status);
		cr_expect(strstr(r.err, want), "%s: %s", verbs[i], r.err);
		cr_expect_not(strstr(r.err, "Invalid argument"), "%s: %s", verbs[i], r.err);
		tu_result_free(&r);
	}
	tu_rmtree(dir);
	free(dir);
}

/* The same refusal for a file at the end of a 1,300-byte path: named whole (it was cut at
 * the 1 KiB of buildid-list's buffer). */
Test(buildid_list, not_perf_data_long_path_said_whole)
{
	char *dir = tu_tmpdir("bidl-long");
	char path[4200], want[4400], cmd[8800];
	struct tu_result r;
	size_t n = tu_long_dir(path, sizeof(path), dir, 5);
	cr_assert_gt(n, 0);
	snprintf(path + n, sizeof(path) - n, "/not.data");
	cr_assert_gt(strlen(path), 1100);
	cr_assert_eq(tu_write_file(path, "NOTPERF!........", 16), 0);
	snprintf(want, sizeof(want), "%s: offset 0: not a perf.data file (bad magic)\n", path);
	snprintf(cmd, sizeof(cmd), "%s buildid-list -i %s", tu_build("jitprof"), path);
	cr_assert_eq(tu_sh(&r, cmd, 30), 0);
	cr_expect_eq(r.status, 1, "exit %d", r.status);
	cr_expect(strstr(r.err, want), "the path cut (%zu bytes of stderr)", strlen(r.err));
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
