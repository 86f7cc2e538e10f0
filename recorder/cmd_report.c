/* cmd_report.c - `jitprof report`: reads a (jit-injected) perf.data, resolves symbols by
 * build-id, and prints perf's overhead table, a call graph, the generations view, a compare
 * of two generations, JSON, folded stacks or a flame graph. The work is in recorder/report/. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/cli.h"
#include "recorder/cmd_report.h"
#include "recorder/report/report.h"
#include "recorder/symbols/symbols.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof report [-i perf.data] [options]\n\n"
		"Overhead per command, shared object and symbol, like perf report --stdio --no-children;\n"
		"and how each generation of every jitted method performed.\n\n"
		"  -i, --input FILE        perf.data to read (default perf.data; - for stdin)\n"
		"  -f, --force             read files owned by another user than you or root: the\n"
		"                          recordings, the dumps of an inject --no-elfs recording,\n"
		"                          /tmp/perf-PID.map files\n"
		"  -s, --sort KEYS         comma list of comm,pid,dso,sym,srcline,generation\n"
		"                          (default comm,dso,sym)\n"
		"  -g [caller|callee]      call graph under each row, as perf report -g prints it\n"
		"                          (default caller: outermost frame first, as perf 6.1);\n"
		"                          with --json each row's stacks, in that order\n"
		"      --call-graph MODE   callee, caller or none\n"
		"      --percent-limit P   hide rows (table, --json) and call graph branches under P%%\n"
		"                          (default: rows 0, branches 0.5, as perf)\n"
		"  -n, --rows N            print only the first N rows\n"
		"      --generations       every generation of methods compiled more than once\n"
		"      --method NAME       only methods whose name contains NAME as typed, or that\n"
		"                          NAME matches as a regex (with --generations); with\n"
		"                          other outputs, only samples with such a frame\n"
		"      --jvm-log FILE      HotSpot's compilation log of the recorded JVM (run it with\n"
		"                          -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation\n"
		"                          -XX:LogFile=FILE): why each generation ended, what it\n"
		"                          inlined (with --generations, --compare, and --html's\n"
		"                          timeline)\n"
		"      --compare METHOD GEN_A GEN_B\n"
		"                          two generations per source line, inlining decision\n"
		"                          and instruction (aligned by code); METHOD is the exact\n"
		"                          name, or names one method as --method does (several:\n"
		"                          exit 2)\n"
		"      --json              the table (and --generations) as JSON; with -g each row's\n"
		"                          heaviest call stacks\n"
		"      --collapsed         folded stacks (flamegraph.pl, speedscope)\n"
		"      --flamegraph FILE   interactive flame graph SVG\n"
		"      --html FILE         one self-contained interactive page: flame graph, generations\n"
		"                          timeline, top table (--sort, -n), hottest lines\n"
		"      --speedscope FILE   speedscope's JSON: one sampled profile per thread, in time\n"
		"                          order\n"
		"      --pprof FILE        pprof's profile.proto, gzipped (go tool pprof FILE)\n"
		"      --min-width PX      frames narrower merge into one box (default 1; --html 0.1)\n"
		"      --reverse           flame graph of callers: leaf functions at the root\n"
		"      --diff BASE NEW     flame graph (--flamegraph, --html) of NEW coloured by change\n"
		"                          since BASE (red: a larger share, blue: smaller); replaces -i\n"
		"      --diff-generations METHOD GEN_A GEN_B\n"
		"                          the same for the samples through generation GEN_B of\n"
		"                          METHOD (as --method) against those through GEN_A\n"
		"      --no-inline         no inlined functions in call chains (shown by default,\n"
		"                          marked _[i])\n"
		"      --split-generations one frame per generation of a method (\" [gen N]\") in\n"
		"                          call stacks: -g, folded stacks, flame graphs and exports\n"
		"                          (default: one frame per method; the table's rows stay one\n"
		"                          per generation's ELF, as perf's)\n"
		"      --pid PID           only samples of process PID\n"
		"      --tid TID           only samples of thread TID\n"
		"      --event NAME        the event to report when the recording has several\n"
		"                          (perf record -e a,b; default: the first recorded);\n"
		"                          offcpu, wall: time blocked / on- plus off-CPU time\n"
		"                          per thread, from record --off-cpu (views in ns, ms)\n"
		"      --time START,END    only samples between START and END seconds after the\n"
		"                          recording's start (either may be empty)\n"
		"      --no-demangle       raw symbol names\n"
		"      --symfs DIR         look for recorded files under DIR\n"
		"      --archive FILE      a `jitprof archive` file (or cache-like directory) to find\n"
		"                          ELFs by build-id in; may be repeated\n"
		"      --buildid-dir DIR   the build-id cache (default $PERF_BUILDID_DIR or ~/.debug)\n"
		"      --debuginfod-timeout SECONDS\n"
		"                          what all debuginfod requests (DEBUGINFOD_URLS) may take\n"
		"                          together (default 30; each also within its own\n"
		"                          DEBUGINFOD_TIMEOUT)\n"
		"      --vmlinux FILE      kernel image for kernel symbols\n"
		"      --kallsyms FILE     kernel symbols (default /proc/kallsyms when it matches)\n"
		"  -q, --quiet             no warnings (missing or refused files)\n"
		"      --stdio, --no-children   accepted for perf compatibility\n"
		"  -V, --version           jitprof's version\n"
		"  -h, --help              this text\n");
}

enum {
	OPT_GENERATIONS = 256, OPT_METHOD, OPT_COMPARE, OPT_JSON, OPT_COLLAPSED, OPT_FLAME,
	OPT_NO_DEMANGLE, OPT_SYMFS, OPT_ARCHIVE, OPT_KALLSYMS, OPT_CALL_GRAPH, OPT_PLIMIT,
	OPT_INLINE, OPT_NOP, OPT_BUILDID_DIR, OPT_JVM_LOG, OPT_NO_INLINE, OPT_SPLIT_GENS, OPT_PID,
	OPT_TID, OPT_EVENT, OPT_TIME, OPT_MIN_WIDTH, OPT_REVERSE, OPT_HTML, OPT_SPEEDSCOPE, OPT_PPROF, OPT_DIFF,
	OPT_DIFF_GENS, OPT_DEBUGINFOD_TIMEOUT,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "force", no_argument, NULL, 'f' },
	{ "sort", required_argument, NULL, 's' },
	{ "rows", required_argument, NULL, 'n' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "percent-limit", required_argument, NULL, OPT_PLIMIT },
	{ "generations", no_argument, NULL, OPT_GENERATIONS },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "jvm-log", required_argument, NULL, OPT_JVM_LOG },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "collapsed", no_argument, NULL, OPT_COLLAPSED },
	{ "flamegraph", required_argument, NULL, OPT_FLAME },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "split-generations", no_argument, NULL, OPT_SPLIT_GENS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "min-width", required_argument, NULL, OPT_MIN_WIDTH },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "speedscope", required_argument, NULL, OPT_SPEEDSCOPE },
	{ "pprof", required_argument, NULL, OPT_PPROF },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "diff-generations", required_argument, NULL, OPT_DIFF_GENS },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "archive", required_argument, NULL, OPT_ARCHIVE },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
	{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
	{ "vmlinux", required_argument, NULL, 'k' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "stdio", no_argument, NULL, OPT_NOP },
	{ "no-children", no_argument, NULL, OPT_NOP },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};


static int quiet;
/* Reachable until exit, so leak checkers do not count what is deliberately not freed. */
static struct rp_session *volatile kept_session;

