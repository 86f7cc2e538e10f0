/* test_cli.c - recorder/cmd/cli.c: output files appear whole, never write through a link planted at
 * their temp name, and devices are written in place instead of being renamed over. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/cmd/cli.h"
#include "tests/lib/testutil.h"

Test(outfile, planted_link_at_temp_name_is_not_written_through)
{
	char *dir = tu_tmpdir("cli");
	char victim[4096], path[4096], tmp[4200];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(path, sizeof(path), "%s/out.data", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	cr_assert_eq(tu_write_file(victim, "precious", 8), 0);
	cr_assert_eq(link(victim, tmp), 0);

	struct cli_outfile o;
	cr_assert_eq(cli_outfile_open(&o, path), 0);
	fputs("new", o.fp);
	cr_assert_eq(cli_outfile_commit(&o), 0);

	size_t len;
	char *v = tu_read_file(victim, &len), *p = tu_read_file(path, NULL);
	cr_assert_str_eq(v, "precious");
	cr_assert_str_eq(p, "new");
	free(v);
	free(p);
	tu_rmtree(dir);
	free(dir);
}

Test(outfile, aborted_file_leaves_nothing)
{
	char *dir = tu_tmpdir("cli");
	char path[4096];
	snprintf(path, sizeof(path), "%s/out.data", dir);
	struct cli_outfile o;
	cr_assert_eq(cli_outfile_open(&o, path), 0);
	fputs("half", o.fp);
	cli_outfile_abort(&o);
	struct stat sb;
	cr_assert_neq(stat(path, &sb), 0);
	char *left = NULL;
	struct tu_result r;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	cr_assert_eq(tu_sh(&r, cmd, 10), 0);
	left = r.out;
	cr_assert_str_eq(left, "", "left behind: %s", left);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

Test(outfile, device_is_written_in_place)
{
	struct cli_outfile o;
	cr_assert_eq(cli_outfile_open(&o, "/dev/null"), 0);
	cr_assert(o.direct);
	fputs("discarded", o.fp);
	cr_assert_eq(cli_outfile_commit(&o), 0);
	struct stat sb;
	cr_assert_eq(stat("/dev/null", &sb), 0);
	cr_assert(S_ISCHR(sb.st_mode), "/dev/null must stay a device");
}

/* Issue 16 finding 3: a FIFO (or any device but /dev/null) planted at the output's name is
 * refused at once, never opened: no reader on the other side gets our bytes, no hang. */
