/* report_int.h - what the report's own files share beyond report.h: the session layout and
 * small helpers. Not for other modules. */
#ifndef JITPROF_REPORT_INT_H
#define JITPROF_REPORT_INT_H

#include <regex.h>

#include "lib/strset.h"
#include "recorder/report/report.h"

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

/* A memo from pointers to strings (memo.c); a value may be NULL. */
struct rp_memo {
	const void **k;
	const char **v;
	size_t cap, n;
};
/* 1 with *val remembered for key, or 0 with *slot where rp_memo_put puts it. Inline: asked
 * three times per frame of every call chain. */
static inline int rp_memo_get(const struct rp_memo *m, const void *key, const char **val,
			      size_t *slot)
{
	if (!m->cap)
		return *slot = 0, 0;
	size_t j = ((uintptr_t)key * 0x9e3779b97f4a7c15ull >> 17) & (m->cap - 1);
	for (; m->k[j]; j = (j + 1) & (m->cap - 1))
		if (m->k[j] == key)
			return *val = m->v[j], 1;
	*slot = j;
	return 0;
}
/* Remembers val for key at slot (from rp_memo_get); out of memory: not remembered. */
void rp_memo_put(struct rp_memo *m, const void *key, const char *val, size_t slot);
void rp_memo_free(struct rp_memo *m);

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
	size_t nr_dump_dirs;
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

/* events.c: the event a report reads. rp_pick_event finds the one called name ("cpu-clock"
 * also names "cpu-clock:ppp"); -ENOENT with the file's events listed in err otherwise.
 * rp_first_event is the default: the first event the recording asked for (perf record -e
 * a,b: a), leaving out perf's dummy tracking event; NULL when the file does not list its
 * events before its samples (a pipe), where the first event with samples is taken.
 * rp_warn_other_events says which one is reported and lists every event with its samples
 * (counts[idx], n of them: by position in the file), in a warning; asked: the --event given,
 * named as the one reported. */
struct pd_reader;
struct pd_evsel;
int rp_pick_event(const struct pd_reader *r, const char *name, const char *file,
		  const struct pd_evsel **out, char *err, size_t errlen);
const struct pd_evsel *rp_first_event(const struct pd_reader *r);
void rp_warn_other_events(const struct pd_reader *r, const struct pd_evsel *chosen,
			  const uint64_t *counts, size_t n, const char *asked,
			  const struct jp_log *log);
/* offcpu.c: the off-CPU views a recording has: 0 none, 1 offcpu, 2 offcpu and wall (its
 * on-CPU event is a clock); *cs its context-switches evsel (NULL with 0). */
int rp_offcpu_views(const struct pd_reader *r, const struct pd_evsel **cs);

/* name_set.c: the values of a memo (display names) as a set of strings, found by string:
 * 0 or -ENOMEM (free it either way). */
struct rp_name_set {
	uint64_t *h;
	const char **v;
	size_t cap;
	size_t probes;		/* slots looked at past the first (a flooding test counts them) */
};
int rp_name_set_of_memo(struct rp_name_set *ns, const struct rp_memo *m);
const char *rp_name_set_find(const struct rp_name_set *ns, const char *str);
void rp_name_set_free(struct rp_name_set *ns);

/* res_memo.c: the frames made of one address, kept while the symbol session's answer for it
 * stays (sym_resolve_epoch; 0: nothing kept). get returns how many (0: none kept) and *f. */
struct rp_res_slot;
struct rp_res_memo {
	struct rp_res_slot *slot;
	struct rp_frame *f;
	size_t n, cap;
	uint64_t epoch, stamp;
	size_t since;		/* resolutions offered in this epoch */
};
uint32_t rp_res_memo_get(struct rp_res_memo *m, uint64_t epoch, uint32_t pid, uint64_t ip,
			 int cpumode, const struct rp_frame **f);
