/* test_report_check.c - recorder/cmd/cmd_report_check.c: which of `jitprof report`'s options go
 * together. An option that no requested output uses is a usage error (2), never silently
 * ignored; every output that can honour an option accepts it (0). */
#include <criterion/criterion.h>

#include "recorder/cmd/cmd_report.h"

/* The parsed command line of `jitprof report` with nothing given. */
static struct report_args none(void)
{
	return (struct report_args){ .sort = "comm,dso,sym", .plimit = 0.5 };
}

Test(opts_check, generations_split_and_graphs)
{
	struct report_args a = none();
	cr_assert_eq(report_check_outputs(&a), 0, "the table");
	a.split_gens = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--split-generations: the table's rows per generation");
	a.generations = 1;
	cr_assert_eq(report_check_outputs(&a), 2, "--generations alone: no rows or stacks to split");
	a.generations = 0;
	a.graph_given = 1;
	a.graph = RP_GRAPH_CALLER;
	cr_assert_eq(report_check_outputs(&a), 0, "-g --split-generations");
	a.json = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--json -g --split-generations");
	a = none();
	a.split_gens = a.collapsed = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--collapsed --split-generations");
	a = none();
	a.split_gens = a.generations = 1;
	cr_assert_eq(report_check_outputs(&a), 2, "--generations has no stacks");

	/* -g callee orders the text graph and --json's stacks only. */
	a = none();
	a.graph_given = 1;
	a.graph = RP_GRAPH_CALLEE;
	cr_assert_eq(report_check_outputs(&a), 0);
	a.json = 1;
	cr_assert_eq(report_check_outputs(&a), 0);
	a.json = 0;
	a.collapsed = 1;
	cr_assert_eq(report_check_outputs(&a), 2, "folded stacks are outermost first");
	a.collapsed = 0;
	a.file[RP_FMT_SVG] = "x.svg";
	cr_assert_eq(report_check_outputs(&a), 2, "flame graphs are outermost first");
	a.graph = RP_GRAPH_CALLER;
	cr_assert_eq(report_check_outputs(&a), 0, "-g: the flame graph holds call stacks");
}

Test(opts_check, rows_logs_methods_diffs)
{
	struct report_args a = none();
	a.plimit_given = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--percent-limit: the table");
	a.json = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--percent-limit: --json's rows");
	a.json = 0;
	a.file[RP_FMT_PPROF] = "x.pb.gz";
	cr_assert_eq(report_check_outputs(&a), 2, "--percent-limit: pprof has no rows");

	a = none();
	a.jvm_log = "comp.log";
	cr_assert_eq(report_check_outputs(&a), 2, "--jvm-log: the table does not use it");
	a.file[RP_FMT_SVG] = "x.svg";
	cr_assert_eq(report_check_outputs(&a), 2, "--jvm-log: nor does the flame graph");
	a.file[RP_FMT_SVG] = NULL;
	a.file[RP_FMT_HTML] = "x.html";
	cr_assert_eq(report_check_outputs(&a), 0, "--jvm-log: the HTML timeline's reasons");
	a.file[RP_FMT_HTML] = NULL;
	a.generations = 1;
	cr_assert_eq(report_check_outputs(&a), 0);
	a.json = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--json --generations --jvm-log");
	a = none();
	a.jvm_log = "comp.log";
	a.compare = 1;
	a.cmp_method = "m";
	cr_assert_eq(report_check_outputs(&a), 0);
	a.method = "x";
	cr_assert_eq(report_check_outputs(&a), 2, "--compare names its method");

	a = none();
	a.method = "x";
	cr_assert_eq(report_check_outputs(&a), 0, "--method filters the table's samples");
	a.generations = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--method selects --generations' methods");

	/* --diff: the pictures, not the exports or a stdout view. */
	a = none();
	a.diff_base = "a.data";
	a.file[RP_FMT_HTML] = "x.html";
	cr_assert_eq(report_check_outputs(&a), 0, "--diff --html");
	a.file[RP_FMT_SVG] = "x.svg";
	cr_assert_eq(report_check_outputs(&a), 0, "--diff --html --flamegraph");
	a.file[RP_FMT_PPROF] = "x.pb.gz";
	cr_assert_eq(report_check_outputs(&a), 2, "--diff --pprof");
	a.file[RP_FMT_PPROF] = NULL;
	a.file[RP_FMT_JFR] = "x.jfr";
	cr_assert_eq(report_check_outputs(&a), 2, "--diff --jfr");
	a = none();
	a.file[RP_FMT_JFR] = "x.jfr";
	a.rows_given = 1;
	cr_assert_eq(report_check_outputs(&a), 2, "-n: a JFR file has no rows (no table beside)");
	a.rows_given = 0;
	a.no_inline = 1;
	cr_assert_eq(report_check_outputs(&a), 0, "--no-inline: the JFR file's stacks");
	a = none();
	a.diff_base = "a.data";
	cr_assert_eq(report_check_outputs(&a), 2, "--diff without a picture");
}
