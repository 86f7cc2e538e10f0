/* inject_int.h - inject's pieces behind inj_run, one file each: segment maps (segmap.c), the
 * per-dump timeline (dumps.c), the ordered replay that finds sampled generations (sim.c), the
 * ELF writer pool (elfpool.c), clocks (time_conv.c), names (names.c), and the state of one run
 * shared by the stream driver (run.c) and the emitter of synthetic records (emit.c). Not part
 * of the module's face; unit tests use it. */
#ifndef JITPROF_INJECT_INT_H
#define JITPROF_INJECT_INT_H

#include "jitdump/jitdump.h"
#include "recorder/inject/inject.h"
#include "recorder/origins/origins.h"
#include "recorder/perfdata/perfdata.h"

/* ---- Names: markers, dump location, the runtime's anonymous code mappings -------------- */

/* 1 if filename is a runtime's anonymous code mapping that perf drops once the process has a
 * jitdump ("//anon", "[anon:", "/memfd:"). */
int inj_is_anon_code(const char *filename);
/* Where to read the dump a marker names: jit_dir/basename(marker) when jit_dir is set, else
 * the marker path itself. 0 or -ENAMETOOLONG. */
int inj_dump_path(const char *marker, const char *jit_dir, char *buf, size_t len);
/* Directory part of path ("." for a bare name) into buf. */
int inj_dirname(const char *path, char *buf, size_t len);
/* Absolute, lexically normalised form of path (no ".", "..", "//"); cwd for relative. */
int inj_abspath(const char *path, char *buf, size_t len);

/* ---- Clocks ----------------------------------------------------------------------------- */

struct inj_time_conv {		/* PERF_RECORD_TIME_CONV */
	uint64_t time_shift, time_mult, time_zero;
	uint64_t time_cycles, time_mask;
	int cap_user_time_zero, cap_user_time_short;
	int valid;
};
/* TIME_CONV record body (after the 8-byte header) -> *tc. size = header.size. */
int inj_time_conv_parse(struct inj_time_conv *tc, const void *rec, size_t size);
/* An arch (TSC) timestamp on the recording's clock, as perf converts it. */
uint64_t inj_tsc_to_perf_time(const struct inj_time_conv *tc, uint64_t cyc);

/* ---- Segment maps: which load owns an address, as time goes by ----------------------------
 * The starts and ends of every range a dump can map cut the address space into elementary
 * segments; every later question (who owns this ip, which parts does this load still own)
 * is then a binary search plus a walk over a few segments, with no tree to balance. */

struct inj_bounds {
	uint64_t *b;		/* sorted, unique */
	size_t nb;		/* segments: nb - 1 */
	/* Where to start looking: bucket k of the hull, (addr - b[0]) >> shift, begins at
	 * segment lut[k], so a lookup is a short search instead of a binary search over every
	 * bound (those were a seventh of `inject --no-elfs` on a sample-dense run). */
	uint32_t *lut;		/* nlut + 1 entries; NULL: plain binary search */
	size_t nlut;
	unsigned shift;
};
struct inj_range { uint64_t start, end; };

int inj_bounds_init(struct inj_bounds *bd, const struct inj_range *r, size_t n);
void inj_bounds_fini(struct inj_bounds *bd);
/* Segment index holding addr, or -1 when addr is outside every range's hull. */
long inj_bounds_find(const struct inj_bounds *bd, uint64_t addr);

struct inj_segmap {
	const struct inj_bounds *bd;
	uint32_t *owner;	/* per segment; INJ_NONE = nothing of ours */
	uint64_t *when;		/* time the owner was set (0 never) */
};
int inj_segmap_init(struct inj_segmap *m, const struct inj_bounds *bd);
void inj_segmap_fini(struct inj_segmap *m);
/* Every segment inside [start, end) becomes owner's at time t. */
void inj_segmap_assign(struct inj_segmap *m, uint64_t start, uint64_t end, uint32_t owner,
		       uint64_t t);
/* The segments inside [start, end) still owned by owner become INJ_NONE at time t; fn gets
 * each maximal run [s, e) released. Returns how many runs. */
size_t inj_segmap_release(struct inj_segmap *m, uint64_t start, uint64_t end, uint32_t owner,
			  uint64_t t, void (*fn)(void *ctx, uint64_t s, uint64_t e), void *ctx);
/* 1 with the owner and its time if segment seg (what inj_bounds_find gives for an address;
 * < 0: none) has ever been set, else 0. */
