/* perfdata.h - the perf.data format, the whole public face of recorder/perfdata/: a streaming
 * reader (file and pipe mode, either byte order), a writer (file and pipe mode), helpers for the
 * sample_id ("sid") trailer, an ordered-events queue and the replay driver. docs/perfdata.md.
 *
 * Conventions: functions return 0 (or a count) on success and a negative errno on failure; a
 * failed open gives its message (file and byte offset) to the options' log, later errors are
 * kept for pd_reader_error. Nothing here prints.
 */
#ifndef JITPROF_PERFDATA_H
#define JITPROF_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "lib/log.h"

/* ---------------------------------------------------------------------------------------
 * Constants the kernel uapi header does not carry (perf-synthesized types and features).
 */
#define PD_RECORD_USER_TYPE_START 64
enum pd_user_type {
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_EVENT_TYPE = 65,
	PD_RECORD_HEADER_TRACING_DATA = 66,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_ID_INDEX = 69,
	PD_RECORD_AUXTRACE_INFO = 70,
	PD_RECORD_AUXTRACE = 71,
	PD_RECORD_AUXTRACE_ERROR = 72,
	PD_RECORD_THREAD_MAP = 73,
	PD_RECORD_CPU_MAP = 74,
	PD_RECORD_STAT_CONFIG = 75,
	PD_RECORD_STAT = 76,
	PD_RECORD_STAT_ROUND = 77,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_TIME_CONV = 79,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,
	PD_RECORD_FINISHED_INIT = 82,
};

enum pd_feature {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CPU_TOPOLOGY = 13,
	PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15,
	PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_AUXTRACE = 18,
	PD_FEAT_STAT = 19,
	PD_FEAT_CACHE = 20,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_MEM_TOPOLOGY = 22,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_DIR_FORMAT = 24,
	PD_FEAT_BPF_PROG_INFO = 25,
	PD_FEAT_BPF_BTF = 26,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CPU_PMU_CAPS = 28,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_HYBRID_TOPOLOGY = 30,
	PD_FEAT_PMU_CAPS = 31,
	PD_FEAT_MAX = 256,	/* the header's feature bitmap has 256 bits */
};

/* perf 6.1's HEADER_LAST_FEATURE: the pipe-mode end-of-features marker it expects. */
#define PD_PERF61_LAST_FEATURE 32

/* misc bits not in (older) uapi headers. */
#define PD_MISC_MMAP_BUILD_ID (1u << 14)
#define PD_MISC_BUILD_ID_SIZE (1u << 15)	/* in HEADER_BUILD_ID entries: size byte valid */
#define PD_MISC_FORK_EXEC (1u << 13)
#define PD_MISC_COMM_EXEC (1u << 13)

#define PD_BUILD_ID_MAX 20	/* bytes a perf.data build-id slot holds */
#define PD_ATTR_SIZE_FILE 128	/* attr.size we write: read by perf >= 5.13 (VER7) */

/* ---------------------------------------------------------------------------------------
 * Events (evsels): one attr plus its sample ids.
 */
struct pd_evsel {
	struct perf_event_attr attr;	/* zero-extended or truncated to this header's sizeof */
	uint32_t attr_size;		/* attr.size as stored in the input */
	uint64_t *ids;
	size_t nr_ids;
	char *name;			/* from EVENT_DESC / EVENT_UPDATE(name); NULL if unknown */
	int idx;			/* position in the file's attr list */
};

/* The sample_id trailer of non-sample records (and the same fields of a sample). */
enum pd_sid_bits {
	PD_SID_TID = 1 << 0,
	PD_SID_TIME = 1 << 1,
	PD_SID_ID = 1 << 2,
	PD_SID_STREAM_ID = 1 << 3,
	PD_SID_CPU = 1 << 4,
};
struct pd_sid {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;		/* ID or IDENTIFIER, whichever the attr has */
	uint64_t stream_id;
	uint32_t cpu;
	unsigned present;	/* PD_SID_* bits actually parsed */
};

/* Size of the trailer perf expects after every non-sample record (id_hdr_size); 0 when the
 * attr has no sample_id_all. */
size_t pd_sid_size(const struct perf_event_attr *attr);
/* Writes the trailer for sid into buf (pd_sid_size bytes, host byte order); returns its size.
 * Synthesized records use an all-zero sid (time 0 = "takes effect at once" for perf). */
size_t pd_sid_write(const struct perf_event_attr *attr, const struct pd_sid *sid, void *buf);
/* Parses the trailer from the END of the record rec (size bytes incl. header, host order).
 * -EINVAL if the record is too short to hold one. */
