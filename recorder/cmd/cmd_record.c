/* cmd_record.c - `jitprof record`: parses the command line perf users know and hands it to
 * the recorder engine (recorder/record/). Prints the summary, returns the workload's status. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/cmd/cli.h"
#include "recorder/record/record.h"
#include "synth/synth.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof record [-k CLOCK] [-F HZ | -c N] [-e EVENT]... [-g | --call-graph MODE]\n"
		"                      [--off-cpu] [-p PID | -a] [-o FILE|-] [-- CMD ARGS]\n\n"
		"Samples CMD (or process PID, or every CPU) with perf_event_open and writes\n"
		"perf.data that perf report/script read (FILE '-': pipe mode on stdout).\n\n"
		"  -k CLOCK   sample clock: mono (CLOCK_MONOTONIC, 1; the default: jitdump files\n"
		"             use it), raw, boot, realtime, tai, or perf (the kernel's perf\n"
		"             clock, perf record's default)\n"
		"  -F HZ      sampling frequency (default 4000)\n"
		"  -c N       sample every N events instead of a frequency\n"
		"  -e EVENT   cycles (default where the CPU has them, else cpu-clock), cpu-clock,\n"
		"             task-clock, instructions, cache-misses, page-faults, rHEX; :u :k;\n"
		"             several: -e a -e b or -e a,b (one event each in the file)\n"
		"  -g         record call chains (frame pointers)\n"
		"  --call-graph fp|dwarf[,SIZE]\n"
		"             fp: -g; dwarf: the user registers and SIZE bytes of the user stack\n"
		"             per sample (default 8192, rounded up to a multiple of 8, at most\n"
		"             65528), unwound by jitprof report and perf report with the\n"
		"             binaries' CFI: call graphs without frame pointers\n"
		"  --off-cpu  also every context switch of the profiled threads, with its call\n"
		"             chain at switch-out (context-switches, period 1, and switch\n"
		"             records): off-CPU and wall-clock time for report --event\n"
		"             offcpu|wall; the on-CPU default becomes cpu-clock\n"
		"  -p PID     attach to a running process (its threads and future children)\n"
		"  -a         all CPUs, all processes\n"
		"  -o FILE    output (default perf.data)\n"
		"  -m PAGES   ring buffer data pages per CPU (power of two, default 256)\n"
		"  -q         no progress or summary\n"
		"  -N, --no-buildid-cache  do not save the vdso image in the build-id cache\n"
		"  --buildid-dir DIR       build-id cache (default $PERF_BUILDID_DIR or ~/.debug)\n"
		"  --keep-deleted          a mapped file deleted while mapped: its contents (read\n"
		"                          back through /proc/PID/map_files) go to the cache too\n\n"
		"The vdso image (in no file) goes to the build-id cache as [vdso]/<id>/vdso, as\n"
		"perf does, so its samples get names here and in `jitprof archive`.\n"
		"  -V, --version           jitprof's version\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || !*s || *end || s[0] == '-')
		return -EINVAL;
	*v = x;
	return 0;
}

/* --call-graph MODE[,SIZE] as perf spells it. 0 or a usage error (said here). */
static int parse_call_graph(const char *arg, struct rec_opts *o)
{
	const char *comma = strchr(arg, ',');
	size_t mlen = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t size = REC_STACK_USER_DEFAULT;

	if (mlen == 2 && !strncmp(arg, "fp", 2) && !comma) {
		o->callchain = true;
		o->stack_user = 0;
		return 0;
	}
	if (mlen != 5 || strncmp(arg, "dwarf", 5))
		return cli_error("--call-graph: unknown mode '%s' (fp, dwarf[,SIZE])", arg), 2;
	if (comma && parse_u64(comma + 1, &size))
		return cli_error("--call-graph dwarf: bad stack dump size '%s'", comma + 1), 2;
	if (size > REC_STACK_USER_MAX || (size = (size + 7) & ~7ULL) == 0)
		return cli_error("--call-graph dwarf: stack dump size %s out of range (1 to %u "
				 "bytes)", comma + 1, REC_STACK_USER_MAX), 2;
	o->callchain = false;
	o->stack_user = (size_t)size;
	return 0;
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* The engine's messages; counted so a failure it already explained is not said twice. */
static void on_log(void *ctx, enum jp_level level, const char *msg)
{
	int *errors = ctx;
	if (level == JP_LOG_ERROR) {
		++*errors;
		cli_error("%s", msg);
	} else if (level == JP_LOG_WARN) {
		cli_warn("%s", msg);
	}
}

static void on_progress(void *ctx, uint64_t samples, uint64_t bytes)
{
	char what[96];
	(void)ctx;
	snprintf(what, sizeof(what), "recording, %.1f MB written, samples", (double)bytes / 1e6);
	cli_progress(what, samples, 0);
}

/* Signals and the output file are the command's: SIGINT/SIGTERM raise the engine's stop flag,
 * the file appears whole on success and not at all on failure. */
static int run(struct rec_opts *o, struct rec_stats *st)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct cli_outfile out = { 0 };
	const char *path = o->output ? o->output : "perf.data";
	int err;

	stop_signal = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o->stop = &stop_signal;
	/* A workload writes to the same terminal: a \r-updated line would run into its
	 * output, so it gets only the closing summary. */
	o->progress = o->argv ? NULL : on_progress;
	if ((err = cli_outfile_open(&out, path))) {
		jp_logf(&o->log, JP_LOG_ERROR, "%s: %s", path, sio_strerror(err));
		return err;
	}
	o->out_fd = out.fd;
	err = rec_run(o, st);
	cli_progress_end();
	if (!err && strcmp(path, "-"))
		err = cli_outfile_commit(&out);
	if (strcmp(path, "-") && out.pending)
		cli_outfile_abort(&out);	/* no half-written file left behind */
	return err;
}

