/* report.h - the face of `jitprof report`'s modules together, what the commands include: the
 * model (model.h), the ingest from perf.data (ingest.h), the analyses (analysis.h) and the
 * views and exports (views.h); and the one table of output formats (formats.c) that report's
 * options and profile's -o by extension both come from. docs/report.md. */
#ifndef JITPROF_REPORT_H
#define JITPROF_REPORT_H

#include "recorder/report_ingest/ingest.h"
#include "recorder/report_views/views.h"

/* ---- Output formats (formats.c) -------------------------------------------------------- */

enum rp_format_id { RP_FMT_TEXT, RP_FMT_SVG, RP_FMT_SPEEDSCOPE, RP_FMT_JSON, RP_FMT_COLLAPSED,
		    RP_FMT_HTML, RP_FMT_PPROF, RP_FMT_JFR, RP_FMT__MAX };

/* What a format's writer is given: the sessions and the options of report's files. */
struct rp_format_job {
	const struct rp_session *const *ev;	/* the reported event's session, then the
						 * recording's other events (all_events) */
	size_t nr_ev;				/* >= 1 */
	const char *title;
	const enum rp_key *keys;		/* --html's table */
	int nr_keys;
	size_t max_rows;
	double min_width;
	int reverse;
	const struct rp_session *base;		/* differential pictures */
	const struct jp_log *log;
};

struct rp_format {
	enum rp_format_id id;
	const char *ext;	/* ".svg": `profile -o OUT` picks the format by it */
	const char *what;	/* for messages: "flame graph SVG" */
	const char *flag;	/* report's long option, "--flamegraph"; NULL: the text report */
	int flag_takes_file;	/* flag FILE (write makes FILE) rather than stdout */
	int all_events;		/* write shows every event of the recording (nr_ev > 1) */
	int (*write)(FILE *out, const struct rp_format_job *j);	/* with flag_takes_file */
};

/* Format i (0 ...), in the order report writes its files, the stdout views after them; NULL
 * past the last. */
const struct rp_format *rp_format_at(size_t i);
const struct rp_format *rp_format_get(enum rp_format_id id);
/* The format path's extension names (the longest matching one; the extension alone is no
 * name); NULL when it is none of ours (rp_formats_list names them). */
const struct rp_format *rp_format_of(const char *path);
/* The extensions, ", "-separated: ".svg, .html, ..." */
const char *rp_formats_list(void);

#endif
