/* jitdump.h - the whole public face of libjitdump: the jitdump format perf documents
 * (tools/perf/Documentation/jitdump-specification.txt), a thread-safe buffered writer any JIT
 * can link, and a validating zero-copy reader. Depends on libc only.
 *
 * Conventions: functions return 0 (or a count) on success and a negative errno on failure;
 * a constructor that fails leaves *out NULL with everything released and its message in the
 * caller's err buffer; an open reader's damage message is its own jd_reader_error(r). No
 * global or thread-local error state. (The rest of jitprof logs through lib/log.h's jp_log;
 * libjitdump is installed for other JITs and depends on libc only, so it keeps caller
 * buffers, and applies lib/opts.h's options rule through a copy of its own.) */
#ifndef JITPROF_JITDUMP_H
#define JITPROF_JITDUMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- On-disk constants (perf's format) ------------------------------------------------ */

#define JD_MAGIC            0x4A695444u	/* "JiTD" read as a big-endian u32 */
#define JD_MAGIC_SWAPPED    0x4454694Au
#define JD_VERSION          1u		/* perf rejects anything above 1 */
#define JD_HEADER_SIZE      40u
#define JD_PREFIX_SIZE      16u
#define JD_FLAGS_ARCH_TIMESTAMP (1ull << 0)

enum jd_record_id {
	JD_CODE_LOAD           = 0,
	JD_CODE_MOVE           = 1,
	JD_CODE_DEBUG_INFO     = 2,
	JD_CODE_CLOSE          = 3,
	JD_CODE_UNWINDING_INFO = 4,
	JD_CODE_MAX_PERF       = 5,	/* ids below this are perf's */
};

/* Fixed part sizes, prefix included. */
#define JD_LOAD_FIXED_SIZE    56u
#define JD_MOVE_SIZE          64u
#define JD_DEBUG_FIXED_SIZE   32u
#define JD_DEBUG_ENTRY_FIXED  16u
#define JD_UNWIND_FIXED_SIZE  40u

/* The "same file as the previous entry" shorthand for DEBUG_INFO entry names. */
#define JD_SAME_FILE "\xff"

struct jd_header {
	uint32_t magic;
	uint32_t version;
	uint32_t total_size;
	uint32_t elf_mach;
	uint32_t pad1;
	uint32_t pid;
	uint64_t timestamp;
	uint64_t flags;
};

/* ---- Decoded records (reader output; pointers are into the mapped file) ---------------- */

struct jd_line {
	uint64_t addr;		/* absolute code address */
	int32_t line;
	int32_t discrim;
	const char *file;	/* "\xff" already resolved to the previous entry's name */
};

struct jd_code_load {
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
	const char *name;
	const uint8_t *code;
};

struct jd_code_move {
	uint32_t pid, tid;
	uint64_t vma, old_code_addr, new_code_addr, code_size, code_index;
};

struct jd_debug_info {
	uint64_t code_addr;
	uint64_t nr_entry;
	const struct jd_line *entries;	/* valid until the next jd_reader_next() */
};

struct jd_unwinding_info {
	uint64_t unwinding_size, eh_frame_hdr_size, mapped_size;
	const uint8_t *data;		/* unwinding_size bytes: .eh_frame then .eh_frame_hdr */
};

/* ---- jitprof's own data: the companion file ----------------------------------------------
 * perf 6.1 warns once per unknown record id, so our extra data (generation and tier, inline
 * stacks, unloads, the agent's accounting) does not go into the dump. It lives in a companion
 * file beside it, "jit-<pid>.dump.jitprof", framed exactly like a dump (40-byte header with
 * JD_EXT_MAGIC, then 16-byte prefixed records) so one reader serves both. docs/jitdump.md. */

#define JD_EXT_MAGIC   0x4A505831u	/* "JPX1" */
/* A companion's header flag: the writer wrote a SAMPLE record into it (set in the header, in
 * place, before the first one), so a reader that only wants to know whether there are any
 * reads the header alone (jd_reader_open_flags, JD_READER_HEADER). */
#define JD_EXT_FLAG_SAMPLES (1ULL << 8)
#define JD_EXT_SUFFIX  ".jitprof"

