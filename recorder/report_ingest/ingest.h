/* ingest.h - the whole face of the report's ingest (librecorder-report_ingest.a): a
 * perf.data file replayed through recorder/symbols (and the jitdumps beside the jitted ELFs)
 * into a session of the model. The only report module that reads perf.data. Prefix rp_. */
#ifndef JITPROF_REPORT_INGEST_H
#define JITPROF_REPORT_INGEST_H

#include "recorder/report_model/model.h"

/* ---- Ingest: a perf.data file through recorder/symbols into a session -------------- */

struct sym_session;

struct rp_ingest_opts {
	size_t sz;		/* sizeof(struct rp_ingest_opts) (0 = this header's): lib/opts.h's rule */
	const char *input;		/* perf.data path or "-" */
	const char *symfs, *vmlinux, *kallsyms, *buildid_dir;
	const char *const *archives;	/* NULL-terminated list of --archive files/dirs, or NULL */
	int no_demangle;
	int want_lines;			/* source lines (srcline key, generations, compare) */
	int want_callchain;		/* -g, --collapsed, --flamegraph */
	int want_inline;		/* inlined frames in call chains */
	int want_loads;			/* jitted loads as generations */
	int want_code;			/* retain code bytes and lines of every load (compare) */
	int want_sites;			/* inlined call sites' lines (--jvm-log) */
	int fast_exit;			/* the process ends after the report: keep the symbol
					 * session (hundreds of thousands of strings) instead of
					 * freeing it piece by piece */
	struct jp_log log;		/* info, warnings (missing files), errors (damage) */
	/* Progress in bytes of the data section. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	/* Called once after the last event, while the symbol session still lives (archive
	 * collects the DSOs here); a negative return fails the ingest. */
	int (*finish)(void *ctx, struct sym_session *ss);
	void *ctx;
	/* The ELFs of an `inject --no-elfs` recording are built with their symbols only (no line
	 * tables or inline scopes, whose records are then not read): for a report that reads
	 * neither. Never for archive, which packs the ELFs. */
	int jitted_symbols_only;
	/* Only the loads some frame lands in are named (method, dso, identity): for outputs that
	 * show frames and nothing of the loads no sample touched (-g, --collapsed, --pprof,
	 * --speedscope). A Java start-up has tens of thousands of loads, a few thousand sampled;
	 * the generations view, the flame graph's tooltips, --html, --split-generations and the
	 * generation key list or number every load and must not set it. */
	int sampled_loads_only;
	/* Only the loads of methods some frame lands in are named: every generation of those
	 * methods (the flame graph's tooltips, --html's timeline), none of the rest. */
	int sampled_methods_only;
	/* --event: the event reported when the recording has several (NULL: the first with
	 * samples, and a warning names the others). */
	const char *event;
	/* -f: files the recording names that belong to another user than the running one or
	 * root are read too (`--no-elfs` dumps, /tmp/perf-PID.map); without it they are
	 * refused, each with a warning. A size_t keeps the tail free of padding (lib/opts.h). */
	size_t force;
	/* --debuginfod-timeout: seconds all debuginfod requests may take together (0: the
	 * default, SYM_DEBUGINFOD_BUDGET_S). */
	uint64_t debuginfod_timeout;
	/* Lines and inline chains read for jitted code only: method-centric sym rows need a
	 * jitted method's inlined callees, not a library's DWARF (a native `--sort sym` read
	 * libc's lines for nothing: 0.14 -> 0.61 s). A size_t for lib/opts.h's tail rule. */
	size_t jitted_lines_only;
};

/* 0, or -errno with its message naming the file logged through o->log at JP_LOG_ERROR, last
 * (damage it read past is logged at that level too, and the call succeeds); -EINVAL for
 * options with fields this version does not know. */
int rp_ingest(struct rp_session *s, const struct rp_ingest_opts *o);

/* The events a recording can be reported by (--event's names), in file order: each sampled
 * event (perf's dummy and the off-CPU switches left out), then "offcpu" and "wall" when it
 * has off-CPU records, then "alloc" and "lock" when its JVMs took such samples (as shown, a
 * session ingested from it, counted them; NULL: not listed). None for a pipe ("-", a FIFO:
 * read once). 0, or -errno with the reason logged. */
struct rp_events {
	char **name;
	size_t n, cap;
};
int rp_recording_events(const char *input, const struct rp_session *shown, struct rp_events *ev,
			const struct jp_log *log);
void rp_events_free(struct rp_events *ev);

#endif