int pd_sid_parse(const struct perf_event_attr *attr, const void *rec, size_t size,
		 struct pd_sid *sid);

/* ---------------------------------------------------------------------------------------
 * A decoded record. All pointers point into the raw bytes and are valid until the next
 * pd_reader_next() (copy what you keep; pd_ordered keeps whole events).
 */
struct pd_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_callchain;		/* entries incl. PERF_CONTEXT_* markers */
	const uint64_t *callchain;	/* NULL if absent; may be unaligned-safe (8-aligned) */
	uint32_t raw_size;
	const void *raw_data;
	uint64_t weight;
	uint64_t data_src;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t sample_type;		/* the attr's, for the caller's convenience */
	/* PERF_SAMPLE_REGS_USER: abi 0 = none (a kernel thread); else popcount(regs_mask) u64s
	 * in the order of the mask's bits (8-aligned in the record). */
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;
	/* PERF_SAMPLE_STACK_USER: the copy of the user stack from the sampled sp on, its valid
	 * bytes only (the kernel's dyn_size, never more than the copy); NULL/0: none. */
	const uint8_t *stack;
	uint64_t stack_size;
	uint64_t stack_copy;	/* the copy's size as recorded: stack_size equal to it means the
				 * kernel filled it, and the stack may go on past its end */
	/* Byte offsets in the record (header included) for a rewriter: the CALLCHAIN's nr, the
	 * REGS_USER abi, and the first byte after STACK_USER (0: the attr has no such field). */
	uint32_t off_callchain, off_regs_user, off_after_stack;
};

struct pd_mmap {			/* MMAP (type 1) and MMAP2 (type 10) */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	bool is_mmap2;
	bool has_build_id;		/* MMAP2 with misc PD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	uint8_t build_id[PD_BUILD_ID_MAX];
	uint32_t maj, min;		/* MMAP2 without build-id */
	uint64_t ino, ino_generation;
	uint32_t prot, flags;		/* MMAP2 only */
	const char *filename;
};

struct pd_comm { uint32_t pid, tid; const char *comm; bool exec; };
struct pd_task { uint32_t pid, ppid, tid, ptid; uint64_t time; };	/* FORK, EXIT */
struct pd_lost { uint64_t id, lost; };			/* LOST (id, lost); LOST_SAMPLES (lost) */
struct pd_throttle { uint64_t time, id, stream_id; };
struct pd_ksymbol { uint64_t addr; uint32_t len; uint16_t ksym_type, flags; const char *name; };
struct pd_bpf_event { uint16_t type, flags; uint32_t id; uint8_t tag[8]; };
struct pd_build_id_ev {			/* HEADER_BUILD_ID (67) and BUILD_ID feature entries */
	int32_t pid;
	uint16_t cpumode;
	uint8_t size;
	uint8_t build_id[PD_BUILD_ID_MAX];
	const char *filename;
};
struct pd_feature_ev { uint64_t feat_id; const void *data; size_t size; };	/* type 80 */

struct pd_event {
	uint64_t offset;	/* byte offset of the record header in the file / stream */
	uint32_t type;
	uint16_t misc;
	uint16_t size;		/* header.size */
	const void *raw;	/* header.size bytes, host byte order */
	/* Payload that follows the record outside header.size (AUXTRACE data, TRACING_DATA):
	 * extra_size bytes at extra (host order untouched), or extra NULL if it was larger than
	 * PD_EXTRA_MAX and was skipped. */
	const void *extra;
	uint64_t extra_size;
	const struct pd_evsel *evsel;	/* by sample id; NULL for user types and unknown ids */
	bool has_sid;		/* non-sample kernel record with a parsed sid trailer */
	struct pd_sid sid;	/* for samples: the same fields copied from the sample */
	union {
		struct pd_sample sample;
		struct pd_mmap mmap;
		struct pd_comm comm;
		struct pd_task task;
		struct pd_lost lost;
		struct pd_throttle throttle;
		struct pd_ksymbol ksymbol;
		struct pd_bpf_event bpf;
		struct pd_build_id_ev build_id;
		struct pd_feature_ev feature;
	} u;
};
#define PD_EXTRA_MAX (64u << 20)

/* Decodes one host-order record (header + payload) against the reader's attrs; used by the
 * reader itself and by pd_ordered. r may be NULL for records that need no attr. */
struct pd_reader;
int pd_decode(const struct pd_reader *r, const void *rec, size_t size, struct pd_event *ev);
/* The same against a known attr (a recorder decoding its own events); ev->evsel is NULL. */
int pd_decode_attr(const struct perf_event_attr *attr, const void *rec, size_t size,
		   struct pd_event *ev);