enum jd_ext_id {
	JD_EXT_LOAD_INFO   = 0x10000,	/* generation/tier of one code load */
	JD_EXT_INLINE      = 0x10001,	/* full inline stacks per pc of one code load */
	JD_EXT_UNLOAD      = 0x10002,	/* code unloaded (CompiledMethodUnload) */
	JD_EXT_AGENT_STATS = 0x10003,	/* the writer's self-accounting */
	JD_EXT_METHOD      = 0x10004,	/* one interpretable method: the method table */
	JD_EXT_VM          = 0x10005,	/* the runtime's interpreter frame layout */
	JD_EXT_SAMPLE      = 0x10006,	/* one allocation or lock-wait sample with its stack */
	JD_EXT_JMETHOD     = 0x10007,	/* a sample frame's method id -> name, source file */
};

enum jd_tier {
	JD_TIER_UNKNOWN = 0,	/* never guessed: unknown unless the runtime said so */
	JD_TIER_INTERPRETER = 1,
	JD_TIER_C1 = 2,		/* HotSpot levels 1-3 */
	JD_TIER_C2 = 3,		/* HotSpot level 4 */
	JD_TIER_STUB = 4,
	JD_TIER_OTHER = 5,
};
/* The one spelling of a tier, as every view prints it: "unknown", "interp", "C1", "C2",
 * "stub", "other"; "?" for a value this version does not know. */
const char *jd_tier_name(uint32_t tier);

#define JD_LOAD_BACKFILLED (1u << 0)	/* reported after the fact (attach, GenerateEvents) */
#define JD_LOAD_OSR        (1u << 1)
#define JD_LOAD_IDS        (1u << 2)	/* compile_id/osr_bci are set: LOAD_INFO version 2 */

struct jd_ext_load_info {
	uint64_t code_index, code_addr;
	uint32_t generation;	/* 0 = unknown (back-filled) */
	uint32_t tier;		/* enum jd_tier */
	uint32_t flags;		/* JD_LOAD_* */
	int32_t  level;		/* runtime's own tier number, -1 unknown */
	/* Read (and written) only with JD_LOAD_IDS in flags, so a caller built against the
	 * 24-byte version of this struct is never read past its end. */
	int32_t  compile_id;	/* the runtime's compile id, -1 unknown */
	int32_t  osr_bci;	/* OSR entry bytecode index, -1 for a normal entry or unknown */
};

struct jd_inline_frame {
	uint32_t method;	/* index into the record's method table */
	int32_t line;		/* 0 = unknown */
	int32_t bci;		/* bytecode index; read only with JD_INLINE_BCI, -1 = unknown */
};

#define JD_INLINE_BCI (1u << 0)	/* frames carry bcis: INLINE version 2 */

struct jd_inline_pc {
	uint64_t addr;
	uint32_t depth;		/* frames[0] innermost ... frames[depth-1] the compiled method */
	const struct jd_inline_frame *frames;
};

struct jd_inline_method {
	const char *name;	/* runtime name, e.g. "Ljava/lang/String;hashCode()I" */
	const char *file;	/* source file, "" unknown */
};

struct jd_ext_inline {
	uint64_t code_index, code_addr;
	uint32_t nr_methods, nr_pcs;
	const struct jd_inline_method *methods;
	const struct jd_inline_pc *pcs;	/* ascending addr */
	/* JD_INLINE_*. Without JD_INLINE_BCI the writer ignores frames' bci (a caller that
	 * predates it leaves it 0, a valid bci) and writes version 1; the reader sets it for a
	 * version-2 record and gives bci -1 for version 1. */
	uint32_t flags;
};

struct jd_ext_unload {
	uint64_t code_addr, code_index;	/* code_index 0 = unknown: match by address */
	uint32_t pid;
};

struct jd_ext_agent_stats {
	uint64_t callback_ns;	/* time spent inside runtime callbacks */
	uint64_t records, bytes, loads, unloads, dropped;
};

/* The method table (docs/jitdump.md): what an unwinder needs to name an interpreter frame
 * from the two words it holds, the runtime's method pointer and its bytecode pointer. */
struct jd_method_line {
	uint32_t bci;		/* first bytecode index of the run */
	int32_t line;
};

struct jd_ext_method {
	uint64_t method;	/* the runtime's method pointer (HotSpot: Method*) */
	uint64_t code_addr;	/* its bytecodes' first byte */
	uint32_t code_size;	/* bytecode bytes */
	uint32_t nr_lines;
	const struct jd_method_line *lines;	/* ascending bci */
	const char *name;	/* runtime name, e.g. "Ljava/lang/String;hashCode()I" */
	const char *file;	/* source file, "" unknown */
};

