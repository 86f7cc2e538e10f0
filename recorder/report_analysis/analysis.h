/* analysis.h - the whole face of the report's analyses (librecorder-report_analysis.a): the
 * samples aggregated by sort keys (and method-centric rows), the generations of each method
 * with their active periods and end reasons, HotSpot's compilation log read and joined to the
 * loads, and the instruction alignment behind --compare. They compute over the model and
 * never write output (scripts/check-deps.sh refuses their objects stdio's and safeio's
 * writers): the views print what they find. Prefix rp_. */
#ifndef JITPROF_REPORT_ANALYSIS_H
#define JITPROF_REPORT_ANALYSIS_H

#include "lib/strbuf.h"
#include "recorder/report_model/model.h"

/* ---- Aggregation ------------------------------------------------------------------ */

enum rp_key { RP_KEY_COMM, RP_KEY_PID, RP_KEY_DSO, RP_KEY_SYM, RP_KEY_SRCLINE,
	      RP_KEY_GENERATION, RP_KEY__MAX };
#define RP_MAX_KEYS 8

/* Parses "comm,dso,sym"; -EINVAL with the bad key logged. */
int rp_parse_sort(const char *spec, enum rp_key *keys, int *nr, const struct jp_log *log);
const char *rp_key_name(enum rp_key k);

struct rp_entry {
	const struct rp_sample *first;	/* a representative sample (its leaf gives the keys) */
	const struct rp_frame *leaf;	/* rp_leaf of first, kept: the sort reads it often */
	uint64_t period, samples;
	uint32_t nr_members;		/* samples in this entry, indexes in members[] */
	uint32_t *members;		/* sample indexes (for the call graph) */
};

struct rp_hist {
	enum rp_key keys[RP_MAX_KEYS];
	int nr_keys;
	struct rp_entry *entries;	/* sorted: period desc, then keys like perf */
	size_t nr_entries;
	uint64_t total_period, total_samples;
	const struct rp_session *s;
	int leaf_first;			/* --json's stacks leaf first (-g callee); 0 after build */
	/* Method-centric sym rows (method_rank.c), unless --split-generations or a dso key:
	 * a jitted method's generations are one row (merge), and without a srcline key its
	 * row is the innermost method of the sample, an inlined one included (innermost). */
	int merge_gens, innermost;
};

/* need_members: keep per-entry sample lists (call graph). -ENOMEM on failure. */
int rp_hist_build(struct rp_hist *h, const struct rp_session *s, const enum rp_key *keys,
		  int nr_keys, int need_members);
void rp_hist_free(struct rp_hist *h);

/* One key of an entry as printed in the table ("[.] name", "java", ...), whole: formatted in
 * buf (reused from call to call) or a string the session holds. */
const char *rp_entry_key_str(const struct rp_hist *h, const struct rp_entry *e,
			     enum rp_key k, struct jp_str *buf);

/* method_rank.c: method-centric rows. A frame of a method (a jitted load's, not runtime
 * code, or an interpreted frame named);
 * the sample's innermost method frame (its innermost inlined jitted frame, else rp_leaf);
 * the order of two frames as one method row (0: the same method, both inlined or neither);
 * the hist's merge_gens and innermost from its keys and --split-generations. */
int rp_frame_jitted(const struct rp_session *s, const struct rp_frame *f);
/* The marks that keep a method's rows apart: inlined (_[i]) and interpreted (_[int]) frames
 * are rows of their own beside its compiled code's. */
#define RP_METHOD_MARKS (RP_FRAME_INLINED | RP_FRAME_INTERPRETED)
const struct rp_frame *rp_method_frame(const struct rp_session *s, const struct rp_sample *smp);
int rp_method_cmp(const struct rp_session *s, const struct rp_frame *a, const struct rp_frame *b);
void rp_hist_method_mode(struct rp_hist *h);

/* "file:line", "??:0" or "dso[addr]" like perf's srcline column. */
const char *rp_srcline_str(const struct rp_frame *f, struct jp_str *buf);

