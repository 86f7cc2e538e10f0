/* symbols.h - symbol resolution for jitprof report: process maps over time, DSOs found by
 * build-id (build-id cache, recorded path, --symfs, archives, debuginfod), ELF symbols,
 * DWARF source lines and inlined frames, kernel symbols, and the Java name demangler.
 * The whole public contract of recorder/symbols/; everything behind it is opaque. */
#ifndef JITPROF_SYMBOLS_H
#define JITPROF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/log.h"
#include "lib/strbuf.h"

/* ---- build-ids ------------------------------------------------------------------------ */
#define SYM_BUILD_ID_MAX 20
#define SYM_BUILD_ID_HEX (2 * SYM_BUILD_ID_MAX + 1)

struct sym_build_id {
	uint8_t size;			/* 0 = unknown */
	uint8_t data[SYM_BUILD_ID_MAX];
};

/* Lowercase hex, NUL-terminated; hex must hold SYM_BUILD_ID_HEX bytes. Returns hex. */
char *sym_build_id_hex(const struct sym_build_id *id, char *hex);
/* Parses 2..40 hex digits. 0 or -EINVAL. */
int sym_build_id_parse(const char *hex, struct sym_build_id *id);
int sym_build_id_equal(const struct sym_build_id *a, const struct sym_build_id *b);
/* The GNU build-id note of an ELF file. 0, -ENOENT (no note), or -errno with a message naming
 * the file logged (log may be NULL: silent). */
int sym_elf_build_id(const char *path, struct sym_build_id *id, const struct jp_log *log);

/* The running kernel's build-id (/sys/kernel/notes). 0, -ENOENT or -errno. */
int sym_kernel_build_id(struct sym_build_id *id);

/* A file of perf's build-id cache at root, opened read-only: with name, <name>/<hex>/<kind>
 * (name's leading '/' dropped); without, through the link .build-id/xx/rest -> ../../<p>/<hex>
 * (then <p>/<hex>/<kind>; the old layout's file itself for "elf"). The root is followed as
 * named; beneath it no symlink but that one is followed, and its target only inside the
 * root: a link planted in the cache is refused (-ELOOP/-EXDEV), FIFOs and devices too.
 * Returns the fd or a negative errno. */
int sym_cache_open(const char *root, const struct sym_build_id *id, const char *name,
		   const char *kind);

/* ---- Java names ----------------------------------------------------------------------- */
/* "Lgenerations/Shape;area([Lgenerations/Shape;I)D" ->
 * "generations.Shape.area(generations.Shape[], int)". Also accepts "Class.method(sig)" and
 * "Class::method" forms and generic signatures (<T:..>, TT;, Lx<..>;). Names that are not
 * Java signatures are copied unchanged. Always NUL-terminates (truncating) when outlen > 0.
 * Returns 1 if it demangled, 0 if copied unchanged: also when type arguments nest deeper than
 * SYM_JAVA_MAX_NESTING (the parser recurses once per level; real code nests a handful). */
#define SYM_JAVA_MAX_NESTING 64
int sym_java_demangle(const char *in, char *out, size_t outlen);
/* The same into out, whole however long (its memory reused; out of memory is out's sticky
 * error, jp_str_free's -ENOMEM). */
int sym_java_demangle_str(const char *in, struct jp_str *out);

/* ---- the session ---------------------------------------------------------------------- */
struct sym_session;
struct sym_dso;

