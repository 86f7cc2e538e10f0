/* report_unwind.c - call graphs without frame pointers: a C program built here with -O2
 * -fomit-frame-pointer calls main -> a -> b -> c (c burns the CPU); `jitprof record
 * --call-graph dwarf` copies the user stacks, `jitprof report --collapsed`/`-g` unwinds them
 * through the binaries' CFI (recorder/unwind/) and must show main;a;b;c for >= 90% of c's
 * samples, as perf does on the same file (perf is the oracle: perf script); the same on a
 * recording perf made; the --call-graph spellings and the SIZE limit. */
#include "tests/e2e/report_util.h"

TestSuite(report_unwind, .init = rx_setup, .fini = rx_teardown, .timeout = 300);

/* Of the samples whose leaf is c in a folded output: how many, and how many read exactly
 * ...;main;a;b;c. */
static void count_folded(const char *out, unsigned long *in_c, unsigned long *full)
{
	char line[8192];
	*in_c = *full = 0;
	for (const char *p = out; rx_next_line(&p, line, sizeof(line));) {
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		unsigned long n = strtoul(sp + 1, NULL, 10);
		size_t l = strlen(line);
		if (l < 2 || strcmp(line + l - 2, ";c"))
			continue;
		*in_c += n;
		if (l >= 11 && !strcmp(line + l - 11, ";main;a;b;c"))
			*full += n;
	}
}

/* The same from `perf script -F sym`: samples are blank-line separated, leaf first. */
static void count_perf_script(const char *out, unsigned long *in_c, unsigned long *full)
{
	char line[4096], syms[64][64];
	int n = 0;
	*in_c = *full = 0;
	for (const char *p = out;;) {
		int more = rx_next_line(&p, line, sizeof(line));
		char sym[64];
		if (more && sscanf(line, " %*x %63s", sym) == 1) {
			if (n < 64)
				snprintf(syms[n++], sizeof(syms[0]), "%s", sym);
			continue;
		}
		if (n && !strcmp(syms[0], "c")) {
			++*in_c;
			*full += n >= 4 && !strcmp(syms[1], "b") && !strcmp(syms[2], "a") &&
				 !strcmp(syms[3], "main");
		}
		n = 0;
		if (!more)
			break;
	}
}

Test(report_unwind, dwarf_recording_unwound_like_perf)
{
	struct tu_result r;
	unsigned long in_c, full, p_in_c, p_full;
	rx_build_cg();
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' record -q --call-graph dwarf -o jp.data ./cg "
	      "100000000", dir, dir, rx_jitprof);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i jp.data --collapsed", dir, dir, rx_jitprof);
	count_folded(r.out, &in_c, &full);
	cr_assert_geq(in_c, 50, "few samples in c:\n%s", r.out);
	cr_assert_geq(full * 10, in_c * 9, "%lu of %lu samples in c unwound to main;a;b;c:\n%s",
		      full, in_c, r.out);
	cr_assert_null(strstr(r.err, "does not unwind"), "%s", r.err);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i jp.data -g", dir, dir, rx_jitprof);
	cr_assert(strstr(r.out, "---_start\n") && strstr(r.out, " main\n") &&
		  strstr(r.out, " b\n"), "%s", r.out);
	tu_result_free(&r);
	/* perf reads the recording and unwinds it the same way. */
	if (!tu_have("perf")) {
		tu_skip_part("perf is not installed: no oracle for the unwound stacks");
		return;
	}
	rx_ok(&r, "cd '%s' && HOME='%s' perf script -i jp.data -F ip,sym 2>/dev/null", dir, dir);
	count_perf_script(r.out, &p_in_c, &p_full);
	tu_result_free(&r);
	if (p_full * 2 < p_in_c) {
		tu_skip_part("perf unwound %lu of %lu samples in c here: no oracle", p_full, p_in_c);
		return;
	}
	cr_assert_eq(p_in_c, in_c, "samples in c: perf %lu, ours %lu", p_in_c, in_c);
	cr_assert(full + in_c / 20 >= p_full && p_full + in_c / 20 >= full,
		  "unwound to main: perf %lu, ours %lu of %lu", p_full, full, in_c);
	rx_ok(&r, "cd '%s' && HOME='%s' perf report -i jp.data --stdio --no-children -g caller "
	      "2>/dev/null", dir, dir);
	cr_assert(strstr(r.out, "---_start\n") && strstr(r.out, " main\n"), "%s", r.out);
	tu_result_free(&r);
}

