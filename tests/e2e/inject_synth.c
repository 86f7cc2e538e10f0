/* inject_synth.c - end to end: `jitprof inject --jit` on synthetic runs from inject-gen, whose
 * ground truth (samples per code load) is known exactly, and on the perf-jvmti fixture, with
 * perf report/script as the readers: attribution per generation across address reuse, moves,
 * unloads, pipes and arch timestamps; sampled-only ELFs, reuse, refusal of a foreign clock,
 * missing and truncated dumps, line rows whose file names are not text, and agreement with
 * `perf inject --jit`. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/e2e/inject_util.h"

struct gen {
	char *dir;
	char data[512], out[512], cache[512], dump[512];
	unsigned long pid;
	unsigned long ci[8192], want[8192];
	size_t n;
	char line[4][32];	/* with --lines: "Bench.java:L" and its samples */
	unsigned long line_want[4];
	size_t nl;
};

/* Runs inject-gen in a fresh directory with the given extra arguments (NULL-terminated). */
static void gen_run(struct gen *g, const char *const *extra)
{
	struct tu_result r;
	char *argv[32] = { (char *)tu_build("inject-gen"), "--dir", NULL, "-o", NULL };
	size_t k = 5;
	memset(g, 0, sizeof(*g));
	g->dir = tu_tmpdir("inj");
	cr_assert_not_null(g->dir);
	snprintf(g->data, sizeof(g->data), "%s/perf.data", g->dir);
	snprintf(g->out, sizeof(g->out), "%s/jit.data", g->dir);
	snprintf(g->cache, sizeof(g->cache), "%s/cache", g->dir);
	argv[2] = g->dir;
	argv[4] = g->data;
	for (; extra && *extra && k < 31; extra++)
		argv[k++] = (char *)*extra;
	argv[k] = NULL;
	iu_run_ok(&r, argv, NULL, 120);
	char *save = NULL;
	for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "dump %511s", g->dump) == 1)
			continue;
		if (g->n < 8192 && sscanf(l, "expect %lu %lu", &g->ci[g->n], &g->want[g->n]) == 2)
			g->n++;
		if (g->nl < 4 && sscanf(l, "line %31s %lu", g->line[g->nl], &g->line_want[g->nl]) == 2)
			g->nl++;
	}
	tu_result_free(&r);
	const char *b = strrchr(g->dump, '/');
	cr_assert(b && sscanf(b, "/jit-%lu.dump", &g->pid) == 1, "no dump in inject-gen output");
	cr_assert_gt(g->n, 0);
}

static void gen_free(struct gen *g)
{
	tu_rmtree(g->dir);
	free(g->dir);
}

/* jitprof inject -i data -o out with the test's cache, plus extra arguments. */
static void inject(struct tu_result *r, const struct gen *g, const char *in, const char *out,
		   const char *extra)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= '%s' inject --jit -i '%s' -o '%s' "
		 "--buildid-dir '%s' %s", tu_build("jitprof"), in, out, g->cache,
		 extra ? extra : "");
	cr_assert_eq(tu_sh(r, cmd, 120), 0);
}

static void inject_ok(const struct gen *g, const char *extra)
{
	struct tu_result r;
	inject(&r, g, g->data, g->out, extra);
	cr_assert_eq(r.status, 0, "jitprof inject: %s", r.err);
	tu_result_free(&r);
}

/* The k-th of both ways to inject g's recording: 0 ELF files into g->out, 1 --no-elfs into
 * DIR/noelfs.data (path in noelfs); asserts success, leaves inject's output in *r. */
static const char *inject_way(struct tu_result *r, const struct gen *g, int k, char *noelfs,
			      size_t len)
{
	snprintf(noelfs, len, "%s/noelfs.data", g->dir);
	const char *out = k ? noelfs : g->out;
	inject(r, g, g->data, out, k ? "--no-elfs" : NULL);
	cr_assert_eq(r->status, 0, "%s", r->err);
	return out;
}

/* Every generation's report row equals the generator's count, nothing else is jitted. */
static void check_truth(const struct gen *g, const char *data)
{
	struct iu_rows rows;
	unsigned long total = 0;
	iu_report(&rows, data, g->cache);
	for (size_t i = 0; i < g->n; i++) {
		char dso[64];
		const struct iu_row *hit = NULL;
		snprintf(dso, sizeof(dso), "jitted-%lu-%lu.so", g->pid, g->ci[i]);
		for (size_t k = 0; k < rows.n && !hit; k++)
			if (!strcmp(rows.r[k].dso, dso))
				hit = &rows.r[k];
		cr_assert_not_null(hit, "%s (%lu samples) missing from the report", dso, g->want[i]);
		cr_assert_eq(hit->samples, g->want[i], "%s", dso);
		cr_assert_str_neq(hit->sym, "", "%s has no symbol", dso);
		total += g->want[i];
	}
	cr_assert_eq(iu_jitted_total(&rows), total, "samples in jitted code nobody expected");
	iu_rows_free(&rows);
}

