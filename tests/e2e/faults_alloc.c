/* faults_alloc.c - issue 34 item 14: a failed allocation never changes an answer. Each test
 * records minijit with `jitprof record` (inject_dwarf: a shell loop with --call-graph dwarf),
 * then runs one command once per allocation with that allocation failing
 * (tests/faults/failalloc.c through tests/faults/alloc_sweep.sh): every run
 * must give the answer of a run without failures (exit 0, same stdout, same output file and
 * ELFs) or exit non-zero with a message; never a crash, a sanitizer report, a silent exit or
 * a different answer with exit 0. Every N up to a bound, then a stride (the sweep's summary
 * line says which); FAULTS_ALLOC_FULL=1 runs every N (minutes: docs/RELIABILITY.md has the
 * numbers). libarchive's and libzstd's own allocations are spared: libarchive 3.6 crashes on
 * two of them whatever its caller does; so are libdw's where report reads DWARF lines (its
 * concurrent hash asserts `htab->table` in resize_coordinator when an allocation fails, and
 * dwarf_get_units then crashes: elfutils 0.188), and libelf's under it there (libdw reads a
 * failed allocation of libelf's as the end of a file's units, with errno lost: a report with
 * fewer lines and exit 0 that no caller can tell from a file with fewer units). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/e2e/inject_util.h"
#include "tests/lib/testutil.h"

struct rec {
	char *dir;
	char cache[600], data[600], jit[600], noelfs[600], copy[600];
	char jp[1200];
};

static void sh_ok(const char *cmd, unsigned timeout)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, timeout), 0, "cannot run: %s", cmd);
	cr_assert_eq(r.status, 0, "%s\nexited %d:\n%.2000s", cmd, r.status, r.err);
	tu_result_free(&r);
}

/* A minijit recording, injected both ways; copy holds a copy of its dumps for inject to run
 * on (--jit-dir), so the sweep can empty it of ELFs between runs. */
static void make_recording(struct rec *w)
{
	char mj[1200], cmd[8192];
	if (!have_built("minijit") || !have_built("jitprof") || !have_built("tests/libfailalloc.so"))
		cr_skip_test("minijit, jitprof or the failalloc shim is not built");
	w->dir = tu_tmpdir("faults-alloc");
	cr_assert(w->dir);
	abs_build("jitprof", w->jp, sizeof(w->jp));
	snprintf(w->cache, sizeof(w->cache), "%s/cache", w->dir);
	snprintf(w->data, sizeof(w->data), "%s/perf.data", w->dir);
	snprintf(w->jit, sizeof(w->jit), "%s/jit.data", w->dir);
	snprintf(w->noelfs, sizeof(w->noelfs), "%s/noelfs.data", w->dir);
	snprintf(w->copy, sizeof(w->copy), "%s/copy", w->dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' record -q -k mono -F 999 -g -o '%s' -- '%s' "
		 "--dir '%s' --seconds 0.3 >/dev/null", w->dir, w->jp, w->data,
		 abs_build("minijit", mj, sizeof(mj)), w->dir);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	if (r.status == 77)
		cr_skip_test("minijit emits x86-64 code only");
	cr_assert_eq(r.status, 0, "%s\n%.2000s", cmd, r.err);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "export PERF_BUILDID_DIR='%s' DEBUGINFOD_URLS=; cd '%s' && "
		 "'%s' inject -q --jit -i '%s' -o '%s' && "
		 "'%s' inject -q --jit --no-elfs -i '%s' -o '%s' && "
		 "mkdir copy && cp jit-*.dump* copy/", w->cache, w->dir, w->jp, w->data, w->jit,
		 w->jp, w->data, w->noelfs);
	sh_ok(cmd, 120);
}

/* JITPROF_FAIL_ALLOC_ONLY for the next sweep (failalloc.c): "" counts every allocation. */
static char only[512];

/* Runs the sweep of one command (args after "--") with every N up to dense, then points
 * more; out/elfs as alloc_sweep.sh's SWEEP_OUT and SWEEP_ELFS (NULL: none). Then removes
 * the recording. */
