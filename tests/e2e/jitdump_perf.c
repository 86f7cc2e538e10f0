/* jitdump_perf.c - our writer's dumps through perf itself: this binary, re-run under
 * `perf record -k mono` with JDT_PERF_CHILD set, JIT-compiles three tiny loops into executable
 * memory, writes their loads (with line tables, and companion data perf never reads) and runs
 * each. `perf inject --jit` must print no warning at all, `perf report` must name the three
 * functions, and perf's ELF must carry our line table. (samples/minijit's interop test covers
 * the fuller pipeline.) */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testjit.h"
#include "tests/lib/testutil.h"

#define EXTRA_LOADS 500	/* plus companion records for each: perf must stay quiet */

#ifdef TU_HAVE_JIT
static int run_jit(const char *dir)
{
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w;
	if (jd_writer_open(&w, &o))
		return 10;
	const uint8_t *codes[] = { tu_jit_alpha, tu_jit_beta, tu_jit_gamma };
	size_t sizes[] = { sizeof(tu_jit_alpha), sizeof(tu_jit_beta), sizeof(tu_jit_gamma) };
	const char *names[] = { "jd_alpha", "jd_beta", "jd_gamma" };
	uint8_t *mem = tu_jit_place(codes, sizes, 3);
	if (!mem)
		return 11;
	uint8_t filler[16] = { 0xc3 };
	for (int i = 0; i < EXTRA_LOADS; i++) {
		struct jd_ext_load_info info = { .generation = 1, .tier = JD_TIER_STUB };
		char name[32];
		snprintf(name, sizeof(name), "jd_filler_%d", i);
		struct jd_load_desc d = { .name = name, .code_addr = 0x10000000 + 64 * (uint64_t)i,
					  .code = filler, .code_size = sizeof(filler),
					  .info = &info };
		if (jd_write_load(w, &d, NULL))
			return 13;
		struct jd_ext_unload u = { .code_addr = d.code_addr };
		if (jd_write_unload(w, &u, 0))
			return 14;
	}
	for (int i = 0; i < 3; i++) {
		uint8_t *code = mem + TU_JIT_STRIDE * i;
		uint64_t a = (uint64_t)(uintptr_t)code;
		/* NULL files repeat the previous one: perf must still see "jdperf.c". */
		struct jd_line lines[] = { { a, 10 + i, 0, "jdperf.c" }, { a + 3, 11 + i, 0, NULL },
					   { a + 6, 12 + i, 0, NULL } };
		struct jd_ext_load_info info = { .generation = 1, .tier = JD_TIER_OTHER };
		struct jd_load_desc d = { .name = names[i], .code_addr = a, .code = code,
					  .code_size = sizes[i], .lines = lines, .nr_lines = 3,
					  .info = &info };
		if (jd_write_load(w, &d, NULL) || jd_writer_flush(w))
			return 15;
		tu_jit_spin((uint64_t (*)(uint64_t))(void *)code, 300);
	}
	struct jd_ext_agent_stats st = { .loads = 3 + EXTRA_LOADS };
	jd_write_stats(w, &st);
	return jd_writer_close(w) ? 16 : 0;
}

TU_CHILD_MODE("JDT_PERF_CHILD", run_jit)
#endif

/* Lines of text that say perf is unhappy. */
static size_t complaint_lines(const char *err)
{
	size_t n = 0;
	char *copy = strdup(err);
	for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n"))
		n += strcasestr(l, "warn") || strcasestr(l, "unknown") || strcasestr(l, "skipping") ||
		     strcasestr(l, "error");
	free(copy);
	return n;
}

Test(jitdump_perf, perf_injects_and_reports_our_dump, .timeout = 180)
{
#ifndef TU_HAVE_JIT
	cr_skip_test("the test JIT emits x86-64 code only");
#else
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char *dir = tu_tmpdir("jdperf");
	char self[PATH_MAX], data[PATH_MAX + 32], jdata[PATH_MAX + 32], env1[PATH_MAX + 32],
		env2[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	cr_assert_gt(n, 0);
	self[n] = 0;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(jdata, sizeof(jdata), "%s/perf.jit.data", dir);
	snprintf(env1, sizeof(env1), "JDT_PERF_CHILD=%s", dir);
	snprintf(env2, sizeof(env2), "HOME=%s", dir);	/* perf's build-id cache goes here */
	const char *env[] = { env1, env2, "DEBUGINFOD_URLS=", NULL };
	char *rec[] = { "perf", "record", "-q", "-k", "mono", "-e", "cpu-clock", "-F", "2000",
			"-o", data, "--", self, NULL };
	struct tu_result r;
	cr_assert_eq(tu_run(&r, rec, env, NULL, 0, 120), 0);
	if (r.status && strstr(r.err, "perf_event_paranoid"))
		cr_skip_test("perf may not record here: %s", r.err);
	cr_assert_eq(r.status, 0, "perf record: %s", r.err);
	tu_result_free(&r);

	char *inj[] = { "perf", "inject", "--jit", "-i", data, "-o", jdata, NULL };
	cr_assert_eq(tu_run(&r, inj, env + 1, NULL, 0, 120), 0);
	cr_assert_eq(r.status, 0, "perf inject: %s", r.err);
	cr_assert_eq(complaint_lines(r.err), 0, "perf inject complained:\n%s", r.err);
	tu_result_free(&r);

	char *rep[] = { "perf", "report", "--stdio", "-i", jdata, "--sort", "dso,sym", NULL };
	cr_assert_eq(tu_run(&r, rep, env + 1, NULL, 0, 120), 0);
	cr_assert_eq(r.status, 0, "perf report: %s", r.err);
	const char *names[] = { "jd_alpha", "jd_beta", "jd_gamma" };
	for (int i = 0; i < 3; i++) {
		cr_assert(strstr(r.out, names[i]), "perf report lacks %s:\n%s", names[i], r.out);
		/* Each from its own jitted ELF, not [unknown] or an anonymous map. */
		const char *l = strstr(r.out, names[i]);
		while (l > r.out && l[-1] != '\n')
			l--;
		cr_assert(strstr(l, "jitted-") && strstr(l, "jitted-") < strstr(l, names[i]),
			  "%s not from a jitted ELF:\n%s", names[i], r.out);
	}
	tu_result_free(&r);

	/* perf's ELF for jd_alpha (code_index EXTRA_LOADS + 1, text at 0x80): its second line
	 * row names the file in full (perf 6.1 would call it "\xff" had we used the shorthand;
	 * the last row is lost to perf's end_sequence placement, so the middle one is checked). */
	if (tu_have("addr2line")) {
		char cmd[PATH_MAX + 128];
		snprintf(cmd, sizeof(cmd), "addr2line -e %s/jitted-*-%d.so 0x83", dir,
			 EXTRA_LOADS + 1);
		cr_assert_eq(tu_sh(&r, cmd, 60), 0);
		cr_assert_str_eq(r.out, "jdperf.c:11\n", "line of jd_alpha+3: %s %s", r.out, r.err);
		tu_result_free(&r);
	}
	tu_rmtree(dir);
	free(dir);
#endif
}