void rp_res_memo_put(struct rp_res_memo *m, uint64_t epoch, uint32_t pid, uint64_t ip,
		     int cpumode, const struct rp_frame *f, uint32_t n);
void rp_res_memo_free(struct rp_res_memo *m);

/* pending.c: jitted mappings (by their ELF's DSO in the symbol session, whose tag is the
 * id) not yet made loads: the outputs that name only sampled loads make one at the first
 * frame in it (and the flame graph and --html, the other generations of the sampled methods,
 * once the replay is over). A second mapping of the same ELF in its process is a CODE_MOVE:
 * the place and time are updated, the load time kept. */
struct sym_dso;
struct rp_pending_map {
	uint32_t pid;
	uint32_t load;		/* the load made of it, or 0 */
	uint64_t start, len, load_time, map_time;
	uint64_t end_time;	/* its end as a load's (the flame graph's and --html's live ranges) */
	const char *path;	/* the DSO's recorded name (the symbol session's) */
	const struct sym_dso *dso;
};
struct rp_pending {
	struct rp_pending_map *v;
	size_t n, cap;
};
/* Its id (index + 1, also the DSO's tag; 0: no memory); *old_start set, and 1 returned in
 * *moved, when it was a move of an ELF mapped before in the process. */
uint32_t rp_pending_note(struct rp_pending *p, struct sym_dso *d, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t time, int *moved, uint64_t *old_start);
struct rp_pending_map *rp_pending_get(const struct rp_pending *p, const struct sym_dso *d);
void rp_pending_free(struct rp_pending *p);

/* procs.c: a mapping of process pid (exec: mapped executable) that may be its program's, an
 * exec in pid (its next program mapping is the new program's), a new process child of parent
 * (it runs the parent's program until it execs); the program's file name, interned, once one
 * was seen (else NULL). */
void rp_note_mapping(struct rp_session *s, uint32_t pid, const char *path, int exec);
/* The one of those an MMAP, MMAP2, COMM or FORK event says (others: nothing). */
struct pd_event;
void rp_note_process_event(struct rp_session *s, const struct pd_event *ev);
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

/* method_rank.c: method-centric rows. A frame of a jitted method (a load's, not runtime code);
 * the sample's innermost method frame (its innermost inlined jitted frame, else rp_leaf);
 * the order of two frames as one method row (0: the same method, both inlined or neither);
 * the hist's merge_gens and innermost from its keys and --split-generations. */
int rp_frame_jitted(const struct rp_session *s, const struct rp_frame *f);
const struct rp_frame *rp_method_frame(const struct rp_session *s, const struct rp_sample *smp);
int rp_method_cmp(const struct rp_session *s, const struct rp_frame *a, const struct rp_frame *b);
void rp_hist_method_mode(struct rp_hist *h);

/* "file:line", "??:0" or "dso[addr]" like perf's srcline column. */
const char *rp_srcline_str(const struct rp_frame *f, char *buf, size_t len);

/* JSON string escaping and XML escaping to a stream. */
void rp_json_str(FILE *out, const char *str);
void rp_xml_str(FILE *out, const char *str);


/* gen_inlined.c: --generations --method's rows for the matching methods' inlined frames
 * (samples with one the innermost method, per generation of the code it was inlined into),
 * their number of rows in *printed. 0, -ENOMEM or -EIO. */
int rp_gen_print_inlined(FILE *out, const struct rp_session *s, const char *method,
			 size_t *printed);

/* gen_explain.c: the generations table's columns and detail lines, its source notes, and
 * the per-generation JSON fields of docs/generations.schema.json. */
void rp_gen_print_head(FILE *out);
void rp_gen_print_row(FILE *out, const struct rp_gen_row *r);
void rp_gen_print_detail(FILE *out, const struct rp_gen_row *r);
/* What the JVM log says ended r, one line ("deoptimized: unstable_if, action reinterpret, at
 * ... line 27 bci 12", "dependency broken: ..."), into buf; its length, 0 when it says
 * nothing. */
