/* model.h - the whole face of the report's model (librecorder-report_model.a): a session of
 * resolved samples, their frames (each distinct frame once, the samples' stacks as
 * references), the code loads of jitted methods (generations) with their source lines and
 * call sites, the processes' programs, interned strings, seeded maps. Ingest fills it (tests
 * by hand), analyses read it, views print it. Prefix rp_. docs/report.md. */
#ifndef JITPROF_REPORT_MODEL_H
#define JITPROF_REPORT_MODEL_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/log.h"
#include "lib/strbuf.h"
#include "lib/strset.h"

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
#define RP_FRAME_JAVA     (1u << 5)	/* a Java method from the JVM's own stack trace (an
					 * allocation or lock sample): its tier is not known */

/* What a frame is, for colours, legends and exports (JIT: stubs and code of unknown tier;
 * JAVA: a method of the JVM's own stack traces, compiled or interpreted, not said). Ids are
 * written into pages: a new kind goes last. */
enum rp_kind { RP_KIND_NATIVE, RP_KIND_KERNEL, RP_KIND_INLINED, RP_KIND_INTERP, RP_KIND_C1,
	       RP_KIND_C2, RP_KIND_JIT, RP_KIND_JAVA, RP_KIND__MAX };

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
 * aggregation compares pointers. NULL in -> NULL out; out of memory, jp_nomem. */
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
/* The samples the recording's JVMs took themselves (agent alloc= and lock=, in the dumps'
 * companions), as ingest counted them whichever event it reported: the other events a
 * report can show (--event alloc|lock, the HTML page's tabs). */
void rp_set_jvm_samples(struct rp_session *s, uint64_t alloc, uint64_t lock);
void rp_get_jvm_samples(const struct rp_session *s, uint64_t *alloc, uint64_t *lock);
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

/* ---- Frames: names, kinds, generations in stacks ------------------------------------- */

/* "cpu-clock, 9937 samples, 2.43 s" for titles, whole in buf (an event's name is the
 * recording's): buf->s. */
const char *rp_describe(const struct rp_session *s, struct jp_str *buf);
/* The CSS colour of a frame kind, l = 0..1 varies the lightness (names stay apart). */
void rp_kind_color(enum rp_kind k, double l, char *buf, size_t len);

/* 1 when text is a valid extended regex; else 0 with why regcomp refused it (the text then
 * matches method names as typed only). */
int rp_name_is_regex(const char *text, char *why, size_t len);

/* Frame name as used in stacks: symbol, or dso+address when unresolved; with RP_NAME_GEN
 * " [gen N]" after jitted methods (never runtime code: stubs, the interpreter), with
 * RP_NAME_KMARK "_[k]" after kernel frames (flamegraph.pl's mark; perf's text graphs have
 * none), with RP_NAME_IMARK "_[i]" after inlined ones and "_[int]" after interpreted ones
 * (HotSpot interpreter frames decoded, RP_FRAME_INTERPRETED). */
#define RP_NAME_GEN   1u
#define RP_NAME_KMARK 2u
#define RP_NAME_IMARK 4u
#define RP_NAME_GRAPH (RP_NAME_GEN | RP_NAME_IMARK)	/* -g --split-generations */
enum rp_kind rp_frame_kind(const struct rp_session *s, const struct rp_frame *f);
const char *rp_kind_name(enum rp_kind k);	/* "C2", "inlined", ... (ids in files) */
const char *rp_kind_label(enum rp_kind k);	/* as legends say it */
/* Stack views (-g's text graph, --json's stacks, folded stacks, pictures, exports) merge a
 * method's generations into one frame unless split (default 0); rp_stack_tag is the
 * rp_frame_name tag of all but -g (which has no kernel mark). */
void rp_set_split_generations(struct rp_session *s, int on);
int rp_split_generations(const struct rp_session *s);
unsigned rp_stack_tag(const struct rp_session *s);

/* 1 if basename(path) is "jitted-<pid>-<n>.so" (perf inject's and ours), pid and n out. */
int rp_is_jitted_name(const char *path, uint32_t *pid, uint64_t *idx);


/* ---- The session's layout (model.c), read by every report module ------------------ */

#define RP_CHUNK (1u << 20)

struct rp_chunk {
	struct rp_chunk *next;
	size_t used, cap;
	char data[];
};

/* Non-zero u64 key -> u32 value. Zero-initialise; rp_map_free releases. */
/* Key and value side by side: a lookup is one cache miss, not two (ingest asks these maps
 * per resolved frame and per load: a Java start-up's 34k). */
struct rp_u64slot {
	uint64_t k;	/* 0: empty */
	uint32_t v;
};
struct rp_u64map {
	struct rp_u64slot *slot;
	size_t cap, n;
	uint64_t seed;	/* the run's hash seed, taken when the first slots are made */
};
int rp_map_put(struct rp_u64map *m, uint64_t key, uint32_t val);
int rp_map_get(const struct rp_u64map *m, uint64_t key, uint32_t *val);	/* 1 found */
void rp_map_free(struct rp_u64map *m);

