/* report.h - the presentation half of `jitprof report`: a session of resolved samples (the
 * ingest from perf.data + symbols fills it; tests fill it by hand), aggregated by sort keys
 * and printed as perf's table, a call graph, the generations view, a generation compare,
 * JSON, folded stacks or an interactive flame graph SVG. Prefix rp_. */
#ifndef JITPROF_REPORT_H
#define JITPROF_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/log.h"

/* Where a source line's code starts, as an offset in its load (the jitdump's DEBUG_INFO, the
 * table our ELFs' DWARF line program is written from). */
struct rp_src_line { uint64_t off; const char *file; uint32_t line; };

/* A call the compile inlined, with the caller's source line (the agent's inline stacks). */
struct rp_call_site { const char *callee, *caller; uint32_t line; };	/* "pkg.Cls.name" */
/* A (method, bci) the agent's inline stacks put on a source line (INLINE version 2). */
struct rp_bci_line { const char *method; int32_t bci; uint32_t line; };	/* "pkg.Cls.name" */

/* One code load of a jitted method in one process: a "generation" (docs/ARCHITECTURE.md,
 * contract 3). */
struct rp_load {
	uint32_t pid;
	const char *method;	/* display name (demangled unless --no-demangle), interned */
	const char *ident;	/* the identity its generations share, interned: a JVM method's
				 * class + name + signature as the JVM wrote it, a V8 function
				 * without its tier marker; NULL: the method name (rp_load_ident) */
	const char *title;	/* how views name that identity when not the method name (V8) */
	uint8_t runtime;	/* runtime code (stubs, adapters, ...): no generations */
	const char *dso;	/* short dso name, e.g. jitted-123-7.so, interned */
	const char *build_id;	/* hex, interned, or NULL */
	uint32_t generation;	/* 1, 2, ...; 0 = unknown */
	uint32_t tier;		/* enum jd_tier (0 unknown) */
	uint32_t flags;		/* JD_LOAD_* (OSR, back-filled) */
	uint64_t load_time;	/* recording clock, ns */
	uint64_t end_time;	/* next overlapping load / unload / 0 = end of recording */
	uint64_t code_addr;	/* runtime address of the method's first byte */
	uint64_t code_size;
	const uint8_t *code;	/* retained code bytes (owned by the session), or NULL */
	const struct rp_src_line *lines;	/* with code: source line per offset, or NULL */
	size_t nr_lines;
	const struct rp_call_site *sites;	/* with want_sites, or NULL */
	size_t nr_sites;
	const struct rp_bci_line *bci_lines;	/* idem, each (method, bci) once */
	size_t nr_bci_lines;
	/* filled in by rp_session_finish() */
	uint64_t samples, period;
	/* From the companion file (ingest) or tests; -1 unknown. */
	int32_t level, compile_id, osr_bci;
	uint64_t unload_time;		/* 0: not unloaded during the recording */
	/* From HotSpot's compilation log (rp_session_join_jvmlog), NULL/0 without one. */
	const struct rp_jvm_code *jvm;
	uint64_t not_entrant_time;	/* recording clock; 0: never made not entrant */
	/* When the JVM installed it, on the recording's clock (the log's stamp); 0 unknown. What
	 * tells a back-filled load's (JD_LOAD_BACKFILLED: its load_time is the attach) start. */
	uint64_t install_time;
};

/* Tiers beyond enum jd_tier, from V8's name markers (identity.c). */
/* Where `jitprof archive` puts the jitdumps beside the ELFs (jit-PID.dump and its .jitprof
 * companion, by file name): report --archive reads a recording's generations from there when
 * the dumps are not where inject read them (another machine). */
#define RP_ARCHIVE_DUMPS ".jitdump"

#define RP_TIER_BASELINE  16u	/* '^' Sparkplug */
#define RP_TIER_MIDTIER   17u	/* '+' Maglev */
#define RP_TIER_OPTIMIZED 18u	/* '*' TurboFan */

/* The method identity whose recompiles are l's generations, and its readable name. */
static inline const char *rp_load_ident(const struct rp_load *l)
{
	return l->ident ? l->ident : l->method;
}