size_t rp_gen_end_detail(const struct rp_gen_row *r, char *buf, size_t len);
/* The HTML timeline's fields of one generation (after the row's opening brace): level, compile
 * id, end of its active period, what ended it, by which generation, and the log's why (or how
 * it was replaced: "higher_tier", ...). */
void rp_gen_html_fields(FILE *out, const struct rp_gen_row *r);
/* The HTML timeline's line on its sources, as a JSON string: the JVM log joined, or for
 * HotSpot code without one how to get the reasons; null for other runtimes. */
void rp_gen_html_sources(FILE *out, const struct rp_session *s);
void rp_gen_print_sources(FILE *out, const struct rp_session *s);
void rp_gen_json_fields(FILE *out, const struct rp_gen_row *r);
void rp_gen_json_sources(FILE *out, const struct rp_session *s);	/* "jvm_log": ... */

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

/* compare_align.c: instructions hashed without their numbers, and an LCS pairing. */
struct rp_pair { long a, b; };	/* indexes, -1 = no counterpart on that side */
uint64_t rp_insn_norm_hash(const char *mnemonic, const char *ops);
long rp_align(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, struct rp_pair **out);

/* What a sample adds to a stack's weight (trees, collapsed): 1, or its time (weigh_time). */
static inline uint64_t rp_stack_weight(const struct rp_session *s, const struct rp_sample *smp)
{
	return s->weigh_time || s->weigh_bytes ? smp->period : 1;
}
/* The period is nanoseconds: cpu-clock, task-clock, or a time-weighed session. */
int rp_period_is_ns(const struct rp_session *s);

/* Distinct folded stacks with their sample counts, sorted (collapsed and flame graph). */
#define RP_STACK_MAX (64u << 10)
struct rp_stack { char *stack; uint64_t count; };
struct rp_stacks { struct rp_stack *v; size_t n; };
int rp_collapse(const struct rp_session *s, struct rp_stacks *out);
void rp_stacks_free(struct rp_stacks *st);

/* The samples' stacks as a tree (flame graph, HTML): one node per distinct path of frames,
 * root = all samples, then the command, then frames outermost first (or, reversed, leaf
 * first: callers under each function). Frames are equal as the call graph's are: one
 * method's generations are one node unless split. */
struct rp_tnode {
	const struct rp_frame *f;	/* representative frame; NULL for the root and comms */
	const char *comm;		/* the command node's name */
	uint64_t count;
	uint32_t child, sibling, parent;
	uint32_t depth;
	uint32_t kinds[RP_KIND__MAX];	/* samples per frame kind (merged generations differ) */
	uint32_t narrow;		/* > 0: this node stands for that many narrow frames */
	uint8_t dropped;		/* pruned */
};
/* Samples through a node in the code of one generation: a jitted method's frame's own load,
 * an inlined frame's the load of the code it was inlined into (its nearest caller frame that
 * is not inlined): a frame's details count that frame's samples, not the method's. */
struct rp_tgen {
	uint32_t node, load, samples;
};
struct rp_tree {
	struct rp_tnode *n;
	size_t nr, cap;
	uint32_t max_depth;
	uint64_t cut_stacks, cut_samples;	/* stopped at the node limit, their samples */
	struct rp_tgen *gens;			/* rp_trees_build's gens: the callees' tree's */
	size_t nr_gens, cap_gens;
};
/* A tree has at most this many nodes (about 80 MB): 50k samples of distinct 512-frame chains
 * (289 KB of perf.data) made 25 million, 3.3 GB with the callers' tree. A stack that needs a
 * node past it stops where it is, its samples counted in the frame reached. */
#define RP_TREE_MAX_NODES (1u << 20)
/* Says once what the limit cut from the picture (nothing when nothing was). */
void rp_tree_log_cut(const struct rp_tree *t, uint32_t max_nodes, const struct jp_log *log);
int rp_tree_build(struct rp_tree *t, const struct rp_session *s, int reverse);
/* The tree and the callers' tree (rev, when not NULL) of the same samples, whose distinct
 * stacks are found once for both (the HTML report shows both); gens: t's gens too. */
