/* views.h - the whole face of the report's views and exports (librecorder-report_views.a):
 * perf's table, its call graph, JSON, the method-centric view, folded stacks, the flame
 * graph SVG, the HTML page, pprof, speedscope and JFR files, the generations view, its
 * invariant check and the generation compare. They read the model and the analyses, never
 * perf.data (scripts/check-deps.sh refuses them perfdata.h). Prefix rp_. */
#ifndef JITPROF_REPORT_VIEWS_H
#define JITPROF_REPORT_VIEWS_H

#include "recorder/report_analysis/analysis.h"

/* ---- Output ----------------------------------------------------------------------- */

enum rp_graph_mode { RP_GRAPH_NONE, RP_GRAPH_CALLEE, RP_GRAPH_CALLER };

struct rp_table_opts {
	size_t max_rows;		/* 0 = all */
	enum rp_graph_mode graph;
	double graph_min_percent;	/* branches below are hidden (perf's 0.5) */
	double min_percent;		/* rows below are hidden (perf's --percent-limit, 0) */
};

/* perf report --stdio --no-children look-alike. */
int rp_print_table(FILE *out, const struct rp_hist *h, const struct rp_table_opts *o);
int rp_print_json(FILE *out, const struct rp_hist *h, const struct rp_session *s,
		  const char *method, int with_generations);
/* The method-centric view (`--methods`, profile's text): jitted methods first (innermost,
 * generations summed unless split), the rest grouped (kernel, JVM, stubs, libraries), the
 * hottest source lines with their methods and the share without a line, a legend, and a
 * closing "# hottest Java method: NAME (P%)" line. */
struct rp_methods_opts {
	size_t sz;			/* sizeof(struct rp_methods_opts): lib/opts.h's rule */
	size_t max_rows;		/* method rows (0: 25) */
};
int rp_print_methods(FILE *out, const struct rp_session *s, const struct rp_methods_opts *o);
/* Folded stacks "comm;outer;...;leaf count", generations tagged " [gen N]". */
int rp_print_collapsed(FILE *out, const struct rp_session *s);
struct rp_flame_opts {
	const char *title;		/* NULL: "jitprof flame graph" */
	double min_width;		/* px; narrower frames merge (0: 1 px) */
	int reverse;			/* icicle of callers: leaf functions at the root */
	const struct rp_session *base;	/* differential: coloured by change since this one */
	const struct jp_log *log;	/* what the node limit cut (NULL: silent) */
};
int rp_write_flamegraph(FILE *out, const struct rp_session *s, const struct rp_flame_opts *o);
/* One self-contained interactive HTML file: flame graph, generations timeline, top table
 * (by keys, max_rows rows, default 50) and hottest lines. */
struct rp_html_opts {
	const char *title;
	const enum rp_key *keys;
	int nr_keys;
	size_t max_rows;
	double min_width;		/* px of a 1200 px view; narrower frames merge (0: 0.1) */
	const struct rp_session *base;	/* differential: coloured by change since this one */
	const struct jp_log *log;	/* what the node limit cut (NULL: silent) */
};
int rp_write_html(FILE *out, const struct rp_session *s, const struct rp_html_opts *o);
/* The page with one tab per session (one event each, ss[0] the reported one and the first
 * tab): each its own summary, flame graph, timeline and tables; the frame names once. */
int rp_write_html_events(FILE *out, const struct rp_session *const *ss, size_t n,
			 const struct rp_html_opts *o);
/* pprof's profile.proto, gzipped: locations with their inline chains, mappings with
 * build-ids; values samples and the event's period. */
int rp_write_pprof(FILE *out, const struct rp_session *s);
/* The same with one pair of sample types per session (one event each, ss[0] the reported
 * one and pprof's default): a sample's values are those of its own event, 0 for the others. */
int rp_write_pprof_events(FILE *out, const struct rp_session *const *ss, size_t n);
/* speedscope's file format: one sampled profile per thread, samples in time order. */
int rp_write_speedscope(FILE *out, const struct rp_session *s, const char *name);
/* One JFR chunk (format 2.0, as JDK 17 and later read it): a jdk.ExecutionSample per sample
 * with its thread and deduplicated stack trace (Java methods by class, name and descriptor,
 * with line and frame type; native frames named by symbol, their DSO as the class), in the
 * recording's time span. */
int rp_write_jfr(FILE *out, const struct rp_session *s);
/* The generations view; method NULL = all methods with > 1 generation, else those it names
 * (as --method: as typed, or as a regex when it is one). 0, -ENOMEM, or -EIO (a failed write). */
int rp_print_generations(FILE *out, const struct rp_session *s, const char *method);
/* Per source line and per instruction share of two generations of one method. 0, or -ENOENT
 * (no such pair), -ENOTUNIQ (a pattern matching several methods: their names in the message,
 * one a line) or -ENOMEM, with the reason logged. */
int rp_print_compare(FILE *out, const struct rp_session *s, const char *method,
		     uint32_t gen_a, uint32_t gen_b, const struct jp_log *log);

/* A frame's display name, whole, in buf (its memory reused from call to call): returns buf->s.
 * Out of memory is jp_nomem: a name is never cut. */
const char *rp_frame_name(const struct rp_session *s, const struct rp_frame *f, unsigned tag,
			  struct jp_str *buf);
/* rp_frame_name as a symbol and a fixed mark ("", "_[i]", "_[k]") without formatting: the
 * symbol, or NULL where the name is formatted (an address, a generation). */
const char *rp_frame_name_fixed(const struct rp_session *s, const struct rp_frame *f,
				unsigned tag, const char **suffix);

/* The invariant of the generations view (gen_check.c): every sample of a generation inside its
 * active period, running generations active until the end, replaced ones replaced by one.
 * Prints the first findings and a summary line to out; 0 (findings or not), -ENOMEM, -EIO. */
struct rp_gen_check {
	uint64_t samples, outside;	/* samples in generations, and those outside their period */
	size_t generations, bad_rows;	/* generations, and those inconsistent */
	size_t shown;			/* findings (printed up to 10) */
};
int rp_gen_check(FILE *out, const struct rp_session *s, struct rp_gen_check *c);

#endif