static inline const char *rp_load_title(const struct rp_load *l)
{
	return l->title ? l->title : l->method;
}

/* Frame flags. */
#define RP_FRAME_KERNEL   (1u << 0)	/* printed [k] */
#define RP_FRAME_INLINED  (1u << 1)	/* a frame only present as inlined code */
#define RP_FRAME_UNKNOWN  (1u << 2)	/* no mapping covered the address */
#define RP_FRAME_UNLOADED (1u << 3)	/* jitted code already replaced/unloaded at that time */
#define RP_FRAME_INTERPRETED (1u << 4)	/* a HotSpot interpreter frame decoded: sym is its
					 * method, line its bci's; printed _[int] */

/* What a frame is, for colours, legends and exports (JIT: stubs and code of unknown tier). */
enum rp_kind { RP_KIND_NATIVE, RP_KIND_KERNEL, RP_KIND_INLINED, RP_KIND_INTERP, RP_KIND_C1,
	       RP_KIND_C2, RP_KIND_JIT, RP_KIND__MAX };

struct rp_frame {
	const char *dso;	/* interned short name; "[unknown]" when no map */
	const char *sym;	/* interned; NULL = unresolved (printed as the address) */
	const char *srcfile;	/* interned basename-or-path; NULL = unknown */
	uint32_t line;
	uint32_t flags;		/* RP_FRAME_* */
	uint32_t load;		/* 1-based index into the session's loads; 0 = not jitted */
	uint32_t call_line;	/* where code was inlined at ip: the line of this function's
				 * call into it (line is the innermost's, as perf's srcline);
				 * 0 otherwise. The JFR export's line of the frame. */
	uint64_t ip;		/* absolute address */
	uint64_t addr;		/* ip in the DSO's address space (perf prints this when no
				 * symbol covers it); ip when no map */
	uint64_t symoff;	/* offset of ip from the symbol start */
};

struct rp_sample {
	uint64_t time;
	uint64_t period;
	uint32_t pid, tid;
	const char *comm;	/* interned */
	uint32_t first;		/* its frames: rp_sample_frame(s, smp, 0) = leaf ... */
	uint32_t nr;		/* ... rp_sample_frame(s, smp, nr - 1) = outermost caller */
};

struct rp_session;

int rp_session_new(struct rp_session **out);
void rp_session_free(struct rp_session *s);

/* Strings live as long as the session; equal strings give the same pointer, so the
 * aggregation compares pointers. NULL in -> NULL out. */
const char *rp_intern(struct rp_session *s, const char *str);
/* Owned copy of bytes (code of a load). */
const uint8_t *rp_keep_bytes(struct rp_session *s, const void *buf, size_t len);

/* Adds a load; returns its 1-based index, or 0 on allocation failure. */
uint32_t rp_add_load(struct rp_session *s, const struct rp_load *l);
struct rp_load *rp_load_at(struct rp_session *s, uint32_t idx);
size_t rp_nr_loads(const struct rp_session *s);

/* Adds a sample with its frames (leaf first); strings must be interned by this session.
 * Returns 0 or -ENOMEM. */
/* Makes room ahead for the samples and frames of a recording whose data section is data_size
 * bytes (0: unknown, nothing done), callchains when each sample's call chain is kept, and for
 * its loads when loads (every jitted mapping becomes one). Only spares the copies of growing:
 * nothing fails without it. */
void rp_session_reserve(struct rp_session *s, uint64_t data_size, int callchains, int loads);
int rp_add_sample(struct rp_session *s, const struct rp_sample *smp,
		  const struct rp_frame *frames, uint32_t nr);
size_t rp_nr_samples(const struct rp_session *s);
const struct rp_sample *rp_sample_at(const struct rp_session *s, size_t i);
/* Frame k of sample smp: 0 the leaf ... smp->nr - 1 the outermost caller. Samples may share
 * frames: never written through. */
const struct rp_frame *rp_sample_frame(const struct rp_session *s, const struct rp_sample *smp,
				       uint32_t k);
/* Call-graph sessions: equal frames are stored once (before the first sample is added). */
void rp_session_share_frames(struct rp_session *s);