/* Missing or refused files are warnings (-q silences them); damage in the input is always
 * said. Neither stops the report: it covers what could be read. */
static void on_report(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	if (level >= 2 || (level == 1 && !quiet))
		cli_warn("%s", msg);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	cli_progress("reading samples", done, total);
}

static int parse_graph(const char *v, enum rp_graph_mode *g)
{
	if (!strcmp(v, "caller"))
		*g = RP_GRAPH_CALLER;
	else if (!strcmp(v, "callee") || !strcmp(v, "graph"))
		*g = RP_GRAPH_CALLEE;
	else if (!strcmp(v, "none"))
		*g = RP_GRAPH_NONE;
	else
		return -EINVAL;
	return 0;
}

static int parse_gen(const char *v, uint32_t *g)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (!*v || *end || !n || n > UINT32_MAX)
		return -EINVAL;
	*g = (uint32_t)n;
	return 0;
}

static int parse_id(const char *v, uint32_t *id)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (!*v || *end || errno || n > INT32_MAX)
		return -EINVAL;
	*id = (uint32_t)n;
	return 0;
}

/* "START,END" in seconds after the recording's start; either side may be empty. */
static int parse_time(const char *v, struct rp_filter *f)
{
	const char *comma = strchr(v, ',');
	if (!comma)
		return -EINVAL;
	double t[2] = { 0, 0 };
	const char *part[2] = { v, comma + 1 };
	size_t len[2] = { (size_t)(comma - v), strlen(comma + 1) };
	for (int i = 0; i < 2; i++) {
		if (!len[i])
			continue;
		char buf[64], *end;
		if (len[i] >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, part[i], len[i]);
		buf[len[i]] = 0;
		t[i] = strtod(buf, &end);
		if (*end || !(t[i] >= 0) || t[i] > 1e9)
			return -EINVAL;
	}
	if (len[1] && t[1] <= t[0])
		return -EINVAL;
	f->from_ns = (uint64_t)(t[0] * 1e9);
	f->to_ns = len[1] ? (uint64_t)(t[1] * 1e9) : 0;
	return 0;
}

