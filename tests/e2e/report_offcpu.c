/* report_offcpu.c - off-CPU and wall-clock time from `record --off-cpu`: a worker thread
 * spends each 10 ms cycle asleep (nanosleep 4 ms), blocked on a pipe (a writer thread answers
 * 3 ms later) and computing (3 ms), and measures what each phase really took (the machine is
 * shared: a 4 ms sleep may take 9). Ground truth is those measurements: report --event wall
 * must give each phase's share of the worker's time within 5 points under the function that
 * did it, --event offcpu the waits only (the computing is never a wait), and the table,
 * pprof and speedscope weigh by nanoseconds. perf script reads the recording and shows the
 * context switches. x86_64: the worker makes its syscalls inline, so the switch-out's frame
 * pointer chain starts in its own functions (a libc wrapper may use rbp as a register). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static const char prog_src[] =
	"#define _GNU_SOURCE\n"
	"#include <pthread.h>\n"
	"#include <stdint.h>\n"
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <sys/syscall.h>\n"
	"#include <time.h>\n"
	"#include <unistd.h>\n"
	"/* The worker's syscalls are made in its own functions (no libc frame without a frame pointer\n"
	" * between the switch-out and them), so the switch-out's call chain names them. */\n"
	"static inline long sys3(long n, long a, long b, long c)\n"
	"{\n"
	"	long r;\n"
	"	__asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(n), \"D\"(a), \"S\"(b), \"d\"(c)\n"
	"			 : \"rcx\", \"r11\", \"memory\");\n"
	"	return r;\n"
	"}\n"
	"static int data[2], ctl[2];\n"
	"static volatile int done;\n"
	"static volatile unsigned long sink;\n"
	"static uint64_t now_ns(void)\n"
	"{\n"
	"	struct timespec ts;\n"
	"	clock_gettime(CLOCK_MONOTONIC, &ts);\n"
	"	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;\n"
	"}\n"
	"__attribute__((noinline)) void do_sleep(long ms)\n"
	"{\n"
	"	struct timespec ts = { 0, ms * 1000000L };\n"
	"	sys3(SYS_nanosleep, (long)&ts, 0, 0);\n"
	"}\n"
	"__attribute__((noinline)) void do_read(void)\n"
	"{\n"
	"	char c;\n"
	"	sys3(SYS_write, ctl[1], (long)\"r\", 1);	/* the writer answers in 3 ms */\n"
	"	sys3(SYS_read, data[0], (long)&c, 1);\n"
	"}\n"
	"__attribute__((noinline)) void do_spin(uint64_t ns)\n"
	"{\n"
	"	uint64_t until = now_ns() + ns;\n"
	"	while (now_ns() < until)\n"
	"		for (int i = 0; i < 20000; i++)\n"
	"			sink += (unsigned long)i * i;\n"
	"}\n"
	"static void *writer(void *arg)\n"
	"{\n"
	"	char c;\n"
	"	(void)arg;\n"
	"	pthread_setname_np(pthread_self(), \"writer\");\n"
	"	while (read(ctl[0], &c, 1) == 1 && c == 'r') {\n"
	"		struct timespec ts = { 0, 3000000L };\n"
	"		nanosleep(&ts, NULL);\n"
	"		if (write(data[1], \"x\", 1) != 1)\n"
	"			abort();\n"
	"	}\n"
	"	return NULL;\n"
	"}\n"
	"static uint64_t t_sleep, t_read, t_spin;\n"
	"__attribute__((noinline)) void *worker(void *arg)\n"
	"{\n"
	"	long cycles = (long)arg;\n"
	"	pthread_setname_np(pthread_self(), \"worker\");\n"
	"	for (long i = 0; i < cycles; i++) {\n"
	"		uint64_t a = now_ns();\n"
	"		do_sleep(4);\n"
	"		uint64_t b = now_ns();\n"
	"		do_read();\n"
	"		uint64_t c = now_ns();\n"
	"		do_spin(3000000);\n"
	"		uint64_t d = now_ns();\n"
	"		t_sleep += b - a, t_read += c - b, t_spin += d - c;\n"
	"	}\n"
	"	return NULL;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long cycles = argc > 1 ? atol(argv[1]) : 100;\n"
	"	pthread_t w, wr;\n"
	"	if (pipe(data) || pipe(ctl))\n"
	"		return 1;\n"
	"	pthread_create(&wr, NULL, writer, NULL);\n"
	"	uint64_t t0 = now_ns();\n"
	"	pthread_create(&w, NULL, worker, (void *)cycles);\n"
	"	pthread_join(w, NULL);\n"
	"	uint64_t t1 = now_ns();\n"
	"	if (write(ctl[1], \"q\", 1) != 1)\n"
	"		return 1;\n"
	"	pthread_join(wr, NULL);\n"
	"	printf(\"sleep %llu read %llu spin %llu total %llu\\n\", (unsigned long long)t_sleep,\n"
	"	       (unsigned long long)t_read, (unsigned long long)t_spin,\n"
	"	       (unsigned long long)(t1 - t0));\n"
	"	return 0;\n"
	"}\n"
	"\n";