int rp_trees_build(struct rp_tree *t, struct rp_tree *rev, const struct rp_session *s,
		   int gens);
void rp_tree_free(struct rp_tree *t);
/* The node's most frequent kind, and its name as stacks print it (tagged). */
enum rp_kind rp_tnode_kind(const struct rp_tnode *n);
const char *rp_tnode_name(const struct rp_session *s, const struct rp_tnode *n, char *buf,
			  size_t len);
/* Children narrower than min_count samples are replaced by one node "[N narrow frames]"
 * (dropped if that too is narrow); depth recomputed. Returns the nodes kept. */
size_t rp_tree_prune(struct rp_tree *t, uint64_t min_count);
/* Children in order: heaviest first for stable pictures. */
void rp_tree_sort(struct rp_tree *t);
/* Differential pictures: the child of node b of base's tree bt that matches node n (named
 * name) of the shown tree: the same name, or both the narrow frames of their parent.
 * RP_NO_NODE when there is none (b itself may be RP_NO_NODE). */
#define RP_NO_NODE UINT32_MAX
uint32_t rp_tree_match(const struct rp_session *base, const struct rp_tree *bt, uint32_t b,
		       const struct rp_tnode *n, const char *name);

/* Distinct (string, tag) pairs numbered from 0 in first-seen order (strtab.c). Zero-init. */
struct rp_strtab {
	struct rp_u64map idx;
	char **str;
	uintptr_t *tag;
	size_t n, cap;
};
int rp_strtab_id(struct rp_strtab *t, const char *str, uintptr_t tag, uint32_t *id);
void rp_strtab_free(struct rp_strtab *t);

/* The HTML page's data block in parts. html_tree.c: ,"names":[...],"tree":{...} (and
 * "rtree" with a base) of ss[0], and with n > 1 ,"tab_trees":[{...}...] of the others, their
 * names in the one table; present[k][kind] set for the kinds session k draws; rp_put_long: a
 * long after sep (0: none).
 * html_summary.c: ,"summary":{...} (processes, methods, warnings) and ,"lines":[...],
 * "no_line":N (the hottest lines with their method). 0 or -ENOMEM. */
int rp_html_tree(FILE *out, const struct rp_session *const *ss, size_t n,
		 const struct rp_html_opts *o, uint32_t (*present)[RP_KIND__MAX]);
void rp_put_long(FILE *out, char sep, long v);
int rp_html_summary(FILE *out, const struct rp_session *s);
int rp_html_lines(FILE *out, const struct rp_session *s, size_t max_rows);

/* recorder/report/html/report.{js,css}, NUL-terminated (generated at build time). */
extern const char rp_html_js[], rp_html_css[];

/* Mapped code loads per process as disjoint intervals (live.c), in order of (pid, start),
 * kept in chunks of at most RP_LIVE_CHUNK: a new load is placed with a move of one chunk,
 * not of every load after it (a JVM's code cache reuses addresses all over). */
#define RP_LIVE_CHUNK 128
struct rp_live_ent { uint32_t pid, idx; uint64_t start, end; };
struct rp_live_chunk { size_t n; struct rp_live_ent v[RP_LIVE_CHUNK]; };
struct rp_live {
	struct rp_live_chunk **c;	/* in order; none empty */
	size_t nc, capc;
	size_t n;			/* intervals in all */
};
/* Maps load idx at [start, start+len) in pid: every load it overlaps is passed to ended()
 * and forgotten. 0 or -ENOMEM. */
int rp_live_claim(struct rp_live *lv, uint32_t pid, uint64_t start, uint64_t len, uint32_t idx,
		  void (*ended)(void *ctx, uint32_t idx), void *ctx);
