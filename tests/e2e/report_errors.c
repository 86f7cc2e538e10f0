/* report_errors.c - report's errors come whole through the one error path (lib/log.h): a
 * message naming a long path is not cut where a char err[512] used to end it, keeps the
 * option it is about in front, and exits with the status of its kind (1 error, 2 usage). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"

/* dir/<300 d's>/<300 e's>.log: over 600 bytes, none of it on disk but dir. */
static void long_path(char *buf, size_t len, const char *dir, const char *ext)
{
	char d[301], e[301];
	memset(d, 'd', 300);
	memset(e, 'e', 300);
	d[300] = e[300] = 0;
	snprintf(buf, len, "%s/%s/%s.%s", dir, d, e, ext);
}

Test(report_errors, jvm_log_error_names_the_whole_path, .timeout = 60)
{
	char *dir = tu_tmpdir("rerr"), path[1200], cmd[4096];
	struct tu_result r;
	long_path(path, sizeof(path), dir, "log");
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s/none.data' --generations --jvm-log '%s'",
		 tu_build("jitprof"), dir, path);
	tu_sh(&r, cmd, 60);
	cr_expect_eq(r.status, 1, "status %d: %s", r.status, r.err);
	char want[1300];
	snprintf(want, sizeof(want), "error: --jvm-log: %s: ", path);
	cr_expect(strstr(r.err, want), "the path cut or the option not said: %s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

Test(report_errors, sort_key_is_a_usage_error, .timeout = 60)
{
	char cmd[4096];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "'%s' report -i /nonexistent.data --sort dso,bogus",
		 tu_build("jitprof"));
	tu_sh(&r, cmd, 60);
	cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
	cr_expect(strstr(r.err, "error: --sort: unknown or too many sort keys at 'bogus' (keys: "
			 "comm, pid, dso, sym, srcline, generation)\nsee 'jitprof report --help'"),
		  "%s", r.err);
	tu_result_free(&r);
}

/* A 900-byte unknown sort key is quoted whole in the usage error (it was cut at the 512
 * bytes of report's buffer). */
Test(report_errors, long_sort_key_quoted_whole, .timeout = 60)
{
	char key[901], cmd[4096], want[1000];
	struct tu_result r;
	memset(key, 'k', 900);
	key[900] = 0;
	snprintf(cmd, sizeof(cmd), "'%s' report -i /nonexistent.data --sort dso,%s",
		 tu_build("jitprof"), key);
	tu_sh(&r, cmd, 60);
	cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
	snprintf(want, sizeof(want), "at '%s' (keys: ", key);
	cr_expect(strstr(r.err, want), "the key cut (%zu bytes of stderr)", strlen(r.err));
	tu_result_free(&r);
}