static char *dir;

enum { SLEEP, READ, SPIN, NPHASE };
static const char *const phase_fn[NPHASE] = { ";do_sleep", ";do_read", ";do_spin" };
/* Java (samples/java/Waits.java): HotSpot's Thread.sleep and contended monitor enter, and the
 * computing method; and the Java methods that wait: Thread.sleep's caller, the monitor's
 * waiter and the pipe's reader (interpreted frames named from the stack copies inject
 * --keep-stacks keeps, compiled ones by their prologue's CFI). */
static const char *const java_fn[NPHASE] = { ";JVM_Sleep;", ";ObjectMonitor::",
					      "Waits.spinFor" };
static const char *const java_waiter[NPHASE] = { ";jitprof.samples.Waits.sleeper(",
						  ";jitprof.samples.Waits.contender(",
						  ";jitprof.samples.Waits.reader(" };

/* Runs cmd in dir; ok: it must succeed. */
static void sh(struct tu_result *r, const char *cmd, int ok)
{
	cr_assert_eq(tu_sh_in(r, dir, cmd, 300), 0, "cannot run %s", cmd);
	if (ok)
		cr_assert_eq(r->status, 0, "%s: %s", cmd, r->err);
}

/* A fresh dir with the program name built from src in it. */
static void build(const char *name, const char *src, size_t len, const char *flags)
{
	struct tu_result r;

	dir = tu_tmpdir(name);
	cr_assert_eq(tu_cc_in(&r, dir, name, src, len, flags), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
}

/* Each of the first n phases' share of got's sum within 5 points of its share of truth's. */
static void shares_within(const char *what, const char *const fn[NPHASE],
			  const double got[NPHASE], const double truth[NPHASE], int n)
{
	double gs = 0, ts = 0;
	for (int p = 0; p < n; p++)
		ts += truth[p];
	for (int p = 0; p < NPHASE; p++)
		gs += got[p];
	for (int p = 0; p < n; p++) {
		double want = 100 * truth[p] / ts, share = 100 * got[p] / gs;
		cr_expect(share > want - 5 && share < want + 5, "%s: %s %.1f%%, measured %.1f%%",
			  what, fn[p], share, want);
	}
}


/* The worker's time per phase in a collapsed output (ns): each line "worker;...;fn;... N"
 * goes to the first phase whose name (fn[p], a substring of a frame) its stack holds. *all:
 * every worker line's. */
static void phases_of(const char *collapsed, const char *const fn[NPHASE], double t[NPHASE],
		      double *all)
{
	memset(t, 0, NPHASE * sizeof(*t));
	*all = 0;
	for (const char *l = collapsed; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[65536];
		if (len < sizeof(line) && !strncmp(l, "worker;", 7)) {
			memcpy(line, l, len);
			line[len] = 0;
			char *sp = strrchr(line, ' ');
			double n = sp ? strtod(sp + 1, NULL) : 0;
			*all += n;
			for (int p = 0; p < NPHASE; p++)
				if (strstr(line, fn[p])) {
					t[p] += n;
					break;
				}
		}
		l = nl ? nl + 1 : NULL;
	}
}

/* A thread blocked on a pipe since before `record -p` attached, next to one that computes. */
static const char blocked_src[] =
	"#define _GNU_SOURCE\n#include <pthread.h>\n#include <stdio.h>\n#include <time.h>\n"
	"#include <unistd.h>\n"
	"static int p[2];\n"
	"static void *blocker(void *a) { char c; (void)a; printf(\"%d\\n\", gettid());\n"
	" fflush(stdout); return read(p[0], &c, 1) == 1 ? a : NULL; }\n"
	"int main(void) { pthread_t t; if (pipe(p)) return 1; pthread_create(&t, 0, blocker, 0);\n"
	" volatile unsigned long s = 0; time_t t0 = time(0);\n"
	" while (time(0) - t0 < 4) for (int i = 0; i < 100000; i++) s += i; return 0; }\n";

Test(report_offcpu, never_ran_listed, .timeout = 300)
{
	struct tu_result r;
	int tid = 0;

	if (!tu_have("cc") || !tu_have("timeout"))
		cr_skip_test("cc or timeout is not installed");
	build("blocked", blocked_src, sizeof(blocked_src) - 1, "-O1 -pthread");
	/* The blocker says its tid, then blocks for good; recorded for up to 2 s from 0.5 s. */
	sh(&r, "./blocked > tid & P=$!; sleep 0.5; timeout -s INT 2 $J record -q --off-cpu -p $P "
	       "-o b.data; wait; cat tid", 0);
	cr_assert_eq(sscanf(r.out, "%d", &tid), 1, "%s %s", r.out, r.err);
	tu_result_free(&r);
	sh(&r, "$J report -i b.data --event offcpu --sort sym", 1);
	char want[256];
	snprintf(want, sizeof(want), "1 thread(s) never ran while recording, off-CPU throughout "
		 "under [off-CPU throughout the recording] (their stack is unknown): %d (blocked)",
		 tid);
	cr_expect(strstr(r.err, want), "want '%s' in %s", want, r.err);
	double pct = 0, ms = 0;
	const char *row = strstr(r.out, "[off-CPU throughout the recording]");
	cr_assert_not_null(row, "%s", r.out);
	while (row > r.out && row[-1] != '\n')
		row--;
	cr_expect(sscanf(row, "%lf%% %lf ms", &pct, &ms) == 2 && ms > 20 && ms < 2100,
		  "the blocked thread's time: %.1f ms", ms);
	tu_result_free(&r);
	if (!tu_have("perf")) {
		tu_skip_part("perf is not installed: the recording's span not checked");
	} else {
		/* It weighs the recording's span, as perf sees the first and last sample. */
		double a = 0, b = 0;
		sh(&r, "perf script -i b.data -F time 2>/dev/null | tr -d ' :' | sed -n '1p;$p'", 1);
		cr_assert_eq(sscanf(r.out, "%lf %lf", &a, &b), 2, "%s", r.out);
		cr_expect(ms > 0.9 * (b - a) * 1e3 - 5 && ms < 1.1 * (b - a) * 1e3 + 20,
			  "the blocked thread's %.1f ms, perf's span %.1f ms", ms, (b - a) * 1e3);
		tu_result_free(&r);
	}
	tu_rmtree(dir);
	free(dir);
}

Test(report_offcpu, wall_and_offcpu_shares, .timeout = 600)
{
	struct tu_result r;
	double truth[NPHASE], total = 0, t[NPHASE], all;

#if !defined(__x86_64__)
	cr_skip_test("the worker's inline syscalls are x86_64");
#endif
	if (!tu_have("cc"))
		cr_skip_test("cc is not installed");
	build("waits", prog_src, sizeof(prog_src) - 1, "-O1 -g -fno-omit-frame-pointer -pthread");
	sh(&r, "$J record -q --off-cpu -g -o w.data ./waits 60", 1);
	cr_assert_eq(sscanf(r.out, "sleep %lf read %lf spin %lf", &truth[SLEEP], &truth[READ],
			    &truth[SPIN]), 3, "%s", r.out);
	tu_result_free(&r);
	for (int p = 0; p < NPHASE; p++)
		total += truth[p];

	/* wall: every phase, each its share of the worker's time. */
	sh(&r, "$J report -i w.data --event wall --collapsed", 1);
	phases_of(r.out, phase_fn, t, &all);
	tu_result_free(&r);
	double sum = t[SLEEP] + t[READ] + t[SPIN];
	cr_assert(sum > 0, "no worker time under the three functions");
	cr_expect(all >= 0.9 * total && all <= 1.1 * total + 20e6,
		  "the worker's wall time: %.1f ms, measured %.1f ms", all / 1e6, total / 1e6);
	shares_within("wall", phase_fn, t, truth, NPHASE);

	/* offcpu: the waits only, each near its measured time. */
	sh(&r, "$J report -i w.data --event offcpu --collapsed", 1);
	phases_of(r.out, phase_fn, t, &all);
	tu_result_free(&r);
	double waits = truth[SLEEP] + truth[READ];
	sum = t[SLEEP] + t[READ] + t[SPIN];
	cr_assert(sum > 0, "no worker off-CPU time under the three functions");
	cr_expect(t[SPIN] < 0.05 * sum, "offcpu: computing shows %.1f ms of %.1f", t[SPIN] / 1e6,
		  sum / 1e6);
	shares_within("offcpu", phase_fn, t, truth, SPIN);

	/* The table in ms: its total is the time the intervals add up to. */
	sh(&r, "$J report -i w.data --event offcpu --sort comm", 1);
	cr_expect(strstr(r.out, "of event 'offcpu'"), "%.400s", r.out);
	double pct = 0, ms = 0;
	char comm[64];
	for (const char *l = r.out; (l = strstr(l, "\n")); l++)
		if (sscanf(l + 1, "%lf%% %lf ms %63s", &pct, &ms, comm) == 3 &&
		    !strcmp(comm, "worker"))
			break;
	cr_expect(ms > 0.9 * waits / 1e6 && ms < 1.1 * waits / 1e6 + 20,
		  "worker's off-CPU row %.1f ms, its waits measured %.1f ms: %s", ms, waits / 1e6,
		  r.out);
	tu_result_free(&r);

	/* The flame graph's frames weigh their time too. */
	sh(&r, "$J report -i w.data --event wall --flamegraph w.svg && "
	       "grep -o '<title>do_sleep ([0-9.]* ms' w.svg | head -1 | tr -d '<title>do_sleep(ms'",
	   1);
	double fg_ms = atof(r.out);
	cr_expect(fg_ms > 0.9 * truth[SLEEP] / 1e6 && fg_ms < 1.1 * truth[SLEEP] / 1e6 + 20,
		  "flame graph: do_sleep %.1f ms, measured %.1f", fg_ms, truth[SLEEP] / 1e6);
	tu_result_free(&r);

	/* pprof and speedscope weigh by nanoseconds. */
	sh(&r, "$J report -i w.data --event wall --pprof w.pb.gz --speedscope w.json && "
	       "gzip -dc w.pb.gz | grep -c nanoseconds; grep -c '\"unit\":\"nanoseconds\"' w.json",
	   1);
	cr_expect(!strncmp(r.out, "1\n1\n", 4), "%s", r.out);
	tu_result_free(&r);

	/* profile -e offcpu records what it needs and reports it. */
	sh(&r, "$J profile -q -e offcpu -o p.collapsed -- ./waits 30 && cat p.collapsed", 1);
	cr_assert_eq(sscanf(r.out, "sleep %lf read %lf spin %lf", &truth[SLEEP], &truth[READ],
			    &truth[SPIN]), 3, "%s", r.out);
	phases_of(strchr(r.out, '\n'), phase_fn, t, &all);
	cr_expect(t[SPIN] < 0.05 * all, "profile -e offcpu: computing %.1f ms of %.1f",
		  t[SPIN] / 1e6, all / 1e6);
	shares_within("profile -e offcpu", phase_fn, t, truth, SPIN);
	tu_result_free(&r);
	sh(&r, "$J profile -q -e wall -o p.txt -- ./waits 5 >/dev/null && head -5 p.txt", 1);
	cr_expect(strstr(r.out, "samples of wall"), "%s", r.out);
	tu_result_free(&r);

	/* A recording without switches: said, not guessed. */
	sh(&r, "$J record -q -e cpu-clock -o c.data ./waits 5 >/dev/null && "
	       "$J report -i c.data --event offcpu", 0);
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.err, "c.data has no off-CPU records"), "%s", r.err);
	tu_result_free(&r);
	/* From a pipe, whose events come with its samples: said, with what to do. */
	sh(&r, "$J record -q --off-cpu -o - ./waits 5 2>/dev/null | $J report -i - --event wall",
	   0);
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.err, "a pipe does not list: write it to a file"), "%s", r.err);
	tu_result_free(&r);

	if (!tu_have("perf")) {
		tu_skip_part("perf is not installed: its reading of the recording not checked");
	} else {
		/* perf reads the switches: the worker's switch-out records and its
		 * context-switches samples, one of each per switch-out, two waits a cycle. */
		sh(&r, "perf script -i w.data --show-switch-events -F comm,event 2>/dev/null | "
		       "grep -c '^ *worker .*PERF_RECORD_SWITCH OUT'; perf script -i w.data "
		       "-F comm,event 2>/dev/null | grep -c '^ *worker *context-switches:'", 0);
		long sw = 0, cs = 0;
		cr_assert_eq(sscanf(r.out, "%ld %ld", &sw, &cs), 2, "%s", r.out);
		cr_expect(sw >= 120 && cs == sw, "perf script: the worker's %ld switch-outs, %ld "
			  "context-switches samples", sw, cs);
		tu_result_free(&r);
		/* And perf's own recording of the same events reads as ours does. */
		sh(&r, "perf record -q -N -k mono -g -e cpu-clock/freq=4000/ -e "
		       "context-switches/period=1/ --switch-events -o p.data ./waits 30 && "
		       "$J report -i p.data --event wall --collapsed", 1);
		cr_assert_eq(sscanf(r.out, "sleep %lf read %lf spin %lf", &truth[SLEEP],
				    &truth[READ], &truth[SPIN]), 3, "%s", r.out);
		phases_of(strchr(r.out, '\n'), phase_fn, t, &all);
		shares_within("perf's recording, wall", phase_fn, t, truth, NPHASE);
		tu_result_free(&r);
	}
	tu_rmtree(dir);
	free(dir);
}

