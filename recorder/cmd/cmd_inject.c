/* cmd_inject.c - `jitprof inject --jit`: options, the output file that appears whole or not at
 * all, warnings, progress and the closing summary. The work is in recorder/inject/. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_inject.h"
#include "recorder/inject/inject.h"
#include "synth/synth.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof inject --jit [-i IN] [-o OUT] [options]\n\n"
		"Merges the JIT-compiled code a recording's processes described in their jitdumps\n"
		"(jit-PID.dump, found through the marker mappings in the recording) into the\n"
		"recording: one MMAP2 per code load carrying the build-id of an ELF made for that\n"
		"generation, in time order with the recorded events. ELFs are written only for the\n"
		"generations that received samples, beside the dump (as perf does).\n\n"
		"  -j, --jit              inject jitted code (the only mode; accepted for perf's habit)\n"
		"  -i, --input FILE       perf.data to read, or - for a pipe (default perf.data)\n"
		"  -f, --force            read files owned by another user than you or root: the\n"
		"                         input, --elfs-for's FILE and the dumps it names\n"
		"  -o, --output FILE      perf.data to write, or - for pipe mode on stdout (also when\n"
		"                         stdout is a file, as perf) (default perf.jit.data beside\n"
		"                         the input; stdout for input -)\n"
		"      --jit-dir DIR      read the dumps from DIR instead of the recorded paths\n"
		"      --all              write the ELF of every generation, not only sampled ones\n"
		"      --no-elfs          write no ELF file: record where each comes from (dump,\n"
		"                         identity, record offset) in the output; jitprof report,\n"
		"                         archive and buildid-list build them in memory on demand\n"
		"                         (needs a file output)\n"
		"      --elfs-for FILE    write the ELF files of a --no-elfs output FILE (for perf\n"
		"                         report), then exit; -i/-o are not used\n"
		"      --keep-stacks      a recording with copies of the user stacks (record\n"
		"                         --call-graph dwarf): keep the copies and registers in the\n"
		"                         samples as well as the unwound call chains (default: drop\n"
		"                         them, a far smaller output)\n"
		"      --cache            also copy the ELFs into the build-id cache\n"
		"      --buildid-dir DIR  build-id cache root (default $PERF_BUILDID_DIR or ~/.debug);\n"
		"                         implies --cache\n"
		"      --no-buildid-cache no build-id cache (the default; kept for old scripts)\n"
		"      --threads N        worker threads (default: ELF writers 4 per CPU, at least\n"
		"                         32, as they mostly wait on the file system; hashing: CPUs)\n"
		"      --follow-wait MS   pipe input: wait up to MS in all per dump for a running\n"
		"                         writer to write its code loads up to the stream's time\n"
		"                         (default %d; -1: never wait, still re-read as dumps grow)\n"
		"  -q, --quiet            no summary\n"
		"  -V, --version          jitprof's version\n"
		"  -h, --help             this text\n\n"
		"Exit status 3: the recording names no jitdump, or none could be read (nothing\n"
		"was injected; the output is a plain copy). 2: usage. 1: other errors.\n\n"
		"The recording must be on the dumps' clock: CLOCK_MONOTONIC dumps need a recording\n"
		"made with -k mono; arch-timestamp dumps are converted with its TIME_CONV.\n",
		INJ_FOLLOW_WAIT_MS);
}

static void on_warn(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	cli_warn("%s", msg);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	cli_progress("injecting", done, total);
}

static void on_progress_elfs(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	cli_progress("writing ELFs", done, total);
}

enum { OPT_JIT_DIR = 256, OPT_ALL, OPT_BUILDID_DIR, OPT_NO_CACHE, OPT_THREADS, OPT_NO_ELFS,
       OPT_ELFS_FOR, OPT_CACHE, OPT_FOLLOW, OPT_KEEP_STACKS };

static const struct option longopts[] = {
	{ "jit", no_argument, NULL, 'j' },
	{ "input", required_argument, NULL, 'i' },
	{ "force", no_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "jit-dir", required_argument, NULL, OPT_JIT_DIR },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
	{ "no-buildid-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "follow-wait", required_argument, NULL, OPT_FOLLOW },
	{ "no-elfs", no_argument, NULL, OPT_NO_ELFS },
	{ "elfs-for", required_argument, NULL, OPT_ELFS_FOR },
	{ "cache", no_argument, NULL, OPT_CACHE },
	{ "keep-stacks", no_argument, NULL, OPT_KEEP_STACKS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* How many user stacks were unwound into call chains, and why the walks that stopped early
 * stopped (each such chain ends in an [unknown] frame). */