/* Usage errors exit 2, like getopt's. */
/* Every usage error exits 2 and says where the help is (cli.c). */
#define usage_error(...) cli_usage_error(__VA_ARGS__)

/* perf users type "-g caller": fold a mode word after -g into --call-graph. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	int c;
	char *end;
	optind = 1;
	for (int i = 1; i + 1 < argc; i++) {
		enum rp_graph_mode g;
		if (!strcmp(argv[i], "-g") && !parse_graph(argv[i + 1], &g)) {
			a->graph = g;
			a->graph_given = 1;
			memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof(*argv));
			argc -= 2;
			argv[argc] = NULL;
			i--;
		}
	}
	while ((c = getopt_long(argc, argv, "i:fs:n:gqVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': a->in.input = optarg; a->input_given = 1; break;
		case 'f': a->force = 1; break;
		case 's': a->sort = optarg; a->sort_given = 1; break;
		case 'n': {
			char *end;
			a->rows = strtoul(optarg, &end, 10);
			if (!*optarg || *end)
				return usage_error("-n: '%s' is not a number of rows", optarg);
			a->rows_given = 1;
			break;
		}
		case 'g': a->graph = RP_GRAPH_CALLER; a->graph_given = 1; break;
		case 'k': a->in.vmlinux = optarg; break;
		case 'q': cli_set_quiet(1); quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': exit(cli_version());
		case OPT_CALL_GRAPH:
			if (parse_graph(optarg, &a->graph))
				return usage_error("--call-graph: '%s' is not caller, callee or none", optarg);
			a->graph_given = 1;
			break;
		case OPT_PLIMIT:
			a->plimit = strtod(optarg, &end);
			if (!*optarg || *end || !(a->plimit >= 0 && a->plimit <= 100))
				return cli_error("--percent-limit: '%s' is not a percentage", optarg);
			a->plimit_given = 1;
			break;
		case OPT_GENERATIONS: a->generations = 1; break;
		case OPT_METHOD: a->method = optarg; break;
		case OPT_JVM_LOG: a->jvm_log = optarg; break;
		case OPT_COMPARE:
			if (optind + 1 >= argc || parse_gen(argv[optind], &a->cmp_a) ||
			    parse_gen(argv[optind + 1], &a->cmp_b))
				return usage_error("--compare takes METHOD GEN_A GEN_B (generation numbers "
						 "from 1)");
			a->cmp_method = optarg;
			a->compare = 1;
			optind += 2;
			break;
		case OPT_JSON: a->json = 1; break;
		case OPT_COLLAPSED: a->collapsed = 1; break;
		case OPT_FLAME: a->flame = optarg; break;
		case OPT_INLINE: a->no_inline = 0; break;	/* the default now */
		case OPT_HTML: a->html = optarg; break;
		case OPT_SPEEDSCOPE: a->speedscope = optarg; break;
		case OPT_PPROF: a->pprof = optarg; break;
		case OPT_DIFF_GENS:
			if (optind + 1 >= argc || parse_gen(argv[optind], &a->diff_gen_a) ||
			    parse_gen(argv[optind + 1], &a->diff_gen_b))
				return usage_error("--diff-generations takes METHOD GEN_A GEN_B "
						   "(generation numbers from 1)");
			a->diff_method = optarg;
			optind += 2;
			break;
		case OPT_DIFF:
			if (optind >= argc)
				return usage_error("--diff takes two recordings: BASE NEW");
			a->diff_base = optarg;
			a->in.input = argv[optind++];
			break;
		case OPT_EVENT: a->in.event = optarg; break;
		case OPT_NO_INLINE: a->no_inline = 1; break;
		case OPT_SPLIT_GENS: a->split_gens = 1; break;
		case OPT_PID:
		case OPT_TID:
			if (parse_id(optarg, c == OPT_PID ? &a->filter.pid : &a->filter.tid))
				return usage_error("--%s: '%s' is not a process/thread id",
						 c == OPT_PID ? "pid" : "tid", optarg);
			*(c == OPT_PID ? &a->filter.has_pid : &a->filter.has_tid) = 1;
			break;
		case OPT_MIN_WIDTH: {
			char *end;
			a->min_width = strtod(optarg, &end);
			if (!*optarg || *end || !(a->min_width > 0) || a->min_width > 1000)
				return usage_error("--min-width: '%s' is not a width in pixels (0 < W <= "
						 "1000)", optarg);
			break;
		}
		case OPT_REVERSE: a->reverse = 1; break;
		case OPT_TIME:
			if (parse_time(optarg, &a->filter))
				return usage_error("--time: '%s' is not START,END in seconds (0 <= START "
						 "< END; either may be empty)", optarg);
			break;
		case OPT_NO_DEMANGLE: a->in.no_demangle = 1; break;
		case OPT_SYMFS: a->in.symfs = optarg; break;
		case OPT_BUILDID_DIR: a->in.buildid_dir = optarg; break;
		case OPT_DEBUGINFOD_TIMEOUT:
			if (cli_debuginfod_timeout(optarg, &a->in.debuginfod_timeout))
				return 2;
			break;
		case OPT_ARCHIVE:
			if (a->nr_archives + 1 >= (int)(sizeof(a->archives) / sizeof(a->archives[0])))
				return usage_error("too many --archive options");
			a->archives[a->nr_archives++] = optarg;
			break;
		case OPT_KALLSYMS: a->in.kallsyms = optarg; break;
		case OPT_NOP: break;
		default:
			return cli_usage_brief(usage);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (see --help)", argv[optind]);
	a->in.force = (size_t)a->force;	/* the dumps and perf maps the recordings name */
	if (a->diff_base && cli_check_input_owner(a->diff_base, a->force))
		return 1;
	return cli_check_input_owner(a->in.input, a->force);
}

