/* install_layout.c - what `make install` lays down and what a shell offers: PREFIX honoured
 * by everything installed (jitdump.pc included, whatever PREFIX `make` had), the agent under
 * a name of its own, one version in every command and in jitdump.pc, man pages titled by
 * command, and a bash completion that offers only the options a command takes. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static const char *const cmds[] = { "profile", "record", "inject", "report", "archive",
				    "buildid-list", "jitdump", "synth" };
#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static char *sh_ok(const char *fmt, const char *a, const char *b, const char *c)
{
	char cmd[16384];
	struct tu_result r;

	snprintf(cmd, sizeof(cmd), fmt, a, b, c);
	cr_assert_eq(tu_sh(&r, cmd, 600), 0);
	cr_assert_eq(r.status, 0, "%s: %s%s", cmd, r.out, r.err);
	char *out = r.out;
	r.out = NULL;
	tu_result_free(&r);
	return out;
}

static const char *build_dir(void)
{
	const char *b = getenv("JITPROF_BUILD");
	return b && *b ? b : "build";
}

/* "1.0.0" of "jitprof 1.0.0\n" (static). */
static const char *version_of(const char *out)
{
	static char v[64];
	cr_assert(sscanf(out, "jitprof %63s", v) == 1, "%s", out);
	return v;
}

Test(install_layout, prefix_honoured_and_agent_named_its_own, .timeout = 600)
{
	if (!tu_have("make") || access("Makefile", R_OK))
		cr_skip_test("needs make and the source tree as cwd");
	char *dir = tu_tmpdir("install"), path[PATH_MAX], *out;
	const char *build = build_dir();

	out = sh_ok("make -s install BUILD=%s SANITIZE=%s PREFIX=/opt/jpx DESTDIR=%s >/dev/null",
		    build, strstr(build, "san") ? "1" : "0", dir);
	free(out);
	snprintf(path, sizeof(path), "%s/opt/jpx/lib/pkgconfig/jitdump.pc", dir);
	char *pc = tu_read_file(path, NULL);
	cr_assert_not_null(pc, "no %s", path);
	cr_expect(strstr(pc, "prefix=/opt/jpx\n"), "%s", pc);
	out = sh_ok("%s/jitprof --version%s%s", build, "", "");
	char want[128];
	snprintf(want, sizeof(want), "\nVersion: %s\n", version_of(out));
	cr_expect(strstr(pc, want), "jitdump.pc and jitprof disagree (%s):\n%s", out, pc);
	free(out);
	free(pc);
	snprintf(path, sizeof(path), "%s/opt/jpx/lib/libjitprof-agent.so", dir);
	cr_expect_eq(access(path, R_OK), 0, "no %s", path);
	snprintf(path, sizeof(path), "%s/opt/jpx/lib/libagent.so", dir);
	cr_expect_neq(access(path, F_OK), 0, "%s: a generic name in a shared lib directory", path);
	snprintf(path, sizeof(path), "%s/opt/jpx/bin/jitprof", dir);
	cr_expect_eq(access(path, X_OK), 0, "no %s", path);
	if (tu_have("help2man")) {
		snprintf(path, sizeof(path), "%s/opt/jpx/share/man/man1/jitprof-buildid-list.1", dir);
		char *man = tu_read_file(path, NULL);
		cr_assert_not_null(man, "no %s", path);
		cr_expect(strstr(man, "\n.TH JITPROF-BUILDID-LIST \"1\" "), "%.300s", man);
		free(man);
	} else {
		tu_skip_part("help2man is not installed: no man pages to check");
	}
	tu_rmtree(dir);
	free(dir);
}

Test(install_layout, one_version_everywhere)
{
	const char *build = build_dir();
	char *top = sh_ok("%s/jitprof --version%s%s", build, "", "");
	char pcpath[PATH_MAX], want[128];

	for (size_t i = 0; i < NR_CMDS; i++) {
		char *out = sh_ok("%s/jitprof %s --version%s", build, cmds[i], "");
		cr_expect_str_eq(out, top, "jitprof %s --version", cmds[i]);
		free(out);
	}
	snprintf(pcpath, sizeof(pcpath), "%s/jitdump.pc", build);
	char *pc = tu_read_file(pcpath, NULL);
	cr_assert_not_null(pc, "no %s", pcpath);
	snprintf(want, sizeof(want), "\nVersion: %s\n", version_of(top));
	cr_expect(strstr(pc, want), "%s vs %s", top, pc);
	free(pc);
	free(top);
}

/* Completes "jitprof CMD --" in bash with the installed completion script. */
static char *complete(const char *exe, const char *cmd)
{
	char script[8192];
	struct tu_result r;

	snprintf(script, sizeof(script),
		 "bash -c 'source scripts/completion.bash; COMP_WORDS=(%s %s --); COMP_CWORD=2; "
		 "_jitprof; printf \"%%s\\n\" \"${COMPREPLY[@]}\"'", exe, cmd);
	cr_assert_eq(tu_sh(&r, script, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	char *out = r.out;
	r.out = NULL;
	tu_result_free(&r);
	return out;
}

Test(install_layout, completion_offers_what_the_command_takes)
{
	char exe[PATH_MAX];

	if (!tu_have("bash") || access("scripts/completion.bash", R_OK))
		cr_skip_test("needs bash and the source tree as cwd");
	cr_assert_not_null(realpath(tu_build("jitprof"), exe));
	char *p = complete(exe, "profile");
	cr_expect(strstr(p, "--elfs\n") && strstr(p, "--jvm-log\n"), "%s", p);
	/* named in profile's help text, but options of other programs and commands */
	cr_expect_null(strstr(p, "--elfs-for\n"), "%s", p);
	cr_expect_null(strstr(p, "--perf-prof\n"), "%s", p);
	cr_expect_null(strstr(p, "--interpreted-frames-native-stack\n"), "%s", p);
	free(p);
	p = complete(exe, "report");
	cr_expect(strstr(p, "--sort\n") && strstr(p, "--generations\n"), "%s", p);
	free(p);
}
