/* inject_stacks.c - `jitprof inject` on dwarf recordings: a C program built here with -O2
 * -fomit-frame-pointer calls main -> a -> b -> c (c burns the CPU), recorded with `jitprof
 * record --call-graph dwarf` (and `perf record --call-graph dwarf`), injected: the output's
 * samples carry the unwound user frames in their call chains and no stack copies, so `perf
 * script`, `perf report -g` and `jitprof report` show main;a;b;c in >= 90% of c's samples,
 * sample for sample the frames perf unwinds itself from the original file (perf is the
 * oracle), in a file at most a fifth of the recording's size. --keep-stacks keeps the copies. */
#include "tests/e2e/report_util.h"

TestSuite(inject_stacks, .init = rx_setup, .fini = rx_teardown, .timeout = 300);

/* `perf script -F ip,sym` of a file: per sample (blank-line separated, leaf first) its function
 * names up to main, joined by ';' into out[i] (at most max samples). Returns the count. */
#define MAX_SAMPLES 20000
static size_t script_chains(const char *file, char (*out)[256], size_t max)
{
	struct tu_result r;
	char line[4096], cur[256] = "";
	size_t n = 0;
	int done = 0;
	rx_ok(&r, "cd '%s' && HOME='%s' perf script -i '%s' -F ip,sym 2>/dev/null", dir, dir, file);
	for (const char *p = r.out;;) {
		int more = rx_next_line(&p, line, sizeof(line));
		char sym[200];
		if (more && sscanf(line, " %*x %199s", sym) == 1) {
			size_t l = strlen(cur);
			if (!done && l + strlen(sym) + 2 < sizeof(cur))
				snprintf(cur + l, sizeof(cur) - l, "%s%s", l ? ";" : "", sym);
			done |= !strcmp(sym, "main");
			continue;
		}
		if (cur[0] && n < max)
			snprintf(out[n++], 256, "%s", cur);
		cur[0] = 0;
		done = 0;
		if (!more)
			break;
	}
	tu_result_free(&r);
	return n;
}

static void count_leaf_c(char (*ch)[256], size_t n, unsigned long *in_c, unsigned long *full)
{
	*in_c = *full = 0;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(ch[i], "c;", 2) && strcmp(ch[i], "c"))
			continue;
		++*in_c;
		*full += !strcmp(ch[i], "c;b;a;main");
	}
}

static long file_size(const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* The injected file against perf's own unwinding of the recording, sample by sample. */
static void check_against_perf(const char *rec, const char *inj)
{
	static char orig[MAX_SAMPLES][256], ours[MAX_SAMPLES][256];
	unsigned long in_c, full, p_in_c, p_full;
	size_t n = script_chains(inj, ours, MAX_SAMPLES);
	count_leaf_c(ours, n, &in_c, &full);
	cr_assert_geq(in_c, 50, "few samples in c: %lu of %zu", in_c, n);
	cr_assert_geq(full * 10, in_c * 9, "perf script on the injected file: %lu of %lu samples "
		      "in c read c;b;a;main", full, in_c);
	size_t pn = script_chains(rec, orig, MAX_SAMPLES);
	count_leaf_c(orig, pn, &p_in_c, &p_full);
	cr_assert_eq(pn, n, "samples: perf on the recording %zu, on the injected file %zu", pn, n);
	if (p_full * 2 < p_in_c) {
		tu_skip_part("perf unwound %lu of %lu samples in c here: no oracle", p_full, p_in_c);
		return;
	}
	size_t same = 0, first = n;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(orig[i], ours[i]))
			same++;
		else if (first == n && (!strncmp(orig[i], "c;", 2) || !strcmp(orig[i], "c")))
			first = i;
	}
	cr_assert_eq(p_in_c, in_c);
	cr_assert(full + in_c / 20 >= p_full && p_full + in_c / 20 >= full,
		  "c;b;a;main: perf %lu, injected %lu of %lu", p_full, full, in_c);
	cr_assert_geq(same * 100, (size_t)in_c * 90, "%zu of %zu samples alike; first in c that "
		      "differs: perf '%s', injected '%s'", same, n, first < n ? orig[first] : "",
		      first < n ? ours[first] : "");
}