/* Any u64 key (a dump's code indexes) to a non-zero u32: an array when the keys, at most
 * max_key, are dense for n of them (runtimes number their loads 0, 1, 2...: looked up in
 * the order they come), else the hash map. A later put of a key replaces its value. */
struct rp_idxmap {
	uint32_t *dense;
	uint64_t nr_dense;
	struct rp_u64map map;	/* keys + 1 */
};
void rp_idxmap_init(struct rp_idxmap *m, uint64_t max_key, size_t n);
int rp_idxmap_put(struct rp_idxmap *m, uint64_t key, uint32_t val);	/* 0 or -errno */
uint32_t rp_idxmap_get(const struct rp_idxmap *m, uint64_t key);	/* 0: none */
void rp_idxmap_free(struct rp_idxmap *m);

#define RP_MAX_WARNINGS 16

struct rp_session {
	struct rp_chunk *arena;
	struct jp_strset strs;		/* interned strings (lib/strset.h) */
	struct rp_load *loads;
	size_t nr_loads, loads_cap;
	struct rp_sample *samples;
	size_t nr_samples, samples_cap;
	/* frame_table.c: each distinct frame once (when shared), and the samples' stacks as
	 * indexes into them */
	struct rp_frame *frames;
	size_t nr_frames, frames_cap;
	uint32_t *chain;		/* sample i's frames: chain[first .. first + nr) */
	size_t nr_chain, chain_cap;
	uint32_t *fslots;		/* frame lookup: index + 1, 0 free (shared frames) */
	size_t fslots_cap;
	int share_frames;
	uint64_t start, end, lost;
	uint64_t tod_ns, tod_clock_ns;	/* rp_set_wall_clock; tod_ns 0: unknown */
	const char *event;
	/* --event offcpu|wall: each sample's period is nanoseconds of time (an off-CPU interval,
	 * or an on-CPU sample's cpu-clock period) and every view weighs by it, stacks too. */
	int weigh_time;
	/* --event alloc: each sample's period is bytes (what an allocation sample stands for),
	 * and every view weighs by it as weigh_time does (jvmsamples.c). */
	int weigh_bytes;
	/* --event alloc|lock: each sample's leaf is the class allocated or waited for, and the
	 * frame below it the method that did (the HTML summary's methods and lines). */
	int jvm_leaf;
	uint64_t jvm_alloc, jvm_lock;	/* rp_set_jvm_samples */
	int split_gens;			/* stack views: one frame per generation */
	uint32_t tree_max_nodes;	/* 0: RP_TREE_MAX_NODES (tests set less) */
	struct rp_u64map dso_bid;	/* interned DSO name -> index + 1 into bids */
	const char **bids;		/* interned hex build-ids */
	size_t nr_bids, bids_cap;
	const struct rp_jvmlog *jvmlog;	/* joined by rp_session_join_jvmlog, not owned */
	struct rp_prefetch *prefetch;	/* dumps indexed during ingest (dumps.c) */
	/* Where else a dump gone from beside its ELFs is looked for: each --archive's
	 * RP_ARCHIVE_DUMPS directory (set before the replay, read by the indexing worker). */
	char **dump_dirs;
	size_t nr_dump_dirs, cap_dump_dirs;
	int dump_inline;		/* they keep the companion's inline stacks (--jvm-log's
					 * call sites): a third of a start-up's index otherwise */
	struct rp_proc_exe { uint32_t pid; const char *name; } *exes;	/* procs.c */
	size_t nr_exes, exes_cap;
	struct rp_u64map exe_of;	/* pid + 1 -> index + 1 into exes */
	/* What the ingest warned about (stderr says it too), for the HTML page's summary: the
	 * first RP_MAX_WARNINGS distinct messages, interned; more_warnings counts the rest. */
	const char *warnings[RP_MAX_WARNINGS];
	size_t nr_warnings;
	uint64_t more_warnings;
};

/* A method's name as --method, --compare and --diff-generations take it (name_match.c): it
 * matches a name that contains it as typed, or, when it is a valid extended regex, a name the
 * regex matches. */
struct rp_name_match {
	const char *text;
	regex_t re;
	int have_re;
};
void rp_name_match_init(struct rp_name_match *m, const char *text);
int rp_name_matches(const struct rp_name_match *m, const char *name);	/* NULL name: 0 */
void rp_name_match_fini(struct rp_name_match *m);

/* procs.c: a mapping of process pid (exec: mapped executable) that may be its program's, an
 * exec in pid (its next program mapping is the new program's), a new process child of parent
 * (it runs the parent's program until it execs); the program's file name, interned, once one
 * was seen (else NULL). */
void rp_note_mapping(struct rp_session *s, uint32_t pid, const char *path, int exec);
void rp_note_exec(struct rp_session *s, uint32_t pid);
void rp_note_fork(struct rp_session *s, uint32_t parent, uint32_t child);
const char *rp_process_exe(const struct rp_session *s, uint32_t pid);
/* The command of a sample whose thread no COMM event named, as perf shows it: "swapper" for
 * the idle task (pid 0), else ":TID" (":-1" for samples without a task), interned. */