#define JD_VM_HOTSPOT_X86_64 1u	/* HotSpot's template interpreter, x86_64 */
#define JD_VM_PRESERVE_FP (1u << 0)	/* -XX:+PreserveFramePointer: jitted code keeps rbp */

/* How the runtime's interpreter frames hold their method and bytecode pointers, written by
 * whoever knows (the agent, from the JVM's version); without it no frame is decoded. */
struct jd_ext_vm {
	uint32_t kind;		/* JD_VM_*; another value: frames not decoded */
	uint32_t flags;		/* JD_VM_PRESERVE_FP */
	uint32_t version;	/* the runtime's own (JDK feature release) */
	int32_t method_slot;	/* words from the frame pointer: HotSpot -3 */
	int32_t bcp_slot;	/* HotSpot -8 */
};

/* Samples the runtime takes itself (docs/jitdump.md): an allocation (JVMTI
 * SampledObjectAlloc) or a contended monitor enter (MonitorContendedEnter/Entered), with the
 * thread's stack as the runtime's method ids and bytecode indexes. */
enum jd_sample_kind {
	JD_SAMPLE_ALLOC = 1,	/* weight: bytes the sample stands for; size: the object's */
	JD_SAMPLE_LOCK = 2,	/* weight: nanoseconds waited to enter; size: 0 */
};

struct jd_java_frame {
	uint64_t method;	/* the runtime's method id (HotSpot: jmethodID), named by JMETHOD */
	int32_t bci;		/* bytecode index, -1 unknown (native) */
	int32_t line;		/* source line, 0 unknown */
};

struct jd_ext_sample {
	uint32_t kind;		/* enum jd_sample_kind; another value: a kind this version lacks */
	uint32_t tid;		/* the sampled thread (the kernel's id) */
	uint64_t weight;
	uint64_t size;
	uint32_t nr_frames;
	const struct jd_java_frame *frames;	/* [0] innermost */
	const char *klass;	/* allocated object's or monitor's class, "Ljava/lang/String;" */
};

/* A method id of the samples' frames named, written once before the first sample using it. */
struct jd_ext_jmethod {
	uint64_t method;
	const char *name;	/* runtime name, e.g. "Ljava/lang/String;hashCode()I" */
	const char *file;	/* source file, "" unknown */
};

/* ---- Reader ----------------------------------------------------------------------------- */

struct jd_record {
	uint32_t id;		/* enum jd_record_id or enum jd_ext_id, or unknown */
	uint32_t total_size;
	uint64_t timestamp;
	uint64_t offset;	/* byte offset of the record in the file */
	union {
		struct jd_code_load load;
		struct jd_code_move move;
		struct jd_debug_info debug;
		struct jd_unwinding_info unwind;
		struct jd_ext_load_info load_info;
		struct jd_ext_inline inl;
		struct jd_ext_unload unload;
		struct jd_ext_agent_stats stats;
		struct jd_ext_method method;
		struct jd_ext_vm vm;
		struct jd_ext_sample sample;
		struct jd_ext_jmethod jmethod;
	} u;
};

struct jd_reader_stats {
	uint64_t records;		/* delivered */
	uint64_t per_id[JD_CODE_MAX_PERF];
	uint64_t ext_records;		/* jitprof extension records delivered */
	uint64_t unknown_skipped;	/* unknown ids skipped by size */
	uint64_t passed_over;		/* known ids skipped as asked (jd_reader_skip_id) */
	uint64_t truncated_bytes;	/* bytes of a partial record at the tail */
	uint64_t truncated_offset;
	int byte_swapped;
};

struct jd_reader;

/* Opens and validates the header. Works for dumps and companion files (by magic). 0, or a
 * negative errno with *out NULL (nothing to close) and the message, naming the file and
 * offset, in err (errlen bytes; err may be NULL). No state survives the call: the library
 * keeps no global or thread-local error. */
int jd_reader_open(struct jd_reader **out, const char *path, char *err, size_t errlen);
/* Same for name relative to dirfd; with a real dirfd (not AT_FDCWD) a final symlink is not
 * followed. Regular files only (a FIFO never blocks the open); the bytes are copied, so a
 * file that shrinks meanwhile reads as truncated instead of faulting. display names the file
 * in messages (NULL: name). */
int jd_reader_open_at(struct jd_reader **out, int dirfd, const char *name, const char *display,
		      char *err, size_t errlen);
