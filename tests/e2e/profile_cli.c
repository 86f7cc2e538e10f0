/* profile_cli.c - the command line is the same everywhere: --version and -V on every
 * subcommand, usage errors exit 2, a short option means one thing in every subcommand (no
 * -k for the kernel image beside record's -k clock, no -j/-s/-c in jitdump beside inject's
 * -j and report's -s), inject without -o writes perf.jit.data beside its input (never onto
 * the input), and `jitprof --help` lists the commands in the order they are used. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static const char *const cmds[] = { "profile", "record", "inject", "report", "archive",
				    "buildid-list", "jitdump", "synth" };
#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static char exe[PATH_MAX];

static void run(struct tu_result *r, const char *const *args)
{
	const char *argv[16] = { exe };
	int n = 1;

	snprintf(exe, sizeof(exe), "%s", tu_build("jitprof"));
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cr_assert_eq(tu_run(r, (char *const *)argv, NULL, NULL, 0, 60), 0);
}

Test(profile_cli, version_on_every_command)
{
	struct tu_result r;

	for (size_t i = 0; i < NR_CMDS; i++) {
		const char *const opts[] = { "--version", "-V" };
		for (int k = 0; k < 2; k++) {
			const char *args[] = { cmds[i], opts[k], NULL };
			run(&r, args);
			cr_expect_eq(r.status, 0, "%s %s: %s", cmds[i], opts[k], r.err);
			cr_expect(!strncmp(r.out, "jitprof ", 8), "%s %s: %s", cmds[i], opts[k],
				  r.out);
			tu_result_free(&r);
		}
	}
}

Test(profile_cli, unknown_option_exits_2_everywhere)
{
	struct tu_result r;

	for (size_t i = 0; i < NR_CMDS; i++) {
		const char *args[] = { cmds[i], "--no-such-option", NULL };
		run(&r, args);
		cr_expect_eq(r.status, 2, "%s: %d %s", cmds[i], r.status, r.err);
		/* named as the user typed the command, as every other message of ours */
		char want[128];
		snprintf(want, sizeof(want), "jitprof %s: unrecognized option '--no-such-option'",
			 cmds[i]);
		cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
		/* then the synopsis and where the rest is, not the whole help */
		snprintf(want, sizeof(want), "\nusage: jitprof %s ", cmds[i]);
		cr_expect(strstr(r.err, want), "%s", r.err);
		snprintf(want, sizeof(want), "see 'jitprof %s --help'\n", cmds[i]);
		cr_expect(strstr(r.err, want), "%s", r.err);
		cr_expect_leq(tu_count(r.err, "\n"), 4, "more than a synopsis: %s", r.err);
		tu_result_free(&r);
	}
}

Test(profile_cli, one_meaning_per_short_option)
{
	struct tu_result r;
	const char *const bad[][3] = {
		{ "report", "-k", "/x" },	/* -k is record's clock */
		{ "buildid-list", "-k", NULL },
		{ "jitdump", "-j", "/x" },	/* -j is inject's --jit */
		{ "jitdump", "-s", "/x" },	/* -s is report's --sort */
		{ "jitdump", "-c", "/x" },	/* -c is record's --count */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = { bad[i][0], bad[i][1], bad[i][2], NULL };
		run(&r, args);
		cr_expect_eq(r.status, 2, "%s %s: %d", bad[i][0], bad[i][1], r.status);
		tu_result_free(&r);
	}
	/* Usage errors found after option parsing exit 2 as well. */
	const char *sort[] = { "report", "--sort", "bogus", NULL };
	run(&r, sort);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "see 'jitprof report --help'"), "%s", r.err);
	tu_result_free(&r);
	const char *rows[] = { "report", "-n", "many", NULL };
	run(&r, rows);
	cr_expect_eq(r.status, 2, "%s", r.err);
	tu_result_free(&r);
	const char *thr[] = { "inject", "--threads", "0", NULL };
	run(&r, thr);
	cr_expect_eq(r.status, 2, "%s", r.err);
	tu_result_free(&r);
}

Test(profile_cli, help_lists_commands_in_workflow_order)
{
	struct tu_result r;
	const char *args[] = { "--help", NULL };
	const char *prev = NULL;

	run(&r, args);
	cr_assert_eq(r.status, 0);
	for (size_t i = 0; i < NR_CMDS; i++) {
		char key[64];
		snprintf(key, sizeof(key), "\n  %s ", cmds[i]);
		const char *at = strstr(r.out, key);
		cr_assert_not_null(at, "%s not listed:\n%s", cmds[i], r.out);
		cr_expect(!prev || at > prev, "%s listed out of order:\n%s", cmds[i], r.out);
		prev = at;
	}
	tu_result_free(&r);
}

