/* report_missing.c - a recording whose ELF files are not on this machine (made elsewhere, or
 * its files deleted since): one warning says how many were not found, names the first ones
 * and how to report such a recording (--archive, debuginfod), instead of one warning each. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"

/* Work counted in iterations, not time: under load a library given no CPU in its time would
 * have no sample, and a library without samples is never looked for. */
static const char lib_src[] =
	"static volatile unsigned long sink;\n"
	"void spin_N(void) { for (unsigned long i = 0; i < 60000000ul; i++) sink += i * i; }\n";
static const char main_src[] =
	"void spin_1(void); void spin_2(void); void spin_3(void); void spin_4(void);\n"
	"int main(void) { spin_1(); spin_2(); spin_3(); spin_4(); return 0; }\n";

Test(report_missing, missing_elfs_said_once_with_the_way_out, .timeout = 300)
{
	if (!tu_have("cc"))
		cr_skip_test("cc is not installed");
	char *dir = tu_tmpdir("missing"), path[4200], cmd[16384], jp[4096];
	struct tu_result r;

	cr_assert_not_null(realpath(tu_build("jitprof"), jp));
	for (int i = 1; i <= 4; i++) {
		char src[sizeof(lib_src)];
		memcpy(src, lib_src, sizeof(lib_src));
		*strchr(src, 'N') = (char)('0' + i);
		snprintf(path, sizeof(path), "%s/l%d.c", dir, i);
		cr_assert_eq(tu_write_file(path, src, strlen(src)), 0);
	}
	snprintf(path, sizeof(path), "%s/main.c", dir);
	cr_assert_eq(tu_write_file(path, main_src, sizeof(main_src) - 1), 0);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && for i in 1 2 3 4; do cc -O1 -shared -fPIC -o libl$i.so l$i.c || "
		 "exit 1; done && cc -O1 -o main main.c -L. -ll1 -ll2 -ll3 -ll4 -Wl,-rpath,'%s' && "
		 "mkdir home1 home2 && HOME=$PWD/home1 '%s' record -q -o p.data ./main 2>&1", dir,
		 dir, jp);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	if (r.status != 0 && strstr(r.out, "perf_event_open")) {
		tu_result_free(&r);
		tu_rmtree(dir);
		cr_skip_test("no perf events here");
	}
	cr_assert_eq(r.status, 0, "%s", r.out);
	tu_result_free(&r);
	/* As on another machine: the files are gone, no cache, no debuginfod. */
	snprintf(cmd, sizeof(cmd), "cd '%s' && rm libl?.so main && HOME=$PWD/home2 "
		 "DEBUGINFOD_URLS= '%s' report -i p.data", dir, jp);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(tu_count(r.err, "not found"), 1, "one warning, not one per file:\n%s", r.err);
	/* the four libraries at least (the program and the vdso too where a sample landed in
	 * them: the vdso's copy is in the recording machine's cache, as on another machine) */
	const char *w = strstr(r.err, " ELF files the recording names were not found here (");
	unsigned long n = 0;
	while (w && w > r.err && w[-1] >= '0' && w[-1] <= '9')
		w--;
	cr_expect(w && sscanf(w, "%lu", &n) == 1 && n >= 4, "%s", r.err);
	cr_expect(strstr(r.err, "--archive FILE"), "%s", r.err);
	/* the samples are still there, under addresses of the files that were */
	cr_expect(strstr(r.out, "libl3.so"), "%.2000s", r.out);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