struct sym_opts {
	size_t sz;			/* sizeof(struct sym_opts): lib/opts.h's rule */
	const char *buildid_dir;	/* NULL: $PERF_BUILDID_DIR, else $HOME/.debug */
	const char *symfs;		/* --symfs DIR: recorded paths are looked up under DIR */
	const char *vmlinux;		/* kernel image with symbols (relocated by recorded _text) */
	const char *kallsyms;		/* a kallsyms file; NULL: cache, then /proc/kallsyms */
	int no_demangle;		/* 1: raw names (--no-demangle) */
	int no_debuginfod;		/* 1: never ask debuginfod even if DEBUGINFOD_URLS is set */
	int no_lines;			/* 1: never read DWARF (sym_result srcfile stays NULL) */
	/* Messages (refused build-ids, missing files...). fn NULL: kept silent. Each distinct
	 * message is reported once. */
	struct jp_log log;
	uint64_t archive_budget;	/* bytes an archive may unpack to; 0: the default,
					 * SYM_ARCHIVE_BUDGET_BASE + RATIO x its size */
	/* 1 (-f): a /tmp/perf-PID.map owned by another user than the running one or root is
	 * read too; 0: it is refused with a warning (perf's rule). A size_t: no tail padding. */
	size_t force;
	uint64_t debuginfod_timeout;	/* seconds all debuginfod requests of the session may
					 * take together; 0: SYM_DEBUGINFOD_BUDGET_S */
	uint64_t archive_max_entries;	/* members (and directories they make) it may have;
					 * 0: SYM_ARCHIVE_ENTRIES_BASE + 1 per _BYTES of it */
};
/* A report asks debuginfod for at most this long in all (each request also within its own
 * DEBUGINFOD_TIMEOUT, libdebuginfod's, 90 s unless set): a server that never answers costs
 * that, not 90 s per build-id. */
#define SYM_DEBUGINFOD_BUDGET_S 30
/* Requests in flight at once (sym_session_debuginfod_ahead), one client each. */
#define SYM_DEBUGINFOD_THREADS 8

/* NULL opts = defaults. Returns NULL on out of memory, or with errno EINVAL when opts
 * carries fields this version does not know (lib/opts.h). */
struct sym_session *sym_session_new(const struct sym_opts *opts);
void sym_session_free(struct sym_session *s);
/* Removes what the session unpacked (--archive) now, for a caller that keeps the session to
 * the end of the process instead of freeing it: files already opened stay readable. */
void sym_session_remove_files(struct sym_session *s);
/* For a command's SIGINT/SIGTERM/SIGHUP handler: removes every directory an archive was
 * unpacked into by any session of this process, with async-signal-safe calls only (the
 * process is expected to _exit next; archives still unpacking stop). Directories a crash or
 * SIGKILL left are removed by the next session that unpacks an archive (nobody holds their
 * lock any more). */
void sym_remove_unpacked_now(void);
/* An archive unpacks to at most BASE + RATIO x its own size: perf's archives hold ELFs and
 * debug files that compress 3-10x; a crafted one reaches 30000x. */
#define SYM_ARCHIVE_BUDGET_BASE (1ull << 30)
#define SYM_ARCHIVE_BUDGET_RATIO 64u
/* ... and has at most BASE + one per BYTES of its size members and directories they make (an
 * ELF is a file, a link and a directory or two, and compresses to a kilobyte or more). */
#define SYM_ARCHIVE_ENTRIES_BASE 16384u
#define SYM_ARCHIVE_ENTRIES_BYTES 64u

/* An extra lookup source by build-id: a directory laid out like ~/.debug, or an archive
 * file (tar, optionally zstd/gzip/xz compressed) whose members mirror the cache:
 *     .build-id/<xx>/<rest>                       symlink -> ../../<path>/<hex-id> (perf's)
 *     <path>/<hex-id>/elf                         the ELF itself
 *   (a regular file at .build-id/<xx>/<rest> or .build-id/<xx>/<rest>/elf is accepted too),
 *     [kernel.kallsyms]/<hex-id>/kallsyms         the kernel's symbols
 * Sources added first are tried first, before the build-id cache. 0 or -errno. */
int sym_session_add_source(struct sym_session *s, const char *dir_or_archive);
/* The directory of the i-th source added (an archive's: where it was unpacked, a private
 * directory holding only regular files and directories), NULL past the last: for what an
 * archive carries beside the ELFs (`jitprof archive`'s jitdumps). */
