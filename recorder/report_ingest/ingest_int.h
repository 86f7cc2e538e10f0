/* ingest_int.h - what the ingest's files share: the state of one ingest (a replay of a
 * perf.data into a report session), and the pieces behind it (memos, the mapped loads, the
 * dumps, the checks). Not for other modules. */
#ifndef JITPROF_RECORDER_REPORT_INGEST_INT_H
#define JITPROF_RECORDER_REPORT_INGEST_INT_H

#include "recorder/perfdata/perfdata.h"
#include "lib/hindex.h"
#include "recorder/report_ingest/ingest.h"
#include "recorder/unwind/unwind.h"

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

/* events.c: the event a report reads. rp_pick_event finds the one called name ("cpu-clock"
 * also names "cpu-clock:ppp"); -ENOENT with the file's events listed, logged, otherwise.
 * rp_first_event is the default: the first event the recording asked for (perf record -e
 * a,b: a), leaving out perf's dummy tracking event; NULL when the file does not list its
 * events before its samples (a pipe), where the first event with samples is taken.
 * rp_warn_other_events says which one is reported and lists every event with its samples
 * (counts[idx], n of them: by position in the file) and the JVM's own samples (jvm[0]
 * alloc, jvm[1] lock; NULL or 0: none), in a warning; asked: the --event given, named as the
 * one reported. */
struct pd_reader;
struct pd_evsel;
int rp_pick_event(const struct pd_reader *r, const char *name, const char *file,
		  const struct pd_evsel **out, const struct jp_log *log);
const struct pd_evsel *rp_first_event(const struct pd_reader *r);
void rp_warn_other_events(const struct pd_reader *r, const struct pd_evsel *chosen,
			  const uint64_t *counts, size_t n, const uint64_t *jvm, const char *asked,
			  const struct jp_log *log);
/* offcpu.c: the off-CPU views a recording has: 0 none, 1 offcpu, 2 offcpu and wall (its
 * on-CPU event is a clock); *cs its context-switches evsel (NULL with 0). */
int rp_offcpu_views(const struct pd_reader *r, const struct pd_evsel **cs);

/* name_set.c: the values of a memo (display names) as a set of strings, found by string:
 * 0 or -ENOMEM (free it either way). */
struct rp_name_set {
	const char **v;		/* the names, each once */
	size_t n, cap;
	struct jp_hindex ix;	/* by string */
};
int rp_name_set_of_memo(struct rp_name_set *ns, const struct rp_memo *m);
const char *rp_name_set_find(struct rp_name_set *ns, const char *str);
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

/* The one of those an MMAP, MMAP2, COMM or FORK event says (others: nothing). */
struct pd_event;
void rp_note_process_event(struct rp_session *s, const struct pd_event *ev);

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
	char *marker;				/* the first marker's path (malloc'd) */
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
		    const struct rp_promote *pr, const struct rp_ingest_opts *o);
/* dumps.c: the jitdumps beside the jitted ELFs, one per (directory, pid).
 * rp_prefetch_dump starts indexing the one of a jitted ELF's path on a worker, during the
 * replay (0, or -ENOMEM: not listed, the replay's caller stops); rp_dumps_take waits for them and takes them over (rp_ingest_loads; 0 or
 * -ENOMEM), and rp_prefetch_end waits for and drops what was not taken. rp_dumps_entry is the dump entry
 * of the load mapped from a jitted ELF's path in process pid (the dump indexed now if no
 * worker did), or NULL; rp_dumps_warn_unread names once each dump that could not be read. */
struct rp_dump;
struct rp_dumps {
	struct rp_dump *v;
	size_t n, cap;
	unsigned flags;		/* JD_INDEX_*: what their indexes leave out */
	char *const *alt;	/* the session's dump_dirs */
	size_t nr_alt;
};
/* Each source's RP_ARCHIVE_DUMPS directory that exists into s->dump_dirs. 0 or -ENOMEM. */
int rp_dumps_set_dirs(struct rp_session *s, struct sym_session *ss);
struct jd_load_entry;
int rp_prefetch_dump(struct rp_session *s, const char *jitted_path, uint32_t pid);
int rp_dumps_take(struct rp_session *s, struct rp_dumps *d);
void rp_prefetch_end(struct rp_session *s);
const struct jd_load_entry *rp_dumps_entry(struct rp_dumps *d, const char *jitted_path,
					   uint32_t pid);
void rp_dumps_warn_unread(const struct rp_dumps *d, const struct jp_log *log);
struct jd_index;
struct jd_ext_method;
/* interp_names.c: the method, bci and line an interpreter frame's words name in x's method
 * table at time (bcp first, else bcp_slot): 0, or -ENOENT for a method the table does not
 * hold or a bcp outside its bytecodes (a native method's frame: 0 or its code base). */