static void stacks_summary(const struct inj_opts *o, const struct inj_stacks_stats *k)
{
	char why[UNW_ENDS_TEXT_MAX], hint[256];
	if (!k->walks)
		return;
	size_t len = unw_ends_format(k->ends, why, sizeof(why));
	unw_copy_end_hint(k->copy_cut, k->copy_size, hint, sizeof(hint));
	cli_info("%llu user stacks unwound into their samples' call chains (copies %s), %llu to "
		 "their root%s%s%s%s", (unsigned long long)k->rewritten,
		 o->keep_stacks ? "kept" : "dropped", (unsigned long long)k->ends[UNW_END_ROOT],
		 len ? "; the rest end in an [unknown] frame: " : "", why, *hint ? "; " : "", hint);
	if (k->interp_named || k->interp_unnamed)
		cli_info("%llu interpreted Java frames named by an address in their process's ELF "
			 "of interpreted methods (%llu such ELF%s), %llu left 'Interpreter' (a method "
			 "pointer or bcp the agent's method table does not hold)",
			 (unsigned long long)k->interp_named, (unsigned long long)k->interp_elfs,
			 k->interp_elfs == 1 ? "" : "s", (unsigned long long)k->interp_unnamed);
	if (k->too_big)
		cli_info("%llu samples left as recorded: with their stack copy kept, the unwound "
			 "chain does not fit in a record", (unsigned long long)k->too_big);
}

static void summary(const struct inj_opts *o, const struct inj_stats *st, const char *cache)
{
	cli_info("%llu dump(s): %llu code loads, %llu moves, %llu unloads as MMAP2; "
		 "%llu generations sampled",
		 (unsigned long long)st->dumps, (unsigned long long)st->loads,
		 (unsigned long long)st->moves, (unsigned long long)st->unloads,
		 (unsigned long long)st->loads_hit);
	if (o->no_elfs)
		cli_info("ELFs: none written, %llu recorded by origin (built on demand); %llu "
			 "anonymous code maps of dumping processes left out (the loads stand for "
			 "them)", (unsigned long long)st->origins,
			 (unsigned long long)st->anon_dropped);
	else
		cli_info("ELFs: %llu written, %llu already there%s%s%s; %llu anonymous code maps "
			 "of dumping processes left out (the loads stand for them)",
			 (unsigned long long)st->pool.written,
			 (unsigned long long)st->pool.reused, cache ? " (build-id cache " : "",
			 cache ? cache : "", cache ? ")" : "", (unsigned long long)st->anon_dropped);
	if (st->dumps_indexed && st->dumps_indexed < st->dumps + st->rereads)
		cli_info("%llu dump file(s) read and indexed once for the %llu processes and parts "
			 "naming them", (unsigned long long)st->dumps_indexed,
			 (unsigned long long)(st->dumps + st->rereads));
	if (st->clamped)
		cli_info("%llu code loads were read after %s had passed their time (marker or dump "
			 "written late) and take effect from there", (unsigned long long)st->clamped,
			 o->input);
	if (st->rereads || st->wait_ms)
		cli_info("dumps followed as they grew: %llu re-reads, %llu ms waiting for their "
			 "writers", (unsigned long long)st->rereads, (unsigned long long)st->wait_ms);
	if (st->unresolved)
		cli_info("%llu samples fell in jitted code ranges where no code load was mapped at "
			 "their time: they stay unresolved", (unsigned long long)st->unresolved);
	stacks_summary(o, &st->stacks);
	if (st->behind)
		cli_info("%llu dump(s) still short of the stream's time when --follow-wait ran out: "
			 "loads written later take effect where read", (unsigned long long)st->behind);
}

/* No -o: perf.jit.data beside the input (a pipe in gives a pipe out), never the input. */
static int default_output(struct inj_opts *o, char *buf, size_t len)
{
	char real[PATH_MAX], same[PATH_MAX];
	const char *slash;

	if (!strcmp(o->input, "-")) {
		o->output = "-";
		return 0;
	}
	slash = strrchr(o->input, '/');
	if (snprintf(buf, len, "%.*s%sperf.jit.data", slash ? (int)(slash - o->input) : 0,
		     o->input, slash ? "/" : "") >= (int)len)
		return cli_error("%s: path too long", o->input);
	if (realpath(o->input, real) && realpath(buf, same) && !strcmp(real, same))
		return cli_usage_error("%s is the default output: give -o FILE", o->input);
	o->output = buf;
	return 0;
}

static int elfs_for_cmd(const char *injected, const char *cache, int threads, int force)
{
	struct inj_pool_stats st;
	struct cli_log log = { 0 };
	if (cli_check_input_owner(injected, force))	/* its owner chose the dumps it names */
		return 1;
	int rc = inj_elfs_for(injected, cache, threads, force, &st, &CLI_LOG(&log));
	if (cli_log_done(&log, rc))	/* failed ELFs are its error */
		return 1;
	cli_info("ELFs for %s: %llu written, %llu already there%s%s%s", injected,
		 (unsigned long long)st.written, (unsigned long long)st.reused,
		 cache ? " (build-id cache " : "", cache ? cache : "", cache ? ")" : "");
	return 0;
}

