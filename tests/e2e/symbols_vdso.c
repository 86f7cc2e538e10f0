/* symbols_vdso.c - [vdso] samples named on a clock-heavy program: `jitprof record` saves the
 * vdso image into the build-id cache as perf does ([vdso]/<id>/vdso, from its own mapping), so
 * `jitprof report` names them here, and so do `jitprof archive` + `report --archive` with an
 * empty HOME, perf's own archive (tar.bz2, and unpacked) of a perf recording, and perf report
 * on our cache. The oracle is perf report's name for the same samples, computed here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/lib/testutil.h"

static const char clk_src[] =
	"#include <time.h>\n"
	"int main(void) { struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);\n"
	" do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000000000L"
	" + b.tv_nsec - a.tv_nsec < 300000000L); return 0; }\n";

static char *dir;

static char *sh_ok(const char *fmt, const char *a, const char *b)
{
	char cmd[8192];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), fmt, a, b);
	cr_assert_eq(tu_sh(&r, cmd, 240), 0);
	cr_assert_eq(r.status, 0, "%s:\n%s", cmd, r.err);
	char *out = strdup(r.out);
	tu_result_free(&r);
	return out;
}

/* The symbol of the first [vdso] row of a perf-style table that names one ("" when none).
 * Rows of bare addresses are passed over: a kernel's vdso may keep its hottest code in a
 * function it does not export (6.18's clock_gettime spends most of its time before the first
 * exported symbol), which neither perf nor we can name. */
static void top_vdso(const char *table, char *sym, size_t len)
{
	sym[0] = 0;
	for (const char *l = table; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *v = strstr(l, "[vdso]"), *e = strchr(l, '\n');
		if (l[0] == '#' || !v || (e && v > e))
			continue;
		const char *s = strstr(v, "[.] ");
		if (!s || (e && s > e))
			continue;
		s += 4;
		if (!strncmp(s, "0x", 2))
			continue;
		size_t n = e ? (size_t)(e - s) : strlen(s);
		while (n && s[n - 1] == ' ')
			n--;
		snprintf(sym, len, "%.*s", (int)n, s);
		return;
	}
}

static void setup(void)
{
	dir = tu_tmpdir("vdso");
	char src[600];
	snprintf(src, sizeof(src), "%s/clk.c", dir);
	cr_assert_eq(tu_write_file(src, clk_src, sizeof(clk_src) - 1), 0);
	free(sh_ok("cd '%s' && mkdir A B P && cc -O1 -o clk clk.c%s", dir, ""));
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(vdso, .init = setup, .fini = teardown, .timeout = 240);

Test(vdso, saved_by_record_and_named_here_and_from_archives)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char env[4300], sym[256], want[256];
	char *jp = realpath(tu_build("jitprof"), NULL);
	cr_assert_not_null(jp, "jitprof is not built");
	snprintf(env, sizeof(env), "cd '%s' && J='%s' && export DEBUGINFOD_URLS=", dir, jp);
	free(jp);
	free(sh_ok("%s && HOME=$PWD/A $J record -q -o j.data -- ./clk%s", env, ""));
	char *ls = sh_ok("%s && ls A/.debug/'[vdso]'/*/vdso A/.debug/.build-id/*/*%s", env, "");
	cr_assert(strstr(ls, "/vdso"), "%s", ls);
	free(ls);
	char *perf = sh_ok("%s && HOME=$PWD/A perf report -i j.data --stdio --no-children "
			   "2>/dev/null%s", env, "");
	top_vdso(perf, want, sizeof(want));
	int in_vdso = strstr(perf, "[vdso]") != NULL;
	free(perf);
	if (!in_vdso) {
		tu_skip_part("no sample in the vdso here (clock_gettime does not "
			"use it on this clocksource)");
		return;
	}
	cr_assert(want[0], "perf names no vdso symbol from our cache");
	char *ours = sh_ok("%s && HOME=$PWD/A $J report -i j.data 2>/dev/null%s", env, "");
	top_vdso(ours, sym, sizeof(sym));
	cr_assert_str_eq(sym, want, "%s", ours);
	free(ours);
	/* another machine: an empty HOME and only our archive */
	free(sh_ok("%s && HOME=$PWD/A $J archive -i j.data -o j.tar.zst 2>/dev/null%s", env, ""));
	ours = sh_ok("%s && HOME=$PWD/B $J report -i j.data --archive j.tar.zst 2>/dev/null%s",
		     env, "");
	top_vdso(ours, sym, sizeof(sym));
	cr_assert_str_eq(sym, want, "%s", ours);
	free(ours);
	ours = sh_ok("%s && HOME=$PWD/B $J report -i j.data 2>/dev/null%s", env, "");
	top_vdso(ours, sym, sizeof(sym));
	cr_assert(!sym[0], "named without any copy: %s", sym);
	free(ours);

	/* perf's recording and perf's archive, packed and unpacked */
	free(sh_ok("%s && HOME=$PWD/P perf record -q -o p.data ./clk >/dev/null 2>&1%s", env, ""));
	perf = sh_ok("%s && HOME=$PWD/P perf report -i p.data --stdio --no-children "
		     "2>/dev/null%s", env, "");
	top_vdso(perf, want, sizeof(want));
	free(perf);
	struct tu_result r;
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "%s && HOME=$PWD/P perf archive p.data >/dev/null 2>&1 && "
		 "mkdir un && tar xjf p.data.tar.bz2 -C un", env);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	int archived = r.status == 0;
	tu_result_free(&r);
	if (!archived || !want[0]) {
		tu_skip_part("perf archive unusable here or perf named no vdso "
			"symbol (%s)", want);
		return;
	}
	const char *const srcs[] = { "p.data.tar.bz2", "un" };
	for (size_t i = 0; i < 2; i++) {
		ours = sh_ok("%s && HOME=$PWD/B $J report -i p.data --archive %s 2>/dev/null", env,
			     srcs[i]);
		top_vdso(ours, sym, sizeof(sym));
		cr_assert_str_eq(sym, want, "perf's archive %s:\n%s", srcs[i], ours);
		free(ours);
	}
}

