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
