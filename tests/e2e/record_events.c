/* record_events.c - several events in one recording (record -e a -e b, -e a,b): one evsel
 * each in the file's attr section, so perf script and perf report show each event with its
 * samples; jitprof report takes the first asked for (said on stderr with every event's
 * samples) or the one --event names. The oracle is perf's own reading of the file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

/* Spins and touches fresh pages: cpu-clock and page-faults both sample. */
static const char prog_src[] =
	"#include <stdlib.h>\n#include <time.h>\n"
	"static volatile unsigned long sink;\n"
	"int main(void) { time_t t0 = time(0); while (time(0) - t0 < 1) {\n"
	" char *p = malloc(1 << 20); for (int i = 0; i < (1 << 20); i += 4096) p[i] = 1;\n"
	" free(p); for (int i = 0; i < 100000; i++) sink += (unsigned long)i * i; }\n"
	" return 0; }\n";

static char *dir;

static void sh(struct tu_result *r, const char *cmd)
{
	cr_assert_eq(tu_sh_in(r, dir, cmd, 120), 0, "cannot run %s", cmd);
}

static long count_of(const char *cmd)
{
	struct tu_result r;
	long n;

	sh(&r, cmd);
	n = atol(r.out);
	tu_result_free(&r);
	return n;
}

/* perf script's count of the samples of event name. */
static long perf_count(const char *file, const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "perf script -i %s -F event 2>/dev/null | grep -c '^ *%s:'",
		 file, name);
	return count_of(cmd);
}

/* perf report --stdio has a section per event ("# Samples: 2K  of event 'name'": the count
 * rounded, so only its presence is checked; perf script gives the counts). */
static long perf_report_has(const char *file, const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "perf report --stdio -i %s 2>/dev/null | grep -c "
		 "\"^# Samples: .* of event '%s'$\"", file, name);
	return count_of(cmd);
}