/* The line each waiting method waits at (from Waits.java where the test runs): wall time
 * under sleeper at its Thread.sleep call, under reader at its read call, under contender at
 * its synchronized statement or the line after it (an interpreted monitorenter advances its
 * bytecode pointer before it blocks: HotSpot's own JVMTI stack traces say the next line
 * too). At least 90% of each method's wall time, read from pprof's lines per location
 * (go tool pprof -raw of j.ks.data's --event wall). */
static void java_wait_lines(void)
{
	struct tu_result r;
	char src[4096], cmd[8192];
	if (!tu_have("go")) {
		tu_skip_part("go is not installed: the waits' lines not read");
		return;
	}
	cr_assert_not_null(realpath("samples/java/Waits.java", src));
	snprintf(cmd, sizeof(cmd), "$J report -q -i j.ks.data --event wall --pprof w.pb.gz && "
		 "HOME=$PWD GOCACHE=$PWD/gc go tool pprof -raw w.pb.gz 2>/dev/null > w.raw && "
		 "python3 -c 'import re,sys\n"
		 "src=open(sys.argv[1]).read().split(\"\\n\")\n"
		 "def at(text, after=0):\n"
		 " return [i+1 for i,l in enumerate(src) if text in l and i+1>after][0]\n"
		 "want={\"sleeper\": {at(\"Thread.sleep(ms)\")}, \"reader\": {at(\"in.read(b)\")},"
		 " \"contender\": {at(\"synchronized (lock)\", at(\"void contender\")),"
		 " at(\"synchronized (lock)\", at(\"void contender\"))+1}}\n"
		 "raw=open(\"w.raw\").read().split(\"\\n\")\n"
		 "i=raw.index(\"Samples:\"); col=[t.split(\"/\")[0] for t in raw[i+1].split()]."
		 "index(\"wall\")\n"
		 "loc={}\n"
		 "for l in raw[raw.index(\"Locations\")+1:]:\n"
		 " m=re.match(r\" *(\\d+): \\S+ M=\\d+ (.+) \\S*:(\\d+) s=\", l)\n"
		 " if m: loc[m.group(1)]=(m.group(2), int(m.group(3)))\n"
		 "tot={k:0 for k in want}; ok={k:0 for k in want}\n"
		 "for l in raw[i+2:]:\n"
		 " if l.startswith(\"Locations\"): break\n"
		 " if \":\" not in l or l.strip().startswith(\"pid\"): continue\n"
		 " v,ids=l.split(\":\",1); v=int(v.split()[col])\n"
		 " for x in ids.split():\n"
		 "  f,line=loc.get(x,(\"\",0)); k=f[len(\"jitprof.samples.Waits.\"):].split(\"(\")[0] "
		 "if f.startswith(\"jitprof.samples.Waits.\") else None\n"
		 "  if k in want:\n"
		 "   tot[k]+=v; ok[k]+=v*(line in want[k]); break\n"
		 "print(\" \".join(\"%%s %%d %%d\" %% (k, ok[k], tot[k]) for k in sorted(want)))' '%s'",
		 src);
	sh(&r, cmd, 1);
	char name[3][32];
	double at[3], all[3];
	cr_assert_eq(sscanf(r.out, "%31s %lf %lf %31s %lf %lf %31s %lf %lf", name[0], &at[0],
			    &all[0], name[1], &at[1], &all[1], name[2], &at[2], &all[2]), 9,
		     "%s", r.out);
	for (int k = 0; k < 3; k++)
		cr_expect(all[k] > 0 && at[k] >= 0.9 * all[k], "%s: %.1f ms of its %.1f ms of wall "
			  "time at the line it waits at", name[k], at[k] / 1e6, all[k] / 1e6);
	tu_result_free(&r);
}