/* With JD_READER_MAP_OWN, jd_reader_open_flags maps a file instead of copying it when the
 * running user owns it and nobody else may write it. The first such mapping installs a SIGBUS
 * handler (the one before it still gets every other fault): if the file shrinks while it is
 * mapped, reads past its new end find zeros instead of faulting and jd_reader_shrunk says so;
 * a caller asks it before trusting what it read. For programs that own SIGBUS (a JVM) leave
 * it out. */
#define JD_READER_MAP_OWN (1u << 0)
/* With JD_READER_HEADER only the header's bytes are read (and checked): jd_reader_header then
 * says what it holds (its flags: JD_EXT_FLAG_SAMPLES), and jd_reader_next finds no record. */
#define JD_READER_HEADER (1u << 1)
int jd_reader_open_flags(struct jd_reader **out, int dirfd, const char *name,
			 const char *display, unsigned flags, char *err, size_t errlen);
int jd_reader_mapped(const struct jd_reader *r);	/* 1 when the file is mapped */
int jd_reader_shrunk(const struct jd_reader *r);	/* 1 when it shrank meanwhile */
/* Same over caller memory (kept alive by the caller); name is used in messages. */
int jd_reader_open_mem(struct jd_reader **out, const void *buf, size_t len, const char *name,
		       char *err, size_t errlen);
void jd_reader_close(struct jd_reader *r);

/* 1 = a record in *rec, 0 = clean end (possibly after a salvaged partial tail, see stats),
 * negative errno = damage; the message is in jd_reader_error() and every record before the
 * damage has been delivered. Unknown ids are skipped and counted, never returned. */
int jd_reader_next(struct jd_reader *r, struct jd_record *rec);
/* From now on records of id (a perf id below 32 or a JD_EXT_* id) are passed over by size,
 * neither decoded nor checked nor returned, for a caller that never reads them: decoding a
 * companion's inline stacks costs more than the rest of it. 0, or -EINVAL for another id. */
int jd_reader_skip_id(struct jd_reader *r, uint32_t id);

const struct jd_header *jd_reader_header(const struct jd_reader *r);
const struct jd_reader_stats *jd_reader_stats(const struct jd_reader *r);
/* This reader's damage message ("" when none); each reader has its own. */
const char *jd_reader_error(const struct jd_reader *r);
/* After a clean end: "N bytes of a partial record at offset X" (with the file), or "". */
const char *jd_reader_warning(const struct jd_reader *r);
uint64_t jd_reader_size(const struct jd_reader *r);	/* bytes in the file */
const char *jd_reader_path(const struct jd_reader *r);
int jd_reader_is_ext(const struct jd_reader *r);		/* 1 for a companion file */

/* "jit-<pid>.dump" -> "jit-<pid>.dump.jitprof" into buf; -ENAMETOOLONG if it does not fit. */
int jd_ext_path(const char *dump_path, char *buf, size_t len);
/* 1 if basename(path) is exactly "jit-<digits>.dump" (perf's marker rule), pid into *pid. */
int jd_is_marker_name(const char *path, uint32_t *pid);

/* ---- Index: a whole dump plus its companion, one entry per code load ---------------------
 * What synth, inject and report consume. Generation = the nth load of a name in this dump
 * (docs/ARCHITECTURE.md, contract 3), derived for any writer's dump. Entries are in file order. */

struct jd_load_entry {
	struct jd_code_load load;	/* name/code point into the mapped dump */
	uint64_t timestamp;		/* the CODE_LOAD's timestamp */
	uint64_t offset;		/* of the CODE_LOAD record */
	uint32_t generation;		/* 1, 2, 3 ... per name */
	const struct jd_line *lines;	/* the DEBUG_INFO that preceded it, owned by the index */
	size_t nr_lines;
	const struct jd_unwinding_info *unwind;	/* NULL if none */
	const struct jd_ext_load_info *info;	/* NULL without companion data */
	const struct jd_ext_inline *inl;	/* NULL without companion data */
	uint64_t unload_time;		/* 0: never unloaded */
	/* File offsets of the records joined to it (0: none): its DEBUG_INFO and UNWINDING_INFO
	 * in the dump, its load info and inline record in the companion. With them and the
	 * generation, one load can be read again alone without an index (a reader over the
	 * header and that record: jd_reader_open_mem). */
	uint64_t debug_offset, unwind_offset, info_offset, inl_offset;
};

struct jd_move_entry {
	struct jd_code_move move;
	uint64_t timestamp;
};

struct jd_index;