Test(record_events, several_in_one_run, .timeout = 300)
{
	struct tu_result r;
	const char *const ways[2] = { "-e cpu-clock -e page-faults", "-e cpu-clock,page-faults" };

	if (!tu_have("cc"))
		cr_skip_test("cc is not installed");
	dir = tu_tmpdir("recevents");
	cr_assert_eq(tu_cc_in(&r, dir, "prog", prog_src, sizeof(prog_src) - 1, "-O1"), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	for (int w = 0; w < 2; w++) {
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "$J record -q %s -o two.data ./prog", ways[w]);
		sh(&r, cmd);
		cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
		tu_result_free(&r);
		/* Both events' samples, as the report counts them, in the order asked. */
		sh(&r, "$J report -i two.data --sort sym");
		cr_assert_eq(r.status, 0, "%s", r.err);
		long cpu = 0, pf = 0;
		const char *line = strstr(r.err, "several events: cpu-clock (");
		cr_assert_not_null(line, "%s", r.err);
		cr_assert_eq(sscanf(line, "several events: cpu-clock (%ld samples), page-faults (%ld "
				    "samples); reporting cpu-clock only", &cpu, &pf), 2, "%s", line);
		cr_expect(cpu > 0 && pf > 0, "%s", line);
		cr_expect(strstr(r.out, "of event 'cpu-clock'"), "%.400s", r.out);
		tu_result_free(&r);
		sh(&r, "$J report -i two.data --event page-faults --sort sym");
		cr_assert_eq(r.status, 0, "%s", r.err);
		char want[160];
		snprintf(want, sizeof(want), "reporting page-faults (--event); the recording's events: "
			 "cpu-clock (%ld samples), page-faults (%ld samples)", cpu, pf);
		cr_expect(strstr(r.err, want), "want '%s' in %s", want, r.err);
		long n = -1;
		const char *h = strstr(r.out, "# Samples: ");
		cr_expect(h && sscanf(h, "# Samples: %ld", &n) == 1 && n == pf &&
			  strstr(h, "of event 'page-faults'"), "want %ld page-faults in %.400s",
			  pf, r.out);
		tu_result_free(&r);
		if (!tu_have("perf")) {
			tu_skip_part("perf is not installed: its reading of the file not checked");
			continue;
		}
		/* perf reads each event and agrees on its samples. */
		long ps_cpu = perf_count("two.data", "cpu-clock");
		long ps_pf = perf_count("two.data", "page-faults");
		long pr_cpu = perf_report_has("two.data", "cpu-clock");
		long pr_pf = perf_report_has("two.data", "page-faults");
		cr_expect(ps_cpu == cpu && ps_pf == pf && pr_cpu == 1 && pr_pf == 1,
			  "%s: ours %ld, %ld; perf script %ld, %ld; perf report sections %ld, %ld",
			  ways[w], cpu, pf, ps_cpu, ps_pf, pr_cpu, pr_pf);
	}
	/* An unknown name among several: said, and nothing recorded. */
	sh(&r, "$J record -q -e cpu-clock -e no-such -o bad.data ./prog");
	cr_expect_neq(r.status, 0);
	cr_expect(strstr(r.err, "unknown event 'no-such'"), "%s", r.err);
	char bad[4200];
	snprintf(bad, sizeof(bad), "%s/bad.data", dir);
	cr_expect_neq(access(bad, F_OK), 0, "recorded anyway");
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* A kernel that lacks something, played by a shim between the recorder and perf_event_open:
 * s: no PERF_RECORD_SWITCH (attr.context_switch is EINVAL, as before Linux 4.3); k: kernel
 * sampling not permitted (kernel.perf_event_paranoid 2); p: no page-faults event (ENOENT). */
static const char shim_src[] =
	"#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <errno.h>\n#include <stdarg.h>\n"
	"#include <stdlib.h>\n#include <linux/perf_event.h>\n#include <sys/syscall.h>\n"
	"long syscall(long n, ...) {\n"
	" static long (*real)(long, ...); va_list ap; long a[6];\n"
	" va_start(ap, n); for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long); va_end(ap);\n"
	" const char *m = getenv(\"SHIM_LACKS\");\n"
	" if (n == SYS_perf_event_open && m) { struct perf_event_attr *at = (void *)a[0];\n"
	"  if ((*m == 's' && at->context_switch) || (*m == 'p' && at->type == PERF_TYPE_SOFTWARE\n"
	"      && at->config == PERF_COUNT_SW_PAGE_FAULTS)) { errno = *m == 's' ? EINVAL : ENOENT;\n"
	"   return -1; }\n"
	"  if (*m == 'k' && !at->exclude_kernel) { errno = EACCES; return -1; } }\n"
	" if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, \"syscall\");\n"
	" return real(n, a[0], a[1], a[2], a[3], a[4], a[5]); }\n";

Test(record_events, refused_one_line_others_go_on, .timeout = 300)
{
	struct tu_result r;
	static const struct {
		const char *lacks, *args, *said, *events;
	} cases[] = {
		{ "s", "--off-cpu", "--off-cpu refused: this kernel gives no context-switch records "
		  "(PERF_RECORD_SWITCH, Linux 4.3): Invalid argument; on-CPU goes on", "cpu-clock" },
		{ "k", "--off-cpu", "--off-cpu refused: context-switch samples need kernel sampling "
		  "(kernel.perf_event_paranoid <= 1 or CAP_PERFMON); on-CPU goes on", "cpu-clock" },
		{ "p", "-e cpu-clock -e page-faults", "event page-faults refused by the kernel: No such "
		  "file or directory; the others go on", "cpu-clock" },
	};

	if (!tu_have("cc"))
		cr_skip_test("cc is not installed");
	dir = tu_tmpdir("recrefuse");
	cr_assert_eq(tu_cc_in(&r, dir, "prog", prog_src, sizeof(prog_src) - 1, "-O1"), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	cr_assert_eq(tu_cc_in(&r, dir, "shim", shim_src, sizeof(shim_src) - 1,
			      "-shared -fPIC -ldl"), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cmd[1024];
		/* ASan's runtime (a SANITIZE=1 build) need not come first for this shim. */
		snprintf(cmd, sizeof(cmd), "SHIM_LACKS=%s LD_PRELOAD=$PWD/shim "
			 "ASAN_OPTIONS=verify_asan_link_order=0 $J record -q %s -o x.data ./prog && "
			 "$J report -i x.data --sort comm 2>&1 | grep '^# Samples'", cases[i].lacks,
			 cases[i].args);
		sh(&r, cmd);
		cr_expect_eq(r.status, 0, "%s: %s", cases[i].lacks, r.err);
		cr_expect(strstr(r.err, cases[i].said), "want '%s' in %s", cases[i].said, r.err);
		cr_expect_eq(tu_count(r.err, "refused"), 1, "one line: %s", r.err);
		/* Only the event that opened is in the file, and it has the samples. */
		char want[128];
		snprintf(want, sizeof(want), "of event '%s'", cases[i].events);
		cr_expect(strstr(r.out, want) && !strstr(r.err, "several events"), "%s: %s %s",
			  cases[i].lacks, r.out, r.err);
		tu_result_free(&r);
	}
	tu_rmtree(dir);
	free(dir);
}