int inject_write(struct inj_opts *o, struct inj_stats *stats)
{
	struct inj_stats st;
	struct cli_outfile out;
	int rc;

	if ((rc = cli_outfile_open(&out, o->output)) < 0)
		return cli_error("%s: %s", o->output, sio_strerror(rc));
	o->out_fd = out.fd;
	/* '-' is pipe mode even when stdout is a regular file, as perf: `cat out | report -i -`
	 * must read it. */
	o->out_pipe = out.unseekable || out.is_stdout;
	struct cli_log log = { .fn = on_warn };
	o->log = CLI_LOG(&log);
	o->progress_bytes = on_progress;
	if (isatty(STDERR_FILENO))
		o->progress_elfs = on_progress_elfs;

	rc = inj_run(o, &st);
	if (stats)
		*stats = st;
	cli_progress_end();
	if (rc < 0)
		cli_outfile_abort(&out);
	if (cli_log_done(&log, rc))
		return 1;
	if ((rc = cli_outfile_commit(&out)) < 0)
		return cli_error("%s: %s", o->output, sio_strerror(rc));
	summary(o, &st, o->cache_root);
	/* Asked to inject and nothing was: a forgotten agent must not pass for success. The
	 * output is still a faithful copy, for pipelines that go on regardless. */
	if (!st.dumps) {
		if (st.dumps_missing)
			return cli_error("none of the %llu jitdump(s) %s names could be read: "
					 "nothing injected (moved? use --jit-dir DIR)",
					 (unsigned long long)st.dumps_missing, o->input), 3;
		/* A native program's dwarf recording: the unwound stacks are what it asked. */
		if (st.stacks.rewritten) {
			cli_info("%s names no jitdump: only its user stacks were unwound", o->input);
			return 0;
		}
		return cli_error("%s names no jitdump (no jit-PID.dump mapping: the program ran "
				 "without a JIT agent, e.g. java -agentpath:libagent.so, or "
				 "node --perf-prof): nothing injected", o->input), 3;
	}
	return 0;
}

int cmd_inject(int argc, char **argv)
{
	struct inj_opts o = { .sz = sizeof(struct inj_opts), .input = "perf.data" };
	const char *cache = NULL, *elfs_for = NULL;
	char cache_buf[4096], out_buf[4096];
	int no_cache = 0, want_cache = 0, c, quiet = 0, rc, force = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ji:o:fqVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': break;
		case 'i': o.input = optarg; break;
		case 'f': force = 1; break;
		case 'o': o.output = optarg; break;
		case OPT_JIT_DIR: o.jit_dir = optarg; break;
		case OPT_ALL: o.all = 1; break;
		case OPT_BUILDID_DIR: cache = optarg; want_cache = 1; break;
		case OPT_NO_CACHE: no_cache = 1; break;
		case OPT_CACHE: want_cache = 1; break;
		case OPT_NO_ELFS: o.no_elfs = 1; break;
		case OPT_KEEP_STACKS: o.keep_stacks = 1; break;
		case OPT_ELFS_FOR: elfs_for = optarg; break;
		case OPT_THREADS: {
			char *end;
			long t = strtol(optarg, &end, 10);
			if (*end || t < 1 || t > 4096)
				return cli_usage_error("--threads: '%s' is not 1..4096", optarg);
			o.threads = (int)t;
			break;
		}
		case OPT_FOLLOW: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < -1 || v > 3600000) {
				fprintf(stderr, "jitprof inject: --follow-wait: %s is not -1 or a "
					"number of milliseconds\n", optarg);
				return 2;
			}
			o.follow_wait_ms = v ? (int)v : -1;
			break;
		}
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': return cli_version();
		default: return cli_usage_brief(usage);
		}
	}
	if (cli_check_input_owner(o.input, force))
		return 1;
	if (optind < argc) {
		return cli_usage_brief(usage);
	}
	if (o.no_elfs && elfs_for) {
		fprintf(stderr, "jitprof inject: --no-elfs cannot be combined with --elfs-for\n");
		return 2;
	}
	cli_set_quiet(quiet);
	if (!elfs_for && !o.output && (rc = default_output(&o, out_buf, sizeof(out_buf))))
		return rc;
	if (no_cache || o.no_elfs)
		want_cache = 0;
	if (want_cache && !cache) {
		if (synth_cache_default_root(cache_buf, sizeof(cache_buf)) < 0)
			return cli_error("no build-id cache directory ($HOME unset?); use "
					 "--buildid-dir DIR or --no-buildid-cache");
		cache = cache_buf;
	}
	o.cache_root = want_cache ? cache : NULL;
	/* ELFs that may not go beside their dump (another user's directory) go to the cache */
	if (!o.cache_root && !no_cache && !o.no_elfs &&
	    synth_cache_default_root(cache_buf, sizeof(cache_buf)) == 0)
		o.fallback_cache_root = cache_buf;
	if (elfs_for)
		return elfs_for_cmd(elfs_for, o.cache_root, o.threads, force);
	if (o.no_elfs && !strcmp(o.output, "-") && !isatty(STDOUT_FILENO)) {
		struct stat sb;
		if (fstat(STDOUT_FILENO, &sb) == 0 && !S_ISREG(sb.st_mode)) {
			fprintf(stderr, "jitprof inject: --no-elfs needs a file output (-o FILE): "
				"the origins of the ELFs are written at its end\n");
			return 2;
		}
	}
	if ((rc = cli_refuse_binary_tty(o.output, "perf.data")))
		return rc;

	return inject_write(&o, NULL);
}