Test(report_unwind, perf_dwarf_recording_unwound)
{
	struct tu_result r;
	unsigned long in_c, full;
	rx_perf_record_cg();
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i perf.data --collapsed", dir, dir,
	      rx_jitprof);
	count_folded(r.out, &in_c, &full);
	cr_assert_geq(in_c, 50, "few samples in c:\n%s", r.out);
	cr_assert_geq(full * 10, in_c * 9, "%lu of %lu:\n%s", full, in_c, r.out);
	tu_result_free(&r);
}

/* A copy too small for the stack is said, with what copies more: the walks cut where a full
 * copy ended are counted (all of them here: 16 bytes hold no caller's frame), by report and
 * by inject alike; a copy that holds the stack says nothing of the kind. */
static unsigned long number_before(const char *text, const char *what)
{
	const char *p = strstr(text, what);
	cr_assert(p, "no '%s' in: %s", what, text);
	while (p > text && (p[-1] == ' ' || (p[-1] >= '0' && p[-1] <= '9')))
		p--;
	return strtoul(p, NULL, 10);
}

Test(report_unwind, copy_too_small_said_with_the_size_that_reaches)
{
	struct tu_result r;
	const char *hint = " of them where a full 16-byte stack copy ended: --call-graph "
			   "dwarf,65528 copies the most";
	rx_build_cg();
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' record -q --call-graph dwarf,16 -o s.data ./cg "
	      "100000000", dir, dir, rx_jitprof);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i s.data -g", dir, dir, rx_jitprof);
	const char *at = strstr(r.err, "read outside the stack copy ");
	cr_assert(at, "%s", r.err);
	unsigned long cut = strtoul(at + strlen("read outside the stack copy "), NULL, 10);
	cr_assert_gt(cut, 10, "%s", r.err);
	cr_assert_eq(number_before(r.err, hint), cut, "%s", r.err);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject -i s.data -o si.data", dir, dir, rx_jitprof);
	cr_assert_eq(number_before(r.err, hint), cut, "%s", r.err);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' record -q --call-graph dwarf -o d.data ./cg "
	      "100000000 && HOME='%s' '%s' report -i d.data -g", dir, dir, rx_jitprof, dir,
	      rx_jitprof);
	cr_assert_null(strstr(r.err, "stack copy ended"), "%s", r.err);
	tu_result_free(&r);
}

/* perf's spellings: fp is -g, dwarf takes a size rounded up to 8, at most 65528. */
Test(report_unwind, call_graph_options)
{
	struct tu_result r;
	rx_build_cg();
	rx_sh(&r, "cd '%s' && '%s' record -q --call-graph dwarf,65529 -o x.data ./cg 1", dir,
	      rx_jitprof);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "65528"), "%s", r.err);
	tu_result_free(&r);
	const char *bad[] = { "dwarf,0", "dwarf,", "dwarf,x", "lbr", "fp,8", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rx_sh(&r, "cd '%s' && '%s' record -q --call-graph '%s' -o x.data ./cg 1", dir,
		      rx_jitprof, bad[i]);
		cr_assert_eq(r.status, 2, "%s: %s", bad[i], r.err);
		tu_result_free(&r);
	}
	if (!tu_have("perf")) {
		tu_skip_part("perf is not installed: the attrs are not read back");
		return;
	}
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' record -q --call-graph dwarf,1 -o d.data ./cg 1 && "
	      "perf evlist -v -i d.data", dir, dir, rx_jitprof);
	cr_assert(strstr(r.out, "sample_stack_user: 8,") || strstr(r.out, "sample_stack_user: 8\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "REGS_USER|STACK_USER") && strstr(r.out, "exclude_callchain_user: 1"),
		  "%s", r.out);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' record -q --call-graph fp -o f.data ./cg 1 && "
	      "perf evlist -v -i f.data", dir, dir, rx_jitprof);
	cr_assert(strstr(r.out, "CALLCHAIN") && !strstr(r.out, "STACK_USER"), "%s", r.out);
	tu_result_free(&r);
}