Test(vdso, no_buildid_cache_writes_nothing)
{
	char cmd[8192];
	struct tu_result r;
	char *jp = realpath(tu_build("jitprof"), NULL);
	cr_assert_not_null(jp, "jitprof is not built");
	snprintf(cmd, sizeof(cmd), "cd '%s' && HOME=$PWD/B '%s' record -q -N -o n.data -- ./clk && "
		 "test ! -e B/.debug", dir, jp);
	free(jp);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
}

/* perf record -z (perf 6.x, at least) writes every build-id as zeros: a [vdso] with nothing to
 * compare is named from this host's vdso, as perf names it. */
Test(vdso, recorded_without_build_id_named_from_this_host)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char env[4300], sym[256], want[256];
	struct tu_result r;
	char cmd[8192];
	char *jp = realpath(tu_build("jitprof"), NULL);
	cr_assert_not_null(jp, "jitprof is not built");
	snprintf(env, sizeof(env), "cd '%s' && J='%s' && export DEBUGINFOD_URLS=", dir, jp);
	free(jp);
	snprintf(cmd, sizeof(cmd), "%s && HOME=$PWD/B perf record -q -z -o z.data ./clk "
		 ">/dev/null 2>&1 && HOME=$PWD/B perf buildid-list -i z.data 2>/dev/null", env);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	/* The build-id column of the vdso's line ("[vdso]", or perf's temporary copy
	 * /tmp/perf-vdso.so-XXXXXX): blank when none was recorded. */
	char *line = r.status == 0 ? strstr(r.out, "vdso") : NULL;
	while (line && line > r.out && line[-1] != '\n')
		line--;
	int usable = line && line[0] == ' ';
	tu_result_free(&r);
	if (!usable)
		cr_skip_test("perf record -z here failed, or recorded a build-id for [vdso]");
	char *perf = sh_ok("%s && HOME=$PWD/B perf report -i z.data --stdio --no-children "
			   "2>/dev/null%s", env, "");
	top_vdso(perf, want, sizeof(want));
	free(perf);
	if (!want[0] || !strncmp(want, "0x", 2))
		cr_skip_test("perf names no vdso symbol here (%s)", want);
	char *ours = sh_ok("%s && HOME=$PWD/B $J report -i z.data 2>/dev/null%s", env, "");
	top_vdso(ours, sym, sizeof(sym));
	cr_assert_str_eq(sym, want, "%s", ours);
	free(ours);
}