int inj_segmap_at(const struct inj_segmap *m, long seg, uint32_t *owner, uint64_t *when);

/* A small set of segments, emptied in O(1) (a stamp per slot): what one sample's call chain
 * has already kept. Without memory (or with its probes run out) every segment counts as new:
 * its users must tolerate a duplicate. */
struct inj_segset {
	struct inj_segset_slot *slot;
	uint32_t stamp;
};
void inj_segset_clear(struct inj_segset *set);
/* 1 when seg was not in the set (it is now), 0 when it was. */
int inj_segset_add(struct inj_segset *set, uint32_t seg);
void inj_segset_fini(struct inj_segset *set);

/* ---- One dump: its loads' build-ids and its timeline of mapping events -------------------- */

enum inj_ev_kind { INJ_EV_LOAD = 0, INJ_EV_MOVE = 1, INJ_EV_UNLOAD = 2 };

struct inj_ev {
	uint64_t time;		/* effective (converted, clamped) */
	uint32_t idx;		/* load index (LOAD, UNLOAD) or move index (MOVE) */
	uint32_t kind;
};

#define INJ_HIT_SAMPLE  1u	/* a sample's ip landed in it */
#define INJ_HIT_CHAIN   2u	/* a callchain entry landed in it */
#define INJ_QUEUED      4u	/* handed to the ELF writer */
#define INJ_BAD         8u	/* synth refuses it: no MMAP2, no ELF (perf skips it too) */
#define INJ_NOLINES    16u	/* inline/unwind data refused by synth: ELF made without them */
#define INJ_TRIMMED    32u	/* some line-table entries unusable (dropped, the rest kept) or
				 * renamed (synth_lines_renamed) */
#define INJ_OLD        64u	/* read by an earlier part of a followed dump: not mapped here */
#define INJ_HASHED    128u	/* inj_dfile only: build_id, text_off and the flags are known */

struct inj_load {
	uint8_t build_id[20];
	uint8_t flags;		/* INJ_HIT_*, INJ_QUEUED, INJ_BAD, INJ_NOLINES, INJ_TRIMMED,
				 * INJ_OLD */
	uint32_t text_off;	/* MMAP2 pgoff: where synth puts .text in this load's ELF */
	uint32_t move_idx;	/* first move of this load's code_index, INJ_NONE if none */
};

/* One dump file as read once (issue 16 finding 9): every inj_dump (a process whose marker
 * names the file, or a later part of a followed dump) that reads the same file — same dev and
 * inode, same size, mtime and ctime — shares its index, and each load's build-id is hashed
 * once, whichever process or part first needs it. Counted references, one per inj_dump. */
struct inj_dfile {
	struct jd_index *x;
	uint64_t dev, ino;	/* ino 0: never shared (identity unknown or changed while read) */
	int64_t size;
	uint64_t mtime_ns, ctime_ns;
	struct inj_load *loads;	/* build_id, text_off, move_idx; flags INJ_HASHED, INJ_BAD,
				 * INJ_NOLINES, INJ_TRIMMED */
	uint32_t *file_seqs;	/* per load: synth_index_file_seqs (repeated code_index values) */
	uint32_t *move_load;	/* per move: load index it moves, INJ_NONE when unknown */
	uint8_t *id_state;	/* per load, with a hasher: whether its build_id is there yet
				 * (hasher.c; NULL: hashed with its flags) */
	unsigned refs;
};
/* Load i's build-id into f->loads[i] (the input its flags say); 0 or <0. */
int inj_dfile_hash_load(struct inj_dfile *f, uint32_t i);
/* Logs that load i of f could not be hashed (libcrypto), after "path: " unless path is NULL;
 * returns -EIO. */
int inj_dfile_hash_error(const struct inj_dfile *f, uint32_t i, const char *path,
			 const struct jp_log *log);
/* A dfile of index x (owned from here on, closed on failure too), refs 1, nothing hashed. */
int inj_dfile_new(struct inj_dfile **out, struct jd_index *x);
void inj_dfile_put(struct inj_dfile *f);	/* drops one reference; frees at 0 */