Test(outfile, fifo_and_devices_are_refused, .timeout = 20)
{
	char *dir = tu_tmpdir("cli");
	char path[4096];
	snprintf(path, sizeof(path), "%s/out.data", dir);
	cr_assert_eq(mkfifo(path, 0666), 0);
	struct cli_outfile o;
	int rc = cli_outfile_open(&o, path);
	cr_assert_eq(rc, SIO_ENOTREG, "%s", sio_strerror(rc));
	cr_assert_str_eq(sio_strerror(rc), "not a regular file");
	struct stat sb;
	cr_assert_eq(lstat(path, &sb), 0);
	cr_assert(S_ISFIFO(sb.st_mode));
	cr_assert_eq(cli_outfile_open(&o, "/dev/zero"), SIO_ENOTREG);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 16 finding 12: a warning quoting a recorded name prints its control characters as
 * \xNN, on one line. */
Test(say, control_characters_are_escaped, .init = cr_redirect_stderr)
{
	cli_set_command("t");
	cli_warn("%s: unusable", "/tmp/a\x1b]0;x\x07\n.dump");
	fflush(stderr);
	cr_assert_stderr_eq_str("jitprof t: warning: /tmp/a\\x1b]0;x\\x07\\x0a.dump: unusable\n");
}

/* Issue 38: a message of several lines prints as lines; what it quotes stays escaped. A
 * library's message (already formatted so) keeps its lines too. */
Test(say, own_newlines_are_lines, .init = cr_redirect_stderr)
{
	char lib[128];

	cli_set_command("t");
	cli_error("'%s' matches 2:\n  %s", "x\n", "a.b\nfake: line");
	sio_snprintf_text(lib, sizeof(lib), "one\n  %s", "two\x1b");
	cr_assert_eq(cli_error_msg("--compare: ", lib), 1);
	fflush(stderr);
	cr_assert_stderr_eq_str("jitprof t: error: 'x\\x0a' matches 2:\n  a.b\\x0afake: line\n"
				"jitprof t: error: --compare: one\n  two\\x1b\n");
}

/* Issue 39: a library's error comes whole through a cli_log (it was cut at 1024 bytes), after
 * the caller's lead; a warning before it goes out first, as a warning. */
Test(say, log_error_whole_after_lead, .init = cr_redirect_stderr)
{
	static char path[3001], want[3200];
	memset(path, 'p', 3000);
	cli_set_command("t");
	struct cli_log l = { .lead = "--jvm-log: " };
	jp_logf(&CLI_LOG(&l), JP_LOG_WARN, "first");
	jp_logf(&CLI_LOG(&l), JP_LOG_ERROR, "%s: not a log", path);
	cr_assert_eq(cli_log_done(&l, -EINVAL), 1);
	cr_assert_null(l.held);
	fflush(stderr);
	snprintf(want, sizeof(want), "jitprof t: warning: first\njitprof t: error: --jvm-log: %s: "
		 "not a log\n", path);
	cr_assert_stderr_eq_str(want);
}

/* Issue 34 finding 12: the same for a right-to-left override and a line separator. */
Test(say, bidi_controls_are_escaped, .init = cr_redirect_stderr)
{
	cli_set_command("t");
	cli_warn("%s: unusable", "/tmp/\xe2\x80\xaepmud.\xe2\x80\xa9x");
	fflush(stderr);
	cr_assert_stderr_eq_str("jitprof t: warning: /tmp/\\u202epmud.\\u2029x: unusable\n");
}

/* Issue 16 finding 13: our own file, stdin and a missing file pass (the reader reports the
 * latter); another uid's file is refused unless forced (root only: chown). */
Test(input_owner, perf_rule, .init = cr_redirect_stderr)
{
	char *dir = tu_tmpdir("cli");
	char path[4096];
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	cr_assert_eq(tu_write_file(path, "x", 1), 0);
	cr_assert_eq(cli_check_input_owner(path, 0), 0);
	cr_assert_eq(cli_check_input_owner("-", 0), 0);
	cr_assert_eq(cli_check_input_owner("/nonexistent/perf.data", 0), 0);
	if (geteuid() == 0) {
		cr_assert_eq(chown(path, 54321, 54321), 0);
		cr_assert_eq(cli_check_input_owner(path, 0), 1);
		cr_assert_eq(cli_check_input_owner(path, 1), 0);
	}
	tu_rmtree(dir);
	free(dir);
}

/* --debuginfod-timeout (issue 34 finding 14): whole seconds, 1 to a day; anything else is the
 * usage error (exit 2) that names the option. */
Test(debuginfod_timeout, seconds_or_usage_error, .init = cr_redirect_stderr)
{
	static const char *const bad[] = { "", "0", "-1", "5s", "1.5", "86401",
					   "99999999999999999999" };
	uint64_t v = 7;
	cli_set_command("t");
	cr_assert_eq(cli_debuginfod_timeout("5", &v), 0);
	cr_assert_eq(v, 5);
	cr_assert_eq(cli_debuginfod_timeout("86400", &v), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		cr_assert_eq(cli_debuginfod_timeout(bad[i], &v), 2, "'%s'", bad[i]);
		cr_assert_eq(v, 7, "'%s' changed the value", bad[i]);
	}
	fflush(stderr);
	cr_assert_stderr_neq_str("");
}