/* --keep-deleted's files that are not in the cache: a warning (the recording is whole, but
 * a report cannot name their samples), counted by why, the first named. */
static void say_not_kept(const struct rec_not_kept *nk)
{
	const struct { uint64_t n; const char *what; } by[] = {
		{ nk->unreadable, "unreadable" }, { nk->too_big, "over the size limit" },
		{ nk->no_build_id, "without a build-id" },
		{ nk->cache_error, "not written to the cache" },
	};
	char list[256] = "";
	uint64_t all = 0;
	for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
		if (!by[i].n)
			continue;
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, "%s%llu %s", l ? ", " : "",
			 (unsigned long long)by[i].n, by[i].what);
		all += by[i].n;
	}
	if (all)
		cli_warn("%llu deleted mapped file(s) not kept: %s; the first, %s",
			 (unsigned long long)all, list, nk->first ? nk->first : "?");
}

/* What the recording came to, said: its summary and warnings, or why it failed. Returns the
 * command's exit status. */
static int say_result(const struct rec_opts *o, const struct rec_stats *s, int err, int logged)
{
	if (err == -EACCES || err == -EPERM) {
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		int lvl = 99;
		if (f) {
			if (fscanf(f, "%d", &lvl) != 1)
				lvl = 99;
			fclose(f);
		}
		return cli_error("perf_event_open: permission denied (kernel.perf_event_paranoid "
				 "= %d). Run as root, or allow it with\n"
				 "    sysctl -w kernel.perf_event_paranoid=%d\n"
				 "(-1: everything; 1: user and kernel for your own processes; 2: user "
				 "space only, use -e cpu-clock:u), or grant CAP_PERFMON.",
				 lvl, o->system_wide ? -1 : 1);
	}
	if (err && logged)
		return 1;	/* the engine said why */
	if (err)
		return cli_error("record failed: %s", sio_strerror(err));
	if (!o->quiet) {
		const char *out = o->output ? o->output : "perf.data";
		cli_info("%llu samples of %s, %.3f MB written to %s",
			 (unsigned long long)s->samples, s->event_name, (double)s->bytes / 1e6,
			 strcmp(out, "-") ? out : "<stdout>");
	}
	if (s->lost)
		cli_warn("%llu samples lost (ring buffer full): try a lower -F or a larger -m",
			 (unsigned long long)s->lost);
	if (s->held_rounds)
		cli_info("pipe: %llu round(s) held %llu ms in all until the build-ids of the DSOs "
			 "they sampled were out", (unsigned long long)s->held_rounds,
			 (unsigned long long)s->held_ms);
	if (s->kept_deleted)
		cli_info("%llu deleted mapped file(s) kept in %s", (unsigned long long)s->kept_deleted,
			 o->buildid_dir);
	say_not_kept(&s->not_kept);
	if (s->late_dsos)
		cli_warn("pipe: %llu DSO(s) sampled before their build-id could be read (held up to "
			 "%d ms): a reader meets those samples first", (unsigned long long)s->late_dsos,
			 REC_BID_HOLD_MS);
	return s->workload_status;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "clockid", required_argument, NULL, 'k' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
		{ "buildid-dir", required_argument, NULL, 'B' },
		{ "keep-deleted", no_argument, NULL, 'K' },
		{ "call-graph", required_argument, NULL, 'G' },
		{ "off-cpu", no_argument, NULL, 'O' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* CLOCK_MONOTONIC unless asked otherwise: what jitdumps are stamped with, so a JIT
	 * recording never fails at inject time for a forgotten -k mono. */
	struct rec_opts o = { .sz = sizeof(struct rec_opts),
		.clockid = 1, .orig_argc = argc, .orig_argv = (const char *const *)argv };
	char cache[4096], events[1024] = "";
	bool no_cache = false;
	struct rec_stats st = { 0 };	/* freed below even when the recording never started */
	uint64_t v;
	int c, err, logged = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+hk:F:c:e:gp:ao:m:qNV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return cli_version();
		case 'k':
			if (!strcmp(optarg, "perf"))
				o.clockid = -1;
			else if ((o.clockid = rec_parse_clock(optarg)) < 0)
				return cli_error("unknown clock '%s' (mono, raw, boot, realtime, tai, "
						 "perf)", optarg), 2;
			break;
		case 'F':
			if (parse_u64(optarg, &o.freq) || !o.freq)
				return cli_error("bad frequency '%s'", optarg), 2;
			if ((err = cli_check_freq(o.freq)))
				return err;
			break;
		case 'c':
			if (parse_u64(optarg, &o.period) || !o.period)
				return cli_error("bad period '%s'", optarg), 2;
			break;
		case 'e':
			/* -e a -e b is -e a,b: one evsel each, in the order given. */
			if ((err = cli_append_event(events, sizeof(events), optarg)))
				return err;
			o.event = events;
			break;
		case 'O':
			o.off_cpu = true;
			break;
		case 'g':
			o.callchain = true;
			o.stack_user = 0;
			break;
		case 'G':
			if ((err = parse_call_graph(optarg, &o)))
				return err;
			break;
		case 'p':
			if (parse_u64(optarg, &v) || !v || v > 0x7fffffff)
				return cli_error("bad pid '%s'", optarg), 2;
			o.pid = (pid_t)v;
			break;
		case 'a':
			o.system_wide = true;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'm':
			if (parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > (1u << 20))
				return cli_error("-m wants a power of two number of pages"), 2;
			o.mmap_pages = (size_t)v;
			break;
		case 'q':
			o.quiet = true;
			cli_set_quiet(1);
			break;
		case 'N':
			no_cache = true;
			break;
		case 'B':
			o.buildid_dir = optarg;
			break;
		case 'K':
			o.keep_deleted = true;
			break;
		default:
			return cli_usage_brief(usage);
		}
	}
	if (o.freq && o.period)
		return cli_error("-F and -c exclude each other"), 2;
	if (no_cache && o.keep_deleted)
		return cli_error("--keep-deleted needs the build-id cache (drop -N)"), 2;
	if (no_cache)
		o.buildid_dir = NULL;
	else if (!o.buildid_dir && synth_cache_default_root(cache, sizeof(cache)) == 0)
		o.buildid_dir = cache;
	if (o.pid && o.system_wide)
		return cli_error("-p and -a exclude each other"), 2;
	if ((err = cli_refuse_binary_tty(o.output, "perf.data")))
		return err;
	if (optind < argc)
		o.argv = argv + optind;
	if (!o.argv && !o.pid && !o.system_wide) {
		usage(stderr);
		return cli_error("nothing to record: give a command, -p PID or -a"), 2;
	}
	/* CMDLINE as perf writes it: the executable's path, then the words after it. */
	char exe[4096];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char **cl = calloc((size_t)argc + 1, sizeof(char *));
	if (!cl)
		return cli_error("out of memory");
	exe[el > 0 ? el : 0] = 0;
	cl[0] = el > 0 ? exe : "jitprof";
	for (int i = 0; i < argc; i++)
		cl[i + 1] = argv[i];
	o.orig_argc = argc + 1;
	o.orig_argv = cl;
	o.log = (struct jp_log){ on_log, &logged };
	err = run(&o, &st);
	free(cl);
	err = say_result(&o, &st, err, logged);
	free(st.event_name);
	free(st.not_kept.first);
	return err;
}