struct inj_dump {
	struct inj_dfile *df;	/* the file's shared index: x, file_seqs and move_load are its
				 * (NULL: this inj_dump owns x and file_seqs, as noelfs.c's) */
	struct jd_index *x;
	char *path;		/* where it was read */
	char *dir;		/* absolute directory, as text: the ELFs' names */
	int dirfd;		/* the directory the dump was really opened from (-1: none) */
	int beside;		/* ELFs may be written into dirfd: it is the running user's */
	int ids_hashed_here;	/* loads' build-ids computed by inj_dump_init from the index in
				 * memory (not read from an injected file's origins) */
	uint32_t pid;		/* process the marker belongs to (the MMAP's pid) */
	uint32_t nspid;		/* pid in the dump's name */
	uint64_t marker_time;
	uint32_t marker_cpu;
	uint16_t e_machine;
	uint32_t *file_seqs;	/* per load: synth_index_file_seqs (repeated code_index values) */
	size_t nr_bad;		/* loads synth refused */
	size_t nr_nolines;	/* loads whose inline/unwind data synth refused */
	size_t nr_trimmed, nr_rows_dropped;	/* loads with unusable line entries, entries */
	size_t nr_renamed, nr_rows_renamed;	/* loads with entries whose file name is not
						 * text, given their load's script; entries */
	char *bad_msg;		/* the first refusal, whole (malloc'd) */
	size_t nr_loads, nr_moves;
	struct inj_load *loads;
	uint32_t *move_load;	/* per move: load index it moves, INJ_NONE when unknown */
	struct inj_ev *evs;	/* time order */
	size_t nr_evs, next_ev;
	size_t clamped;		/* events moved later to stay in perf's ordering window */
	struct inj_bounds bounds;
	struct inj_segmap emit_map;	/* state as of the last emitted event */
	struct inj_segmap sim_map;	/* state as of the replay (sim.c) */
	/* A dump read while its writer still runs is followed: each re-read of the grown file
	 * is one more inj_dump (a "part") owning only the loads and moves after the previous
	 * part's; the replay already lets the newest mapping of a pid win across dumps. */
	size_t first_load, first_move;	/* this part maps loads/moves from here on */
	uint64_t newest;	/* newest record time read (perf clock) */
	int closed;		/* CODE_CLOSE read: the writer is done */
	int64_t size;		/* file size when read */
	char *marker;		/* the marker's file name, as the writer mapped it */
	uint64_t waited_us;	/* time spent waiting for this file to grow (all parts) */
	int superseded;		/* a later part re-read the file */
};

/* Markers of more processes than this naming one dump file: the rest are not injected (and
 * the file is not read for them). The index and build-ids are shared (inj_dfile), but each
 * process still costs the dump's timeline and one MMAP2 per load in the output again (perf
 * itself takes a marker only for the process its name says; a fork may share the mapping). */
#define INJ_MAX_PIDS_PER_DUMP 8u

struct inj_dump_opts {
	int arch_time;		/* dump uses TSC: convert with tc */
	const struct inj_time_conv *tc;
	int threads;		/* for build-ids */
	size_t first_load, first_move;	/* 0 for a whole dump; else the previous part's ends */
	struct inj_dfile *file;	/* the file read already (x is then NULL): shared, one more
				 * reference taken */
	struct inj_hasher *hasher;	/* non-NULL: build-ids are hashed behind the stream */
};
/* Builds the timeline and build-ids of an opened index (takes ownership of x, made a new
 * inj_dfile; or shares o->file; call inj_dump_fini also after a failure). 0 or -errno,
 * logged; out of memory is fatal. */
int inj_dump_init(struct inj_dump *d, struct jd_index *x, const char *path,
		  const struct inj_dump_opts *o, const struct jp_log *log);
void inj_dump_fini(struct inj_dump *d);
/* After inj_hasher_finish: the build-ids hashed behind the stream into d's own loads. */
void inj_dump_take_ids(struct inj_dump *d);
/* Whether ELFs may be written beside d's dump (d->beside): only through d->dirfd (opened from
 * the dump's directory when still -1), and only when that directory is the running user's
 * (or root's sticky /tmp): anywhere else someone else chose what is there and could swap it.
 * why gets the reason when not. Returns d->beside. */
int inj_dump_trust_dir(struct inj_dump *d, char *why, size_t whylen);
/* Raises every pending event time below floor to floor; returns how many moved. */
size_t inj_dump_clamp(struct inj_dump *d, uint64_t floor);
struct synth_input;
/* synth's input for load i of d, as inject builds it (without the line tables synth refused). */
void inj_load_input(const struct inj_dump *d, uint32_t i, struct synth_input *in);
/* "<dir>/jitted-<pid>-<code_index>.so" for load i of d: the MMAP2 name and the ELF's path. */
int inj_load_path(const struct inj_dump *d, uint32_t i, char *buf, size_t len);
/* MMAP2 len of load i (code, plus mapped unwind data as perf maps it). */
uint64_t inj_load_map_len(const struct jd_load_entry *e);