Test(profile_cli, inject_writes_beside_its_input, .timeout = 60)
{
	char *dir = tu_tmpdir("profile-cli"), data[PATH_MAX], out[PATH_MAX + 16];
	struct tu_result r;
	struct stat st;

	snprintf(data, sizeof(data), "%s/t.data", dir);
	const char *rec[] = { "record", "-q", "-o", data, "--", "true", NULL };
	run(&r, rec);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	const char *inj[] = { "inject", "-q", "-i", data, NULL };
	run(&r, inj);
	/* No jitdump in that recording: exit 3, but the copy is written where it belongs. */
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect_eq(r.out_len, 0, "binary on stdout");
	tu_result_free(&r);
	snprintf(out, sizeof(out), "%s/perf.jit.data", dir);
	cr_expect_eq(stat(out, &st), 0, "no %s", out);
	cr_expect_gt(st.st_size, 0);
	/* Never over the input. */
	const char *self[] = { "inject", "-q", "-i", out, NULL };
	run(&r, self);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "is the default output: give -o FILE"), "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* Man pages are the --help texts (help2man): one per command, each with its options. */
Test(profile_cli, man_pages_from_the_help_texts)
{
	char path[PATH_MAX];

	if (!tu_have("help2man")) {
		fprintf(stderr, "profile_cli: man pages not checked, help2man is not installed\n");
		return;
	}
	for (size_t i = 0; i < NR_CMDS; i++) {
		snprintf(path, sizeof(path), "%s", tu_build("man/jitprof-"));
		strncat(path, cmds[i], sizeof(path) - strlen(path) - 4);
		strcat(path, ".1");
		char *s = tu_read_file(path, NULL);
		cr_assert_not_null(s, "no %s (make man)", path);
		cr_expect(strstr(s, ".SH NAME\njitprof "), "%s", path);
		cr_expect(strstr(s, "\\-\\-version"), "%s lacks --version", path);
		free(s);
	}
	char *s = tu_read_file(tu_build("man/jitprof-profile.1"), NULL);
	cr_assert_not_null(s);
	cr_expect(strstr(s, "\\-\\-duration"), "profile's page lacks --duration");
	free(s);
}

/* The completion reads commands and options from the same --help texts. */
Test(profile_cli, bash_completion)
{
	char cwd[PATH_MAX], cmd[5 * PATH_MAX + 768];
	struct tu_result r;

	if (!tu_have("bash"))
		cr_skip_test("no bash");
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	snprintf(exe, sizeof(exe), "%s", tu_build("jitprof"));
	snprintf(cmd, sizeof(cmd), "bash -c 'complete() { :; }; . %s/scripts/completion.bash; "
		 "COMP_WORDS=(%s pro); COMP_CWORD=1; _jitprof; echo \"${COMPREPLY[*]}\"; "
		 "COMP_WORDS=(%s profile --du); COMP_CWORD=2; _jitprof; echo \"${COMPREPLY[*]}\"; "
		 "COMP_WORDS=(%s profile --call-graph f); COMP_CWORD=3; _jitprof; "
		 "echo \"${COMPREPLY[*]}\"; COMP_WORDS=(%s report --call-graph c); COMP_CWORD=3; "
		 "_jitprof; echo \"${COMPREPLY[*]}\"'", cwd, exe, exe, exe, exe);
	cr_assert_eq(tu_sh(&r, cmd, 30), 0);
	/* profile's --call-graph is how stacks are recorded, report's how they are shown */
	cr_expect_str_eq(r.out, "profile\n--duration\nfp\ncaller callee\n", "%s %s", r.out,
			 r.err);
	tu_result_free(&r);
}

/* No command writes binary into a terminal: record, inject and archive refuse "-o -" there
 * (script(1) gives the command a terminal as its stdout). */
Test(profile_cli, no_binary_to_a_terminal, .timeout = 60)
{
	char cmd[2 * PATH_MAX], abs[PATH_MAX];
	struct tu_result r;
	const char *const cmds3[] = { "record -q -o - -- true", "inject -i /nonexistent -o -",
				      "archive -i /nonexistent -o -" };

	if (!tu_have("script")) {
		tu_skip_part("script(1) is not installed: terminal part not run");
		return;
	}
	cr_assert_not_null(realpath(tu_build("jitprof"), abs));
	for (size_t i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), "script -qc '%s %s; echo rc=$?' /dev/null", abs, cmds3[i]);
		cr_assert_eq(tu_sh(&r, cmd, 30), 0);
		cr_expect(strstr(r.out, "refusing to write") && strstr(r.out, "to a terminal"),
			  "%s: %s", cmds3[i], r.out);
		cr_expect(strstr(r.out, "rc=2"), "%s: %s", cmds3[i], r.out);
		cr_expect_null(strstr(r.out, "PERFILE2"), "%s wrote perf.data", cmds3[i]);
		tu_result_free(&r);
	}
}
