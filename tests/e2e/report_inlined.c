/* report_inlined.c - inlined frames in stacks exactly as the code was inlined, on samples/java
 * Inlined (every JDK under /usr/lib/jvm: 17 and 25 here), whose calls are known by
 * construction (report_inlined.py holds them): outer() calls work() between the inlined
 * make() and post(), so a caller's inline chain looked up at its return address (post()'s
 * code) instead of the call (pc - 1) puts work() under post_[i]; kernel(), inlined into
 * drive(), calls area() through a vtable stub, which keeps no frame, so a sample in the stub
 * stepped by rbp lost drive() and kernel_[i]. Recorded both ways: `jitprof record
 * --call-graph dwarf` (inject unwinds) and `perf record -g` (the kernel's frame-pointer
 * chain). And a frame's details in --html count that frame's samples (the folded stacks'
 * through its path) per generation, an inlined frame's in the code it was inlined into; and
 * --generations --method lists a method's inlined frames with the samples the folded stacks
 * give them (innermost), in the generations they were inlined into. */
#include <stdlib.h>

#include "tests/e2e/agent_util.h"
#include "tests/e2e/report_util.h"

TestSuite(report_inlined, .init = rx_setup, .fini = rx_teardown, .timeout = 600);

#define JVM_OPTS                                                                         \
	"-XX:+PreserveFramePointer -XX:CompileCommand=quiet "                              \
	"'-XX:CompileCommand=dontinline,jitprof.samples.Inlined$Box::work' "               \
	"-XX:CompileCommand=dontinline,jitprof.samples.Inlined::outer "                    \
	"-XX:CompileCommand=dontinline,jitprof.samples.Inlined::drive"

/* jdk's java running Inlined for 3 s under the agent, recorded into dir/NAME (dwarf:
 * jitprof record --call-graph dwarf, else perf record -g), injected into NAME/perf.jit.data. */
static void record(const struct ag_jdk *jdk, const char *name, int dwarf)
{
	char agent[PATH_MAX], classes[PATH_MAX];
	struct tu_result r;
	rx_need_java(agent, classes);
	rx_ok(&r, "mkdir -p '%s/%s/jit' && cd '%s/%s' && HOME=\"$PWD\" '%s' record -q -k mono "
	      "-F 999 %s -o perf.data -- %s'%s/bin/java' -agentpath:'%s'=dir=\"$PWD/jit\" " JVM_OPTS
	      " -cp '%s' jitprof.samples.Inlined 3000 >/dev/null && HOME=\"$PWD\" '%s' inject "
	      "--jit -q -i perf.data -o perf.jit.data", dir, name, dir, name,
	      dwarf ? rx_jitprof : "perf", dwarf ? "--call-graph dwarf" : "-g",
	      tu_java_env_sh(agent), jdk->home, agent, classes, rx_jitprof);
	tu_result_free(&r);
}

/* The folded stacks of dir/NAME into NAME/folded, checked: returns the stub-called samples
 * with kernel_[i] as the stub's caller. */
static long check_stacks(const char *name, const char *mode, const char *script)
{
	struct tu_result r;
	rx_ok(&r, "cd '%s/%s' && HOME=\"$PWD\" '%s' report -q -i perf.jit.data --collapsed > "
	      "folded", dir, name, rx_jitprof);
	tu_result_free(&r);
	cr_assert_eq(rx_sh(&r, "python3 '%s' stacks %s < '%s/%s/folded'", script, mode, dir,
			   name), 0);
	fprintf(stderr, "report_inlined %s: %s", name, r.out);
	cr_assert_eq(r.status, 0, "%s: %s", name, r.out);
	long pairs = 0, chain = 0, stub = 0;
	cr_assert_eq(sscanf(r.out, "pairs %ld chain %ld stub %ld", &pairs, &chain, &stub), 3,
		     "%s", r.out);
	tu_result_free(&r);
	cr_assert_gt(pairs, 200, "%s: too few Inlined calls sampled to judge", name);
	cr_assert_gt(chain, 20, "%s: outer() -> work() seen %ld times", name, chain);
	return stub;
}

static void on_jdk(const struct ag_jdk *jdk)
{
	char script[PATH_MAX], dw[64], fp[64];
	struct tu_result r;
	cr_assert_not_null(realpath("tests/e2e/report_inlined.py", script));
	snprintf(dw, sizeof(dw), "jdk%d-dwarf", jdk->major);
	snprintf(fp, sizeof(fp), "jdk%d-fp", jdk->major);
	record(jdk, dw, 1);
	long stub = check_stacks(dw, "dwarf", script);
	/* The stub is where a megamorphic call spends a good part of its time. */
	cr_assert_gt(stub, 10, "%s: kernel_[i];vtable stub seen %ld times", dw, stub);
	record(jdk, fp, 0);
	check_stacks(fp, "fp", script);

	rx_ok(&r, "cd '%s/%s' && HOME=\"$PWD\" '%s' report -q -i perf.jit.data --html r.html && "
	      "python3 '%s' html r.html folded", dir, dw, rx_jitprof, script);
	fprintf(stderr, "report_inlined %s html: %s", dw, r.out);
	long frames = 0, inlined = 0;
	cr_assert_eq(sscanf(r.out, "frames %ld inlined %ld", &frames, &inlined), 2, "%s", r.out);
	tu_result_free(&r);
	cr_assert_gt(inlined, 0, "%s: no inlined frame with generations in the page", dw);

	rx_ok(&r, "cd '%s/%s' && HOME=\"$PWD\" '%s' report -q -i perf.jit.data --generations "
	      "--method Inlined | python3 '%s' generations folded", dir, dw, rx_jitprof, script);
	fprintf(stderr, "report_inlined %s generations: %s", dw, r.out);
	long methods = 0, rows = 0;
	cr_assert_eq(sscanf(r.out, "inlined methods %ld rows %ld", &methods, &rows), 2, "%s",
		     r.out);
	tu_result_free(&r);
	cr_assert_gt(rows, 0, "%s: kernel() inlined into drive() listed by no row", dw);
}

Test(report_inlined, stacks_as_inlined_and_frame_details)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	ag_each_jdk(on_jdk);
}
