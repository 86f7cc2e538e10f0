/* cmd_report_check.c - which of `jitprof report`'s options go together: one output per
 * flag, and an option that no requested output uses is a usage error (exit 2) that says
 * why, never silently ignored. */
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_report.h"

#define usage_error(...) cli_usage_error(__VA_ARGS__)

/* One output per flag: the stdout views exclude each other (--json may carry
 * --generations); files are written besides, and then stdout stays empty unless a stdout
 * view was asked for. An option no requested output uses is an error that says why. */
int report_check_outputs(const struct report_args *a)
{
	int files = report_nr_files(a);
	int views = a->json + a->collapsed + a->compare + (a->generations && !a->json) +
		    a->methods;
	if (a->check_gens && (views > 1 || a->method))
		return usage_error("--check-generations checks every generation: no other output "
				   "on stdout, no --method");
	int stacks = a->collapsed || files;
	int table = !views && !files;
	if (views > 1)
		return usage_error("--json, --collapsed, --generations, --compare and --methods are "
				   "separate outputs on stdout: ask for one (--json may add "
				   "--generations)");
	if (a->sort_given && !(table || a->json || a->file[RP_FMT_HTML]))
		return usage_error("--sort orders the rows of the table, --json and --html; the "
				   "outputs asked for have no rows");
	if (a->rows_given && !(table || a->json || a->file[RP_FMT_HTML] || a->methods))
		return usage_error("-n limits the rows of the table, --json, --html and --methods; "
				   "the outputs asked for have no rows");
	if (a->graph_given && a->graph != RP_GRAPH_NONE && !table && !stacks && !a->json)
		return usage_error("-g adds call stacks to the table's and --json's rows "
				   "(--collapsed, --flamegraph, --html and the exports always hold them)");
	if (a->graph_given && a->graph == RP_GRAPH_CALLEE && !table && !a->json)
		return usage_error("-g callee (leaf first) orders the table's call graph and --json's "
				   "stacks; folded stacks and flame graphs go outermost first "
				   "(--reverse: callers)");
	if (a->plimit_given && !table && !a->json)
		return usage_error("--percent-limit hides rows of the table and --json (and the "
				   "table's -g branches); the outputs asked for have no rows");
	if (a->compare && a->method)
		return usage_error("--compare names its method: drop --method");
	if (a->jvm_log && !a->generations && !a->compare && !a->file[RP_FMT_HTML])
		return usage_error("--jvm-log explains generations: use it with --generations (also "
				   "with --json), --compare or --html (the timeline)");
	if ((a->reverse || a->min_width > 0) && !a->file[RP_FMT_SVG] && !a->file[RP_FMT_HTML])
		return usage_error("--reverse and --min-width shape the flame graph (--flamegraph, "
				   "--html)");
	if (a->split_gens && !stacks && !table && !a->json && !a->methods)
		return usage_error("--split-generations splits a method's rows and frames per "
				   "generation: use it with the table, --json, --methods, -g, "
				   "--collapsed, --flamegraph, --html or an export");
	if (a->no_inline && !stacks && a->graph == RP_GRAPH_NONE && !a->methods && !table &&
	    !a->json)
		return usage_error("--no-inline changes call stacks: use it with -g, --collapsed, "
				   "--flamegraph, --html or an export");
	if ((a->diff_base || a->diff_method) &&
	    ((!a->file[RP_FMT_SVG] && !a->file[RP_FMT_HTML]) || a->file[RP_FMT_SPEEDSCOPE] ||
	     a->file[RP_FMT_PPROF] || a->file[RP_FMT_JFR] || views))
		return usage_error("--diff and --diff-generations colour the flame graph: use them "
				   "with --flamegraph or --html only");
	if (a->diff_base && a->diff_method)
		return usage_error("--diff and --diff-generations: one comparison at a time");
	if (a->diff_method && a->method)
		return usage_error("--diff-generations names its method: drop --method");
	if (a->diff_base && a->input_given)
		return usage_error("--diff BASE NEW names both recordings: drop -i");
	if (a->reverse && a->file[RP_FMT_HTML])
		return usage_error("--reverse is for the SVG: the HTML report's Invert button shows "
				   "callers");
	return 0;
}