/* Java: a JVM's worker thread sleeping, waiting for a monitor and computing in known (measured)
 * shares. Frame pointers stop in glibc's futex wait (built without them), so the switch-outs'
 * stacks are DWARF-unwound (--call-graph dwarf) through libc and libjvm: each wait lands under
 * HotSpot's function for it, the computing under the Java method. */
Test(report_offcpu, java_waits, .timeout = 600)
{
	struct tu_result r;
	char agent[4096], classes[4096], cmd[16384];
	double truth[NPHASE], t[NPHASE], all, pipe;

	if (!tu_have("java"))
		cr_skip_test("java is not installed");
	if (!realpath(tu_build("libagent.so"), agent) || !realpath(tu_build("java"), classes) ||
	    access(tu_build("java/jitprof/samples/Waits.class"), F_OK))
		cr_skip_test("the agent or samples/java are not built");
	dir = tu_tmpdir("offcpu-java");
	/* -m: room for every switch-out's stack copy (a lost MMAP2 of libnio loses the pipe
	 * reader's callers) */
	snprintf(cmd, sizeof(cmd), "mkdir jit && $J record -q -m 2048 -k mono --call-graph dwarf "
		 "--off-cpu -o j.data -- %sjava -XX:+PreserveFramePointer -agentpath:'%s'=dir=jit "
		 "-cp '%s' jitprof.samples.Waits 100", tu_java_env_sh(agent), agent, classes);
	sh(&r, cmd, 1);
	cr_assert_eq(sscanf(r.out, "sleep %lf lock %lf compute %lf pipe %lf", &truth[SLEEP],
			    &truth[READ], &truth[SPIN], &pipe), 4, "%s", r.out);
	tu_result_free(&r);
	sh(&r, "$J inject -q --no-elfs -i j.data -o j.jit.data && "
	       "$J report -i j.jit.data --event wall --collapsed", 1);
	phases_of(r.out, java_fn, t, &all);
	tu_result_free(&r);
	cr_assert(t[SLEEP] + t[READ] + t[SPIN] > 0, "no worker time under the JVM's functions");
	shares_within("java wall", java_fn, t, truth, NPHASE);

	/* The waits' Java callers, from the stack copies: wall time under each method that waits
	 * (the sleep's caller, the monitor's waiter, the pipe's reader) in the measured shares;
	 * the worker's off-CPU time under them, below Thread.run. */
	sh(&r, "$J inject -q --no-elfs --keep-stacks -i j.data -o j.ks.data && "
	       "$J report -q -i j.ks.data --event wall --collapsed", 1);
	double waits_truth[NPHASE] = { truth[SLEEP], truth[READ], pipe };
	phases_of(r.out, java_waiter, t, &all);
	tu_result_free(&r);
	shares_within("java wall, by the waiting method", java_waiter, t, waits_truth, NPHASE);
	sh(&r, "$J report -q -i j.ks.data --event offcpu --collapsed", 1);
	phases_of(r.out, java_waiter, t, &all);
	double waits = t[0] + t[1] + t[2];
	double measured = truth[SLEEP] + truth[READ] + pipe;
	cr_expect(waits > 0.85 * all && waits < 1.05 * measured, "offcpu: %.1f ms under the Java "
		  "methods that wait, of the worker's %.1f ms (%.1f ms measured waiting)",
		  waits / 1e6, all / 1e6, measured / 1e6);
	static const char *const spin_fn[NPHASE] = { ";jitprof.samples.Waits.spinFor(", "\n",
						     "\n" };
	phases_of(r.out, spin_fn, t, &all);
	cr_expect(t[0] < 0.05 * waits, "offcpu: computing shows %.1f ms", t[0] / 1e6);
	/* ... and below its thread's root (the worker's Runnable under Thread.run); "\n" is in
	 * no line: those phases stay empty. */
	static const char *const run_fn[NPHASE] = { ";java.lang.Thread.run(", "\n", "\n" };
	phases_of(r.out, run_fn, t, &all);
	cr_expect(t[0] > 0.9 * waits, "offcpu: %.1f ms under Thread.run, %.1f ms under the "
		  "waiting methods", t[0] / 1e6, waits / 1e6);
	tu_result_free(&r);
	java_wait_lines();
	tu_rmtree(dir);
	free(dir);
}