struct file_job {
	struct report_args *a;
	struct rp_session *s;
	const enum rp_key *keys;
	int nr_keys;
	char title[512];
};

static int write_flame(FILE *fp, struct file_job *j)
{
	struct rp_flame_opts fo = { .title = j->title, .min_width = j->a->min_width,
				    .reverse = j->a->reverse, .base = j->a->base,
				    .log = &j->a->in.log };
	return rp_write_flamegraph(fp, j->s, &fo);
}

static int write_html(FILE *fp, struct file_job *j)
{
	struct rp_html_opts ho = { .title = j->title, .keys = j->keys, .nr_keys = j->nr_keys,
				   .max_rows = j->a->rows, .min_width = j->a->min_width,
				   .base = j->a->base, .log = &j->a->in.log };
	return rp_write_html(fp, j->s, &ho);
}

static int write_speedscope(FILE *fp, struct file_job *j)
{
	return rp_write_speedscope(fp, j->s, j->title);
}

static int write_pprof(FILE *fp, struct file_job *j)
{
	return rp_write_pprof(fp, j->s);
}

/* Written to a temporary name and renamed: a failed run leaves no half file. */
static int write_file(const char *path, int (*fn)(FILE *, struct file_job *),
		      struct file_job *j)
{
	struct cli_outfile o;
	int rc;
	if ((rc = cli_outfile_open(&o, path)))
		return cli_error("%s: %s", path, sio_strerror(rc));
	if ((rc = fn(o.fp, j))) {
		cli_outfile_abort(&o);
		return cli_error("%s: %s", path, sio_strerror(rc));
	}
	if ((rc = cli_outfile_commit(&o)))
		return cli_error("%s: %s", path, sio_strerror(rc));
	return 0;
}

/* --diff's base recording, read and filtered as the shown one. */
static int ingest_base(struct report_args *a, struct rp_session *s)
{
	struct rp_ingest_opts in = a->in;
	struct rp_filter f = a->filter;
	if (a->diff_base)
		in.input = a->diff_base;
	else
		f.generation = a->diff_gen_a;
	in.fast_exit = 0;
	int rc = rp_session_new(&a->base);
	if (rc)
		return cli_error("out of memory");
	rc = rp_ingest(a->base, &in);
	cli_progress_end();
	if (cli_log_done(a->in.log.ctx, rc))
		return 1;
	rp_set_split_generations(a->base, rp_split_generations(s));
	rp_session_filter(a->base, &f);
	return 0;
}

