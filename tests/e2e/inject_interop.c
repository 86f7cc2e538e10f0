/* inject_interop.c - end to end against perf: for each producer {minijit, our agent on
 * samples/java, node --perf-prof} and each recorder {perf record -k mono, jitprof record -k mono}
 * the recording goes through `jitprof inject --jit` and through `perf inject --jit`; perf report
 * and perf script must read ours without warnings, and the top jitted symbols with their sample
 * counts must be the same in both (also for a `perf record -z` recording). Ours must also open
 * in `jitprof report`. Each combination
 * skips, saying why, only when a piece is not built or installed. */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/e2e/inject_util.h"

static void interop(enum producer p, enum recorder r)
{
	char *dir = tu_tmpdir("injx");
	char data[600], ours[600], out[600], cache[600], pout[600], pcache[600], cmd[4096];
	cr_assert_not_null(dir);
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(ours, sizeof(ours), "%s/ours", dir);
	snprintf(out, sizeof(out), "%s/jit.data", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(pout, sizeof(pout), "%s/perf.jit.data", dir);
	snprintf(pcache, sizeof(pcache), "%s/perf-cache", dir);
	record(p, r, dir, data);

	/* perf writes its ELFs beside the dump under the names we use: ours get a copy. */
	cr_assert_eq(mkdir(ours, 0755), 0);
	iu_copy_prefixed(dir, ours, "jit-");
	struct tu_result res;
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= '%s' inject --jit -i '%s' -o '%s' "
		 "--jit-dir '%s' --buildid-dir '%s'", tu_build("jitprof"), data, out, ours, cache);
	cr_assert_eq(tu_sh(&res, cmd, 120), 0);
	cr_assert_eq(res.status, 0, "%s\n%s", cmd, res.err);
	cr_assert(strstr(res.err, "1 dump(s)"), "%s", res.err);
	tu_result_free(&res);
	char *pi[] = { "perf", "inject", "--jit", "-i", data, "-o", pout, NULL };
	iu_run_ok(&res, pi, pcache, 120);
	tu_result_free(&res);

	struct iu_rows a, b;
	iu_report(&a, pout, pcache);
	iu_report(&b, out, cache);
	if (r == PERF_ZSTD) {
		/* perf 6.1's inject leaves a -z recording's jitted code as "[JIT] tid": no
		 * oracle. Ours must name it: every jitted row has a symbol, not an address. */
		cr_assert_eq(iu_jitted_total(&a), 0, "perf inject learnt -z: compare with it");
		size_t named = 0;
		for (size_t i = 0; i < b.n; i++)
			if (iu_is_jitted(&b.r[i])) {
				cr_assert_neq(strncmp(b.r[i].sym, "0x", 2), 0, "%s: %s", b.r[i].dso,
					      b.r[i].sym);
				named++;
			}
		cr_assert_geq(named, 2);
	} else {
		cr_assert_gt(iu_jitted_total(&a), 0, "the workload ran jitted code under perf");
		cr_assert_geq(iu_compare_top(&a, &b, 10), 1);
	}
	iu_rows_free(&a);
	iu_rows_free(&b);

	char *script[] = { "perf", "script", "-i", out, NULL };
	iu_run_ok(&res, script, cache, 120);
	iu_assert_no_warnings("perf script", res.err);
	cr_assert(strstr(res.out, "jitted-"), "perf script shows jitted code");
	tu_result_free(&res);

	if (have_built("jitprof")) {
		char *rep[] = { (char *)tu_build("jitprof"), "report", "-i", out, "--sort", "dso,sym",
				"--call-graph", "none", NULL };
		iu_run_ok(&res, rep, cache, 120);
		cr_assert(strstr(res.out, "jitted-"), "jitprof report shows jitted code:\n%.2000s",
			  res.out);
		tu_result_free(&res);
	}
	/* Every sample inside its generation's active period, through either inject. */
	const char *injected[][2] = { { out, cache }, { pout, pcache } };
	for (int k = 0; k < 2; k++) {
		char extra[700], msg[8192];
		snprintf(extra, sizeof(extra), "--buildid-dir '%s'", injected[k][1]);
		cr_assert_eq(tu_check_generations(injected[k][0], extra, msg, sizeof(msg)), 0, "%s",
			     msg);
	}
	tu_rmtree(dir);
	free(dir);
}

Test(inject_interop, minijit_perf_record, .timeout = 120) { interop(MINIJIT, PERF); }
Test(inject_interop, minijit_jitprof_record, .timeout = 120) { interop(MINIJIT, JITPROF); }
Test(inject_interop, minijit_perf_record_compressed, .timeout = 120) { interop(MINIJIT, PERF_ZSTD); }
Test(inject_interop, java_agent_perf_record, .timeout = 120) { interop(JAVA, PERF); }
Test(inject_interop, java_agent_jitprof_record, .timeout = 120) { interop(JAVA, JITPROF); }
Test(inject_interop, node_perf_prof_perf_record, .timeout = 120) { interop(NODE, PERF); }
Test(inject_interop, node_perf_prof_jitprof_record, .timeout = 120) { interop(NODE, JITPROF); }