static size_t count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

Test(inject_synth, every_generation_gets_exactly_its_samples, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "3000", "--samples", "6000", "--moves", "--unloads",
			       "--anon", "--callchain", "--late-marker", NULL };
	gen_run(&g, args);
	inject_ok(&g, NULL);
	check_truth(&g, g.out);
	/* Only generations with samples (or callchain entries) have files. */
	size_t files = count_files(g.dir, "jitted-");
	cr_assert_geq(files, g.n);
	cr_assert_lt(files, 3000, "%zu ELFs for 3000 loads: unsampled ones were written", files);
	cr_assert_eq(count_files(g.cache, ".build-id"), 1);
	struct tu_result r;
	char *script[] = { "perf", "script", "-i", g.out, "--show-mmap-events", NULL };
	iu_run_ok(&r, script, g.cache, 120);
	iu_assert_no_warnings("perf script", r.err);
	cr_assert_gt(tu_count(r.out, "[jit-unloaded]"), 0, "unloads end their mappings");
	cr_assert_eq(tu_count(r.out, "//anon"), 0, "the runtime's anon map is dropped");
	cr_assert_eq(tu_count(r.out, g.dump), 0, "the marker is consumed");
	tu_result_free(&r);
	/* The BUILD_ID table names every sampled generation (callchain hits too). */
	char *bl[] = { "perf", "buildid-list", "-i", g.out, NULL };
	iu_run_ok(&r, bl, g.cache, 60);
	cr_assert_geq(tu_count(r.out, "/jitted-"), g.n);
	for (size_t i = 0; i < g.n; i++) {
		char name[80];
		snprintf(name, sizeof(name), "/jitted-%lu-%lu.so\n", g.pid, g.ci[i]);
		cr_assert(strstr(r.out, name), "%s missing from the BUILD_ID table", name);
	}
	tu_result_free(&r);
	gen_free(&g);
}

Test(inject_synth, pipe_in_and_pipe_out, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "800", "--samples", "3000", "--pipe", "--moves",
			       "--late-marker", NULL };
	gen_run(&g, args);
	char cmd[4096];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= '%s' inject --jit -i - -o - --buildid-dir "
		 "'%s' < '%s' > '%s'", tu_build("jitprof"), g.cache, g.data, g.out);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	check_truth(&g, g.out);
	gen_free(&g);
}

Test(inject_synth, arch_timestamps_are_converted_with_time_conv, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "800", "--samples", "3000", "--arch", NULL };
	gen_run(&g, args);
	inject_ok(&g, NULL);
	check_truth(&g, g.out);
	gen_free(&g);
}

Test(inject_synth, all_writes_every_generation_and_reruns_reuse, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "400", "--samples", "300", NULL };
	gen_run(&g, args);
	inject_ok(&g, "--all");
	cr_assert_eq(count_files(g.dir, "jitted-"), 400);
	/* Not hard-linked into the cache: perf inject rewrites these files in place. */
	char one[700];
	struct stat sb;
	snprintf(one, sizeof(one), "%s/jitted-%lu-%lu.so", g.dir, g.pid, g.ci[0]);
	cr_assert_eq(stat(one, &sb), 0, "%s", one);
	cr_assert_eq(sb.st_nlink, 1, "%s shares its inode with the cache", one);
	struct tu_result r;
	inject(&r, &g, g.data, g.out, "--all");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "ELFs: 0 written, 400 already there"), "%s", r.err);
	tu_result_free(&r);
	check_truth(&g, g.out);
	gen_free(&g);
}

/* A file of ours beside the dump is created fresh (O_EXCL); on a rerun a name already there
 * is never written through: a changed file is replaced by another inode (a hard link to the
 * old one keeps the old bytes) and a planted symlink is replaced, its target untouched. */
