/* report_generations.c - `jitprof report --generations` on real runs: minijit (three
 * generations of checksum) and samples/java Generations under our agent (total() through C1,
 * C2, deopt and recompile): at least two generations of the hot method, each with samples;
 * the JSON agrees with the table; --compare shows both generations. */
#include "tests/e2e/report_util.h"

TestSuite(report_generations, .init = rx_setup, .fini = rx_teardown, .timeout = 300);

/* Rows of the method's block in the table: "gen samples" per generation into gens/samples.
 * Returns the number of rows. */
static size_t table_gens(const char *out, const char *method, unsigned *gens,
			 unsigned long *samples, size_t max)
{
	const char *p = strstr(out, method);
	cr_assert_not_null(p, "no block for %s in\n%s", method, out);
	p = strstr(p, "hottest lines\n");
	cr_assert_not_null(p);
	p += strlen("hottest lines\n");
	size_t n = 0;
	while (n < max) {
		unsigned g;
		char tier[16];
		double loaded, life;
		unsigned long code, smp;
		if (sscanf(p, " %u %15s %lfs %lfs %lu %lu", &g, tier, &loaded, &life, &code, &smp) != 6)
			break;
		gens[n] = g;
		samples[n++] = smp;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

/* The same rows from --json through python's json module. */
static size_t json_gens(const char *home, const char *data, const char *regex, unsigned *gens,
			unsigned long *samples, size_t max)
{
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --generations --method '%s' --json 2>/dev/null | "
	      "python3 -c 'import json,sys\n"
	      "for m in json.load(sys.stdin)[\"generations\"][\"methods\"]:\n"
	      "  for g in m[\"generations\"]: print(g[\"generation\"], g[\"samples\"])'",
	      home, rx_jitprof, data, regex);
	size_t n = 0;
	for (const char *p = r.out; n < max && sscanf(p, "%u %lu", &gens[n], &samples[n]) == 2; n++)
		p = strchr(p, '\n') + 1;
	tu_result_free(&r);
	return n;
}

/* The hot method has >= 2 generations with samples, and the JSON says the same. */
static void check(const char *home, const char *data, const char *regex, const char *method)
{
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --generations --method '%s' 2>/dev/null", home,
	      rx_jitprof, data, regex);
	unsigned g[64], jg[64];
	unsigned long s[64], js[64];
	size_t n = table_gens(r.out, method, g, s, 64);
	size_t with_samples = 0;
	for (size_t i = 0; i < n; i++)
		with_samples += s[i] > 0;
	cr_assert_geq(with_samples, 2, "fewer than 2 generations with samples:\n%s", r.out);
	cr_assert(strstr(r.out, "# Samples in code already unloaded: "), "%s", r.out);
	if (tu_have("python3")) {
		size_t jn = json_gens(home, data, regex, jg, js, 64);
		cr_assert_eq(jn, n, "JSON rows %zu, table rows %zu", jn, n);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(jg[i], g[i]);
			cr_assert_eq(js[i], s[i], "generation %u: JSON %lu, table %lu", g[i], js[i],
				     s[i]);
		}
	}
	tu_result_free(&r);
}

Test(report_generations, minijit)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char home[PATH_MAX], data[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_record_minijit(dir, home);
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	check(home, data, "^checksum$", "checksum  (pid");
	/* Two sampled generations side by side, per line and per instruction. */
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --compare checksum 1 2 2>&1", home, rx_jitprof,
	      data);
	cr_assert(strstr(r.out, "gen A = generation 1"), "%s", r.out);
	cr_assert(strstr(r.out, "gen B = generation 2"), "%s", r.out);
	cr_assert(strstr(r.out, "toy.mjs:"), "%s", r.out);
	cr_assert(strstr(r.out, "# Per instruction"), "%s", r.out);
	cr_assert(!strstr(r.out, "code bytes not retained"), "%s", r.out);
	tu_result_free(&r);
}

Test(report_generations, java_generations_sample)
{
	char home[PATH_MAX], data[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_record_generations(dir, home);
	struct tu_result r;
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	check(home, data, "Generations\\.total\\(",
	      "jitprof.samples.Generations.total(jitprof.samples.Generations$Shape[])");
	/* Phase 1's C2 code inlines Square.area() into total(): by default the folded stacks
	 * show it as a frame of its own, marked _[i], under total(). */
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --collapsed 2>/dev/null", home, rx_jitprof, data);
	cr_assert(strstr(r.out, "jitprof.samples.Generations.total(jitprof.samples.Generations$"
			 "Shape[]);jitprof.samples.Generations$Square.area()_[i] "),
		  "no inlined Square.area() frame under total()");
	cr_assert(!strstr(r.out, " [gen "), "generations are split by default");
	tu_result_free(&r);
}