/* The recording's time span (first/last event), for load times and open-ended lifetimes. */
void rp_set_span(struct rp_session *s, uint64_t start, uint64_t end);
void rp_get_span(const struct rp_session *s, uint64_t *start, uint64_t *end);
/* The wall-clock time (ns since the epoch) tod_ns was at clock_ns of the recording clock (perf's
 * CLOCK_DATA header); rp_wall_clock gives recording time t as wall-clock time: 1, or 0 when
 * the recording said none. */
void rp_set_wall_clock(struct rp_session *s, uint64_t tod_ns, uint64_t clock_ns);
int rp_wall_clock(const struct rp_session *s, uint64_t t, uint64_t *tod);
void rp_set_event_name(struct rp_session *s, const char *name);
const char *rp_session_event(const struct rp_session *s);	/* NULL: not named */
void rp_set_lost(struct rp_session *s, uint64_t lost);
/* The build-id (hex) of the DSO frames name dso (interned by this session); NULL if none.
 * The exports write it with each mapping. 0 or -ENOMEM. */
int rp_set_dso_build_id(struct rp_session *s, const char *dso, const char *hex);
const char *rp_dso_build_id(const struct rp_session *s, const char *dso);

/* Which samples the outputs see: one process, one thread, a time window (ns after the
 * recording's start; end 0 = open) and samples with a frame whose symbol matches a regex
 * (and, when generation is set, that is jitted code of that generation). */
struct rp_filter {
	int has_pid, has_tid;
	uint32_t pid, tid;
	uint64_t from_ns, to_ns;
	const char *method;		/* --method: samples with a frame it names (name_match) */
	uint32_t generation;		/* with method: only a frame of that generation */
};
/* Drops every other sample (and recounts the loads' samples). method matches as
 * --method says (rp_name_is_regex): as typed, or as a regex when it is one. */
void rp_session_filter(struct rp_session *s, const struct rp_filter *f);

/* Fills load sample counts and missing generation numbers (order of loads of the same
 * method per pid) and open lifetimes. Call once after the last sample. */
void rp_session_finish(struct rp_session *s);

/* ---- Aggregation ------------------------------------------------------------------ */

enum rp_key { RP_KEY_COMM, RP_KEY_PID, RP_KEY_DSO, RP_KEY_SYM, RP_KEY_SRCLINE,
	      RP_KEY_GENERATION, RP_KEY__MAX };
#define RP_MAX_KEYS 8

/* Parses "comm,dso,sym"; -EINVAL with the bad key in err. */
int rp_parse_sort(const char *spec, enum rp_key *keys, int *nr, char *err, size_t errlen);
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

/* One key of an entry as printed in the table into buf ("[.] name", "java", ...). */
const char *rp_entry_key_str(const struct rp_hist *h, const struct rp_entry *e,
			     enum rp_key k, char *buf, size_t len);

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
/* "cpu-clock, 9937 samples, 2.43 s" for titles. */
void rp_describe(const struct rp_session *s, char *buf, size_t len);
/* The CSS colour of a frame kind, l = 0..1 varies the lightness (names stay apart). */
void rp_kind_color(enum rp_kind k, double l, char *buf, size_t len);

/* 1 when text is a valid extended regex; else 0 with why regcomp refused it (the text then
 * matches method names as typed only). */
int rp_name_is_regex(const char *text, char *why, size_t len);

/* The generations view; method NULL = all methods with > 1 generation, else those it names
 * (as --method: as typed, or as a regex when it is one). 0, -ENOMEM, or -EIO (a failed write). */
int rp_print_generations(FILE *out, const struct rp_session *s, const char *method);
/* Per source line and per instruction share of two generations of one method. */
int rp_print_compare(FILE *out, const struct rp_session *s, const char *method,
		     uint32_t gen_a, uint32_t gen_b, char *err, size_t errlen);

/* Frame name as used in stacks: symbol, or dso+address when unresolved; with RP_NAME_GEN
 * " [gen N]" after jitted methods (never runtime code: stubs, the interpreter), with
 * RP_NAME_KMARK "_[k]" after kernel frames (flamegraph.pl's mark; perf's text graphs have
 * none), with RP_NAME_IMARK "_[i]" after inlined ones and "_[int]" after interpreted ones
 * (HotSpot interpreter frames decoded, RP_FRAME_INTERPRETED). */