Test(inject_synth, rerun_replaces_changed_files_and_links_never_writes_through, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "60", "--samples", "300", NULL };
	gen_run(&g, args);
	inject_ok(&g, "--all");
	char a[700], b[700], keep[700], outside[700];
	snprintf(a, sizeof(a), "%s/jitted-%lu-%lu.so", g.dir, g.pid, g.ci[0]);
	snprintf(b, sizeof(b), "%s/jitted-%lu-%lu.so", g.dir, g.pid, g.ci[1]);
	snprintf(keep, sizeof(keep), "%s/keep", g.dir);
	snprintf(outside, sizeof(outside), "%s/outside", g.dir);
	struct stat sa, sb;
	cr_assert_eq(stat(a, &sa), 0, "%s", a);
	cr_assert_eq(sa.st_mode & 07777, 0644);
	cr_assert_eq(link(a, keep), 0);
	FILE *f = fopen(a, "r+");	/* change the file in place: its bytes now differ */
	cr_assert(f);
	cr_assert_eq(fputs("XXXX", f) >= 0, 1);
	fclose(f);
	f = fopen(outside, "w");
	cr_assert(f);
	fputs("not an ELF", f);
	fclose(f);
	cr_assert_eq(unlink(b), 0);
	cr_assert_eq(symlink(outside, b), 0);
	struct tu_result r;
	inject(&r, &g, g.data, g.out, "--all");
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	cr_assert_eq(stat(a, &sb), 0);
	cr_assert_neq(sb.st_ino, sa.st_ino, "the changed file was rewritten in place");
	char *old = tu_read_file(keep, NULL);
	cr_assert(old && !strncmp(old, "XXXX", 4), "the old inode was written to");
	free(old);
	cr_assert_eq(lstat(b, &sb), 0);
	cr_assert(S_ISREG(sb.st_mode), "the planted link is still there");
	char *o = tu_read_file(outside, NULL);
	cr_assert(o && !strcmp(o, "not an ELF"), "the link's target was written");
	free(o);
	check_truth(&g, g.out);
	gen_free(&g);
}

Test(inject_synth, foreign_clock_is_refused_and_leaves_no_file, .timeout = 60)
{
	struct gen g;
	const char *args[] = { "--loads", "50", "--samples", "100", "--no-mono", NULL };
	gen_run(&g, args);
	struct tu_result r;
	inject(&r, &g, g.data, g.out, NULL);
	cr_assert_neq(r.status, 0);
	cr_assert(strstr(r.err, "-k mono"), "the message says how to record: %s", r.err);
	cr_assert(strstr(r.err, g.dump), "the message names the dump: %s", r.err);
	tu_result_free(&r);
	struct stat sb;
	cr_assert_neq(stat(g.out, &sb), 0, "no output after a refusal");
	cr_assert_eq(count_files(g.dir, "jit.data"), 0, "no temp file left behind");
	gen_free(&g);
}

Test(inject_synth, missing_dump_warns_and_the_rest_is_injected, .timeout = 60)
{
	struct gen g;
	const char *args[] = { "--loads", "50", "--samples", "100", NULL };
	gen_run(&g, args);
	cr_assert_eq(unlink(g.dump), 0);
	struct tu_result r;
	inject(&r, &g, g.data, g.out, NULL);
	/* The recording's only dump is gone: nothing injected is an error (exit 3), and the
	 * output is still the whole recording. */
	cr_assert_eq(r.status, 3, "%s", r.err);
	cr_assert(strstr(r.err, "warning") && strstr(r.err, g.dump), "%s", r.err);
	cr_assert(strstr(r.err, "error: none of the 1 jitdump(s)") &&
		  strstr(r.err, "could be read: nothing injected"), "%s", r.err);
	tu_result_free(&r);
	struct iu_rows rows;
	iu_report(&rows, g.out, g.cache);
	cr_assert_gt(rows.n, 0);
	cr_assert_eq(iu_jitted_total(&rows), 0);
	iu_rows_free(&rows);
	gen_free(&g);
}

Test(inject_synth, truncated_dump_is_salvaged, .timeout = 60)
{
	struct gen g;
	const char *args[] = { "--loads", "300", "--samples", "1000", "--truncate", "20", NULL };
	gen_run(&g, args);
	struct tu_result r;
	inject(&r, &g, g.data, g.out, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "salvaged"), "%s", r.err);
	tu_result_free(&r);
	check_truth(&g, g.out);
	gen_free(&g);
}