int rp_interp_resolve(const struct jd_index *x, uint64_t method, uint64_t bcp,
		      uint64_t bcp_slot, uint64_t time, const struct jd_ext_method **m,
		      uint32_t *bci, uint32_t *line);
/* During the replay: the index of the dump of a jitted ELF's path in process pid (*x NULL:
 * none, the dump unread or not a jitted name) and the entry of its load (NULL: none). 0, or
 * -ENOMEM, never read as "no dump". */
int rp_prefetch_index(struct rp_session *s, const char *jitted_path, uint32_t pid,
		      const struct jd_index **x, const struct jd_load_entry **entry);
void rp_dumps_free(struct rp_dumps *d);

/* unwound.c's state: each DSO's CFI (NULL: none) and how the walks ended. */
struct rp_unwind {
	struct rp_u64map by_dso;	/* struct sym_dso * -> index in cfi */
	struct unw_memo *memo;	/* find's answers by (pid, pc), made at the first walk */
	struct unw_cfi **cfi;
	struct synth_elf *img;	/* a jitted DSO's ELF its cfi reads (others: zeroed) */
	size_t n, cap, capimg;
	uint64_t walks, ends[UNW_END_NR];
	uint64_t copy_cut, copy_size;	/* walks cut by a full copy's end, the largest such copy */
	/* Steps into jitted code: refused for want of the agent's layout (another JVM, an old
	 * agent, methods=off), refused without frame pointers nor prologue CFI, walked by rbp,
	 * walked by the CFI synth reads off a C1/C2 prologue (interp_names.c
	 * counts the interpreter's frames named and left unnamed). */
	uint64_t no_vm, no_fp, fp_frames, cfi_frames, interp_named, interp_unnamed;
	struct rp_memo names;	/* a method record -> its interned demangled name */
};

/* offcpu.c's state: the recording's context-switches evsel (NULL: not an offcpu or wall
 * report) and each thread's last switch-out. */
struct rp_offcpu_thread;
struct rp_offcpu {
	const struct pd_evsel *cs;
	int wall;
	struct rp_u64map by_tid;	/* tid + 1 -> index + 1 into th */
	struct rp_offcpu_thread *th;
	size_t n, cap;
	uint64_t intervals;
};

/* jvmsamples.c: --event alloc|lock, from the companions of the markers the replay saw. */
struct jv_marker;
struct rp_jvmsamples {
	uint32_t kind;			/* JD_SAMPLE_*; 0: not asked */
	struct jv_marker *m;
	size_t n, cap;
	const char *class_dso, *java_dso;
	uint64_t samples, unnamed, any[3];	/* any: alloc, lock, other kinds read */
};

struct ingest {
	struct rp_session *s;
	struct sym_session *ss;
	const struct rp_ingest_opts *o;
	struct pd_reader *r;
	const struct pd_evsel *evsel;	/* the event reported (the first recorded, events.c) */
	int other_evsels;
	uint64_t *evsel_samples;	/* samples per event, by its position in the file */
	size_t n_evsel_samples;
	struct rp_u64map path_load;	/* jitted ELF's DSO name (its pointer) -> load index */
	struct rp_u64map dso_load;		/* struct sym_dso * -> load index + 1 (0 = not jitted) */
	struct rp_res_memo res_memo;	/* frames made of an address, while they stay so */
	struct rp_load_src *load_src;	/* per load: its DSO's recorded name, mapping time */
	size_t load_src_cap;
	uint64_t first_time, last_time;
	unsigned res_flags;
	size_t last_later;		/* samples before this may hold RP_FRAME_LINES_LATER */
	struct rp_live live;		/* mapped jitted loads per process */
	struct rp_pending pending;	/* sampled_loads_only, sampled_methods_only: jitted ELFs
					 * mapped, no load made of them yet */
	uint64_t end_time;		/* when the loads end_load() ends, end */
	struct rp_checks checks;	/* forgotten prerequisites (checks.c) */
	uint64_t chains_cut;		/* samples whose chain passed MAX_FRAMES (said once) */
	/* The symbol session's strings are interned there and stay put: what each one becomes
	 * in our session (display name, interned copy, base name) is remembered by pointer, so
	 * a frame costs three pointer lookups instead of three strlen + hash + strcmp (and an
	 * sscanf for the DSO) per address of every call chain. */
	struct rp_memo m_dso, m_sym, m_file;
	/* What a frame in a DSO shows, by the DSO's frame tag (index + 1): its display name, load
	 * and flags are the DSO's alone, and its last symbol mostly repeats (a jitted ELF has
	 * one), so a sample-dense run's 200k frames at 172k distinct addresses need no hash
	 * lookup each for them (four were a tenth of the report). */
	struct dso_frame *dso_frames;
	size_t n_dso_frames, cap_dso_frames;
	const char *last_comm_raw, *last_comm;	/* a sample's command: the session's, ours */
	struct rp_unwind unwind;
	struct rp_offcpu offcpu;
	struct rp_jvmsamples jv;
};