static void sweep(struct rec *w, const char *name, const char *args, const char *out,
		  const char *elfs, unsigned dense, unsigned points, const char *spare)
{
	char shim[1200], script[1200], cwd[1024], cmd[8192];
	const char *full = getenv("FAULTS_ALLOC_FULL");
	unsigned every = full && *full == '1' ? 999999999u : dense;
	abs_build("tests/libfailalloc.so", shim, sizeof(shim));
	snprintf(script, sizeof(script), "%s/tests/faults/alloc_sweep.sh",
		 getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	snprintf(cmd, sizeof(cmd), "cd '%s' && PERF_BUILDID_DIR='%s' DEBUGINFOD_URLS= "
		 "SWEEP_JITPROF='%s' SWEEP_SHIM='%s' SWEEP_OUT='%s' SWEEP_ELFS='%s' "
		 "SWEEP_DENSE=%u SWEEP_POINTS=%u SWEEP_TRACE=1 "
		 "JITPROF_FAIL_ALLOC_SPARE=%s JITPROF_FAIL_ALLOC_ONLY='%s' "
		 "ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} "
		 "'%s' %s -- %s 2>&1", w->dir, w->cache, w->jp, shim, out ? out : "",
		 elfs ? elfs : "", every, points, spare, only, script, name, args);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 1500), 0, "cannot run %s", cmd);
	printf("%.*s\n", (int)strcspn(r.out, "\n"), r.out);	/* the summary line */
	cr_assert_eq(r.status, 0, "the allocation-failure sweep of %s found:\n%.6000s", name,
		     r.out);
	tu_result_free(&r);
	tu_rmtree(w->dir);
	free(w->dir);
}

enum cmd { REPORT, REPORT_NO_ELFS, REPORT_FLAMEGRAPH, INJECT, INJECT_NO_ELFS, ARCHIVE };

/* Each command's arguments and bounds: every N up to the first number, then the second
 * many more (report runs ~0.1 s, archive ~0.5 s: zstd over libc and the kernel's symbols). */
static void sweep_cmd(enum cmd c)
{
	static const struct { const char *name; unsigned dense, points; } k[] = {
		[REPORT] = { "report", 100, 40 }, [REPORT_NO_ELFS] = { "report-no-elfs", 50, 30 },
		[REPORT_FLAMEGRAPH] = { "report-flamegraph", 25, 25 },
		[INJECT] = { "inject", 80, 40 }, [INJECT_NO_ELFS] = { "inject-no-elfs", 50, 30 },
		[ARCHIVE] = { "archive", 30, 20 },
	};
	struct rec w;
	char args[2000], out[700] = "";
	const char *build = getenv("JITPROF_BUILD");
	/* A sanitized jitprof (make check SANITIZE=1) has two allocators interposed, the shim's
	 * and ASan's: ASan's own calls fail under the shim (its thread set-up CHECK-fails when
	 * pthread_getattr_np cannot allocate) and LeakSanitizer reports what a fatal "out of
	 * memory" exit leaves allocated. The sweep is the plain build's; here only its absence
	 * is said. */
	if (build && strstr(build, "san"))
		cr_skip_test("the allocation-failure sweep runs on the plain build (the shim and "
			     "ASan's allocator cannot both interpose)");
	make_recording(&w);
	if (c == REPORT || c == REPORT_NO_ELFS)
		snprintf(args, sizeof(args), "report -i '%s' --sort dso,sym",
			 c == REPORT ? w.jit : w.noelfs);
	if (c == REPORT_FLAMEGRAPH) {	/* the views' trees: pruned, merged, drawn */
		snprintf(out, sizeof(out), "%s/out.svg", w.dir);
		snprintf(args, sizeof(args), "report -q -i '%s' --flamegraph '%s'", w.jit, out);
	} else if (c == ARCHIVE) {
		snprintf(out, sizeof(out), "%s/out.tar.zst", w.dir);
		snprintf(args, sizeof(args), "archive -i '%s' -o '%s'", w.jit, out);
	} else if (c == INJECT || c == INJECT_NO_ELFS) {
		snprintf(out, sizeof(out), "%s/out.data", w.copy);
		snprintf(args, sizeof(args), "inject --jit%s --jit-dir '%s' -i '%s' -o '%s'",
			 c == INJECT ? "" : " --no-elfs", w.copy, w.data, out);
	}
	sweep(&w, k[c].name, args, out[0] ? out : NULL, c == INJECT ? w.copy : NULL,
	      k[c].dense, k[c].points,
	      /* libdw, and libelf under it, read their own failed allocations as the end of a
	       * file's units (dwarf_get_units gives "no more", errno lost): no caller can tell */
	      c == REPORT_FLAMEGRAPH ? "libarchive,libzstd,libdw,libelf" : "libarchive,libzstd");
}