Test(inject_stacks, jitprof_dwarf_recording)
{
	struct tu_result r;
	unsigned long in_c, full;
	rx_build_cg();
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' record -q --call-graph dwarf -o jp.data ./cg "
	      "100000000", dir, dir, rx_jitprof);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject -i jp.data -o inj.data", dir, dir, rx_jitprof);
	cr_assert(strstr(r.err, "user stacks unwound into their samples' call chains (copies "
			 "dropped)") && strstr(r.err, "names no jitdump: only its user stacks"),
		  "%s", r.err);
	tu_result_free(&r);
	long rec = file_size("jp.data"), inj = file_size("inj.data");
	cr_assert(rec > 0 && inj > 0 && inj * 5 <= rec, "injected %ld bytes, recording %ld", inj,
		  rec);
	/* jitprof's report reads the chains (no copy left to unwind). */
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' report -i inj.data --collapsed", dir, dir, rx_jitprof);
	in_c = full = 0;
	char line[8192];
	for (const char *p = r.out; rx_next_line(&p, line, sizeof(line));) {
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		size_t l = strlen(line);
		if (l < 2 || strcmp(line + l - 2, ";c"))
			continue;
		in_c += strtoul(sp + 1, NULL, 10);
		if (strstr(line, ";main;a;b;c"))
			full += strtoul(sp + 1, NULL, 10);
	}
	cr_assert_geq(in_c, 50, "%s", r.out);
	cr_assert_geq(full * 10, in_c * 9, "%lu of %lu:\n%s", full, in_c, r.out);
	cr_assert_null(strstr(r.err, "unwound from their copies"), "%s", r.err);
	tu_result_free(&r);
	if (!tu_have("perf")) {
		tu_skip_part("perf is not installed: no oracle for the injected chains");
		return;
	}
	rx_ok(&r, "cd '%s' && HOME='%s' perf evlist -v -i inj.data 2>/dev/null", dir, dir);
	cr_assert(strstr(r.out, "CALLCHAIN") && !strstr(r.out, "STACK_USER") &&
		  !strstr(r.out, "REGS_USER") && !strstr(r.out, "exclude_callchain_user"),
		  "%s", r.out);
	tu_result_free(&r);
	check_against_perf("jp.data", "inj.data");
	rx_ok(&r, "cd '%s' && HOME='%s' perf report -i inj.data --stdio --no-children -g caller "
	      "2>/dev/null", dir, dir);
	cr_assert(strstr(r.out, "---_start\n") && strstr(r.out, " main\n") &&
		  strstr(r.out, " a\n") && strstr(r.out, " b\n"), "%s", r.out);
	tu_result_free(&r);
}

/* A pipe all the way: the attrs come in the stream, after inject has started. */
Test(inject_stacks, pipe_in_pipe_out)
{
	struct tu_result r;
	static char ch[MAX_SAMPLES][256];
	unsigned long in_c, full;
	rx_build_cg();
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed: no reader of the piped output");
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' record -q --call-graph dwarf -o - ./cg 100000000 | "
	      "'%s' inject -i - -o - > piped.data", dir, dir, rx_jitprof, rx_jitprof);
	cr_assert(strstr(r.err, "user stacks unwound"), "%s", r.err);
	tu_result_free(&r);
	count_leaf_c(ch, script_chains("piped.data", ch, MAX_SAMPLES), &in_c, &full);
	cr_assert_geq(in_c, 50);
	cr_assert_geq(full * 10, in_c * 9, "%lu of %lu", full, in_c);
}

/* perf's own dwarf recording, and --keep-stacks: the copies stay, the chains are there. */
Test(inject_stacks, perf_dwarf_recording_and_keep_stacks)
{
	struct tu_result r;
	rx_perf_record_cg();
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject -i perf.data -o inj.data", dir, dir,
	      rx_jitprof);
	tu_result_free(&r);
	check_against_perf("perf.data", "inj.data");
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --keep-stacks -i perf.data -o keep.data && "
	      "perf evlist -v -i keep.data 2>/dev/null", dir, dir, rx_jitprof);
	cr_assert(strstr(r.out, "REGS_USER|STACK_USER") &&
		  !strstr(r.out, "exclude_callchain_user"), "%s", r.out);
	tu_result_free(&r);
	cr_assert_geq(file_size("keep.data"), file_size("perf.data"));
	static char ch[MAX_SAMPLES][256];
	unsigned long in_c, full;
	count_leaf_c(ch, script_chains("keep.data", ch, MAX_SAMPLES), &in_c, &full);
	cr_assert_geq(in_c, 50);
	cr_assert_geq(full * 10, in_c * 9, "%lu of %lu", full, in_c);
}