/* Line-table rows that name their file with bytes that are not text (node 20 writes such names
 * from freed memory): a row keeps its line and takes the script its load's name gives (V8:
 * "JS:*fib /x/fib.js:1:13"), or is dropped when the name gives none; both are counted, and no
 * output shows the bytes. Both paths: ELF files and --no-elfs. The generator garbles the
 * second of four rows (Bench.java:10-13) in every tenth load, code indexes 10, 30, ... named
 * as V8 names code of /bench/Bench.js, code indexes 20, 40, ... as Java methods. */
Test(inject_synth, line_rows_naming_files_that_are_not_text, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "200", "--samples", "2000", "--hot", "0", "--lines",
			       "--bad-names", "10", NULL };
	gen_run(&g, args);
	unsigned long renamed = 0;
	for (size_t i = 0; i < g.n; i++)
		renamed += g.ci[i] % 20 == 10 ? g.want[i] : 0;
	cr_assert_gt(renamed, 0, "no sample in a V8-named load");
	char noelfs[600], cmd[2048];
	for (int k = 0; k < 2; k++) {
		struct tu_result r;
		const char *out = inject_way(&r, &g, k, noelfs, sizeof(noelfs));
		cr_assert(strstr(r.err, "10 line-table entries in 10 code loads name their file with "
				 "bytes that are not text"), "%s", r.err);
		cr_assert(strstr(r.err, "10 line-table entries outside their code or out of order "
				 "dropped in 10 code loads"), "%s", r.err);
		tu_result_free(&r);
		snprintf(cmd, sizeof(cmd), "'%s' report -q -i '%s' --sort srcline --buildid-dir '%s' "
			 "&& '%s' report -q -i '%s' --sort srcline --json --buildid-dir '%s'",
			 tu_build("jitprof"), out, g.cache, tu_build("jitprof"), out, g.cache);
		cr_assert_eq(tu_sh(&r, cmd, 120), 0);
		cr_assert_eq(r.status, 0, "%s", r.err);
		cr_assert(strstr(r.out, "Bench.js:11"), "the renamed rows' line:\n%s", r.out);
		cr_assert_null(strstr(r.out, "Bench.js:1"  "0"), "only the renamed rows: %s", r.out);
		cr_assert(strstr(r.out, "Bench.java:10") && strstr(r.out, "Bench.java:13"), "%s",
			  r.out);
		cr_assert_null(strstr(r.out, "??:0"), "every sample has a line: %s", r.out);
		cr_assert_null(strstr(r.out, "\xe3k"), "the garbled name is shown: %s", r.out);
		cr_assert_null(strstr(r.out, "\\xe3"), "the garbled name is shown: %s", r.out);
		tu_result_free(&r);
	}
	gen_free(&g);
}

/* A runtime whose line table has its first row a few bytes before the code start (a prologue's
 * line): that row is the code's first bytes' line, not dropped for the next one. The generator
 * puts row 0 (Bench.java:10) 4 bytes before each load's code and counts the samples of each row
 * from the addresses it samples; the report's lines must match, ELF files and --no-elfs. */
Test(inject_synth, line_row_before_the_code_start_is_its_first_bytes_line, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "200", "--samples", "2000", "--hot", "0", "--lines",
			       "--prologue", NULL };
	gen_run(&g, args);
	cr_assert_eq(g.nl, 4, "inject-gen gave no line counts");
	cr_assert_gt(g.line_want[0], 0, "no sample on the prologue's row");
	char noelfs[600], cmd[2048];
	for (int k = 0; k < 2; k++) {
		struct tu_result r;
		const char *out = inject_way(&r, &g, k, noelfs, sizeof(noelfs));
		cr_assert_null(strstr(r.err, "dropped"), "the row before the code: %s", r.err);
		tu_result_free(&r);
		snprintf(cmd, sizeof(cmd), "'%s' report -q -i '%s' --sort srcline --json "
			 "--buildid-dir '%s'", tu_build("jitprof"), out, g.cache);
		cr_assert_eq(tu_sh(&r, cmd, 120), 0);
		cr_assert_eq(r.status, 0, "%s", r.err);
		for (size_t i = 0; i < g.nl; i++) {
			char want[96];
			snprintf(want, sizeof(want), "\"samples\": %lu, \"srcline\": \"%s\"",
				 g.line_want[i], g.line[i]);
			cr_assert(strstr(r.out, want), "%s: %s missing in\n%s", out, want, r.out);
		}
		tu_result_free(&r);
	}
	gen_free(&g);
}