Test(faults_alloc, report, .timeout = 900) { sweep_cmd(REPORT); }
Test(faults_alloc, report_no_elfs, .timeout = 900) { sweep_cmd(REPORT_NO_ELFS); }
Test(faults_alloc, report_flamegraph, .timeout = 900) { sweep_cmd(REPORT_FLAMEGRAPH); }
Test(faults_alloc, inject, .timeout = 900) { sweep_cmd(INJECT); }
Test(faults_alloc, inject_no_elfs, .timeout = 900) { sweep_cmd(INJECT_NO_ELFS); }
Test(faults_alloc, archive, .timeout = 900) { sweep_cmd(ARCHIVE); }

/* inject on a --call-graph dwarf recording (a shell loop: libc's and the shell's CFI): the
 * stacks unwound into the chains (recorder/inject/stacks.c, recorder/unwind/, the symbols
 * session's maps) under every failing allocation. */
Test(faults_alloc, inject_dwarf, .timeout = 900)
{
	struct rec w;
	char cmd[4096], args[2000], out[700];
	const char *build = getenv("JITPROF_BUILD");
	if (!have_built("jitprof") || !have_built("tests/libfailalloc.so"))
		cr_skip_test("jitprof or the failalloc shim is not built");
	if (build && strstr(build, "san"))	/* as sweep_cmd says why */
		cr_skip_test("the allocation-failure sweep runs on the plain build (the shim and "
			     "ASan's allocator cannot both interpose)");
	w.dir = tu_tmpdir("faults-alloc");
	cr_assert(w.dir);
	abs_build("jitprof", w.jp, sizeof(w.jp));
	snprintf(w.cache, sizeof(w.cache), "%s/cache", w.dir);
	snprintf(w.data, sizeof(w.data), "%s/perf.data", w.dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' record -q -F 999 --call-graph dwarf,4096 "
		 "-o '%s' -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'", w.dir,
		 w.jp, w.data);
	sh_ok(cmd, 120);
	snprintf(out, sizeof(out), "%s/out.data", w.dir);
	snprintf(args, sizeof(args), "inject -i '%s' -o '%s'", w.data, out);
	sweep(&w, "inject-dwarf", args, out, NULL, 80, 40, "libarchive,libzstd");
}

/* The offset ranges of jitprof's functions named in the regex fns (nm -S), as
 * JITPROF_FAIL_ALLOC_ONLY takes them, into only. */
static void only_functions(const char *jp, const char *fns)
{
	char cmd[2048];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "nm -S '%s' | grep -E ' [tT] (%s)$' | "
		 "while read a s t n; do printf '%%s%%x-%%x' \"$sep\" $((0x$a)) $((0x$a + 0x$s)); "
		 "sep=,; done", jp, fns);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert(r.status == 0 && r.out[0], "no function of %s in %s (nm):\n%s", fns, jp, r.err);
	snprintf(only, sizeof(only), "%s", r.out);
	tu_result_free(&r);
}

/* report --compare keeps each load's code and source lines (recorder/report_ingest/loads.c)
 * from the jitdumps the replay indexed (dumps.c's rp_dumps_take), or without a dump beside
 * the ELFs, from their DWARF (dw_row): every allocation of those functions and the ones
 * they call fails in turn (a few dozen). Out of memory there once gave the table without
 * the code or the lines, exit 0. */
static void sweep_compare(int dumps)
{
	struct rec w;
	char args[2000], cmd[2000];
	const char *build = getenv("JITPROF_BUILD");
	if (build && strstr(build, "san"))	/* as sweep_cmd says why */
		cr_skip_test("the allocation-failure sweep runs on the plain build (the shim and "
			     "ASan's allocator cannot both interpose)");
	if (!tu_have("nm"))
		cr_skip_test("nm is not installed");
	make_recording(&w);
	only_functions(w.jp, "rp_ingest_loads|rp_dumps_take|dw_row|load_code|keep_lines|"
		       "keep_dwarf_lines");
	if (!dumps) {	/* as in an archive without them: the ELFs' own line tables */
		snprintf(cmd, sizeof(cmd), "cd '%s' && rm -f jit-*.dump jit-*.dump.jitprof", w.dir);
		sh_ok(cmd, 60);
	}
	snprintf(args, sizeof(args), "report -i '%s' --compare checksum 1 2", w.jit);
	sweep(&w, dumps ? "report-compare" : "report-compare-no-dumps", args, NULL, NULL, 500, 0,
	      "libarchive,libzstd");
	only[0] = 0;
}

Test(faults_alloc, report_compare, .timeout = 300) { sweep_compare(1); }
Test(faults_alloc, report_compare_no_dumps, .timeout = 300) { sweep_compare(0); }