/* ---- Build-ids hashed behind the stream (hasher.c) ---------------------------------------
 * `--no-elfs` on a file: inj_dump_init judges each load (validity, .text offset, trimmed rows:
 * all the timeline needs) and queues its SHA-1; threads hash in queue order while the prescan
 * and the stream go on; the stream asks for a load's id when it writes its MMAP2. */
struct inj_hasher;
/* threads (<= 0: jp_default_threads()) counts the stream's own: threads - 1 workers, at
 * least one. 0 or -ENOMEM. */
int inj_hasher_new(struct inj_hasher **out, int threads);
/* Queues loads idx[0..n) of f (a reference to f is kept); starts the threads. 0 or -ENOMEM. */
int inj_hasher_queue(struct inj_hasher *h, struct inj_dfile *f, const uint32_t *idx, size_t n);
/* Load i's build-id, waited for (or hashed here when nobody has started it); NULL when its
 * hash failed. f without a hasher's state: its id as hashed before. */
const uint8_t *inj_hasher_id(struct inj_hasher *h, struct inj_dfile *f, uint32_t i);
/* No more loads: the caller hashes what is left with the threads, then joins them. 0, or -EIO
 * with the first failed load named, logged. */
int inj_hasher_finish(struct inj_hasher *h, const struct jp_log *log);
/* Stops the threads (unfinished hashes abandoned) and frees h. NULL is a no-op. */
void inj_hasher_free(struct inj_hasher *h);

/* ---- The ordered replay that finds which loads were sampled (sim.c) ----------------------
 * Mirrors perf's ordered-events discipline on the output stream: mapping changes and samples
 * are applied in time order, released one FINISHED_ROUND late, so a sample is charged to the
 * generation perf will show it in. */

struct inj_sim;
typedef void (*inj_hit_fn)(void *ctx, struct inj_dump *d, uint32_t load, unsigned how);

struct inj_sim *inj_sim_new(inj_hit_fn fn, void *ctx);
void inj_sim_free(struct inj_sim *s);
int inj_sim_add_dump(struct inj_sim *s, struct inj_dump *d);
/* Queue a mapping change of d (owner INJ_NONE = release) over [start, end). */
int inj_sim_map(struct inj_sim *s, struct inj_dump *d, uint64_t time, uint64_t start,
		uint64_t end, uint32_t owner);
/* lazy: dumps may still be discovered (pipe input), so samples of processes without a dump
 * are held too and resolved when released; otherwise they are dropped at once. */
void inj_sim_set_lazy(struct inj_sim *s, int lazy);
/* Queue a sample: ip plus callchain entries (user context only is kept). */
int inj_sim_sample(struct inj_sim *s, uint32_t pid, uint32_t tid, uint64_t time, uint64_t ip,
		   const uint64_t *chain, uint64_t nr_chain, int ip_user);
/* A FINISHED_ROUND was written; release what perf would release. */
void inj_sim_round(struct inj_sim *s);
/* End of input: release everything. */
void inj_sim_flush(struct inj_sim *s);
size_t inj_sim_queued(const struct inj_sim *s);
uint64_t inj_sim_flush_limit(const struct inj_sim *s);	/* what perf has flushed up to */
/* Sample ips inside a dump's code ranges that no load covered at their time so far. */
uint64_t inj_sim_unresolved(const struct inj_sim *s);
void inj_sim_seen(struct inj_sim *s, uint64_t time);	/* any queued event's time */

/* ---- The ELF writer pool (elfpool.c) ------------------------------------------------------ */

struct inj_pool;
/* cache_root NULL: no build-id cache. inj_pool_push on a NULL pool (--no-elfs) does nothing. */
int inj_pool_new(struct inj_pool **p, int threads, const char *cache_root);
/* Where the ELFs of a dump whose directory is someone else's go when cache_root is NULL (issue
 * 16: never beside it, but somewhere a report finds them). */