/* "N code loads" and "M generations sampled" of inject's summary. */
static void summary_counts(const char *err, unsigned long *loads, unsigned long *gens)
{
	const char *p = strstr(err, "dump(s): ");
	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(sscanf(p, "dump(s): %lu code loads, %*u moves, %*u unloads as MMAP2; %lu "
			    "generations sampled", loads, gens), 2, "%s", err);
}

static unsigned long run_counts(const char *cmd, unsigned long *gens, char **err)
{
	struct tu_result res;
	unsigned long loads;
	cr_assert_eq(tu_sh(&res, cmd, 240), 0);
	cr_assert_eq(res.status, 0, "%s\n%s", cmd, res.err);
	summary_counts(res.err, &loads, gens);
	if (err)
		*err = strdup(res.err);
	tu_result_free(&res);
	return loads;
}

/* The next "  P%  KEY" row of a `report --sort dso,sym` text at or after *l: its share, and
 * its key (everything after the percentage) in *key, *keylen; *l moves past it. 0 at the end. */
static int next_row(const char **l, double *share, const char **key, size_t *keylen)
{
	for (; *l && **l; *l = strchr(*l, '\n'), *l = *l ? *l + 1 : NULL) {
		char *pct_end;
		*share = strtod(*l, &pct_end);
		if (pct_end == *l || *pct_end != '%')
			continue;
		*key = pct_end + 1;
		const char *nl = strchr(*key, '\n');
		*keylen = nl ? (size_t)(nl - *key) : strlen(*key);
		*l = nl ? nl + 1 : NULL;
		return 1;
	}
	return 0;
}

/* The share of the nth (from 0) row with key row in a report, or -1 when there are fewer.
 * One key may name several rows: a DSO's symbols of one name at different addresses (C++
 * overloads print without their parameters) are rows of their own, heaviest first. */
static double row_share(const char *report, const char *row, size_t rowlen, unsigned nth)
{
	double v;
	const char *k;
	size_t n;
	while (next_row(&report, &v, &k, &n))
		if (n == rowlen && !memcmp(k, row, n) && nth-- == 0)
			return v;
	return -1;
}

/* How many rows before *upto in a report have the key row. */
static unsigned rows_before(const char *report, const char *upto, const char *row, size_t rowlen)
{
	unsigned seen = 0;
	double v;
	const char *k;
	size_t n;
	while (next_row(&report, &v, &k, &n) && k < upto)
		seen += n == rowlen && !memcmp(k, row, n);
	return seen;
}

/* Live and saved reports agree: every row of 1% or more identical in both, and the rows that
 * differ at all add up to at most half a point (a handful of samples in the last moments of a
 * live pipe, while the JVM writes its final records and exits, may meet their load a round
 * late). The differing rows are printed either way. */
static void report_rows_agree(const char *live, const char *saved)
{
	double moved = 0;
	char diff[4096] = "";
	size_t dl = 0;
	for (int pass = 0; pass < 2; pass++) {
		const char *from = pass ? saved : live, *other = pass ? live : saved;
		double v;
		const char *k;
		size_t n;
		for (const char *l = from; next_row(&l, &v, &k, &n);) {
			double w = row_share(other, k, n, rows_before(from, k, k, n));
			if (w == v || (pass && w >= 0))
				continue;	/* same, or already counted from the live side */
			double d = w < 0 ? v : (v > w ? v - w : w - v);
			moved += d;
			if (dl < sizeof(diff) - 200)
				dl += (size_t)snprintf(diff + dl, sizeof(diff) - dl,
						       "%s %.2f%% (other %.2f%%) %.*s\n",
						       pass ? "saved" : "live", v, w,
						       (int)(n < 120 ? n : 120), k);
			cr_assert(v < 1.0 && (w < 0 || w < 1.0),
				  "a row of 1%% or more differs between the live and the saved "
				  "report:\n%s", diff);
		}
	}
	if (moved > 0)
		fprintf(stderr, "live pipe: rows that differ from the saved report (%.2f points):\n%s",
			moved, diff);
	cr_assert_leq(moved, 0.5, "live and saved reports differ by %.2f points:\n%s", moved, diff);
}

/* Live pipes: {jitprof, perf} record -o - | jitprof inject -i - -o - while the workload still
 * runs and writes its dump. inject follows the dump as it grows, so it must inject exactly the
 * code loads the dump holds in the end and charge exactly the generations it charges when the
 * same stream, saved by tee, is injected after the workload is gone; `-o -` into a file is pipe
 * mode, which `cat | jitprof report -i -` reads; jitprof's and perf's reports of the live
 * output are those of the saved one. */
