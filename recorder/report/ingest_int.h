/* ingest_int.h - what ingest.c and ingest_maps.c, unwound.c and offcpu.c share: the state of
 * one ingest (a replay of a perf.data into a report session). Private to those files. */
#ifndef JITPROF_RECORDER_REPORT_INGEST_INT_H
#define JITPROF_RECORDER_REPORT_INGEST_INT_H

#include "recorder/perfdata/perfdata.h"
#include "recorder/report/report_int.h"
#include "recorder/unwind/unwind.h"

/* unwound.c's state: each DSO's CFI (NULL: none) and how the walks ended. */
struct rp_unwind {
	struct rp_u64map by_dso;	/* struct sym_dso * -> index in cfi */
	struct unw_memo *memo;	/* find's answers by (pid, pc), made at the first walk */
	struct unw_cfi **cfi;
	struct synth_elf *img;	/* a jitted DSO's ELF its cfi reads (others: zeroed) */
	size_t n, cap, capimg;
	uint64_t walks, ends[UNW_END_NR];
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
 * message in err when the recording lacks them) and sets in->evsel to what on_sample keeps;
 * rp_offcpu_take gets its samples with their frames (a switch-out is held until the
 * thread's switch-in, rp_offcpu_event, which also reads COMM and EXIT); rp_offcpu_finish
 * ends the intervals still open at the recording's end and lists the threads that never ran. */
int rp_offcpu_wanted(const char *event);
int rp_offcpu_pick(struct ingest *in, const char *event, char *err, size_t errlen);
/* A sample of any event: tid ran (it is not one of the threads that never did). */
int rp_offcpu_ran(struct ingest *in, uint32_t tid, uint64_t time);
int rp_offcpu_take(struct ingest *in, const struct pd_event *ev, const struct rp_sample *smp,
		   const struct rp_frame *frames, uint32_t nr);
int rp_offcpu_event(struct ingest *in, const struct pd_event *ev);
int rp_offcpu_finish(struct ingest *in, uint64_t start, uint64_t end);
void rp_offcpu_free(struct rp_offcpu *oc);

/* jvmsamples.c: rp_jvmsamples_wanted says whether event is alloc or lock; _pick sets what
 * the session weighs; _mmap notes each jitdump marker the replay meets; _finish adds the
 * companions' samples (the message in err when there are none); _free. */
int rp_jvmsamples_wanted(const char *event);
void rp_jvmsamples_pick(struct ingest *in, const char *event);
int rp_jvmsamples_mmap(struct ingest *in, const struct pd_event *ev);
int rp_jvmsamples_finish(struct ingest *in, char *err, size_t errlen);
void rp_jvmsamples_free(struct rp_jvmsamples *jv);

#endif