const char *sym_session_source_root(const struct sym_session *s, size_t i);

/* A DSO's layout and symbol as a provider knows them without an ELF: one loaded segment
 * (file offsets [seg_off, seg_off + seg_size) at seg_vaddr) and one function symbol at
 * sym_start (ELF vaddr space) of sym_size bytes, named sym_name. sym_name and what (where it
 * came from, for messages) are malloc'd; the session takes both. */
struct sym_provided {
	uint64_t seg_off, seg_size, seg_vaddr;
	uint64_t sym_start, sym_size;
	char *sym_name;
	char *what;
};

/* An ELF made in memory on demand (jitprof inject --no-elfs leaves no files): asked first,
 * before any other source, for every DSO with a recorded build-id. Returns 1 with *image
 * (malloc'd, the session takes it) and *what (malloc'd, where it came from, for messages),
 * 0 when it does not know the build-id, or -errno with why logged through log (said as a
 * warning; the other sources are still tried, and every candidate's build-id is checked as
 * usual).
 * fini(ctx) runs at sym_session_free. One provider per session; 0 or -EBUSY. */
struct sym_provider {
	int (*get)(void *ctx, const struct sym_build_id *id, const char *long_name,
		   void **image, size_t *len, char **what, const struct jp_log *log);
	void (*fini)(void *ctx);
	void *ctx;
	/* Optional, asked before get: the DSO's symbols without its ELF, for a session that
	 * reads nothing else of it (no lines, code or file: the provider knows when it was set
	 * up so). Returns as get does; on 1 the DSO has what *out gives and no ELF (its lines,
	 * code and file are then not found). */
	int (*get_symbols)(void *ctx, const struct sym_build_id *id, const char *long_name,
			   struct sym_provided *out, const struct jp_log *log);
};
int sym_session_set_provider(struct sym_session *s, const struct sym_provider *p);

/* ---- events, fed in timestamp order (time in the recording's clock, ns) ---------------- */
#define SYM_PID_KERNEL UINT32_MAX	/* pid of kernel maps (-1 in the records) */

/* cpumode as in perf_event_header.misc & 7; kernel maps: pid SYM_PID_KERNEL, cpumode 1.
 * A "[kernel.kallsyms]<sym>" map sets the kernel map; pgoff is then the recorded runtime
 * address of <sym> (normally _text) and drives KASLR relocation. build_id may be NULL. */
int sym_mmap(struct sym_session *s, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
	     uint64_t pgoff, const char *filename, const uint8_t *build_id, size_t build_id_len,
	     int cpumode, uint64_t time);
int sym_comm(struct sym_session *s, uint32_t pid, uint32_t tid, const char *comm,
	     uint64_t time);
/* Thread created: a new process (pid != ppid) gets a copy of the parent's maps. */
int sym_fork(struct sym_session *s, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time);
/* Thread/process ended: a process's maps stop resolving after time (pid == tid). */
int sym_exit(struct sym_session *s, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time);
/* A build-id from the HEADER_BUILD_ID feature (or record 67): applies to every map of that
 * filename that carries no build-id of its own, earlier or later. */
int sym_add_build_id(struct sym_session *s, const char *filename, const uint8_t *build_id,
		     size_t build_id_len, int cpumode);

/* The same from perf.data (recorder/perfdata): one decoded event (MMAP, MMAP2, COMM, FORK,
 * EXIT, HEADER_BUILD_ID; others are ignored), fed at its time. Returns 1 for a SAMPLE (left
 * to the caller), 0 when fed or ignored, -errno. */
struct pd_event;
struct pd_reader;
int sym_feed_event(struct sym_session *s, const struct pd_event *ev);
/* An MMAP or MMAP2 event fed as sym_feed_event does; *dso gets the DSO it maps, NULL when
 * the map was refused (the caller then knows it by that DSO, no second lookup by name). */
