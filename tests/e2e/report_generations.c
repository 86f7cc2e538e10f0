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
		char tier[16], lvl[16], id[16], by[32];
		double from, until;
		unsigned long code, smp;
		if (sscanf(p, " %u %15s %15s %15s %lfs %lfs %31s %lu %lu", &g, tier, lvl, id, &from,
			   &until, by, &code, &smp) != 9)
			break;
		cr_assert_leq(from, until, "generation %u active from %f until %f", g, from, until);
		gens[n] = g;
		samples[n++] = smp;
		/* the JVM log's detail lines under a row start with more spaces */
		do {
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
		} while (p && !strncmp(p, "        ", 8));
		if (!p)
			break;
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
	rx_check_generations(home, data);
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
	rx_record_java(home, "-g", "Generations 600");
	struct tu_result r;
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	check(home, data, "Generations\\.total\\(",
	      "jitprof.samples.Generations.total(jitprof.samples.Generations$Shape[])");
	rx_check_generations(home, data);
	/* Phase 1's C2 code inlines Square.area() into total(): by default the folded stacks
	 * show it as a frame of its own, marked _[i], under total(). total() itself may be a
	 * frame of its own C2 code or inlined too (runPhase's OSR code inlines it; which one
	 * takes the samples is the JIT's choice), so both spellings count. */
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --collapsed 2>/dev/null", home, rx_jitprof, data);
	cr_assert(strstr(r.out, "jitprof.samples.Generations.total(jitprof.samples.Generations$"
			 "Shape[]);jitprof.samples.Generations$Square.area()_[i] ") ||
		  strstr(r.out, "jitprof.samples.Generations.total(jitprof.samples.Generations$"
			 "Shape[])_[i];jitprof.samples.Generations$Square.area()_[i] "),
		  "no inlined Square.area() frame under total()");
	cr_assert(!strstr(r.out, " [gen "), "generations are split by default");
	tu_result_free(&r);
}

/* Every block header of a --generations table ("NAME  (pid N, G generations, S samples)"). */
static size_t gen_blocks(const char *out, char (*names)[512], unsigned *gens, size_t max)
{
	size_t n = 0;
	char line[1024];
	for (const char *p = out; n < max && rx_next_line(&p, line, sizeof(line));) {
		char *h = strstr(line, "  (pid ");
		unsigned pid;
		if (line[0] == ' ' || line[0] == '#' || !h ||
		    sscanf(h, "  (pid %u, %u generation", &pid, &gens[n]) != 2)
			continue;
		*h = 0;
		snprintf(names[n++], 512, "%.511s", line);
	}
	return n;
}

/* `jitprof record -k mono -- CMD` in dir (CMD run from there), then inject into
 * dir/perf.jit.data. 0 when this machine has no perf events (said on stderr). */
static int record_and_inject(const char *home, const char *what, const char *cmd)
{
	struct tu_result r;
	int rc = rx_sh(&r, "mkdir -p '%s/jit' '%s' && cd '%s' && HOME='%s' '%s' record -q -k mono "
		       "-o perf.data -- %s >/dev/null", dir, home, dir, home, rx_jitprof, cmd);
	cr_assert_eq(rc, 0);
	if (r.status != 0 && strstr(r.err, "perf_event_open")) {
		tu_skip_part("%s: %s", what, r.err);
		tu_result_free(&r);
		return 0;
	}
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit -q -i perf.data -o perf.jit.data", dir,
	      home, rx_jitprof);
	tu_result_free(&r);
	return 1;
}

/* HotSpot's stubs, adapters and interpreter are runtime code, never a method's generations;
 * the Java method keeps its recompiles. */
Test(report_generations, java_runtime_code_is_not_generations)
{
	char agent[PATH_MAX], classes[PATH_MAX], home[PATH_MAX];
	if (!tu_have("java"))
		cr_skip_test("java is not installed");
	if (!realpath(tu_build("libagent.so"), agent) || !realpath(tu_build("java"), classes))
		cr_skip_test("the agent or samples/java are not built");
	snprintf(home, sizeof(home), "%s/home", dir);
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "%sjava -agentpath:'%s'=dir='%s/jit' -cp '%s' "
		 "jitprof.samples.Generations 400", tu_java_env_sh(agent), agent, dir, classes);
	if (!record_and_inject(home, "java", cmd))
		return;
	struct tu_result r;
	/* --method . lists every identity, sampled or not. */
	rx_ok(&r, "HOME='%s' '%s' report -i '%s/perf.jit.data' --generations --method . 2>/dev/null",
	      home, rx_jitprof, dir);
	char names[512][512];
	unsigned gens[512];
	size_t n = gen_blocks(r.out, names, gens, 512), total = 0;
	cr_assert_gt(n, 0, "%s", r.out);
	for (size_t i = 0; i < n; i++) {
		cr_assert(strchr(names[i], '(') && strchr(names[i], '.'),
			  "'%s' is not a Java method:\n%s", names[i], r.out);
		cr_assert(!strstr(names[i], "adapters") && !strstr(names[i], "stub"),
			  "runtime code '%s' listed as a method", names[i]);
		total += strstr(names[i], "Generations.total(") && gens[i] >= 2;
	}
	cr_assert_eq(total, 1, "total() with its recompiles:\n%s", r.out);
	cr_assert(strstr(r.out, "\n# runtime code (stubs, adapters, interpreter; not generations): "),
		  "%s", r.out);
	cr_assert(!strstr(r.out, "  stub  "), "a stub tier in a generation row:\n%s", r.out);
	tu_result_free(&r);
	char data[PATH_MAX + 32];
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	rx_check_generations(home, data);
}