Test(inject_synth, agrees_with_perf_inject, .timeout = 120)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	struct gen g;
	const char *args[] = { "--loads", "600", "--samples", "4000", "--moves", NULL };
	gen_run(&g, args);
	/* perf writes its ELFs beside the dump under the same names: give ours a copy. */
	char ours[600], perf_out[600], perf_cache[600];
	snprintf(ours, sizeof(ours), "%s/ours", g.dir);
	snprintf(perf_out, sizeof(perf_out), "%s/perf.jit.data", g.dir);
	snprintf(perf_cache, sizeof(perf_cache), "%s/perf-cache", g.dir);
	cr_assert_eq(mkdir(ours, 0755), 0);
	iu_copy_prefixed(g.dir, ours, "jit-");
	char extra[700];
	snprintf(extra, sizeof(extra), "--jit-dir '%s'", ours);
	inject_ok(&g, extra);
	struct tu_result r;
	char *pi[] = { "perf", "inject", "--jit", "-i", g.data, "-o", perf_out, NULL };
	iu_run_ok(&r, pi, perf_cache, 120);
	tu_result_free(&r);
	struct iu_rows a, b;
	iu_report(&a, perf_out, perf_cache);
	iu_report(&b, g.out, g.cache);
	cr_assert_eq(iu_compare_top(&a, &b, 20), 20);
	cr_assert_eq(iu_jitted_total(&a), iu_jitted_total(&b));
	iu_rows_free(&a);
	iu_rows_free(&b);
	gen_free(&g);
}

#define FIXTURE "../shared/fixtures/perf-jvmti"

Test(inject_synth, perf_jvmti_fixture_matches_perfs_reference, .timeout = 120)
{
	char readme[600];
	snprintf(readme, sizeof(readme), "%s/README.md", FIXTURE);
	size_t len;
	char *ref = tu_read_file(readme, &len);
	if (!ref)
		cr_skip_test("fixture %s is not here", FIXTURE);
	char *dir = tu_tmpdir("injfx"), data[600], out[600], cache[600], cmd[4096];
	snprintf(data, sizeof(data), "%s/perf.data", FIXTURE);
	snprintf(out, sizeof(out), "%s/jit.data", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	iu_copy_prefixed(FIXTURE, dir, "jit-");
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= '%s' inject -j -i '%s' -o '%s' --jit-dir '%s' "
		 "--buildid-dir '%s'", tu_build("jitprof"), data, out, dir, cache);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	struct iu_rows rows;
	iu_report(&rows, out, cache);
	unsigned long total = 0;
	for (size_t i = 0; i < rows.n; i++)
		total += rows.r[i].samples;
	/* The README's reference rows: "  8.50%  jitted-27543-371.so  [.] itable stub". */
	size_t checked = 0;
	char *save = NULL;
	for (char *l = strtok_r(ref, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		double pct;
		char dso[256];
		int off = 0;
		if (sscanf(l, " %lf%% %255s [.] %n", &pct, dso, &off) < 2 || !off ||
		    strncmp(dso, "jitted-", 7))
			continue;
		const struct iu_row *hit = NULL;
		for (size_t k = 0; k < rows.n && !hit; k++)
			if (!strcmp(rows.r[k].dso, dso) && !strcmp(rows.r[k].sym, l + off))
				hit = &rows.r[k];
		cr_assert_not_null(hit, "reference row missing: %s", l);
		char got[32], want[32];
		snprintf(got, sizeof(got), "%.2f", 100.0 * (double)hit->samples / (double)total);
		snprintf(want, sizeof(want), "%.2f", pct);
		cr_assert_str_eq(got, want, "%s", l);
		checked++;
	}
	cr_assert_geq(checked, 8, "the README's rows were read");
	iu_rows_free(&rows);
	free(ref);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 16 finding 3: a FIFO at -o's name may be someone else's, reading our output (or
 * never reading, hanging us): it is refused and left alone; "-o -" is the way to a pipe. */
Test(inject_synth, output_to_a_fifo_is_refused_stdout_is_the_pipe, .timeout = 60)
{
	struct gen g;
	const char *args[] = { "--loads", "100", "--samples", "500", NULL };
	gen_run(&g, args);
	char fifo[600], cmd[4096];
	snprintf(fifo, sizeof(fifo), "%s/fifo", g.dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= '%s' inject -j -i '%s' -o '%s' "
		 "--buildid-dir '%s' -q", tu_build("jitprof"), g.data, fifo, g.cache);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_neq(r.status, 0, "inject wrote into a FIFO");
	cr_assert(strstr(r.err, "not a regular file"), "%s", r.err);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "cat '%s' > '%s' & reader=$!; DEBUGINFOD_URLS= '%s' inject -j "
		 "-i '%s' -o - --buildid-dir '%s' -q > '%s'; rc=$?; [ $rc -eq 0 ] || kill $reader; "
		 "wait; exit $rc", fifo, g.out, tu_build("jitprof"), g.data, g.cache, fifo);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	struct stat sb;
	cr_assert_eq(stat(fifo, &sb), 0);
	cr_assert(S_ISFIFO(sb.st_mode), "the FIFO is still a FIFO");
	check_truth(&g, g.out);
	gen_free(&g);
}

/* "gen G S, ..." of each method --generations lists (every load of it, sampled or not), by
 * name, in *names / *lists (n of them). */
static size_t generation_lists(char *text, char names[][128], char lists[][2048], size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *pid = strstr(l, "  (pid ");
		unsigned g;
		char f[10][64];
		if (l[0] != ' ' && l[0] != '#' && pid && n < max) {
			snprintf(names[n], sizeof(names[n]), "%.*s", (int)(pid - l), l);
			lists[n++][0] = 0;
		} else if (n && sscanf(l, " %u %63s %63s %63s %63s %63s %63s %63s %63s", &g, f[0],
				       f[1], f[2], f[3], f[4], f[5], f[6], f[7]) == 9) {
			size_t k = strlen(lists[n - 1]);
			snprintf(lists[n - 1] + k, sizeof(lists[n - 1]) - k, "%sgen %u %s",
				 k ? ", " : "", g, f[7]);
		}
	}
	return n;
}