void inj_pool_set_fallback_cache(struct inj_pool *p, const char *root);
int inj_pool_push(struct inj_pool *p, struct inj_dump *d, uint32_t load);
/* Places one ELF built elsewhere (interp.c) now, as a job places a generation's: in the cache
 * and beside d's dump at path ("<dir>/<name>"); counted in the pool's figures. 0 or -errno,
 * logged. */
struct synth_elf;
int inj_pool_place(struct inj_pool *p, const struct inj_dump *d, const struct synth_elf *elf,
		   const char *path, const struct jp_log *log);
/* ELFs finished so far and ELFs queued in all. */
void inj_pool_progress(struct inj_pool *p, uint64_t *done, uint64_t *queued);
/* Waits for every queued ELF, stops the threads, frees p. ELFs that could not be written are
 * said in one message at level (how many, and the first failure whole). */
void inj_pool_finish(struct inj_pool *p, struct inj_pool_stats *st, const struct jp_log *log,
		     enum jp_level level);

/* The placeholder DSO name an unload maps over code that is gone (docs/inject.md). */
#define INJ_UNLOADED_NAME "[jit-unloaded]"

/* ---- Call chains unwound from stack copies (stacks.c) ------------------------------------ */
struct inj_stacks;
/* *out NULL (and 0) when no evsel of r carries REGS_USER, STACK_USER and CALLCHAIN; keep:
 * --keep-stacks. 0 or -ENOMEM. */
int inj_stacks_new(struct inj_stacks **out, const struct pd_reader *r, int keep);
void inj_stacks_free(struct inj_stacks *k);	/* NULL-safe */
/* The output attrs of the rewritten evsels (before the writer starts). 0 or <0. */
int inj_stacks_attrs(struct inj_stacks *k, struct pd_writer *w);
/* A recorded MMAP, MMAP2, COMM, FORK or EXIT, for the processes' maps; others ignored.
 * 0 or -ENOMEM. */
int inj_stacks_event(struct inj_stacks *k, const struct pd_event *ev);
/* One of inject's synthetic MMAP2s: of load `load` of d (its build-id SYNTH_BUILD_ID_SIZE
 * bytes), or a placeholder (load INJ_NONE, build_id NULL). 0 or -ENOMEM. */
struct inj_dump;
int inj_stacks_mmap(struct inj_stacks *k, struct inj_dump *d, uint32_t load, uint32_t pid,
		    uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *filename, const uint8_t *build_id, uint64_t time);
/* The record to write for sample ev and the call chain it now has: 1 rewritten (*rec valid
 * until the next call), 0 as read (not an evsel with copies, or no room), -ENOMEM. */
int inj_stacks_sample(struct inj_stacks *k, const struct pd_event *ev, const void **rec,
		      size_t *size, const uint64_t **chain, uint64_t *nr_chain);
/* Its figures, the interpreted frames' counts (interp.c) taken now. */
const struct inj_stacks_stats *inj_stacks_stats(struct inj_stacks *k);
/* Interpreted frames named through interp (interp.c; NULL: left as the interpreter's pcs). */
struct inj_interp;
void inj_stacks_set_interp(struct inj_stacks *k, struct inj_interp *ip);

/* ---- Interpreted frames as addresses in one ELF per process (interp.c) -------------------
 * Each ELF maps at INJ_INTERP_BASE + seq * INJ_INTERP_SPAN (seq: its rank among its
 * process's): non-canonical on x86_64 even with 5-level paging (user space ends below
 * 1 << 56), so no real map of any process can be there, and below the kernel's half. */
#define INJ_INTERP_BASE (1ull << 56)
#define INJ_INTERP_SPAN (1ull << 40)
/* Dump parts (a followed dump) of one process with an ELF each at most. */
#define INJ_INTERP_MAX_PER_PID 64u
/* *out NULL (and 0) without a pool (--no-elfs). 0 or -ENOMEM. */
int inj_interp_new(struct inj_interp **out, struct inj_pool *pool, const struct jp_log *log);
void inj_interp_free(struct inj_interp *ip);	/* NULL-safe */
/* The address naming interpreter frame f (its words, unw_walk_frames) of process pid in dump
 * d at time, in *addr (0: the table does not know it, or no ELF could be made: warned once).
 * May build and place the process's ELF. 0 or -ENOMEM. */
int inj_interp_addr(struct inj_interp *ip, uint32_t pid, struct inj_dump *d,
		    const struct unw_frame *f, uint64_t time, uint64_t *addr);
