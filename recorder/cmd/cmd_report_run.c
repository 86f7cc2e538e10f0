/* cmd_report_run.c - `jitprof report`'s run once its command line is parsed: the recording
 * read into a session, the views asked for written to a stream, the files beside. Also what
 * `jitprof profile` calls in process with options it set itself (report_exec): nothing here
 * parses, exits or keeps state between two runs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nomem.h"
#include "lib/opts.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_report.h"
#include "recorder/report/report.h"

/* Reachable until exit, so leak checkers do not count what is deliberately not freed. */
static struct rp_session *volatile kept_session;

/* Missing or refused files are warnings (quiet silences them); damage in the input is always
 * said. Neither stops the report: it covers what could be read. */
static void on_report(void *ctx, enum jp_level level, const char *msg)
{
	const struct report_args *a = ctx;
	if (level >= 2 || (level == 1 && !a->quiet))
		cli_warn("%s", msg);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	cli_progress("reading samples", done, total);
}

void report_args_init(struct report_args *a)
{
	*a = (struct report_args){ .in = { .sz = sizeof(struct rp_ingest_opts) },
				   .sort = "comm,dso,sym", .plimit = 0.5 };
	a->in.input = "perf.data";
	a->log.fn = on_report;
	a->log.ctx = a;
	a->in.log = CLI_LOG(&a->log);
	a->in.progress = on_progress;
}

int report_want_format(struct report_args *a, const struct rp_format *f, const char *file)
{
	if (f->flag_takes_file)
		a->file[f->id] = file;
	else if (f->id == RP_FMT_JSON)
		a->json = 1;
	else if (f->id == RP_FMT_COLLAPSED)
		a->collapsed = 1;
	else if (f->id != RP_FMT_TEXT)
		return -EINVAL;
	return 0;
}

#define usage_error(...) cli_usage_error(__VA_ARGS__)

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

/* --jvm-log's file read (before the recording: a log that is no log is refused first),
 * and joined to the session read: 0, or the error said and 1. */
static int jvm_log_open(struct report_args *a)
{
	/* its cut and notes are said after the join (rp_jvmlog_cut, _notes) */
	struct cli_log log = { .fn = cli_log_drop, .lead = "--jvm-log: " };
	return cli_log_done(&log, rp_jvmlog_open(&a->jl, a->jvm_log, &CLI_LOG(&log)));
}

static int jvm_log_join(struct report_args *a, struct rp_session *s)
{
	char lead[4200];
	sio_snprintf_text(lead, sizeof(lead), "--jvm-log %s: ", a->jvm_log);
	struct cli_log log = { .lead = lead };
	if (cli_log_done(&log, rp_session_join_jvmlog(s, a->jl, &CLI_LOG(&log))))
		return 1;
	if (rp_jvmlog_notes(a->jl))
		cli_warn("--jvm-log: %s", rp_jvmlog_notes(a->jl));
	if (rp_jvmlog_cut(a->jl))
		cli_warn("--jvm-log: truncated log used up to the cut: %s", rp_jvmlog_cut(a->jl));
	return 0;
}