/* The flame graph names a method's generations in its tooltip: made loads when the replay
 * is over (only its first frame made a load of a mapping), they must be the same, unsampled
 * ones included, as --generations lists with every mapping a load; moves and unloads too. */
Test(inject_synth, flame_graph_lists_every_generation_of_sampled_methods, .timeout = 120)
{
	struct gen g;
	const char *args[] = { "--loads", "600", "--samples", "300", "--names", "40", "--slots",
			       "64", "--hot", "0", "--moves", "--unloads", "--callchain", NULL };
	gen_run(&g, args);
	inject_ok(&g, NULL);
	struct tu_result r;
	char cmd[4096], svg[600];
	snprintf(svg, sizeof(svg), "%s/fg.svg", g.dir);
	snprintf(cmd, sizeof(cmd), "'%s' report -q -i '%s' --generations",
		 tu_build("jitprof"), g.out);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	static char names[64][128], lists[64][2048];
	size_t n = generation_lists(r.out, names, lists, 64);
	tu_result_free(&r);
	cr_assert_gt(n, 5, "%zu methods with generations", n);
	snprintf(cmd, sizeof(cmd), "'%s' report -q -i '%s' --flamegraph '%s'", tu_build("jitprof"),
		 g.out, svg);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	size_t len;
	char *text = tu_read_file(svg, &len);
	cr_assert_not_null(text);
	size_t tips = 0, unsampled = 0;
	for (char *t = strstr(text, "<title>"); t; t = strstr(t + 1, "<title>")) {
		char *end = strstr(t, "</title>"), *gens = strstr(t, "; generations: ");
		if (!end || !gens || gens > end)
			continue;
		size_t m = 0;
		while (m < n && strncmp(t + 7, names[m], strlen(names[m])))
			m++;
		cr_assert_lt(m, n, "a tooltip of a method --generations does not list: %.*s",
			     (int)(end - t), t);
		/* "gen G TIER S" -> "gen G S" */
		char got[2048] = "";
		for (char *p = gens + 15; p < end && *p != ')';) {
			unsigned gn;
			char tier[64];
			unsigned long smp;
			int used = 0;
			cr_assert_eq(sscanf(p, "gen %u %63s %lu%n", &gn, tier, &smp, &used), 3,
				     "%.*s", (int)(end - t), t);
			size_t k = strlen(got);
			snprintf(got + k, sizeof(got) - k, "%sgen %u %lu", k ? ", " : "", gn, smp);
			unsampled += !smp;
			p += used;
			p += *p == ',' ? 2 : 0;
		}
		cr_assert_str_eq(got, lists[m], "%s: tooltip %s, --generations %s", names[m], got,
				 lists[m]);
		tips++;
	}
	cr_assert_gt(tips, 5, "%zu tooltips with generations", tips);
	cr_assert_gt(unsampled, 0, "no unsampled generation: the case is not tested");
	free(text);
	gen_free(&g);
}
