/* cmd_report.c - `jitprof report`: reads a (jit-injected) perf.data, resolves symbols by
 * build-id, and prints perf's overhead table, a call graph, the generations view, a compare
 * of two generations, JSON, folded stacks or a flame graph. This file parses the command
 * line; the run is report_exec (cmd_report_run.c), the work in recorder/report/. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_report.h"
#include "recorder/report/report.h"
#include "recorder/symbols/symbols.h"

enum {
	OPT_GENERATIONS = 256, OPT_METHOD, OPT_COMPARE, OPT_JSON, OPT_COLLAPSED,
	OPT_NO_DEMANGLE, OPT_SYMFS, OPT_ARCHIVE, OPT_KALLSYMS, OPT_CALL_GRAPH, OPT_PLIMIT,
	OPT_INLINE, OPT_NOP, OPT_BUILDID_DIR, OPT_JVM_LOG, OPT_NO_INLINE, OPT_SPLIT_GENS, OPT_PID,
	OPT_TID, OPT_EVENT, OPT_TIME, OPT_MIN_WIDTH, OPT_REVERSE, OPT_DIFF,
	OPT_DIFF_GENS, OPT_DEBUGINFOD_TIMEOUT, OPT_CHECK_GENS, OPT_METHODS,
	OPT_FILE,	/* OPT_FILE + id: the file of format id (formats.c), up to RP_FMT__MAX */
};

/* Every option but the files of the output formats, which come from their table. */
static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "force", no_argument, NULL, 'f' },
	{ "sort", required_argument, NULL, 's' },
	{ "rows", required_argument, NULL, 'n' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "percent-limit", required_argument, NULL, OPT_PLIMIT },
	{ "generations", no_argument, NULL, OPT_GENERATIONS },
	{ "check-generations", no_argument, NULL, OPT_CHECK_GENS },
	{ "methods", no_argument, NULL, OPT_METHODS },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "jvm-log", required_argument, NULL, OPT_JVM_LOG },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "collapsed", no_argument, NULL, OPT_COLLAPSED },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "split-generations", no_argument, NULL, OPT_SPLIT_GENS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "min-width", required_argument, NULL, OPT_MIN_WIDTH },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
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

#define NR_LONGOPTS (sizeof(longopts) / sizeof(longopts[0]) - 1)
static struct option all_opts[NR_LONGOPTS + RP_FMT__MAX + 1];

/* longopts and each format's file option ("--html FILE"), built once. */
static const struct option *report_options(void)
{
	if (all_opts[0].name)
		return all_opts;
	size_t n = NR_LONGOPTS;
	memcpy(all_opts, longopts, n * sizeof(*longopts));
	for (size_t i = 0; rp_format_at(i); i++) {
		const struct rp_format *f = rp_format_at(i);
		if (f->flag_takes_file)
			all_opts[n++] = (struct option){ f->flag + 2, required_argument, NULL,
							 OPT_FILE + (int)f->id };
	}
	return all_opts;
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
	while ((c = getopt_long(argc, argv, "i:fs:n:gqVh", report_options(), NULL)) != -1) {
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
		case 'q': cli_set_quiet(1); a->quiet = 1; break;
		case 'h': report_usage(stdout); exit(0);
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
		case OPT_CHECK_GENS: a->check_gens = a->generations = 1; break;
		case OPT_METHODS: a->methods = 1; break;
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
		case OPT_INLINE: a->no_inline = 0; break;	/* the default now */
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
			if (c >= OPT_FILE && c < OPT_FILE + RP_FMT__MAX) {
				a->file[c - OPT_FILE] = optarg;
				break;
			}
			return cli_usage_brief(report_usage);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (see --help)", argv[optind]);
	a->in.force = (size_t)a->force;	/* the dumps and perf maps the recordings name */
	if (a->diff_base && cli_check_input_owner(a->diff_base, a->force))
		return 1;
	return cli_check_input_owner(a->in.input, a->force);
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

int report_has_option(const char *flag, int *takes_arg)
{
	if (strncmp(flag, "--", 2))
		return 0;
	for (const struct option *o = report_options(); o->name; o++)
		if (!strcmp(o->name, flag + 2)) {
			if (takes_arg)
				*takes_arg = o->has_arg == required_argument;
			return 1;
		}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a;
	report_args_init(&a);
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	if (a.nr_archives)
		remove_unpacked_on_signals();
	a.in.fast_exit = !CLI_LEAK_CHECKED;
	return report_exec(&a, stdout);
}