int sym_feed_mmap(struct sym_session *s, const struct pd_event *ev, struct sym_dso **dso);
/* Every entry of the recording's build-id table (file mode) as sym_add_build_id; an entry
 * without an id is skipped, only -ENOMEM stops. */
int sym_feed_build_ids(struct sym_session *s, const struct pd_reader *r);
/* The ELF files looked for and not found so far, said in one warning (how many, the first
 * names, and how to report a recording from another machine), then forgotten. */
void sym_say_not_found(struct sym_session *s);

/* The comm of a thread at time (the last COMM at or before it; the process's before any);
 * NULL if never named. Valid until sym_session_free. */
const char *sym_comm_of(struct sym_session *s, uint32_t pid, uint32_t tid, uint64_t time);

/* ---- resolution ----------------------------------------------------------------------- */
struct sym_inline {
	const char *func;		/* the inlined function (demangled unless no_demangle) */
	const char *file;		/* where it sits: its own line for the innermost, */
	unsigned line;			/* the call site in its caller for the rest */
};

struct sym_result {
	struct sym_dso *dso;		/* NULL: no map covers the address ("[unknown]") */
	const char *dso_name;		/* perf's short name: "libc.so.6", "[kernel.kallsyms]",
					 * "jitted-123-4.so", "[unknown]" */
	const char *sym;		/* NULL if no symbol covers the address */
	const char *sym_raw;		/* the name as in the file (mangled) */
	uint64_t sym_start;		/* symbol start in the DSO's address space */
	uint64_t sym_size;
	uint64_t sym_off;		/* address - sym_start */
	uint64_t dso_addr;		/* the address in the DSO's (ELF vaddr) space */
	uint64_t map_start, map_end;	/* the map that covered it, in the process */
	uint64_t map_time;		/* when that map appeared */
	const char *srcfile;		/* innermost source line (SYM_RES_LINES), or NULL */
	unsigned line;
	unsigned n_inline;		/* inline chain, innermost first; the outermost entry is */
	const struct sym_inline *inl;	/* the enclosing real function */
	int kernel;			/* 1 for kernel addresses */
	int lines_later;		/* SYM_RES_NO_WAIT left the lines out */
};

#define SYM_RES_LINES	1u	/* also fill srcfile/line/inline chain (reads DWARF once) */
#define SYM_RES_NO_WAIT	2u	/* with SYM_RES_LINES: where the DSO's DWARF is still being
				 * read ahead (sym_dso_read_dwarf_ahead), no lines but
				 * lines_later set: ask again later */

/* Resolves addr of process pid at time. cpumode (misc & 7) tells kernel (1) from user (2)
 * addresses; 0 = guess from the address. Returns 0 (out filled; dso/sym may be NULL) or
 * -errno. Results are cached by (dso, address): pointers stay valid until
 * sym_session_free. */
int sym_resolve(struct sym_session *s, uint32_t pid, uint64_t addr, uint64_t time, int cpumode,
		unsigned flags, struct sym_result *out);

/* Only the map: the DSO covering addr of pid at time (NULL: none), without reading any file;
 * *dso_addr (may be NULL) gets the file offset (user maps) or the address (kernel, anon).
 * For cheap per-DSO sorting and build-id hit marking. */
struct sym_dso *sym_dso_at(struct sym_session *s, uint32_t pid, uint64_t addr, uint64_t time,
			   int cpumode, uint64_t *dso_addr);

/* For callers that keep their own resolutions: two sym_resolve calls of one (pid, addr,
 * cpumode, flags) at times for which this gives the same non-zero number give the same answer
 * (nothing was fed between them that could change it: a map, fork, exit or build-id), except
 * an answer with lines_later set. 0: no answer made at time can be kept (a map fed so far
 * starts after time, or a process fed as exited exits at or after it). */
uint64_t sym_resolve_epoch(const struct sym_session *s, uint64_t time);

