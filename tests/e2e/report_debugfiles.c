/* report_debugfiles.c - debug files found when the recording carries no build-id: perf's pipe
 * mode (`perf record -o - | jitprof report -i -`) names libc's internal functions from its
 * separate debug file (libc6-dbg) through the file's own build-id, and a program built without
 * a build-id is named through its .gnu_debuglink. perf report on the same input is the oracle;
 * its names depend on what this machine has installed, and so do ours. */
#include "tests/e2e/report_util.h"

TestSuite(debugfiles, .init = rx_setup, .fini = rx_teardown, .timeout = 240);

/* Every row of perf's table naming dso (up to max rows) is in ours, equal. */
static size_t same_rows(const char *ours, const char *perf, const char *dso, size_t max)
{
	static char a[4096][512], b[4096][512];
	size_t na = rx_rows(ours, a, 4096), nb = rx_rows(perf, b, 4096), done = 0;
	for (size_t i = 0; i < nb && done < max; i++) {
		if (!strstr(b[i], dso))
			continue;
		size_t k = 0;
		while (k < na && strcmp(a[k], b[i]))
			k++;
		cr_assert_lt(k, na, "perf's row \"%s\" is not ours:\n%s\nperf:\n%s", b[i], ours,
			     perf);
		done++;
	}
	return done;
}

Test(debugfiles, perf_pipe_libc_by_its_own_build_id)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	struct tu_result r, a, b;
	rx_ok(&r, "cd '%s' && mkdir -p h && HOME=$PWD/h DEBUGINFOD_URLS= perf record -q -o - -- sh "
	      "-c 'i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done' 2>/dev/null > pipe.data",
	      dir);
	tu_result_free(&r);
	/* perf's pipe mode names no build-id for libc: the report must find one itself */
	rx_ok(&r, "cd '%s' && HOME=$PWD/h '%s' buildid-list -i pipe.data | grep libc.so.6", dir,
	      rx_jitprof);
	cr_assert_eq(r.out[0], ' ', "the recording carries libc's build-id: %s", r.out);
	tu_result_free(&r);
	rx_ok(&a, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= '%s' report -i - --sort dso,sym "
	      "< pipe.data 2>/dev/null", dir, rx_jitprof);
	rx_ok(&b, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= perf report -i - --stdio --no-children "
	      "--sort dso,sym < pipe.data 2>/dev/null", dir);
	size_t n = same_rows(a.out, b.out, "libc.so.6", 8);
	cr_assert_gt(n, 0, "no libc row in perf's report:\n%s", b.out);
	/* which machine: with libc's debug file installed, internal names appear (both sides) */
	if (!strstr(b.out, "_int_") && !strstr(b.out, "__GI_") && !strstr(b.out, "_evex") &&
	    !strstr(b.out, "_sse") && !strstr(b.out, "_avx"))
		tu_skip_part("perf names no libc internal function here (no "
			"libc debug file installed?): only equality with perf was checked");
	tu_result_free(&a);
	tu_result_free(&b);
}

Test(debugfiles, no_build_id_debuglink_beside_the_file)
{
	if (!tu_have("perf") || !tu_have("objcopy"))
		cr_skip_test("perf or objcopy is not installed");
	static const char src[] =
		"static volatile unsigned long sink;\n"
		"static __attribute__((noinline)) void hidden_spin(unsigned long n)\n"
		"{ for (unsigned long i = 0; i < n; i++) sink += i * i; }\n"
		"int main(void) { hidden_spin(300000000ul); return 0; }\n";
	char path[PATH_MAX];
	struct tu_result r, a, b;
	snprintf(path, sizeof(path), "%s/t.c", dir);
	cr_assert_eq(tu_write_file(path, src, sizeof(src) - 1), 0);
	rx_ok(&r, "cd '%s' && mkdir -p h && cc -O1 -g -Wl,--build-id=none -o t t.c && "
	      "objcopy --only-keep-debug t t.debug && strip --strip-all t && "
	      "objcopy --add-gnu-debuglink=t.debug t && ! nm t 2>/dev/null | grep -q hidden_spin "
	      "&& HOME=$PWD/h perf record -q -o p.data ./t 2>&1", dir);
	tu_result_free(&r);
	rx_ok(&a, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= '%s' report -i p.data --sort dso,sym "
	      "2>/dev/null", dir, rx_jitprof);
	rx_ok(&b, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= perf report -i p.data --stdio "
	      "--no-children --sort dso,sym 2>/dev/null", dir);
	cr_assert(strstr(a.out, "hidden_spin"), "the static function unnamed:\n%s", a.out);
	cr_assert_gt(same_rows(a.out, b.out, " t ", 4), 0, "%s", b.out);
	tu_result_free(&a);
	tu_result_free(&b);
	/* a debug file whose CRC is not the link's is not used */
	rx_ok(&r, "cd '%s' && printf x >> t.debug", dir);
	tu_result_free(&r);
	rx_ok(&a, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= '%s' report -i p.data --sort dso,sym "
	      "2>/dev/null", dir, rx_jitprof);
	cr_assert_null(strstr(a.out, "hidden_spin"), "named from a mismatching file:\n%s", a.out);
	tu_result_free(&a);
}

/* libc's DWARF sits in a separate debug file (libc6-dbg) and is read on a worker while the
 * replay runs (symbols/dwarf_ahead.c); frames made before it was read get their lines and
 * inline frames after the replay. Whatever the timing, every output is the one of reading it
 * at the first frame: compared with the read-ahead off, and held until the replay ends (every
 * libc frame takes the late path). */
Test(debugfiles, dwarf_read_ahead_changes_no_output)
{
	struct tu_result r;
	rx_ok(&r, "cd '%s' && mkdir -p h && HOME=$PWD/h '%s' record -q -g -o la.data -- sh -c "
	      "'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' 2>&1", dir, rx_jitprof);
	tu_result_free(&r);
	static const char *const views[] = {
		"-g", "--collapsed", "--sort srcline", "--json -g", "-g caller --sort sym",
		"--pprof pp.pb.gz > /dev/null && zcat pp.pb.gz",
	};
	static const char *const modes[] = { "0", "hold", "" };
	int inlined_libc = 0;
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		char *want = NULL;
		for (size_t m = 0; m < 3; m++) {
			rx_ok(&r, "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= JITPROF_DWARF_AHEAD=%s '%s' "
			      "report -q -i la.data %s", dir, modes[m], rx_jitprof, views[v]);
			if (!want) {
				want = strdup(r.out);
				if (v == 1)
					inlined_libc = strstr(r.out, "_[i]") != NULL;
			} else {
				cr_assert_str_eq(r.out, want, "report %s with JITPROF_DWARF_AHEAD=%s "
						 "differs from reading DWARF when first needed",
						 views[v], modes[m]);
			}
			tu_result_free(&r);
		}
		free(want);
	}
	if (!inlined_libc)
		tu_skip_part("no inlined frame in the recording (libc's debug "
			"file not installed?): outputs compared without inline chains");
}