static void live(enum producer p, enum recorder r)
{
	char *dir = tu_tmpdir("injlive");
	char work[3000], jp[1200], cmd[8192];
	cr_assert_not_null(dir);
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	if (!have_built("jitprof"))
		cr_skip_test("jitprof is not built");
	producer_cmd(p, dir, work, sizeof(work));
	abs_build("jitprof", jp, sizeof(jp));
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s record -q -k mono -F 999 -g -o - -- %s "
		 "2>/dev/null | tee live.pipe | DEBUGINFOD_URLS= '%s' inject --jit -i - -o - "
		 "--buildid-dir cache > live.data", dir, r == JITPROF ? jp : "perf", work, jp);
	unsigned long gens_live, gens_saved;
	char *err;
	unsigned long loads_live = run_counts(cmd, &gens_live, &err);
	snprintf(cmd, sizeof(cmd), "cd '%s' && DEBUGINFOD_URLS= '%s' inject --jit -i - -o "
		 "saved.data --buildid-dir cache < live.pipe", dir, jp);
	unsigned long loads_saved = run_counts(cmd, &gens_saved, NULL);
	cr_log_info("live: %lu loads, %lu generations sampled; %s", loads_live, gens_live, err);
	cr_assert_gt(loads_live, 0, "%s", err);
	cr_assert_eq(loads_live, loads_saved, "live %lu code loads, saved stream %lu:\n%s",
		     loads_live, loads_saved, err);
	cr_assert_eq(gens_live, gens_saved, "live %lu generations sampled, saved stream %lu:\n%s",
		     gens_live, gens_saved, err);
	cr_assert_null(strstr(err, "take effect from there"), "%s", err);
	free(err);
	if (p != NODE) {
		/* Every load the dump holds at the end (node writes some synth refuses). */
		snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' jitdump --stats jit-*.dump | awk "
			 "'$1 == \"CODE_LOAD\" { print $2 }'", dir, jp);
		struct tu_result res;
		cr_assert_eq(tu_sh(&res, cmd, 60), 0);
		cr_assert_eq(strtoul(res.out, NULL, 10), loads_live, "dump: %s", res.out);
		tu_result_free(&res);
	}

	/* The same ELF for a generation both name: a load read live has all its records
	 * (companion included) as the saved stream's has; otherwise the second inject replaces
	 * the file and the live output's build-id names no file any more. */
	struct tu_result ids;
	snprintf(cmd, sizeof(cmd), "cd '%s' && for f in live.data saved.data; do '%s' buildid-list "
		 "-i $f | grep '/jitted-' | sort -u > $f.ids; done && awk 'NR == FNR { id[$2] = $1; "
		 "next } ($2 in id) && id[$2] != $1 { print $2 \": live \" id[$2] \", saved \" $1 }' "
		 "live.data.ids saved.data.ids | head -5", dir, jp);
	cr_assert_eq(tu_sh(&ids, cmd, 120), 0);
	cr_assert_eq(ids.status, 0, "%s", ids.err);
	cr_assert_str_eq(ids.out, "", "live and saved build-ids differ:\n%s", ids.out);
	tu_result_free(&ids);

	char path[700];
	snprintf(path, sizeof(path), "%s/live.data", dir);
	size_t len = 0;
	unsigned char *bytes = tu_read_file(path, &len);
	cr_assert(bytes && len > 16 && !memcmp(bytes, "PERFILE2", 8));
	uint64_t hsize;
	memcpy(&hsize, bytes + 8, 8);
	cr_assert_eq(hsize, 16, "-o - into a file: pipe mode (16-byte header), not %llu",
		     (unsigned long long)hsize);
	free(bytes);
	struct tu_result a, b;
	snprintf(cmd, sizeof(cmd), "cd '%s' && cat live.data | HOME='%s' '%s' report -i - --sort "
		 "dso,sym 2>/dev/null | grep -v '^#'", dir, dir, jp);
	cr_assert_eq(tu_sh(&a, cmd, 120), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && HOME='%s' '%s' report -i saved.data --sort "
		 "dso,sym 2>/dev/null | grep -v '^#'", dir, dir, jp);
	cr_assert_eq(tu_sh(&b, cmd, 120), 0);
	cr_assert(strstr(a.out, "jitted-"), "%.2000s", a.out);
	report_rows_agree(a.out, b.out);
	tu_result_free(&a);
	tu_result_free(&b);
	char cache[700];
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	struct iu_rows pa, pb;
	iu_report(&pa, path, cache);
	snprintf(path, sizeof(path), "%s/saved.data", dir);
	iu_report(&pb, path, cache);
	cr_assert_gt(iu_jitted_total(&pa), 0);
	cr_assert_geq(iu_compare_top(&pb, &pa, 10), 1);
	iu_rows_free(&pa);
	iu_rows_free(&pb);
	tu_rmtree(dir);
	free(dir);
}

Test(inject_interop, live_pipe_minijit_jitprof_record, .timeout = 240) { live(MINIJIT, JITPROF); }
Test(inject_interop, live_pipe_minijit_perf_record, .timeout = 240) { live(MINIJIT, PERF); }
Test(inject_interop, live_pipe_java_jitprof_record, .timeout = 240) { live(JAVA, JITPROF); }
Test(inject_interop, live_pipe_java_perf_record, .timeout = 240) { live(JAVA, PERF); }
Test(inject_interop, live_pipe_node_jitprof_record, .timeout = 240) { live(NODE, JITPROF); }
Test(inject_interop, live_pipe_node_perf_record, .timeout = 240) { live(NODE, PERF); }