/* ---- DSOs ----------------------------------------------------------------------------- */
/* Every DSO the session knows (from maps and build-id records), in first-seen order:
 *     for (d = sym_dso_next(s, NULL); d; d = sym_dso_next(s, d)) */
struct sym_dso *sym_dso_next(struct sym_session *s, struct sym_dso *prev);
const char *sym_dso_long_name(const struct sym_dso *d);	/* the recorded filename */
const char *sym_dso_short_name(const struct sym_dso *d);
/* Recorded build-id (size 0 if none was recorded). */
const struct sym_build_id *sym_dso_build_id(const struct sym_dso *d);
int sym_dso_is_kernel(const struct sym_dso *d);
/* A number the caller keeps with a DSO, 0 until set: the report's pending mapping of a jitted
 * ELF, found from its DSO without a table of its own (a Java start-up maps 34k). */
uint32_t sym_dso_tag(const struct sym_dso *d);
void sym_dso_set_tag(struct sym_dso *d, uint32_t tag);
/* Another, 0 until set: the report's memo of what a frame in the DSO shows (its display name,
 * load, flags), found without a hash lookup per sample. */
uint32_t sym_dso_frame_tag(const struct sym_dso *d);
void sym_dso_set_frame_tag(struct sym_dso *d, uint32_t tag);
/* Locates the DSO's file (once; later calls return the same answer): 0 and *path (owned by
 * the session; for archive members, the member's unpacked copy) or -ENOENT. path may be NULL.
 * A candidate whose build-id differs from the recorded one is refused and reported with
 * both ids. */
int sym_dso_find(struct sym_session *s, struct sym_dso *d, const char **path);
/* Reads the whole located ELF into memory (for `jitprof archive`): *buf malloc'd by us,
 * freed by the caller. 0 or -errno. */
int sym_dso_read_file(struct sym_session *s, struct sym_dso *d, void **buf, size_t *len);
/* Asks debuginfod (when DEBUGINFOD_URLS names servers), on up to SYM_DEBUGINFOD_THREADS
 * threads at once, for the files of the n DSOs at dsos that no other source has (the ELF,
 * then its debug file when that ELF has no symtab or DWARF); their lookups later take these
 * answers instead of asking one at a time. All within the session's debuginfod budget
 * (sym_opts.debuginfod_timeout): requests still running when it is spent are aborted, the
 * rest not made. One warning counts the build-ids not found ("12 build-ids not found on
 * debuginfod (3 timed out)"). For the DSOs of a recording's build-id table, before the
 * replay; kernel DSOs and those without a build-id are skipped. 0 or -ENOMEM. */
int sym_session_debuginfod_ahead(struct sym_session *s, struct sym_dso *const *dsos, size_t n);
/* Starts reading d's DWARF on a worker thread when it sits in a separate debug file (libdw
 * inflates libc's 10 MB whole, ~50 ms): the first line lookup in d then waits only for what
 * is left of it. For the DSOs a recording's build-id table names, before the replay, by a
 * session that asks for lines. 0 (started, or nothing to start) or -ENOMEM. */
int sym_dso_read_dwarf_ahead(struct sym_session *s, struct sym_dso *d);
/* Code bytes at DSO address addr (ELF vaddr space), for disassembly. Returns the number of
 * bytes copied (may be short at a section end) or -errno. */
long sym_dso_read_code(struct sym_session *s, struct sym_dso *d, uint64_t addr, void *buf,
		       size_t len);
/* The DWARF line table rows with addresses in [lo, hi) (ELF vaddr space), in table order:
 * fn(ctx, addr, file, line) for each (end-of-sequence rows left out). 0 or -errno (-ENOENT:
 * no DWARF there). */
int sym_dso_lines(struct sym_session *s, struct sym_dso *d, uint64_t lo, uint64_t hi,
		  void (*fn)(void *ctx, uint64_t addr, const char *file, int line), void *ctx);

#endif