/* Forgets load idx mapped at start (it moved). */
void rp_live_remove(struct rp_live *lv, uint32_t pid, uint64_t start, uint32_t idx);
void rp_live_free(struct rp_live *lv);

struct sym_session;
/* Where ingest saw a load: its recorded path, and when its current mapping appeared (a
 * CODE_MOVE maps the same generation again, elsewhere). */
struct rp_load_src {
	const char *path;
	uint64_t map_time;
};
/* Names, generations, tiers, unload times and code of the loads ingest found (loads.c).
 * src[i] describes load i+1. */
/* Generation identity per runtime (identity.c): sets ident, runtime and V8 tiers of every
 * load; raw[i] is load i's name as its runtime wrote it (NULL: unknown). unnamed[i] set
 * (unnamed may be NULL): load i gets no identity, its raw name only tells whether its process
 * is a JVM (so an unnamed load's raw name may be left NULL once another load of its process
 * has a JVM name). 0 or -1 (memory). */
int rp_identify_loads(struct rp_session *s, const char *const *raw,
		      const unsigned char *unnamed);
/* A non-zero hash of the method identity rp_identify_loads gives a load of process pid with
 * the runtime's name raw (V8's tier marker left out): equal identities hash equal. */
uint64_t rp_raw_ident_hash(uint32_t pid, const char *raw);
/* V8's tier for a name marker ('~' '^' '+' '*'), 0 for anything else. */
uint32_t rp_v8_tier(char marker);
/* 1 for a name as HotSpot agents write methods ("Lpkg/Cls;name(args)ret"): its process is a
 * JVM (rp_identify_loads). */
int rp_is_jvm_name(const char *n);

/* ---- checks.c: forgotten prerequisites seen while ingesting ---- */
struct rp_checks {
	uint64_t samples;
	uint64_t jit_leaf, jit_leaf_alone;	/* leaf in jitted code; of those, no caller */
	uint64_t anon_leaf;			/* leaf in JIT code no jitdump described */
	uint64_t anon_unnamed;			/* of those, no name either (no perf-PID.map) */
	struct rp_u64map anon_by_pid;		/* pid + 1 -> its anon_unnamed samples */
	struct rp_u64map jitted_pids;		/* pid + 1 -> 1: a jitted ELF was mapped */
	uint32_t anon_pid;			/* the first such sample's process */
	uint64_t jitted_maps, markers;		/* MMAPs of jitted-*.so, of jit-PID.dump */
	char marker[256];			/* the first marker's path */
	int chains;				/* samples carry call chains */
	uint64_t stack_user;			/* samples carrying a copy of the user stack
						 * (--call-graph dwarf), unwound by unwound.c */
	const char *last_dso;			/* is_jitted's one remembered answer */
	int last_jitted;
};
/* A mapping of process pid (the jitted ELFs' own names carry the pid the runtime saw, which
 * in a container is not this one). */
void rp_checks_mmap(struct rp_checks *c, uint32_t pid, const char *filename);
/* One resolved sample: f[0..leaf_frames) the ip (inlined frames first), then its callers. */
void rp_checks_sample(struct rp_checks *c, uint32_t pid, uint64_t sample_type, int user,
		      const struct rp_frame *f, uint32_t leaf_frames, uint32_t nr);
void rp_checks_free(struct rp_checks *c);
/* The warnings, through o->log (JP_LOG_WARN). */
void rp_checks_report(const struct rp_checks *c, const struct rp_ingest_opts *o);

/* For sampled_methods_only: the pending mappings, and how ingest makes one (by id) a load
 * (its index, 0 if not), its load sources (*src) perhaps moved by it. */
struct rp_promote {
	struct rp_pending *pending;
	uint32_t (*promote)(void *ctx, uint32_t id, const struct rp_load_src **src);
	void *ctx;
};
int rp_ingest_loads(struct rp_session *s, struct sym_session *ss, const struct rp_load_src *src,
		    const struct rp_promote *pr, const struct rp_ingest_opts *o, char *err,
		    size_t errlen);