/* ---- HotSpot's compilation log (-XX:+LogCompilation), jvmlog.c / jvmjoin.c ------------ */

enum rp_end_kind {
	RP_END_RUNNING = 0,	/* still the method's code at the end of the recording */
	RP_END_REPLACED,	/* a newer generation took over (higher tier, or recompiled) */
	RP_END_DEOPT,		/* made not entrant after an uncommon trap */
	RP_END_DEPENDENCY,	/* made not entrant when a class-hierarchy dependency broke */
	RP_END_UNLOADED,
	RP_END_NOT_ENTRANT,	/* made not entrant, cause not in the log */
};
const char *rp_end_kind_name(enum rp_end_kind k);

struct rp_jvm_inline {
	const char *caller, *callee;	/* "pkg.Class.name" */
	int32_t bci;			/* call site in caller, -1 unknown */
	int ok;				/* inlined */
	const char *why;		/* HotSpot's reason ("inline (hot)", "too big", ...) */
};

/* One nmethod as the log tells it. */
struct rp_jvm_code {
	int32_t compile_id, level, osr_bci;	/* osr_bci -1: normal entry */
	const char *method;		/* "pkg.Class name (sig)", as the log writes it */
	uint64_t entry, size;
	double stamp;			/* installed, seconds since the JVM started */
	double not_entrant;		/* seconds since start; < 0: never */
	enum rp_end_kind end;		/* RP_END_RUNNING unless made not entrant */
	const char *reason, *action;	/* trap reason/action, dependency type */
	const char *trap_method;	/* where it trapped (jvms), or the witness class */
	int32_t trap_bci;
	uint64_t trap_thread;		/* the runtime thread that trapped, 0 none */
	struct rp_jvm_inline *inl;
	size_t nr_inl, cap_inl;
};

struct rp_jvmlog;

/* Reads the whole log with libxml2's streaming reader. A log cut short (the JVM killed before
 * it merged its compiler threads' logs) is kept up to the cut: rp_jvmlog_cut() says where.
 * -EINVAL with file and offset logged for anything that is not a HotSpot compilation log;
 * -ENOMEM (said) out of memory, -ENOTSUP (said) without libxml2. */
int rp_jvmlog_open(struct rp_jvmlog **out, const char *path, const struct jp_log *log);
void rp_jvmlog_free(struct rp_jvmlog *jl);
uint32_t rp_jvmlog_pid(const struct rp_jvmlog *jl);
/* 1 when it was read from a Flight Recording (--jvm-log FILE.jfr: compiles and uncommon
 * traps only, no inlining decisions or broken dependencies), 0 from the compilation log. */
int rp_jvmlog_is_jfr(const struct rp_jvmlog *jl);
size_t rp_jvmlog_nr_codes(const struct rp_jvmlog *jl);
const struct rp_jvm_code *rp_jvmlog_code(const struct rp_jvmlog *jl, size_t i);
const struct rp_jvm_code *rp_jvmlog_find(const struct rp_jvmlog *jl, int32_t compile_id);
uint64_t rp_jvmlog_bytes(const struct rp_jvmlog *jl);	/* bytes read */
/* NULL when complete, else "<file>: cut at byte N: <libxml2's message>". */
const char *rp_jvmlog_cut(const struct rp_jvmlog *jl);
/* NULL, or what was left out of a log so that it reads in linear time: a DOCTYPE declaration
 * (HotSpot writes none), references to entities other than XML's five (not expanded: their
 * '&' read as '?'), attributes of one element past 256; with the byte offset of the first of
 * each. From a Flight Recording: how many events named no valid compile id (skipped). */
const char *rp_jvmlog_notes(const struct rp_jvmlog *jl);

/* Joins the log's nmethods to the session's loads of its process: by compile id (checked
 * against the entry address) where the companion file gave one, else by entry address, the
 * nearest in time. Sets load->jvm and load->not_entrant_time; the session keeps jl for the
 * views (the caller still owns it). -ESRCH with a message when the log belongs to another
 * process or matches no load; -ENOMEM (said). */
