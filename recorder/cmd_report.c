/* cmd_report.c - `jitprof report`: reads a (jit-injected) perf.data, resolves symbols by
 * build-id, and prints perf's overhead table, a call graph, the generations view, a compare
 * of two generations, JSON, folded stacks or a flame graph. The work is in recorder/report/. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/cli.h"
#include "recorder/report/report.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof report [-i perf.data] [options]\n\n"
		"Overhead per command, shared object and symbol, like perf report --stdio --no-children;\n"
		"and how each generation of every jitted method performed.\n\n"
		"  -i, --input FILE        perf.data to read (default perf.data; - for stdin)\n"
		"  -s, --sort KEYS         comma list of comm,pid,dso,sym,srcline,generation\n"
		"                          (default comm,dso,sym)\n"
		"  -g [caller|callee]      call graph under each row, as perf report -g prints it\n"
		"                          (default caller: outermost frame first, as perf 6.1)\n"
		"      --call-graph MODE   callee, caller or none\n"
		"      --percent-limit P   hide rows and call graph branches under P%%\n"
		"                          (default: rows 0, branches 0.5, as perf)\n"
		"  -n, --rows N            print only the first N rows\n"
		"      --generations       every generation of methods compiled more than once\n"
		"      --method REGEX      only methods matching REGEX (with --generations)\n"
		"      --jvm-log FILE      HotSpot's compilation log of the recorded JVM (run it with\n"
		"                          -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation\n"
		"                          -XX:LogFile=FILE): why each generation ended, what it\n"
		"                          inlined (with --generations and --compare)\n"
		"      --compare METHOD GEN_A GEN_B\n"
		"                          two generations per source line, inlining decision\n"
		"                          and instruction (aligned by code); METHOD is the exact\n"
		"                          name or a regex naming one method (several: exit 2)\n"
		"      --json              the table (and --generations) as JSON\n"
		"      --collapsed         folded stacks (flamegraph.pl, speedscope)\n"
		"      --flamegraph FILE   interactive flame graph SVG\n"
		"      --inline            show inlined functions in call chains\n"
		"      --no-demangle       raw symbol names\n"
		"      --symfs DIR         look for recorded files under DIR\n"
		"      --archive FILE      a `jitprof archive` file (or cache-like directory) to find\n"
		"                          ELFs by build-id in; may be repeated\n"
		"      --buildid-dir DIR   the build-id cache (default $PERF_BUILDID_DIR or ~/.debug)\n"
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
	OPT_INLINE, OPT_NOP, OPT_BUILDID_DIR, OPT_JVM_LOG,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
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
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "archive", required_argument, NULL, OPT_ARCHIVE },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
	{ "vmlinux", required_argument, NULL, 'k' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "stdio", no_argument, NULL, OPT_NOP },
	{ "no-children", no_argument, NULL, OPT_NOP },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct report_args {
	struct rp_ingest_opts in;
	const char *sort, *method, *flame, *cmp_method, *jvm_log;
	struct rp_jvmlog *jl;		/* --jvm-log, joined into the session */
	const char *archives[16];
	int nr_archives;
	uint32_t cmp_a, cmp_b;
	int generations, json, collapsed, compare, sort_given;
	enum rp_graph_mode graph;
	double plimit;
	int plimit_given;
	size_t rows;
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
			memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof(*argv));
			argc -= 2;
			argv[argc] = NULL;
			i--;
		}
	}
	while ((c = getopt_long(argc, argv, "i:s:n:gqVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': a->in.input = optarg; break;
		case 's': a->sort = optarg; a->sort_given = 1; break;
		case 'n': {
			char *end;
			a->rows = strtoul(optarg, &end, 10);
			if (!*optarg || *end || optarg[0] == '-')
				return cli_usage_error("-n: '%s' is not a number of rows", optarg);
			break;
		}
		case 'g': a->graph = RP_GRAPH_CALLER; break;
		case 'k': a->in.vmlinux = optarg; break;
		case 'q': cli_set_quiet(1); quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': exit(cli_version());
		case OPT_CALL_GRAPH:
			if (parse_graph(optarg, &a->graph))
				return cli_usage_error("--call-graph: '%s' is not caller, callee or "
						       "none", optarg);
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
				return cli_usage_error("--compare takes METHOD GEN_A GEN_B (generation "
						       "numbers from 1)");
			a->cmp_method = optarg;
			a->compare = 1;
			optind += 2;
			break;
		case OPT_JSON: a->json = 1; break;
		case OPT_COLLAPSED: a->collapsed = 1; break;
		case OPT_FLAME: a->flame = optarg; break;
		case OPT_INLINE: a->in.want_inline = 1; break;
		case OPT_NO_DEMANGLE: a->in.no_demangle = 1; break;
		case OPT_SYMFS: a->in.symfs = optarg; break;
		case OPT_BUILDID_DIR: a->in.buildid_dir = optarg; break;
		case OPT_ARCHIVE:
			if (a->nr_archives + 1 >= (int)(sizeof(a->archives) / sizeof(a->archives[0])))
				return cli_usage_error("too many --archive options");
			a->archives[a->nr_archives++] = optarg;
			break;
		case OPT_KALLSYMS: a->in.kallsyms = optarg; break;
		case OPT_NOP: break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static int run(struct report_args *a, struct rp_session *s)
{
	enum rp_key keys[RP_MAX_KEYS];
	int nr_keys;
	char err[512] = "";
	int rc = rp_parse_sort(a->sort, keys, &nr_keys, err, sizeof(err));
	if (rc)
		return cli_usage_error("--sort: %s", err);
	int gen_key = 0, line_key = 0;
	for (int k = 0; k < nr_keys; k++) {
		gen_key |= keys[k] == RP_KEY_GENERATION;
		line_key |= keys[k] == RP_KEY_SRCLINE;
	}
	int tagged = a->collapsed || a->flame;
	a->in.want_lines = a->generations || a->compare || line_key || a->in.want_inline;
	/* Loads also give lines from the jitdump when the ELF's DWARF cannot be read. */
	a->in.want_loads = a->in.want_lines || gen_key || tagged;
	a->in.want_callchain = a->graph != RP_GRAPH_NONE || tagged;
	a->in.want_code = a->compare;
	a->in.want_sites = a->jvm_log != NULL;
	a->in.archives = a->nr_archives ? a->archives : NULL;
	/* A log that is no log is refused before the (longer) read of the recording. */
	if (a->jvm_log && (rc = rp_jvmlog_open(&a->jl, a->jvm_log, err, sizeof(err))))
		return cli_error("--jvm-log: %s", err);
	rc = rp_ingest(s, &a->in, err, sizeof(err));
	cli_progress_end();
	if (rc)
		return cli_error("%s", err[0] ? err : strerror(-rc));
	if (a->jvm_log) {
		if ((rc = rp_session_join_jvmlog(s, a->jl, err, sizeof(err))))
			return cli_error("--jvm-log %s: %s", a->jvm_log, err);
		if (rp_jvmlog_cut(a->jl))
			cli_warn("--jvm-log: truncated log used up to the cut: %s",
				 rp_jvmlog_cut(a->jl));
	}

	if (a->flame) {
		struct cli_outfile o;
		if ((rc = cli_outfile_open(&o, a->flame)))
			return cli_error("%s: %s", a->flame, strerror(-rc));
		char title[512];
		snprintf(title, sizeof(title), "jitprof: %s", a->in.input);
		rc = rp_write_flamegraph(o.fp, s, title);
		if (rc) {
			cli_outfile_abort(&o);
			return cli_error("%s: %s", a->flame, strerror(-rc));
		}
		if ((rc = cli_outfile_commit(&o)))
			return cli_error("%s: %s", a->flame, strerror(-rc));
	}
	if (a->collapsed)
		return rp_print_collapsed(stdout, s) ? cli_error("writing stdout failed") : 0;
	if (a->compare) {
		rc = rp_print_compare(stdout, s, a->cmp_method, a->cmp_a, a->cmp_b, err, sizeof(err));
		if (rc == -ENOTUNIQ)	/* an ambiguous METHOD is a usage error */
			return cli_error("--compare: %s", err), 2;
		return rc ? cli_error("--compare: %s", err) : 0;
	}
	if (a->generations && !a->json) {
		rc = rp_print_generations(stdout, s, a->method, err, sizeof(err));
		return rc ? cli_error("%s", err[0] ? err : strerror(-rc)) : 0;
	}
	if (a->flame && !a->json && a->graph == RP_GRAPH_NONE && !a->sort_given)
		return 0;	/* only the SVG was asked for */
	struct rp_hist h;
	if ((rc = rp_hist_build(&h, s, keys, nr_keys, a->graph != RP_GRAPH_NONE)))
		return cli_error("aggregating samples: %s", strerror(-rc));
	if (a->json) {
		rc = rp_print_json(stdout, &h, s, a->method, a->generations);
	} else {
		struct rp_table_opts to = { .max_rows = a->rows, .graph = a->graph,
					    .graph_min_percent = a->plimit,
					    .min_percent = a->plimit_given ? a->plimit : 0 };
		rc = rp_print_table(stdout, &h, &to);
	}
	rp_hist_free(&h);
	if (rc == -EINVAL)
		return cli_error("%s", "bad --method regular expression");
	return rc ? cli_error("writing the report failed: %s", strerror(-rc)) : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .sort = "comm,dso,sym", .plimit = 0.5 };
	a.in.input = "perf.data";
	a.in.log.fn = on_report;
	a.in.progress = on_progress;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	struct rp_session *s;
	if (rp_session_new(&s))
		return cli_error("out of memory");
	a.in.fast_exit = !CLI_LEAK_CHECKED;
	rc = run(&a, s);
	/* The session dies with the process: freeing it piece by piece only costs time. */
	if (CLI_LEAK_CHECKED) {
		rp_session_free(s);
		rp_jvmlog_free(a.jl);
	} else
		kept_session = s;
	return rc;
}