/* ---------------------------------------------------------------------------------------
 * Reader. Streams the data section in constant memory (bounded window, pread/read).
 */
struct pd_reader_opts {
	size_t sz;		/* sizeof(struct pd_reader_opts): lib/opts.h's rule */
	size_t window;		/* read buffer bytes (0 = 1 MiB) */
	struct jp_log log;	/* where a failed open says why ("FILE: offset 0: ...") */
};

/* path: a file, or "-" for stdin. File vs pipe mode and byte order are detected. Either
 * succeeds, or sets *r = NULL with everything released and the reason sent to opts->log. */
int pd_reader_open(struct pd_reader **r, const char *path, const struct pd_reader_opts *opts);
/* Takes ownership of fd; name is used in error messages. */
int pd_reader_open_fd(struct pd_reader **r, int fd, const char *name,
		      const struct pd_reader_opts *opts);
void pd_reader_close(struct pd_reader *r);

/* 1 with *ev filled, 0 at the clean end of data, -errno on damage (pd_reader_error says
 * where). Everything before a damaged or truncated record is delivered first. */
int pd_reader_next(struct pd_reader *r, struct pd_event *ev);
const char *pd_reader_error(const struct pd_reader *r);

bool pd_reader_is_pipe(const struct pd_reader *r);
bool pd_reader_needs_swap(const struct pd_reader *r);	/* input in the other byte order */
const char *pd_reader_path(const struct pd_reader *r);
/* Data section bounds (file mode; pipe mode: offset 16, size 0). */
uint64_t pd_reader_data_offset(const struct pd_reader *r);
uint64_t pd_reader_data_size(const struct pd_reader *r);

/* COMPRESSED records (perf record -z) are not delivered themselves: the records inside come
 * out one by one, with ev->offset = the COMPRESSED record's offset. How many were unpacked: */
uint64_t pd_reader_nr_compressed(const struct pd_reader *r);

/* Evsels. In pipe mode the list grows as HEADER_ATTR records arrive. */
size_t pd_reader_nr_evsels(const struct pd_reader *r);
const struct pd_evsel *pd_reader_evsel(const struct pd_reader *r, size_t idx);
const struct pd_evsel *pd_reader_evsel_by_id(const struct pd_reader *r, uint64_t id);
/* id_hdr_size common to all attrs (perf requires them to agree). */
size_t pd_reader_id_hdr_size(const struct pd_reader *r);

/* Features: raw bytes of every present feature (file mode: from the table at open; pipe
 * mode: from HEADER_FEATURE records seen so far). Returns NULL if absent. */
bool pd_reader_has_feature(const struct pd_reader *r, unsigned feat);
/* File mode: how many features the header flags but the file does not hold (a feature table
 * or section cut off or pointing outside the file); each is left out, the data is unharmed. */
unsigned pd_reader_nr_features_dropped(const struct pd_reader *r);
/* 1 when the header's data size is 0: a recording perf record never finalized (killed, or
 * out of space). Its events are read up to the end of the file, and it has no feature
 * sections (no build-ids); the caller says so. */
int pd_reader_unfinished(const struct pd_reader *r);
/* What the header says of the file's state, as warnings through log naming it name: never
 * finalized (pd_reader_unfinished), feature sections dropped. Every command that reads a
 * recording says the same. */
void pd_reader_log_header(const struct pd_reader *r, const char *name, const struct jp_log *log);
const void *pd_reader_feature(const struct pd_reader *r, unsigned feat, size_t *size);

/* Parsed features (valid only if present; return -ENOENT if absent, -EINVAL if malformed). */
int pd_reader_feat_string(const struct pd_reader *r, unsigned feat, const char **str);
int pd_reader_feat_cmdline(const struct pd_reader *r, size_t *argc, const char *const **argv);
int pd_reader_feat_nrcpus(const struct pd_reader *r, uint32_t *avail, uint32_t *online);
int pd_reader_feat_clockid(const struct pd_reader *r, uint64_t *res_ns);
struct pd_clock_data { uint32_t version, clockid; uint64_t tod_ns, clockid_ns; };
int pd_reader_feat_clock_data(const struct pd_reader *r, struct pd_clock_data *cd);
int pd_reader_feat_sample_time(const struct pd_reader *r, uint64_t *first, uint64_t *last);
/* BUILD_ID table (file mode) plus type-67 records seen so far (pipe mode). */
size_t pd_reader_nr_build_ids(const struct pd_reader *r);
const struct pd_build_id_ev *pd_reader_build_id(const struct pd_reader *r, size_t idx);

/* ---------------------------------------------------------------------------------------
 * Writer.
 */