#define RP_NAME_GEN   1u
#define RP_NAME_KMARK 2u
#define RP_NAME_IMARK 4u
#define RP_NAME_GRAPH (RP_NAME_GEN | RP_NAME_IMARK)	/* -g --split-generations */
const char *rp_frame_name(const struct rp_session *s, const struct rp_frame *f, unsigned tag,
			  char *buf, size_t len);
/* rp_frame_name as a symbol and a fixed mark ("", "_[i]", "_[k]") without formatting: the
 * symbol, or NULL where the name is formatted (an address, a generation). */
const char *rp_frame_name_fixed(const struct rp_session *s, const struct rp_frame *f,
				unsigned tag, const char **suffix);

enum rp_kind rp_frame_kind(const struct rp_session *s, const struct rp_frame *f);
const char *rp_kind_name(enum rp_kind k);	/* "C2", "inlined", ... (ids in files) */
const char *rp_kind_label(enum rp_kind k);	/* as legends say it */
/* Stack views (-g's text graph, --json's stacks, folded stacks, pictures, exports) merge a
 * method's generations into one frame unless split (default 0); rp_stack_tag is the
 * rp_frame_name tag of all but -g (which has no kernel mark). */
void rp_set_split_generations(struct rp_session *s, int on);
int rp_split_generations(const struct rp_session *s);
unsigned rp_stack_tag(const struct rp_session *s);

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
	size_t nr_inl;
};

struct rp_jvmlog;

/* Reads the whole log with libxml2's streaming reader. A log cut short (the JVM killed before
 * it merged its compiler threads' logs) is kept up to the cut: rp_jvmlog_cut() says where.
 * -EINVAL with file and offset in err for anything that is not a HotSpot compilation log. */
int rp_jvmlog_open(struct rp_jvmlog **out, const char *path, char *err, size_t errlen);
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
 * each. */
const char *rp_jvmlog_notes(const struct rp_jvmlog *jl);

/* Joins the log's nmethods to the session's loads of its process: by compile id (checked
 * against the entry address) where the companion file gave one, else by entry address, the
 * nearest in time. Sets load->jvm and load->not_entrant_time; the session keeps jl for the
 * views (the caller still owns it). -ESRCH with a message when the log belongs to another
 * process or matches no load. */
int rp_session_join_jvmlog(struct rp_session *s, const struct rp_jvmlog *jl, char *err,
			   size_t errlen);
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
	size_t nr_methods;
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

/* The invariant of the generations view (gen_check.c): every sample of a generation inside its
 * active period, running generations active until the end, replaced ones replaced by one.
 * Prints the first findings and a summary line to out; 0 (findings or not), -ENOMEM, -EIO. */
struct rp_gen_check {
	uint64_t samples, outside;	/* samples in generations, and those outside their period */
	size_t generations, bad_rows;	/* generations, and those inconsistent */
	size_t shown;			/* findings (printed up to 10) */
};
int rp_gen_check(FILE *out, const struct rp_session *s, struct rp_gen_check *c);
const char *rp_tier_name(uint32_t tier);
/* The tier as the views print it: "C2", or "C2/osr" for on-stack-replacement code. */
const char *rp_load_tier(const struct rp_load *l);

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
/* 1 if basename(path) is "jitted-<pid>-<n>.so" (perf inject's and ours), pid and n out. */
int rp_is_jitted_name(const char *path, uint32_t *pid, uint64_t *idx);

/* The events a recording can be reported by (--event's names), in file order: each sampled
 * event (perf's dummy and the off-CPU switches left out), then "offcpu" and "wall" when it
 * has off-CPU records. None for a pipe ("-", a FIFO: read once). 0, or -errno with the
 * reason in err. */
struct rp_events {
	char **name;
	size_t n;
};
int rp_recording_events(const char *input, struct rp_events *ev, char *err, size_t errlen);
void rp_events_free(struct rp_events *ev);

#endif