/* libc's DWARF (libc6-dbg's compressed debug file) is inflated by libdeflate before libdw opens
 * it (recorder/symbols/inflate.c), and kept in the build-id cache for the next report
 * (inflate_cache.c): a call-graph report of a program sorting through libc's qsort, every view
 * the same as with libdw inflating it itself (JITPROF_DWARF_INFLATE=libdw, the code before
 * the change), with libdeflate alone (=nocache), and with the cache written then read. */
Test(report_unwind, dwarf_inflated_by_libdeflate_and_cached_changes_no_output)
{
	static const char src[] =
		"#include <stdlib.h>\n"
		"static int cmp(const void *a, const void *b)\n"
		"{ return *(const int *)a - *(const int *)b; }\n"
		"__attribute__((noinline)) void sortsome(void)\n"
		"{ int v[256]; for (int i = 0; i < 256; i++) v[i] = rand();\n"
		"  qsort(v, 256, sizeof(int), cmp); }\n"
		"int main(void) { for (int i = 0; i < 30000; i++) sortsome(); return 0; }\n";
	char path[PATH_MAX];
	struct tu_result r;
	snprintf(path, sizeof(path), "%s/qs.c", dir);
	cr_assert_eq(tu_write_file(path, src, sizeof(src) - 1), 0);
	rx_ok(&r, "cd '%s' && mkdir -p .debug && cc -O2 -fomit-frame-pointer -o qs qs.c && "
	      "HOME='%s' '%s' record -q --call-graph dwarf -o qs.data ./qs", dir, dir, rx_jitprof);
	tu_result_free(&r);
	static const char *const views[] = { "--collapsed", "-g", "--sort srcline",
					     "-g --sort sym,srcline" };
	/* the last two: the cache written (cold), then read (warm) */
	static const char *const modes[] = { "libdw", "nocache", "", "" };
	int inlined_libc = 0;
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		char *want = NULL;
		rx_ok(&r, "rm -rf '%s/.debug/.jitprof'", dir);
		tu_result_free(&r);
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			rx_ok(&r, "cd '%s' && HOME='%s' DEBUGINFOD_URLS= JITPROF_DWARF_INFLATE=%s "
			      "'%s' report -q -i qs.data %s", dir, dir, modes[m], rx_jitprof,
			      views[v]);
			if (!want) {
				want = strdup(r.out);
				if (v == 0) {
					inlined_libc = strstr(r.out, "qsort") && strstr(r.out, "_[i]");
					cr_assert(strstr(r.out, ";main;sortsome"), "%s", r.out);
				}
			} else {
				cr_assert_str_eq(r.out, want, "report %s with JITPROF_DWARF_INFLATE=%s "
						 "(run %zu) differs from libdw's inflation",
						 views[v], modes[m], m);
			}
			tu_result_free(&r);
		}
		free(want);
	}
	if (!inlined_libc) {
		tu_skip_part("no inlined libc frame under qsort (libc's debug file not "
			     "installed?): outputs compared without libc's DWARF");
		return;
	}
	rx_ok(&r, "ls '%s/.debug/.jitprof/dwarf' | wc -l", dir);
	cr_assert_neq(atoi(r.out), 0, "libc's inflated DWARF was not kept in the cache");
	tu_result_free(&r);
	/* A DSO read at its first lookup, not ahead (as libc when only its callers' frames are
	 * sampled): the same handle and cache as the read-ahead, the same output. */
	rx_ok(&r, "cd '%s' && rm -rf .debug/.jitprof && HOME='%s' DEBUGINFOD_URLS= "
	      "JITPROF_DWARF_INFLATE=libdw '%s' report -q -i qs.data --collapsed >want.txt && "
	      "HOME='%s' DEBUGINFOD_URLS= JITPROF_DWARF_AHEAD=0 '%s' report -q -i qs.data "
	      "--collapsed >now.txt && cmp want.txt now.txt && ls .debug/.jitprof/dwarf | wc -l",
	      dir, dir, rx_jitprof, dir, rx_jitprof);
	cr_assert_neq(atoi(r.out), 0, "libc's DWARF read at its first lookup was not inflated "
		      "into the cache");
	tu_result_free(&r);
}