struct pd_writer;

/* path "-" (stdout) or PD_WRITER_PIPE: pipe mode; otherwise file mode. File mode writes
 * "<path>" directly (callers wanting atomic replacement pass an fd from cli_outfile). */
#define PD_WRITER_PIPE 1u
int pd_writer_open(struct pd_writer **w, const char *path, unsigned flags);
/* fd is not closed by the writer. File mode needs a seekable fd. */
int pd_writer_open_fd(struct pd_writer **w, int fd, const char *name, unsigned flags);

/* Adds an event; attr is copied with size PD_ATTR_SIZE_FILE. Returns the evsel index. All
 * attrs must be added before the first record is written. name may be NULL. */
int pd_writer_add_attr(struct pd_writer *w, const struct perf_event_attr *attr,
		       const uint64_t *ids, size_t nr_ids, const char *name);
/* Copies every evsel of r (attr, ids, names). */
int pd_writer_copy_attrs(struct pd_writer *w, const struct pd_reader *r);
const struct perf_event_attr *pd_writer_attr(const struct pd_writer *w, size_t idx);
/* Replaces evsel idx's attr before the first record is written (inject changing what its
 * samples carry): 0, -ENOENT (no such evsel) or -EBUSY (started). Its ids and name stay. */
int pd_writer_set_attr(struct pd_writer *w, size_t idx, const struct perf_event_attr *attr);

/* Writes bytes of one or more whole host-order records as they are. */
int pd_writer_write(struct pd_writer *w, const void *rec, size_t size);
/* Writes the event as read (raw plus any extra payload). */
int pd_writer_write_event(struct pd_writer *w, const struct pd_event *ev);
int pd_writer_finished_round(struct pd_writer *w);

/* Record builders. sid may be NULL (all-zero trailer); the trailer follows attr 0. */
struct pd_mmap2_args {
	uint32_t pid, tid;
	uint16_t cpumode;		/* PERF_RECORD_MISC_USER / _KERNEL */
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const uint8_t *build_id;	/* non-NULL: build-id union variant */
	size_t build_id_size;
	uint32_t prot, flags;
	const char *filename;
};
int pd_writer_mmap2(struct pd_writer *w, const struct pd_mmap2_args *a, const struct pd_sid *sid);
int pd_writer_comm(struct pd_writer *w, uint32_t pid, uint32_t tid, const char *comm, bool exec,
		   const struct pd_sid *sid);
int pd_writer_fork(struct pd_writer *w, uint32_t type, const struct pd_task *t, bool fork_exec,
		   const struct pd_sid *sid);	/* type PERF_RECORD_FORK or _EXIT */

/* Features. Raw copies are re-emitted unchanged (inject keeps unknown features this way). */
int pd_writer_set_feature(struct pd_writer *w, unsigned feat, const void *data, size_t size);
/* Copies every feature of r except BUILD_ID (entries are copied into the build-id list) and
 * EVENT_DESC (regenerated from the writer's attrs). */
int pd_writer_copy_features(struct pd_writer *w, const struct pd_reader *r);
int pd_writer_set_string(struct pd_writer *w, unsigned feat, const char *str);
int pd_writer_set_cmdline(struct pd_writer *w, int argc, const char *const *argv);
int pd_writer_set_nrcpus(struct pd_writer *w, uint32_t avail, uint32_t online);
int pd_writer_set_clock(struct pd_writer *w, int clockid, uint64_t res_ns, uint64_t tod_ns,
			uint64_t clockid_ns);	/* CLOCKID + CLOCK_DATA */
int pd_writer_set_sample_time(struct pd_writer *w, uint64_t first, uint64_t last);
/* HOSTNAME, OSRELEASE, ARCH, VERSION and NRCPUS from this machine. */
int pd_writer_set_host_features(struct pd_writer *w);
/* One build-id: file mode adds it to the BUILD_ID table (one entry per filename, last wins);
 * pipe mode emits a HEADER_BUILD_ID (67) record at once. pid -1 = host. */
int pd_writer_add_build_id(struct pd_writer *w, int32_t pid, uint16_t cpumode,
			   const uint8_t *id, size_t id_size, const char *filename);

/* File mode: writes the feature table after the data, rewrites the header. Pipe mode: flushes.
 * Frees w in every case. */
int pd_writer_close(struct pd_writer *w);
/* Bytes written so far (header included). */
uint64_t pd_writer_bytes(const struct pd_writer *w);

/* ---------------------------------------------------------------------------------------
 * Ordered events: perf's FINISHED_ROUND discipline. Push keeps the event (where the reader r
 * read it, or a copy); after pd_ordered_round()
 * every event not newer than the max time seen before the previous round becomes poppable,
 * in time order (stable for equal times). Time-0 events are queued at time 0.
 */