/* Reads the dump (and "<dump>.jitprof" when present). A damaged tail is salvaged: the index
 * holds every record before it and jd_index_warning() says what was dropped. Returns a
 * negative errno only when nothing usable could be read (message in *err if err). */
int jd_index_open(struct jd_index **out, const char *dump_path, char *err, size_t errlen);
/* Same for the single file name `name` in directory dirfd (and "<name>.jitprof" beside it),
 * neither followed if a symlink: what inject opens is then known to sit in dirfd. */
int jd_index_open_at(struct jd_index **out, int dirfd, const char *name, const char *display,
		     char *err, size_t errlen);
/* What jd_index_open_flags may leave out, for a caller that never reads it. */
#define JD_INDEX_NO_INLINE (1u << 0)	/* the companion's inline stacks: inl NULL, inl_offset 0 */
/* Not a flag of what is left out: the dump and companion read with JD_READER_MAP_OWN (the
 * entries then point into the mappings, and jd_index_shrunk says whether to trust them). */
#define JD_INDEX_MAP_OWN (1u << 1)
/* jd_index_open_at, leaving out what flags (JD_INDEX_*) say. */
int jd_index_open_flags(struct jd_index **out, int dirfd, const char *name, const char *display,
			unsigned flags, char *err, size_t errlen);
void jd_index_close(struct jd_index *x);
const struct jd_header *jd_index_header(const struct jd_index *x);
size_t jd_index_nr_loads(const struct jd_index *x);
const struct jd_load_entry *jd_index_load(const struct jd_index *x, size_t i);
size_t jd_index_nr_moves(const struct jd_index *x);
const struct jd_move_entry *jd_index_move(const struct jd_index *x, size_t i);
const struct jd_ext_agent_stats *jd_index_agent_stats(const struct jd_index *x); /* or NULL */
/* The method table: the record for method pointer `method` written last at or before
 * `time` (a pointer the runtime reused after an unload names the method of its time), else
 * the first one; NULL if none. jd_index_vm: the interpreter's layout, NULL if not said. */
const struct jd_ext_method *jd_index_method(const struct jd_index *x, uint64_t method,
					    uint64_t time);
size_t jd_index_nr_methods(const struct jd_index *x);
/* The ith record of the table, in (method pointer, time) order; NULL past the end. */
const struct jd_ext_method *jd_index_method_nth(const struct jd_index *x, size_t i);
const struct jd_ext_vm *jd_index_vm(const struct jd_index *x);
const struct jd_reader_stats *jd_index_stats(const struct jd_index *x);
const char *jd_index_warning(const struct jd_index *x);	/* "" when the dump was whole */
/* With JD_INDEX_MAP_OWN: 1 when the dump or its companion was mapped and has shrunk since,
 * so that some of what the entries point to now reads as zeros. */
int jd_index_shrunk(const struct jd_index *x);

/* What the index could not pair or join (each also summed up in jd_index_warning()). */
struct jd_index_counts {
	uint64_t debug_mismatched;	/* DEBUG_INFO whose code_addr != the next load's: dropped */
	uint64_t debug_orphaned;	/* replaced by another DEBUG_INFO before any load */
	uint64_t unwind_orphaned;	/* idem for UNWINDING_INFO */
	uint64_t ext_unmatched;		/* companion records naming no load of the dump */
};
const struct jd_index_counts *jd_index_counts(const struct jd_index *x);

/* ---- Writer ----------------------------------------------------------------------------- */

enum jd_clock {
	JD_CLOCK_MONOTONIC = 0,	/* perf record -k mono; the default */
	JD_CLOCK_MONOTONIC_RAW,
	JD_CLOCK_ARCH,		/* x86 TSC; sets JD_FLAGS_ARCH_TIMESTAMP */
};

struct jd_writer_opts {
	/* sizeof(struct jd_writer_opts) the caller was built with, required (0 is refused with
	 * -EINVAL; JD_OPTS below sets it): an older caller gets defaults for what it lacks, a
	 * newer one's unknown non-zero bytes are refused with -EINVAL (docs/ARCHITECTURE.md,
	 * "Options structs"). `size` is the old spelling. */
	union {
		size_t sz;
		size_t size;
	};
/* Declares options struct `type` named name with its sz set and the given fields, the rest
 * zero (their defaults): JD_OPTS(jd_writer_opts, o, .dir = "/tmp/jit"); jd_writer_open(&w, &o); */
#define JD_OPTS(type, name, ...) struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }
	const char *dir;	/* NULL: $JITDUMPDIR, else $HOME/.debug/jit (created 0700) */
	enum jd_clock clock;
	size_t buffer_size;	/* 0: 64 KiB */
	uint32_t elf_mach;	/* 0: this process's e_machine */
	int no_ext;		/* 1: never create the companion file */
	int same_file_shorthand; /* 1: a line entry repeating the previous file is written as
				 * "\xff". Off by default: perf 6.1 names the file "\xff" */
};