const char *rp_comm_unknown(struct rp_session *s, uint32_t pid, uint32_t tid);

/* Unseeded FNV-1a: for what must come out the same in every run (flame-graph colours by name,
 * compare's instruction keys), never for a table keyed by a recording's strings: its low bits
 * are chosen as easily as the names' last bytes. Tables use rp_hash_seeded. */
uint64_t rp_hash_bytes(const void *buf, size_t len, uint64_t h);
/* The per-process seeded hash (lib/hash_seed.h) of len bytes, with tag mixed into the seed:
 * for tables whose keys come from a recording. */
uint64_t rp_hash_seeded(const void *buf, size_t len, uint64_t tag);
/* A faster hash of longer keys (folded stacks, frame references), seeded per run. */
uint64_t rp_hash_words(const void *buf, size_t len);

/* The load that sets a frame apart from the other generations of its method in stack views:
 * its own with --split-generations (rp_set_split_generations), else 0 (one frame per method;
 * runtime code, which has no generations, always 0). frames.c. */
uint32_t rp_frame_split_load(const struct rp_session *s, const struct rp_frame *f);

/* Room for need elements in *arrp (a pointer to the array), *cap of them elem bytes each,
 * doubling from 256. The array may move. 0 or -ENOMEM (untouched then). model.c. */
int rp_grow(void *arrp, size_t *cap, size_t need, size_t elem);

/* ---- frame_table.c: the frames and the chains of references to them ---- */
/* The frame at position pos of the chain (sample smp's frame k is at smp->first + k). */
static inline const struct rp_frame *rp_chain_frame(const struct rp_session *s, size_t pos)
{
	return &s->frames[s->chain[pos]];
}
/* nr frames appended to the chain, *first their position. 0 or -ENOMEM. */
int rp_chain_push(struct rp_session *s, const struct rp_frame *frames, uint32_t nr,
		  uint32_t *first);
/* The chain's reference at pos made f (looked up or added). 0 or -ENOMEM. */
int rp_chain_set(struct rp_session *s, size_t pos, const struct rp_frame *f);
/* After frames were edited in place (s->frames[i], for every sample that refers to them): the
 * lookup is rebuilt. 0 or -ENOMEM. */
int rp_frames_edited(struct rp_session *s);
/* Room for refs references (and as many frames unless shared). */
void rp_frames_reserve(struct rp_session *s, size_t refs);
void rp_frames_free(struct rp_session *s);

static inline const struct rp_frame *rp_leaf(const struct rp_session *s,
					     const struct rp_sample *smp)
{
	static const struct rp_frame none = { .dso = "[unknown]", .flags = RP_FRAME_UNKNOWN };
	/* Inlined-only frames precede the frame of the ip itself, which carries the ELF
	 * symbol (perf's sym) and the innermost source line (perf's srcline). */
	for (uint32_t i = 0; i < smp->nr; i++) {
		const struct rp_frame *f = rp_chain_frame(s, smp->first + i);
		if (!(f->flags & RP_FRAME_INLINED))
			return f;
	}
	return &none;
}

/* sites.c: the agent's inline stacks as (callee, caller, line) call sites of a load; the
 * line of a callee/caller pair, 0 when unknown or ambiguous. */
struct jd_ext_inline;
void rp_keep_call_sites(struct rp_session *s, const struct jd_ext_inline *in, struct rp_load *l);
uint32_t rp_call_site_line(const struct rp_load *l, const char *callee, const char *caller,
			   int32_t bci);
/* The source line of bytecode bci of a method named as HotSpot's log does ("pkg.Cls name
 * (sig)" or "pkg/Cls.name"), from the load's recorded (method, bci, line) triples; 0 when
 * the agent recorded no bci there (INLINE version 1, or a bci no pc descriptor has). */
uint32_t rp_bci_line(const struct rp_load *l, const char *method, int32_t bci);

/* What a sample adds to a stack's weight (trees, collapsed): 1, or its time (weigh_time). */
static inline uint64_t rp_stack_weight(const struct rp_session *s, const struct rp_sample *smp)
{
	return s->weigh_time || s->weigh_bytes ? smp->period : 1;
}
/* The period is nanoseconds: cpu-clock, task-clock, or a time-weighed session. */
int rp_period_is_ns(const struct rp_session *s);

/* ingest.c only: a frame resolved while its DSO's DWARF was still being read on the symbols'
 * worker, so without its line and inline frames; made again once the replay is over. */
#define RP_FRAME_LINES_LATER (1u << 31)
/* The frame's DSO is a jitted ELF by its name (jitted-PID-N.so): told once per DSO by ingest,
 * so that checks.c does not parse the name of each sample's (a sample-dense run's leaves are
 * in a different one of 20k DSOs nearly every time). A function of the DSO alone, so it does
 * not split frames the table would otherwise merge. */
#define RP_FRAME_JITTED_DSO (1u << 30)
/* model.c: sample i's frames replaced by nr new ones (appended; the old ones zeroed). 0 or
 * -ENOMEM. */
int rp_set_sample_frames(struct rp_session *s, size_t i, const struct rp_frame *frames,
			 uint32_t nr);

#endif