struct pd_ordered;
struct pd_ordered *pd_ordered_new(const struct pd_reader *r);
void pd_ordered_free(struct pd_ordered *q);
/* time: the event's timestamp (sample time or sid time; pass 0 if none). */
int pd_ordered_push(struct pd_ordered *q, const struct pd_event *ev, uint64_t time);
void pd_ordered_round(struct pd_ordered *q);
void pd_ordered_flush(struct pd_ordered *q);		/* at end of input: all poppable */
/* 1 with *ev (decoded; valid until the next pop), 0 if nothing is poppable, -errno. */
int pd_ordered_pop(struct pd_ordered *q, struct pd_event *ev);
size_t pd_ordered_queued(const struct pd_ordered *q);
/* A recording's compressed records may expand to BASE + RATIO x their compressed size in
 * total: perf -z gets 2-10x on real data; zstd can reach 30000x on crafted zeros. */
#define PD_ZSTD_BUDGET_BASE (256ull << 20)
#define PD_ZSTD_BUDGET_RATIO 64u

/* Per recording: attrs (perf makes one per event, a few hundred at most) and sample ids in
 * all of them (one per event per CPU): more is refused, the limit named. */
#define PD_MAX_ATTRS 16384u
#define PD_MAX_IDS (1u << 22)

/* A recording that never says FINISHED_ROUND would make the queue hold the whole file: past
 * PD_ORDERED_MAX_BYTES queued, the oldest half becomes poppable at once (perf's
 * OE_FLUSH__HALF). 1 when the caller should pop now; pd_ordered_forced() counts such flushes. */
#define PD_ORDERED_MAX_BYTES (256ull << 20)
int pd_ordered_must_drain(const struct pd_ordered *q);
uint64_t pd_ordered_forced(const struct pd_ordered *q);

/* Time of an event for ordering: sample time, else sid time, else 0. */
uint64_t pd_event_time(const struct pd_event *ev);

/* ---------------------------------------------------------------------------------------
 * Replay: perf's perf_tool. One callback per record type; pd_replay reads r to its end and
 * owns the time ordering (the queue above, FINISHED_ROUND by FINISHED_ROUND), so no consumer
 * writes the read-order-dispatch loop. HEADER_BUILD_ID is delivered at once (it applies
 * regardless of time); every other record in time order. A NULL callback skips its records.
 * A callback's negative return stops the replay and is returned.
 * With PD_TOOL_FILE_ORDER (perf_tool's ordered_events = false) there is no queue: every record
 * goes to its callback at once, in file order, and each FINISHED_ROUND to finished_round
 * where it stands. For a consumer that copies the recording record by record (inject), whose
 * output must keep the file's order and round marks.
 */
#define PD_TOOL_FILE_ORDER 1u
/* With PD_TOOL_FILE_ORDER and no sample callback: samples are read past, not decoded (a
 * damaged one is then not reported). For a pass that looks at other records only (inject's
 * prescan for markers); the reader decodes them again once the replay returns. */
#define PD_TOOL_SKIP_SAMPLES 2u
struct pd_tool {
	size_t sz;		/* sizeof(struct pd_tool) (0 = this header's): lib/opts.h's rule */
	int (*sample)(void *ctx, const struct pd_event *ev);
	int (*mmap)(void *ctx, const struct pd_event *ev);	/* MMAP and MMAP2 */
	int (*comm)(void *ctx, const struct pd_event *ev);
	int (*fork)(void *ctx, const struct pd_event *ev);
	int (*exit)(void *ctx, const struct pd_event *ev);
	int (*lost)(void *ctx, const struct pd_event *ev);	/* LOST and LOST_SAMPLES */
	int (*build_id)(void *ctx, const struct pd_event *ev);	/* HEADER_BUILD_ID */
	int (*other)(void *ctx, const struct pd_event *ev);	/* any other type */
	int (*finished_round)(void *ctx);	/* after a round's events were delivered */
	/* Every 64 Ki records: bytes of the data section read (total 0 in a pipe). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
	uint64_t flags;		/* PD_TOOL_FILE_ORDER, PD_TOOL_SKIP_SAMPLES */
};

/* 0 at the end of the input, or a callback's (or -ENOMEM's) negative errno. Damage in the
 * input ends the replay like the end of data, after everything before it was delivered;
 * *damage (may be NULL) gets the reader's -errno then (pd_reader_error says where), else 0. */
int pd_replay(struct pd_reader *r, const struct pd_tool *tool, int *damage);

#endif