/* prog written to dir/name (its path in js), then `node --perf-prof FLAGS name` recorded and
 * injected into dir/perf.jit.data; 0 when this machine has no perf events. */
static int node_recording(const char *home, const char *name, const char *prog,
			  const char *flags, char *js, size_t len)
{
	char cmd[512];
	snprintf(js, len, "%s/%s", dir, name);
	cr_assert_eq(tu_write_file(js, prog, strlen(prog)), 0);
	snprintf(cmd, sizeof(cmd), "node --perf-prof %s %s", flags, name);
	return record_and_inject(home, "node", cmd);
}

/* node --perf-prof names a function's code JS:~f, JS:^f, JS:+f, JS:*f (Ignition, Sparkplug,
 * Maglev, TurboFan): one identity, the marker its tier. */
Test(report_generations, node_tiers_are_generations)
{
	char home[PATH_MAX], js[PATH_MAX];
	if (!tu_have("node"))
		cr_skip_test("node is not installed");
	snprintf(home, sizeof(home), "%s/home", dir);
	static const char prog[] =
		"function scan(a, k) {\n"
		"  let s = 0;\n"
		"  for (let i = 0; i < a.length; i++) s += (a[i] * k) % 7;\n"
		"  return s;\n"
		"}\n"
		"const a = Array.from({ length: 2000 }, (_, i) => i);\n"
		"let t = 0;\n"
		"const end = Date.now() + 1200;\n"
		"while (Date.now() < end) t += scan(a, 3);\n"
		"console.log(t > 0);\n";
	if (!node_recording(home, "tiers.js", prog, "--interpreted-frames-native-stack", js,
			    sizeof(js)))
		return;
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -i '%s/perf.jit.data' --generations --method scan "
	      "2>/dev/null", home, rx_jitprof, dir);
	char names[64][512], want[PATH_MAX + 32];
	unsigned gens[64];
	size_t n = gen_blocks(r.out, names, gens, 64);
	snprintf(want, sizeof(want), "JS:scan %s:1:14", js);
	cr_assert_eq(n, 1, "one identity for scan's tiers:\n%s", r.out);
	cr_assert_str_eq(names[0], want, "%s", r.out);
	cr_assert_geq(gens[0], 2, "%s", r.out);
	/* Tiers from the markers: the interpreter's code and at least one compiled tier. */
	cr_assert(strstr(r.out, "  interp  "), "%s", r.out);
	cr_assert(strstr(r.out, "  turbofan  ") || strstr(r.out, "  baseline  ") ||
		  strstr(r.out, "  maglev  "), "%s", r.out);
	tu_result_free(&r);
	char data[PATH_MAX + 32];
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	rx_check_generations(home, data);
}

/* node 20 names a function's OSR code (a hot loop entered mid-call) as its normal TurboFan code
 * ("JS:*work"): the first call's loop runs on in the OSR code after the normal code is in, so
 * the OSR code is not replaced by it: both run to the end, and every sample is inside its
 * generation's period. work()'s first call runs a long loop (OSR), the later calls enter the
 * normal code; each call runs as long as the first. */
Test(report_generations, node_osr_code_runs_beside_the_normal_code)
{
	char home[PATH_MAX], js[PATH_MAX], data[PATH_MAX + 32];
	if (!tu_have("node"))
		cr_skip_test("node is not installed");
	snprintf(home, sizeof(home), "%s/home", dir);
	static const char prog[] =
		"function work(ms) {\n"
		"  let s = 0;\n"
		"  const end = Date.now() + ms;\n"
		"  for (let i = 0; Date.now() < end; i++) { s += Math.sqrt(i) * (i & 7); }\n"
		"  return s;\n"
		"}\n"
		"let t = 0;\n"
		"for (let k = 0; k < 4; k++) t += work(300);\n"
		"console.log(t > 0);\n";
	if (!node_recording(home, "osr.js", prog, "", js, sizeof(js)))
		return;
	snprintf(data, sizeof(data), "%s/perf.jit.data", dir);
	rx_check_generations(home, data);
	struct tu_result r;
	rx_ok(&r, "HOME='%s' '%s' report -i '%s' --generations --method work 2>/dev/null", home,
	      rx_jitprof, data);
	/* no TurboFan generation with samples is said replaced */
	char line[1024];
	for (const char *p = r.out; rx_next_line(&p, line, sizeof(line));) {
		unsigned g;
		unsigned long n;
		char tier[32], ended[32];
		if (sscanf(line, " %u %31s %*s %*s %*s %*s %*s %*s %lu %*s %*s %31s", &g, tier, &n,
			   ended) == 4 && !strcmp(tier, "turbofan") && n > 0)
			cr_assert_str_eq(ended, "running", "gen %u:\n%s", g, r.out);
	}
	tu_result_free(&r);
}