/* One code load and everything that belongs with it. Written as one unit: UNWINDING_INFO
 * and DEBUG_INFO (when given) immediately followed by the CODE_LOAD, never interleaved with
 * another thread's records; the companion records follow in the companion file. */
struct jd_load_desc {
	const char *name;
	uint64_t code_addr;
	const void *code;
	uint64_t code_size;
	uint64_t timestamp;		/* 0: now, on the writer's clock */
	uint32_t pid, tid;		/* 0: this process / calling thread */
	const struct jd_line *lines;	/* ascending addr; file NULL = the previous entry's
					 * (written in full, or as "\xff" when opted in) */
	size_t nr_lines;
	const void *unwind;		/* .eh_frame then .eh_frame_hdr, or NULL */
	uint64_t unwind_size, eh_frame_hdr_size, mapped_size;
	/* Companion data, all optional. */
	const struct jd_ext_load_info *info;	/* code_index/code_addr filled in by the writer */
	const struct jd_ext_inline *inl;		/* idem */
};

struct jd_writer;

/* Creates <dir>/jit-<pid>.dump with its header and maps its first page PROT_READ|PROT_EXEC
 * (the marker perf records) until close. opts may be NULL. On failure *out is NULL. JD_CLOCK_ARCH
 * off x86 gives -ENOTSUP. Thread-safe afterwards; after fork() the child's first record switches
 * the writer to jit-<childpid>.dump (docs/jitdump.md). A failed write is sticky: every later
 * call returns it. */
int jd_writer_open(struct jd_writer **out, const struct jd_writer_opts *opts);
/* jd_writer_open in a directory the caller opened (dirfd, any fd of a directory, O_PATH will
 * do; the writer keeps a dup of its own): every file (dump, companion, a forked child's
 * dump, the private subdirectory) is created beneath that fd, so a directory renamed or a
 * symlink swapped after the caller checked it cannot redirect a write. dir_name is its name
 * for jd_writer_path only; opts.dir is not used. */
int jd_writer_open_at(struct jd_writer **out, int dirfd, const char *dir_name,
		      const struct jd_writer_opts *opts);
/* Writes CODE_CLOSE, flushes, unmaps the marker, closes. NULL is a no-op. */
int jd_writer_close(struct jd_writer *w);
/* Everything written so far reaches the file(s) with write(2): survives a crash after this. */
int jd_writer_flush(struct jd_writer *w);
const char *jd_writer_path(const struct jd_writer *w);
uint64_t jd_writer_now(const struct jd_writer *w);	/* a timestamp on the writer's clock */

/* Appends one load; its code_index (unique, increasing) goes to *code_index if non-NULL. */
int jd_write_load(struct jd_writer *w, const struct jd_load_desc *d, uint64_t *code_index);
int jd_write_move(struct jd_writer *w, const struct jd_code_move *m, uint64_t timestamp);
/* timestamp 0 = now. Unload and stats go to the companion file (a no-op with opts.no_ext). */
int jd_write_unload(struct jd_writer *w, const struct jd_ext_unload *u, uint64_t timestamp);
int jd_write_stats(struct jd_writer *w, const struct jd_ext_agent_stats *s);
/* The method table's records, to the companion file (no-ops with opts.no_ext); timestamp 0 =
 * now. -EINVAL for a method without name or with lines NULL and nr_lines > 0. */
int jd_write_method(struct jd_writer *w, const struct jd_ext_method *m, uint64_t timestamp);
int jd_write_vm(struct jd_writer *w, const struct jd_ext_vm *v);
/* A sample and a method id's name, to the companion file (no-ops with opts.no_ext);
 * timestamp 0 = now. -EINVAL for frames NULL with nr_frames > 0 or a jmethod without name;
 * -E2BIG when the record would pass 4 GiB. */
int jd_write_sample(struct jd_writer *w, const struct jd_ext_sample *s, uint64_t timestamp);
int jd_write_jmethod(struct jd_writer *w, const struct jd_ext_jmethod *m, uint64_t timestamp);

#ifdef __cplusplus
}
#endif
#endif