/* dumps.c: the jitdumps beside the jitted ELFs, one per (directory, pid).
 * rp_prefetch_dump starts indexing the one of a jitted ELF's path on a worker, during the
 * replay; rp_dumps_take waits for them and takes them over (rp_ingest_loads), and
 * rp_prefetch_end waits for and drops what was not taken. rp_dumps_entry is the dump entry
 * of the load mapped from a jitted ELF's path in process pid (the dump indexed now if no
 * worker did), or NULL; rp_dumps_warn_unread names once each dump that could not be read. */
struct rp_dump;
struct rp_dumps {
	struct rp_dump *v;
	size_t n;
	unsigned flags;		/* JD_INDEX_*: what their indexes leave out */
	char *const *alt;	/* the session's dump_dirs */
	size_t nr_alt;
};
/* Each source's RP_ARCHIVE_DUMPS directory that exists into s->dump_dirs. 0 or -ENOMEM. */
int rp_dumps_set_dirs(struct rp_session *s, struct sym_session *ss);
struct jd_load_entry;
void rp_prefetch_dump(struct rp_session *s, const char *jitted_path, uint32_t pid);
void rp_dumps_take(struct rp_session *s, struct rp_dumps *d);
void rp_prefetch_end(struct rp_session *s);
const struct jd_load_entry *rp_dumps_entry(struct rp_dumps *d, const char *jitted_path,
					   uint32_t pid);
void rp_dumps_warn_unread(const struct rp_dumps *d, const struct jp_log *log);
struct jd_index;
struct jd_ext_method;
/* interp_names.c: the method, bci and line an interpreter frame's words name in x's method
 * table at time (bcp first, else bcp_slot): 0, or -ENOENT for a method the table does not
 * hold or a bcp outside its bytecodes (a native method's frame holds bcp 0). */
int rp_interp_resolve(const struct jd_index *x, uint64_t method, uint64_t bcp,
		      uint64_t bcp_slot, uint64_t time, const struct jd_ext_method **m,
		      uint32_t *bci, uint32_t *line);
const struct jd_index *rp_prefetch_index(struct rp_session *s, const char *jitted_path,
					 uint32_t pid, const struct jd_load_entry **entry);
void rp_dumps_free(struct rp_dumps *d);

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

/* jvmlog_guard.c: a compilation log's bytes as libxml2 reads them (xmlInputReadCallback),
 * in one linear pass: a DOCTYPE declaration blanked (so no entity but XML's predefined ones
 * exists), the '&' of a reference to any other made '?', attributes of one start tag past
 * RP_JVMLOG_MAX_ATTRS blanked; the same length, so libxml2's byte offsets are the file's.
 * HotSpot writes no DOCTYPE, and elements of at most about 20 attributes. */
#define RP_JVMLOG_MAX_ATTRS 256
struct rp_jvmlog_guard {
	int fd;
	size_t pos, ready, end;		/* buf[pos, ready) handed on next, [ready, end) held */
	uint64_t base;			/* the file offset of buf[0] */
	int eof, state, quote, depth, dropping, in_comment;
	uint32_t hist;			/* the last 4 bytes of a DOCTYPE, to find its comments */
	unsigned n, attrs;		/* the state's counter; attributes in this start tag */
	char word[8];			/* the letters after "<!" */
	int amp;			/* the last byte was a '&' of content or a value */
	unsigned nref;			/* bytes of ref: what follows that '&' */
	char ref[8];
	uint64_t refs_dropped, refs_off;	/* references made text, the first's offset */
	uint64_t doctypes, doctype_off;		/* declarations blanked, the first's offset */
	uint64_t attrs_dropped, attrs_off;	/* attributes blanked, the first's offset */
	unsigned char buf[64 * 1024];
};
void rp_jvmlog_guard_init(struct rp_jvmlog_guard *g, int fd);
int rp_jvmlog_guard_read(void *ctx, char *out, int len);

#endif
