/* cmd_report.h - what `jitprof report`'s files share: the parsed command line
 * (cmd_report.c), the run behind it (cmd_report_run.c, which `jitprof profile` calls in
 * process), the check of which options go together (cmd_report_check.c) and --help's text
 * (cmd_report_usage.c). */
#ifndef JITPROF_CMD_REPORT_H
#define JITPROF_CMD_REPORT_H

#include <stdio.h>

#include "recorder/cmd/cli.h"
#include "recorder/report/report.h"

struct report_args {
	struct rp_ingest_opts in;
	const char *sort, *method, *cmp_method, *jvm_log;
	const char *file[RP_FMT__MAX];	/* the files asked for, by format (formats.c) */
	struct rp_jvmlog *jl;		/* --jvm-log, joined into the session */
	const char *archives[16];
	int nr_archives;
	int force;		/* -f: read a recording of another user */
	uint32_t cmp_a, cmp_b;
	int generations, json, collapsed, compare, sort_given, split_gens, reverse;
	int check_gens;		/* --check-generations */
	int rows_given, graph_given, no_inline;
	int methods;		/* --methods: the method-centric view (methods_view.c) */
	const char *diff_base, *diff_method;
	uint32_t diff_gen_a, diff_gen_b;
	int input_given;
	struct rp_session *base;
	double min_width;
	struct rp_filter filter;
	enum rp_graph_mode graph;
	double plimit;
	int plimit_given;
	size_t rows;
	int quiet;		/* -q: missing files not said (damage still is) */
	struct cli_log log;	/* in.log's: its ctx is this struct (do not copy one) */
};

/* report's defaults (perf.data, sorted comm,dso,sym, 0.5%), its log and progress wired to
 * *a, which is not to be copied after. */
void report_args_init(struct report_args *a);
/* The output of format f (profile's -o by extension, formats.c) asked for: a file format's
 * file, or the stdout view (--json, --collapsed; the text report is the default). 0 or
 * -EINVAL for a format report does not know how to ask. */
int report_want_format(struct report_args *a, const struct rp_format *f, const char *file);
/* The report of parsed options *a: the recording read, the views written to out, the files
 * asked for beside. The exit status of `jitprof report` (0; 1 or 2 with the error said).
 * a->in.fast_exit: the process ends after it (the session is kept, not freed); else all it
 * made is freed and a second run starts afresh. Never exits the process. */
int report_exec(struct report_args *a, FILE *out);

/* How many files were asked for (--flamegraph, --html, ...). */
static inline int report_nr_files(const struct report_args *a)
{
	int n = 0;
	for (size_t i = 0; i < RP_FMT__MAX; i++)
		n += a->file[i] != NULL;
	return n;
}

/* One output per flag, and no option that no requested output uses: 0, or a usage error
 * said on stderr and 2 (the exit code of usage errors). */
int report_check_outputs(const struct report_args *a);
/* --help's text (cmd_report_usage.c). */
void report_usage(FILE *out);

/* 1 when report takes the long option flag ("--html"), with *takes_arg (may be NULL) set
 * when it wants an argument; 0 when not. profile asks before it records (one table of
 * options, in process: no `report --help` to read). */
int report_has_option(const char *flag, int *takes_arg);

/* The files asked for (--flamegraph, --html, --speedscope, --pprof, --jfr: the formats whose
 * option takes a file, formats.c, in its order): 0, or 1 with the failure said
 * (cmd_report_files.c). */
int report_write_files(struct report_args *a, struct rp_session *s, const enum rp_key *keys,
		       int nr_keys);

#endif