static int run(struct report_args *a, struct rp_session *s, FILE *out)
{
	enum rp_key keys[RP_MAX_KEYS];
	int nr_keys;
	/* a usage error: one string, held whole and said with where the help is */
	struct jp_held why = { 0 };
	int rc = rp_parse_sort(a->sort, keys, &nr_keys, &(struct jp_log){ jp_log_hold, &why });
	if (why.nomem)
		jp_nomem("an error message");
	if (rc) {
		rc = usage_error("--sort: %s", why.msg ? why.msg : strerror(-rc));
		free(why.msg);
		return rc;
	}
	free(why.msg);
	if ((rc = report_check_outputs(a)))
		return rc;
	note_method_names(a);
	int gen_key = 0, line_key = 0, sym_key = 0, dso_key = 0;
	for (int k = 0; k < nr_keys; k++) {
		gen_key |= keys[k] == RP_KEY_GENERATION;
		line_key |= keys[k] == RP_KEY_SRCLINE;
		sym_key |= keys[k] == RP_KEY_SYM;
		dso_key |= keys[k] == RP_KEY_DSO;
	}
	/* Method-centric sym rows (method_rank.c) know a method's generations by its loads,
	 * and its inlined methods by the inline chains. */
	int methods = (sym_key && !dso_key && !gen_key && !a->split_gens) || a->methods;
	int stacks = a->collapsed || report_nr_files(a);
	a->in.want_callchain = a->graph != RP_GRAPH_NONE || stacks;
	/* Inline chains come from DWARF lines: read them for call chains, and for --method on
	 * the other outputs, which keeps the samples with a frame of the method, inlined ones
	 * included (a method C2 inlined everywhere has no frame of its own). */
	int method_filter = (a->method && !a->generations && !a->compare) || a->diff_method;
	/* --generations --method lists the method's inlined frames too (gen_inlined.c). */
	a->in.want_inline = !a->no_inline && (a->in.want_callchain || method_filter ||
					      (methods && !line_key) ||
					      (a->generations && a->method));
	a->in.want_lines = a->generations || a->compare || line_key || a->in.want_inline ||
			   a->file[RP_FMT_HTML] || a->methods;
	/* Only the method sym rows want them: a jitted method's inlined callees. */
	a->in.jitted_lines_only = !a->generations && !a->compare && !line_key &&
				  !a->file[RP_FMT_HTML] && !a->methods && !a->jvm_log &&
				  !(!a->no_inline && (a->in.want_callchain || method_filter));
	/* Loads also give lines from the jitdump when the ELF's DWARF cannot be read; call
	 * stacks need them to know a method's generations (one frame unless split). */
	a->in.want_loads = a->in.want_lines || gen_key || a->in.want_callchain || methods;
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
				   !a->jvm_log && !gen_key && !a->split_gens && !a->file[RP_FMT_SVG] &&
				   !a->file[RP_FMT_HTML] && !a->diff_method;
	/* The flame graph's tooltips and --html's timeline list every generation of a method
	 * with samples, and of no other. */
	a->in.sampled_methods_only = a->in.want_loads && !a->in.sampled_loads_only &&
				     !a->generations && !a->compare && !a->jvm_log && !gen_key &&
				     !a->split_gens && !a->diff_method;
	a->in.archives = a->nr_archives ? a->archives : NULL;
	/* A log that is no log is refused before the (longer) read of the recording. */
	if (a->jvm_log && jvm_log_open(a))
		return 1;
	rc = rp_ingest(s, &a->in);
	cli_progress_end();
	if (cli_log_done(a->in.log.ctx, rc))
		return 1;
	if (a->jvm_log && jvm_log_join(a, s))
		return 1;
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
	int files = report_nr_files(a) > 0;
	if ((rc = report_write_files(a, s, keys, nr_keys)))
		return rc;
	if (a->collapsed)
		return rp_print_collapsed(out, s) ? cli_error("writing stdout failed") : 0;
	if (a->compare) {
		struct cli_log log = { .lead = "--compare: " };
		rc = rp_print_compare(out, s, a->cmp_method, a->cmp_a, a->cmp_b, &CLI_LOG(&log));
		int said = cli_log_done(&log, rc);
		return rc == -ENOTUNIQ ? 2 : said;	/* an ambiguous METHOD is a usage error */
	}
	if (a->check_gens) {
		struct rp_gen_check c;
		if ((rc = rp_gen_check(out, s, &c)))
			return cli_error("--check-generations: %s", strerror(-rc));
		return c.outside || c.bad_rows;
	}
	if (a->generations && !a->json) {
		rc = rp_print_generations(out, s, a->method);
		return rc ? cli_error("%s", strerror(-rc)) : 0;
	}
	if (files && !a->json)
		return 0;	/* only files were asked for */
	if (a->methods) {
		JP_OPTS(rp_methods_opts, mo, .max_rows = a->rows);
		rc = rp_print_methods(out, s, &mo);
		return rc ? cli_error("writing the report failed: %s", strerror(-rc)) : 0;
	}
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
		rc = rp_print_json(out, &h, s, a->method, a->generations);
		h.nr_entries = all;
	} else {
		struct rp_table_opts to = { .max_rows = a->rows, .graph = a->graph,
					    .graph_min_percent = a->plimit,
					    .min_percent = a->plimit_given ? a->plimit : 0 };
		rc = rp_print_table(out, &h, &to);
	}
	rp_hist_free(&h);
	return rc ? cli_error("writing the report failed: %s", strerror(-rc)) : 0;
}

int report_exec(struct report_args *a, FILE *out)
{
	struct rp_session *s;
	int rc;

	if (rp_session_new(&s))
		return cli_error("out of memory");
	rc = run(a, s, out);
	/* A run the process ends after keeps its session: freeing it piece by piece only costs
	 * time. */
	if (a->in.fast_exit) {
		kept_session = s;
		return rc;
	}
	rp_session_free(s);
	rp_session_free(a->base);
	rp_jvmlog_free(a->jl);
	a->base = NULL;
	a->jl = NULL;
	return rc;
}