int rp_session_join_jvmlog(struct rp_session *s, const struct rp_jvmlog *jl,
			   const struct jp_log *log);
const struct rp_jvmlog *rp_session_jvmlog(const struct rp_session *s);

/* ---- Generations summary (shared by the table, JSON and tests) -------------------- */

struct rp_gen_line { const char *file; uint32_t line; uint64_t samples; };

enum rp_until_src {
	RP_UNTIL_END = 0,	/* the recording's end */
	RP_UNTIL_NEXT_GEN,	/* the load of the next non-OSR generation (OSR: same bci) */
	RP_UNTIL_NOT_ENTRANT,	/* the JVM log's make_not_entrant */
	RP_UNTIL_UNLOAD,	/* the runtime's unload event */
	RP_UNTIL_BEFORE_ATTACH,	/* back-filled, and so was a later compile of it: replaced
				 * before the agent attached */
	RP_UNTIL_LAST_SAMPLE,	/* its last sample: HotSpot code ran on in activations after
				 * it was made not entrant or replaced */
};
const char *rp_until_src_name(enum rp_until_src u);

/* Where a generation's active period starts. */
enum rp_from_src {
	RP_FROM_LOAD = 0,	/* its load (the runtime's CODE_LOAD) */
	RP_FROM_COMPILE,	/* back-filled: when the JVM installed it (the JVM log) */
	RP_FROM_BEFORE_ATTACH,	/* back-filled, install time unknown: before the attach */
};
const char *rp_from_src_name(enum rp_from_src f);

struct rp_gen_row {
	const struct rp_load *load;
	uint64_t samples, proc_samples;	/* this generation's / the process's */
	double rel_load_s, lifetime_s, share, per_sec;	/* per_sec over the active period */
	double active_from_s, active_until_s;	/* seconds from the recording's start (from:
						 * negative when installed before it, 0 when
						 * unknown: RP_FROM_BEFORE_ATTACH) */
	uint64_t from_ns, until_ns;	/* the same on the recording's clock; from 0: unknown */
	enum rp_from_src from_src;
	enum rp_until_src until_src;
	enum rp_end_kind ended_by;
	const struct rp_load *next;	/* the generation that took over, or NULL */
	struct rp_gen_line hot[3];
	int nr_hot;
};

struct rp_gen_method {
	uint32_t pid;
	const char *method;
	struct rp_gen_row *rows;
	size_t nr_rows;
};

struct rp_gen_view {
	struct rp_gen_method *methods;
	size_t nr_methods, cap_methods;
	uint64_t unknown_samples;	/* leaf in no mapping, or jitted code already unloaded */
	uint64_t unloaded_samples;
	uint64_t total_samples;
	size_t runtime_loads;		/* runtime code (rp_load.runtime): not generations */
	uint64_t runtime_samples;
};

/* method as rp_print_generations takes it. 0 or -ENOMEM. */
int rp_gen_view_build(struct rp_gen_view *v, const struct rp_session *s, const char *method);
/* The same; with all and no method, methods of one generation too (the invariant check). */
int rp_gen_view_build_all(struct rp_gen_view *v, const struct rp_session *s, const char *method,
			  int all);
void rp_gen_view_free(struct rp_gen_view *v);
/* A method's samples, all its generations' (the views order methods by it). */
uint64_t rp_gen_method_samples(const struct rp_gen_method *m);

const char *rp_tier_name(uint32_t tier);
/* The tier as the views print it: "C2", or "C2/osr" for on-stack-replacement code. */
const char *rp_load_tier(const struct rp_load *l);

/* compare_align.c: instructions hashed without their numbers, and an LCS pairing. */
struct rp_pair { long a, b; };	/* indexes, -1 = no counterpart on that side */
uint64_t rp_insn_norm_hash(const char *mnemonic, const char *ops);
long rp_align(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, struct rp_pair **out);

#endif