/* The MMAP2 of every ELF placed since the last call, before the sample that names it. */
struct inj_run_state;
int inj_interp_emit(struct inj_run_state *s, struct inj_interp *ip);
/* BUILD_ID entries of the mapped ELFs (file output). */
int inj_interp_build_ids(struct inj_run_state *s, const struct inj_interp *ip);
void inj_interp_counts(const struct inj_interp *ip, uint64_t *named, uint64_t *unnamed,
		       uint64_t *elfs);

struct inj_run_state {
	const struct inj_opts *o;
	struct inj_stats *st;
	struct pd_reader *r;
	struct pd_writer *w;
	int w_started;
	struct inj_sim *sim;
	struct inj_pool *pool;
	struct inj_hasher *hasher;	/* --no-elfs on a file (hasher.c); NULL otherwise */
	struct inj_stacks *stacks;	/* a recording with stack copies (stacks.c); else NULL */
	struct inj_interp *interp;	/* its interpreted frames' ELFs (interp.c); else NULL */
	struct inj_dump **dumps;
	size_t nr_dumps, cap_dumps;
	struct inj_time_conv tc;
	uint64_t max_seen;	/* newest timestamp read so far */
	int prescanned;		/* file input: every dump was found before streaming */
	/* The run's fatal message, whole (malloc'd; NULL none): held, and said by inj_run
	 * once, last, after every warning (the pool's, said as it finishes). */
	char *err;
	struct jp_log errlog;	/* inj_run_errlog */
};

/* The run's fatal message: fmt formatted as jp_logf does, in place of any before. */
void inj_run_fail(struct inj_run_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A log whose first error becomes the run's message (the one before dropped): for the
 * pieces that log. */
const struct jp_log *inj_run_errlog(struct inj_run_state *s);

void inj_warnf(struct inj_run_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A marker MMAP: 1 consumed (its dump is merged), 0 keep the record (not a marker, or its dump
 * is unusable: warned), <0 refuse the run (foreign clock). open_new 0: only recognise dumps
 * already found (the prescan said what it had to about the others). */
int inj_marker_take(struct inj_run_state *s, const struct pd_reader *r,
		    const struct pd_event *ev, int open_new);
/* Pipe input: each dump whose file grew since it was read is read again (one more part) until
 * it holds records up to time upto; a writer that still has its marker mapped is waited for,
 * up to the run's bound per dump. 0, or <0 to refuse the run. */
int inj_follow(struct inj_run_state *s, const struct pd_reader *r, uint64_t upto);
/* Says once, for the newest part of a dump, that its tail was damaged. */
void inj_dump_warn_salvaged(struct inj_run_state *s, struct inj_dump *d);
/* 1 if the record is a runtime's anonymous code mapping perf would drop. */
int inj_marker_drop_anon(struct inj_run_state *s, const struct pd_event *ev);
/* File input: finds every marker (and TIME_CONV) before the main pass. */
int inj_prescan(struct inj_run_state *s);
/* 0, or -ESTALE with the run's message set when a dump mapped for the run (--no-elfs) has
 * shrunk since it was read: what was read from it past its new end is zeros. */
int inj_dumps_shrunk(struct inj_run_state *s);
/* Opens the input; on failure its message (file and offset) is the run's. */
int inj_reader_open(struct inj_run_state *s, struct pd_reader **r);

/* One synthetic MMAP2 (emit.c): of load `load` of d (INJ_NONE: none of its loads), fed to
 * the stacks' maps too. 0 or <0 with the run's message set. */
int inj_write_mmap2(struct inj_run_state *s, struct inj_dump *d, uint32_t load, uint32_t pid,
		    uint32_t tid, uint64_t time, uint64_t start, uint64_t len, uint64_t pgoff,
		    const uint8_t *build_id, const char *filename);
/* Emits, in time order across dumps, every pending synthetic record not newer than limit
 * (all of them when all is set), feeding the replay as it goes. */
int inj_emit_pending(struct inj_run_state *s, uint64_t limit, int all);
/* One BUILD_ID entry (file mode). 0 or <0 with the run's message set. */
int inj_add_build_id(struct inj_run_state *s, const uint8_t *id, const char *path);
/* Adds the BUILD_ID entries of every sampled generation and interpreted methods' ELF (file
 * mode). */
int inj_emit_build_ids(struct inj_run_state *s);
/* --no-elfs: the origins section of every ELF the file-writing path would write (noelfs.c). */
int inj_emit_origins(struct inj_run_state *s);

#endif