struct dso_frame {
	const char *dso;		/* display name, interned */
	const char *raw_sym, *sym;	/* the last symbol (the session's) and its interned copy */
	uint32_t load;
	uint32_t flags;			/* RP_FRAME_UNKNOWN, RP_FRAME_JITTED_DSO or 0 */
};

/* ingest_resolve.c: the frames of one address (the innermost last, inlined callers first),
 * at most room; their number. rp_ingest_dso_display: a DSO's name as the views show it. */
uint32_t rp_ingest_resolve(struct ingest *in, uint32_t pid, uint64_t ip, uint64_t time,
			   int cpumode, struct rp_frame *out, uint32_t room);
const char *rp_ingest_dso_display(struct ingest *in, const char *name);

/* ingest_maps.c: a jitted ELF's MMAP2 made a load, or kept pending (sampled_loads_only,
 * sampled_methods_only) with the live range and end a load would have; a pending one made a
 * load when a frame lands in it (rp_ingest_load_of_pending) or when it is a generation of a
 * sampled method (rp_ingest_promote, the rp_promote callback). */
void rp_ingest_on_mmap(struct ingest *in, const struct pd_event *ev, struct sym_dso *d,
		       uint64_t time);
uint32_t rp_ingest_load_of_pending(struct ingest *in, struct rp_pending_map *pm);
uint32_t rp_ingest_promote(void *ctx, uint32_t id, const struct rp_load_src **src);

/* unwound.c: ps's user stack unwound from its registers and stack copy into pcs
 * (UNW_MAX_FRAMES of room): the user ip, then return addresses. Returns their number or
 * -ENOMEM; *early: the walk stopped before the stack's root. The report's line on the walks
 * (a warning when many stopped early), and the CFI released. */
/* The sample's user stack unwound into frames (at most max; fewer than UNW_MAX_FRAMES is
 * the leaf's own step, for its interpreter words, and is not counted as a walk). */
int rp_ingest_unwind(struct ingest *in, const struct pd_sample *ps, struct unw_frame *frames,
		     uint32_t max, int *early);
/* interp_names.c: an interpreter frame f (method set) named on out, the frame resolve()
 * made of its pc: 1 named, 0 left as it was (a method not in the table, a bcp outside its
 * bytecodes: never a wrong name), -ENOMEM. */
int rp_interp_name(struct ingest *in, const struct unw_frame *f, uint64_t time,
		   struct rp_frame *out);
void rp_ingest_unwind_report(const struct ingest *in);
void rp_ingest_unwind_free(struct ingest *in);

/* offcpu.c: --event offcpu|wall (rp_offcpu_wanted). rp_offcpu_pick finds the evsels (the
 * message logged when the recording lacks them) and sets in->evsel to what on_sample keeps;
 * rp_offcpu_take gets its samples with their frames (a switch-out is held until the
 * thread's switch-in, rp_offcpu_event, which also reads COMM and EXIT); rp_offcpu_finish
 * ends the intervals still open at the recording's end and lists the threads that never ran. */
int rp_offcpu_wanted(const char *event);
int rp_offcpu_pick(struct ingest *in, const char *event);
/* A sample of any event: tid ran (it is not one of the threads that never did). */
int rp_offcpu_ran(struct ingest *in, uint32_t tid, uint64_t time);
int rp_offcpu_take(struct ingest *in, const struct pd_event *ev, const struct rp_sample *smp,
		   const struct rp_frame *frames, uint32_t nr);
int rp_offcpu_event(struct ingest *in, const struct pd_event *ev);
int rp_offcpu_finish(struct ingest *in, uint64_t start, uint64_t end);
void rp_offcpu_free(struct rp_offcpu *oc);

/* jvmsamples.c: rp_jvmsamples_wanted says whether event is alloc or lock; _pick sets what
 * the session weighs; _mmap notes each jitdump marker the replay meets; _finish adds the
 * companions' samples (the message logged when there are none); _free. */
int rp_jvmsamples_wanted(const char *event);
void rp_jvmsamples_pick(struct ingest *in, const char *event);
int rp_jvmsamples_mmap(struct ingest *in, const struct pd_event *ev);
int rp_jvmsamples_finish(struct ingest *in);
/* No kind asked: counts the companions' samples of each kind (jv.any), silently where one
 * cannot be read; 0 or -ENOMEM (said). */
int rp_jvmsamples_count(struct ingest *in);
void rp_jvmsamples_free(struct rp_jvmsamples *jv);

#endif