/* A method named as shown matches as typed; one that is no regex either may be a mistyped
 * regex: said, not refused. */
static void note_method_names(const struct report_args *a)
{
	const char *names[] = { a->method, a->cmp_method, a->diff_method };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char why[128];
		if (names[i] && !rp_name_is_regex(names[i], why, sizeof(why)))
			cli_warn("'%s' is no regular expression (%s): it matches the methods whose "
				 "names contain it as typed", names[i], why);
	}
}

static int run(struct report_args *a, struct rp_session *s)
{
	enum rp_key keys[RP_MAX_KEYS];
	int nr_keys;
	char err[512] = "";
	int rc = rp_parse_sort(a->sort, keys, &nr_keys, err, sizeof(err));
	if (rc)
		return usage_error("--sort: %s", err);
	if ((rc = report_check_outputs(a)))
		return rc;
	note_method_names(a);
	int gen_key = 0, line_key = 0;
	for (int k = 0; k < nr_keys; k++) {
		gen_key |= keys[k] == RP_KEY_GENERATION;
		line_key |= keys[k] == RP_KEY_SRCLINE;
	}
	int stacks = a->collapsed || a->flame || a->html || a->speedscope || a->pprof;
	a->in.want_callchain = a->graph != RP_GRAPH_NONE || stacks;
	/* Inline chains come from DWARF lines: read them for call chains, and for --method on
	 * the other outputs, which keeps the samples with a frame of the method, inlined ones
	 * included (a method C2 inlined everywhere has no frame of its own). */
	int method_filter = (a->method && !a->generations && !a->compare) || a->diff_method;
	a->in.want_inline = !a->no_inline && (a->in.want_callchain || method_filter);
	a->in.want_lines = a->generations || a->compare || line_key || a->in.want_inline ||
			   a->html;
	/* Loads also give lines from the jitdump when the ELF's DWARF cannot be read; call
	 * stacks need them to know a method's generations (one frame unless split). */
	a->in.want_loads = a->in.want_lines || gen_key || a->in.want_callchain;
	a->in.want_code = a->compare;
	/* Nothing of a jitted ELF but its symbol is read: an --no-elfs recording's are built
	 * without their line tables (their records not even read). */
	a->in.jitted_symbols_only = !a->in.want_lines && !a->in.want_inline && !a->in.want_code &&
				    !a->jvm_log;
	a->in.want_sites = a->jvm_log != NULL;
	/* Frames alone: the loads no frame lands in need no names. Every generation is listed
	 * by --generations, --compare, --jvm-log, the generation key, --split-generations'
	 * numbering, and the flame graph's tooltips (--html's too). */
	a->in.sampled_loads_only = a->in.want_loads && !a->generations && !a->compare &&
				   !a->jvm_log && !gen_key && !a->split_gens && !a->flame &&
				   !a->html && !a->diff_method;
	/* The flame graph's tooltips and --html's timeline list every generation of a method
	 * with samples, and of no other. */
	a->in.sampled_methods_only = a->in.want_loads && !a->in.sampled_loads_only &&
				     !a->generations && !a->compare && !a->jvm_log && !gen_key &&
				     !a->split_gens && !a->diff_method;
	a->in.archives = a->nr_archives ? a->archives : NULL;
	/* A log that is no log is refused before the (longer) read of the recording. */
	if (a->jvm_log && (rc = rp_jvmlog_open(&a->jl, a->jvm_log, err, sizeof(err))))
		return cli_error("--jvm-log: %s", err);
	rc = rp_ingest(s, &a->in);
	cli_progress_end();
	if (cli_log_done(a->in.log.ctx, rc))
		return 1;
	if (a->jvm_log) {
		if ((rc = rp_session_join_jvmlog(s, a->jl, err, sizeof(err))))
			return cli_error("--jvm-log %s: %s", a->jvm_log, err);
		if (rp_jvmlog_notes(a->jl))
			cli_warn("--jvm-log: %s", rp_jvmlog_notes(a->jl));
		if (rp_jvmlog_cut(a->jl))
			cli_warn("--jvm-log: truncated log used up to the cut: %s",
				 rp_jvmlog_cut(a->jl));
	}
	rp_set_split_generations(s, a->split_gens);
	/* --generations lists the methods matching --method; elsewhere it keeps the samples
	 * with such a method on their stack. */
	if (!a->generations && !a->compare)
		a->filter.method = a->method;
	if (a->diff_method) {
		a->filter.method = a->diff_method;
		a->filter.generation = a->diff_gen_b;
	}
	rp_session_filter(s, &a->filter);

	if ((a->diff_base || a->diff_method) && (rc = ingest_base(a, s)))
		return rc;
	int files = a->flame || a->html || a->speedscope || a->pprof;
	struct file_job job = { .a = a, .s = s, .keys = keys, .nr_keys = nr_keys };
	if (a->diff_method)
		snprintf(job.title, sizeof(job.title), "jitprof: %s, generation %u of %s against "
			 "generation %u", a->in.input, a->diff_gen_b, a->diff_method, a->diff_gen_a);
	else if (a->diff_base)
		snprintf(job.title, sizeof(job.title), "jitprof: %s against %s", a->in.input,
			 a->diff_base);
	else
		snprintf(job.title, sizeof(job.title), "jitprof: %s", a->in.input);
	if (a->flame && (rc = write_file(a->flame, write_flame, &job)))
		return rc;
	if (a->html && (rc = write_file(a->html, write_html, &job)))
		return rc;
	if (a->speedscope && (rc = write_file(a->speedscope, write_speedscope, &job)))
		return rc;
	if (a->pprof && (rc = write_file(a->pprof, write_pprof, &job)))
		return rc;
	if (a->collapsed)
		return rp_print_collapsed(stdout, s) ? cli_error("writing stdout failed") : 0;
	if (a->compare) {
		rc = rp_print_compare(stdout, s, a->cmp_method, a->cmp_a, a->cmp_b, err, sizeof(err));
		if (rc == -ENOTUNIQ)	/* an ambiguous METHOD is a usage error */
			return cli_error("--compare: %s", err), 2;
		return rc ? cli_error("--compare: %s", err) : 0;
	}
	if (a->generations && !a->json) {
		rc = rp_print_generations(stdout, s, a->method);
		return rc ? cli_error("%s", err[0] ? err : strerror(-rc)) : 0;
	}
	if (files && !a->json)
		return 0;	/* only files were asked for */
	struct rp_hist h;
	if ((rc = rp_hist_build(&h, s, keys, nr_keys, a->graph != RP_GRAPH_NONE)))
		return cli_error("aggregating samples: %s", strerror(-rc));
	if (a->json) {
		size_t all = h.nr_entries;
		if (a->rows && a->rows < h.nr_entries)
			h.nr_entries = a->rows;	/* -n: the first rows, as the table */
		/* --percent-limit: rows come heaviest first, cut at the first one under it. */
		for (size_t i = 0; a->plimit_given && i < h.nr_entries; i++)
			if (100.0 * h.entries[i].period < a->plimit * h.total_period)
				h.nr_entries = i;
		h.leaf_first = a->graph == RP_GRAPH_CALLEE;
		rc = rp_print_json(stdout, &h, s, a->method, a->generations);
		h.nr_entries = all;
	} else {
		struct rp_table_opts to = { .max_rows = a->rows, .graph = a->graph,
					    .graph_min_percent = a->plimit,
					    .min_percent = a->plimit_given ? a->plimit : 0 };
		rc = rp_print_table(stdout, &h, &to);
	}
	rp_hist_free(&h);
	return rc ? cli_error("writing the report failed: %s", strerror(-rc)) : 0;
}

/* Interrupted while --archive's files are unpacked: they go with us (issue 34 finding 15). */
static void on_signal(int sig)
{
	sym_remove_unpacked_now();
	_exit(128 + sig);
}

static void remove_unpacked_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)	/* nohup */
			sigaction(sigs[i], &sa, NULL);
	}
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .in = { .sz = sizeof(struct rp_ingest_opts) },
				 .sort = "comm,dso,sym", .plimit = 0.5 };
	a.in.input = "perf.data";
	static struct cli_log report_log = { .fn = on_report };
	a.in.log = CLI_LOG(&report_log);
	a.in.progress = on_progress;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	if (a.nr_archives)
		remove_unpacked_on_signals();
	struct rp_session *s;
	if (rp_session_new(&s))
		return cli_error("out of memory");
	a.in.fast_exit = !CLI_LEAK_CHECKED;
	rc = run(&a, s);
	/* The session dies with the process: freeing it piece by piece only costs time. */
	if (CLI_LEAK_CHECKED) {
		rp_session_free(s);
		rp_session_free(a.base);
		rp_jvmlog_free(a.jl);
	} else {
		kept_session = s;
	}
	return rc;
}
