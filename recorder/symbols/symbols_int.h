/* symbols_int.h - what the files of recorder/symbols/ share behind symbols.h: the session,
 * processes and their maps, DSOs and their loaded ELF/DWARF state. Not for other modules. */
#ifndef JITPROF_SYMBOLS_INT_H
#define JITPROF_SYMBOLS_INT_H

#include <assert.h>
#include <gelf.h>
#include <stddef.h>
#include <elfutils/libdw.h>

#include "lib/hindex.h"
#include "lib/strset.h"
struct jp_pool;
#include "recorder/symbols/symbols.h"

/* ---- one symbol table (ELF or kallsyms), sorted by start ---- */
struct sym_entry {
	uint64_t start, size;
	const char *raw;	/* as in the file (its string table, or interned) */
	const char *name;	/* demangled (or raw); NULL until first needed: a DSO's
				 * thousands of names are demangled only when hit */
	uint8_t rank;		/* binding: 2 global, 1 weak, 0 local (duplicates keep the best) */
	uint8_t module;		/* kallsyms: a module's symbol (not moved with _text) */
};

struct sym_table {
	struct sym_entry *v;
	size_t n, cap;
};

int symtab_add(struct sym_table *t, uint64_t start, uint64_t size, const char *raw,
	       const char *name, uint8_t rank);
/* Sorts, drops duplicates, gives size-0 symbols the room up to the next one (like perf). */
void symtab_finish(struct sym_table *t);
struct sym_entry *symtab_find(const struct sym_table *t, uint64_t addr);
void symtab_free(struct sym_table *t);

/* ---- a kallsyms file kept as text (kallsyms.c) ---- */
struct ksym {
	uint64_t addr;
	uint32_t line;		/* offset of its line in the text */
	uint32_t mat;		/* 1 + its index in mat once a sample hit it, else 0 */
};

struct kallsyms {
	char *text;		/* mapped (regular file) or malloc'd (/proc) */
	size_t len;
	int mapped;
	struct ksym *v;		/* text symbols sorted by address, one per address */
	size_t n;
	void *v_map;		/* v is in this mapping of a cache entry (kallsyms_cache.c) */
	size_t v_map_len;
	struct sym_entry **mat;	/* symbols samples hit, with their names copied out */
	size_t n_mat, cap_mat;
};

/* Indexes path's text symbols; when recorded_ref is set and ref_name's address in the file
 * differs, the core image's symbols are moved by the difference (modules stay).
 * 0, -EPERM (every address 0: kptr_restrict) or -errno. */
int kallsyms_open(struct kallsyms *k, const char *path, const char *ref_name,
		  uint64_t recorded_ref);
/* The same, with the index kept in and read from the build-id cache beneath cache_root (a
 * directory fd; -1: none), for a regular file. */
int kallsyms_open_cached(struct kallsyms *k, const char *path, const char *ref_name,
			 uint64_t recorded_ref, int cache_root);
/* kallsyms_cache.c: 1 with k->v, k->n, k->v_map set from the cache's entry for the file st
 * (k->text read: sorted, one entry per address, unrelocated) and *ref_addr the reference
 * symbol's address in the file; 0 when there is none to take. save writes k's index so as
 * that entry (failing silently). */
struct stat;
int kallsyms_cache_load(int rootfd, const struct stat *st, const char *ref_name,
			struct kallsyms *k, uint64_t *ref_addr);
void kallsyms_cache_save(int rootfd, const struct stat *st, const char *ref_name,
			 const struct kallsyms *k, uint64_t ref_addr);
/* inflate_cache.c: all n bytes written (EINTR retried): 0 or -1. sym_cache_writable: 1 when
 * the build-id cache root rootfd is the running user's (or root's) and others may not write
 * it: jitprof run as root never writes into another user's cache (HOME kept by sudo -E). */
int sym_write_all(int fd, const void *p, size_t n);
int sym_cache_writable(int rootfd);
/* The symbol covering addr (materialized on first hit), or NULL. */
struct sym_entry *kallsyms_find(struct sym_session *s, struct kallsyms *k, uint64_t addr);
void kallsyms_free(struct kallsyms *k);
/* A whole file (also /proc ones, which report size 0), NUL-terminated. 0 or -errno. */
int sym_read_all(const char *path, char **buf, size_t *len);

/* ---- source-line cache entries ---- */
struct sym_cached {
	uint64_t addr;
	struct sym_cached *next;
	struct sym_entry *sym;
	int lines_done;
	const char *srcfile;
	unsigned line;
	unsigned n_inline;
	struct sym_inline *inl;
};

/* What one walk of a CU (on its first inline lookup) learnt for the lookups that follow:
 * the subprograms libdw's scope search can reach (an inline's abstract origin is found only
 * among them) and whether the CU imports partial units (then libdw's own search is used). */
struct cu_top {
	uint64_t lo, hi;	/* one address range of one child, [lo, hi) */
	Dwarf_Die die;
};

struct cu_scopes {
	Dwarf_Off *subs;	/* DIE offsets, ascending (the walk is in DIE order) */
	size_t n, cap;
	int imports;
	/* The CU's own children's address ranges, ascending and disjoint, so the first level of
	 * a lookup is a binary search, not a scan of every child (a unit of 20k subprograms,
	 * inject's ELF of interpreted methods, made each lookup read 20k DIEs). Empty when the
	 * unit has few children, overlapping ranges or a range libdw cannot read: then the
	 * children are scanned in order as libdw does. */
	struct cu_top *top;
	size_t n_top, cap_top;
	int top_bad;
};

/* cu_top.c: a child's ranges noted during the unit's walk (-ENOMEM); after the walk, the
 * index sorted and kept only where a search answers as the scan in order; the child holding
 * addr (1) or none (0). */
int cu_top_note(struct cu_scopes *cs, Dwarf_Die *die);
void cu_top_finish(struct cu_scopes *cs);
int cu_top_find(const struct cu_scopes *cs, uint64_t addr, Dwarf_Die *child);

struct cu_range {
	uint64_t lo, hi;
	Dwarf_Off cu_off;
	int depth;		/* 0 not yet walked, 1 nesting within SYM_DWARF_MAX_DEPTH, -1 deeper */
	int owns_scopes;	/* this range allocated scopes (the CU's other ranges share it) */
	struct cu_scopes *scopes;	/* set with depth */
};

/* DIE nesting read for inline frames: libdw's dwarf_getscopes recurses once per level, and
 * a crafted CU of 40,000 nested lexical blocks overflowed the stack. Real code nests a few
 * dozen levels. */
#define SYM_DWARF_MAX_DEPTH 512
/* DIEs the same check reads through DW_TAG_imported_unit (dwz's partial units) for one CU:
 * libdw walks an imported unit again wherever it is imported, so units importing each other
 * twice over double the walk per level. Real CUs import a few units of some thousand DIEs. */
#define SYM_DWARF_IMPORT_BUDGET (1u << 20)

struct phdr_map {
	uint64_t off, filesz, vaddr;
};

/* Where a debug file's inflated sections live: malloc'd, or a cache file mapped. */
struct lines_zbuf {
	void *p;
	size_t len;
	int mapped;
	uint64_t entry_id[4];	/* mapped: the cache entry's device, inode, size, mtime */
};

/* ---- a DSO: one recorded file identity (long name + build-id) ---- */
struct dbgd_ahead;
struct sym_dso {
	struct sym_dso *next;		/* session order */
	struct sym_dso *hnext;		/* session hash chain */
	size_t hash;			/* of long_name */
	const char *long_name;		/* in the session's arena, */
	const char *short_name;		/* as is this (often a suffix of long_name) */
	struct sym_build_id bid;
	int kernel;			/* 1 kernel image, 2 module */
	int anon;			/* identity-mapped anonymous memory (perf-PID.map) */
	uint32_t anon_pid;

	int find_done, find_rc;
	int prov_refused;		/* the provider refused its build-id and said why */
	char *path;			/* where we found it, for messages */
	void *image;			/* in memory (archive member, malloc'd) */
	size_t image_len;
	int fd;
	Elf *elf;
	int dbg_fd;
	void *dbg_image;
	Elf *dbg_elf;			/* separate debug info, or NULL */
	int is_rel;			/* ET_REL (kernel modules): no phdrs */

	int layout_done;
	struct phdr_map *phdrs;
	size_t n_phdrs, cap_phdrs;
	struct phdr_map *scns;		/* fallback translation by section */
	size_t n_scns, cap_scns;

	int syms_loaded;
	struct sym_table syms;

	int dw_tried;
	Dwarf *dw;
	Elf *dw_elf;			/* dw's own handle when it was read ahead */
	struct lines_zbuf dw_zbuf;	/* its sections inflated by lines_inflate */
	struct dw_ahead *dw_ahead;	/* being read ahead (dwarf_ahead.c) */
	struct cu_range *cus;
	size_t n_cus;

	struct sym_cached **cache;
	size_t cache_cap, cache_n;

	uint32_t tag;			/* the caller's (sym_dso_set_tag) */
	uint32_t frame_tag;		/* the caller's (sym_dso_set_frame_tag) */
	struct dbgd_ahead *dbgd;	/* fetched ahead (debuginfod.c), NULL: not */
};

/* ---- maps of one process ---- */
struct sym_map {
	uint64_t start, end, pgoff;
	uint64_t time;			/* when it appeared */
	uint64_t seq;			/* feed order, breaks time ties: later wins */
	uint64_t shadowed_at;		/* a later map covering all of it appeared then;
					 * UINT64_MAX: none (yet) */
	struct sym_dso *dso;
};

/* One sorted run of maps: by start, max_end[i] = the largest end among v[0..i], so a lookup
 * walks back only over maps that can reach the address. start[i] = v[i].start: the binary
 * search reads 8-byte keys side by side instead of one 56-byte map per step (a cache miss
 * each when tens of thousands of JIT generations are sampled at random). */
struct sym_maplist {
	struct sym_map *v;
	uint64_t *max_end;
	uint64_t *start;
	size_t n;
	size_t n_shadowed;		/* entries a later map has wholly replaced */
};

/* Sorted runs, each at most half the size of the one before (merged when not): adding a map
 * costs O(log n) amortized, a lookup one binary search per run. */
#define SYM_MAX_RUNS 48
struct sym_runs {
	struct sym_maplist run[SYM_MAX_RUNS];
	size_t n;
};

struct sym_comm_ev {
	uint64_t time;
	uint32_t tid;
	const char *comm;		/* interned */
};

struct sym_proc {
	uint32_t pid;
	struct sym_proc *hnext;
	uint64_t exit_time;		/* UINT64_MAX while alive */
	struct sym_runs live;		/* maps no later map has wholly replaced (mostly) */
	struct sym_runs hist;		/* replaced maps: needed only before hist_until */
	uint64_t hist_until;		/* the latest shadowed_at in hist */
	struct sym_map *recent;		/* appended since the last merge, unsorted */
	size_t n_recent, cap_recent;
	size_t recent_scanned;		/* recent maps lookups went through since the merge */
	struct sym_comm_ev *comms;
	size_t n_comms, cap_comms;
};

struct sym_source;

struct sym_session {
	struct sym_opts o;
	char *buildid_dir;
	struct sym_source *sources;
	struct sym_dso *dsos, *dsos_tail;
	struct sym_dso **dso_hash;
	size_t dso_hash_cap, n_dsos;
	uint64_t dso_hash_seed;		/* jp_hash_seed, taken by the first dso_get */
	size_t dso_probes;		/* chain entries dso_get looked at (the flooding test) */
	struct sym_proc **procs;
	size_t proc_cap, n_procs;
	size_t proc_probes;		/* chain entries proc_get passed over (the flooding test) */
	size_t cache_probes;		/* chain entries cache_get passed over (the same) */
	uint64_t seq;
	uint64_t epoch;			/* sym_resolve_epoch: bumped by what changes answers */
	uint64_t max_map_time;		/* the latest map's time */
	uint64_t max_exit_time;		/* the latest process exit's (0: none) */
	struct sym_chunk *arena;	/* DSOs and their names: freed with the session */
	struct jp_strset strs;		/* interned strings (lib/strset.h) */
	/* message de-duplication */
	char **msgs;
	size_t n_msgs, cap_msgs;	/* each distinct message said once (sess_msg) */
	struct jp_hindex msg_index;	/* a message -> its index in msgs */
	/* ELF files not found: counted, said once by sym_say_not_found (a recording from
	 * another machine misses hundreds: one warning each buried everything else) */
	size_t n_not_found;
	const char *not_found[3];	/* the first ones' names (the arena's) */
	int not_found_id[3];		/* 1: that one was looked for by build-id */
	/* kernel */
	struct sym_dso *kdso;
	char *kref_name;		/* "_text" from "[kernel.kallsyms]_text" */
	uint64_t kref_addr;		/* its recorded runtime address (map pgoff) */
	int ksyms_loaded;
	struct sym_table ksyms;		/* from a vmlinux */
	struct kallsyms kall;		/* from a kallsyms file */
	void *dbgd;			/* debuginfod_client */
	int dbgd_tried;
	uint64_t dbgd_deadline;		/* CLOCK_MONOTONIC ns; 0: no request made yet */
	struct sym_provider prov;	/* get NULL: none */
	struct jp_pool *dw_pool;	/* reads DWARF ahead (dwarf_ahead.c) */
	int dw_pool_off;		/* no worker could start */
};

/* util.c */
/* Elements of n, stride bytes apart, sorted by a uint64_t key at their start: the number of
 * them whose key is <= key (one past the last such). */
size_t sym_upper_bound(const void *base, size_t n, size_t stride, uint64_t key);
struct sym_key {
	uint64_t key, idx;
};
/* Sorts by key, then idx (a total order: ties land the same way every run). */
void sym_sort_keys(struct sym_key *v, size_t n);
const char *sess_intern(struct sym_session *s, const char *str);
/* Zeroed memory living as long as the session (no free). NULL on out of memory. */
void *sess_alloc(struct sym_session *s, size_t n);
char *sess_strdup(struct sym_session *s, const char *str);
void sess_arena_free(struct sym_session *s);

/* resolver.c */
void sess_msg(struct sym_session *s, enum jp_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* sess_msg as a jp_log (fn sess_log_msg, ctx a struct sess_log) for what a callee logs: said
 * once like the session's own messages, at most at level max (a provider's refusal is the
 * session's warning: other sources are still tried); said counts them. */
struct sess_log {
	struct sym_session *s;
	enum jp_level max;
	int said;
};
void sess_log_msg(void *ctx, enum jp_level lvl, const char *msg);

/* cxxnames.c: the name perf shows for a raw symbol name (interned), or raw itself */
const char *sess_demangle(struct sym_session *s, const char *raw);

/* maps.c */
struct sym_proc *proc_get(struct sym_session *s, uint32_t pid, int create);
int proc_add_map(struct sym_proc *p, const struct sym_map *m);
int mmap_dso(struct sym_session *s, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
	     uint64_t pgoff, const char *filename, const uint8_t *build_id, size_t build_id_len,
	     int cpumode, uint64_t time, struct sym_dso **out);
int proc_copy_maps(struct sym_proc *dst, const struct sym_proc *src);
const struct sym_map *proc_find_map(struct sym_proc *p, uint64_t addr, uint64_t time);
void proc_free(struct sym_proc *p);
void proc_clear_maps(struct sym_proc *p);

/* dso.c */
struct sym_dso *dso_get(struct sym_session *s, const char *long_name,
			const struct sym_build_id *bid, int kernel, uint32_t pid);
/* Closes and frees what the DSO holds (not the DSO: the arena's). */
void dso_release(struct sym_dso *d);
/* Opens the located file's ELF (after sym_dso_find). 0 or -errno. */
int dso_open(struct sym_session *s, struct sym_dso *d);
/* One more offset -> vaddr range (a PT_LOAD) of a DSO whose layout is known without its ELF.
 * 0 or -ENOMEM. */
int dso_add_segment(struct sym_dso *d, uint64_t off, uint64_t size, uint64_t vaddr);
/* file offset -> ELF vaddr, using PT_LOAD headers (sections when there are none). */
uint64_t dso_off_to_vaddr(struct sym_dso *d, uint64_t off);
int dso_elf_build_id(Elf *elf, struct sym_build_id *id);
/* debuglink.c: the debug file elf's .gnu_debuglink names, beside the file found or under
 * symfs/usr/lib/debug/<recorded dir>, with the CRC32 the link asks; its path into out. */
int debuglink_find(Elf *elf, const char *found, const char *recorded, const char *symfs,
		   char *out, size_t len);

/* find.c: locate, verify, and open (fd or image) the file of a DSO */
int find_dso_file(struct sym_session *s, struct sym_dso *d);
int find_debug_file(struct sym_session *s, struct sym_dso *d);
/* 1 when a source but the provider and debuginfod has d's file (debug: its debug file) with
 * the recorded build-id; *wants_debug (may be NULL) then says whether that ELF lacks a symtab
 * or DWARF, so its debug file would be looked for. */
int find_local(struct sym_session *s, struct sym_dso *d, int debug, int *wants_debug);
int find_wants_debug(Elf *elf);

/* debuginfod.c */
/* d's file (debug: its debug file) from debuginfod: an fd and *path (malloc'd, in the
 * client's cache; may be NULL), or -errno. What sym_session_debuginfod_ahead fetched is
 * taken from there; others are asked now, within the session's budget. */
int dbgd_find(struct sym_session *s, struct sym_dso *d, int debug, char **path);
/* A vmlinux with the kernel build-id id; *path (malloc'd) in the client's cache. */
int dbgd_find_kernel(struct sym_session *s, const struct sym_build_id *id, char **path);
/* Ends the session's debuginfod client, if one was started. */
void dbgd_end(struct sym_session *s);
/* What was fetched ahead for d and never taken. */
void dbgd_dso_release(struct sym_dso *d);

/* source.c: archives and directories laid out like ~/.debug */
int source_add(struct sym_session *s, const char *path);
/* First source holding the build-id: a path (*path, malloc'd) or an image (*image). kind:
 * "elf", "debug" or "kallsyms". 0 or -ENOENT. */
int source_lookup(struct sym_session *s, const struct sym_build_id *id, const char *kind,
		  char **path, void **image, size_t *len);
void source_free_all(struct sym_session *s);
void source_remove_all_files(struct sym_session *s);

/* tmpdir.c: the private directory an archive unpacks into ($TMPDIR/jitprof-archive.XXXXXX),
 * locked while held (flock on fd) and known to sym_remove_unpacked_now. */
struct sym_tmpdir {
	int parent, fd, slot;		/* $TMPDIR, the directory (locked), the signal slot */
	char *path;
};
/* Members nest at most this deep (the signal-safe removal recurses once per level). */
#define SYM_UNPACK_MAX_DEPTH 64
/* Makes one, after removing those left by runs that are gone. 0 or -errno (t then needs
 * tmpdir_remove all the same). */
int tmpdir_make(struct sym_tmpdir *t);
/* Removes it and all it holds (never following a symlink), and forgets it. */
void tmpdir_remove(struct sym_tmpdir *t);
/* 1 once sym_remove_unpacked_now ran: unpack stops creating files. */
int tmpdir_stopping(void);

/* elfsym.c */
int elfsym_load(struct sym_session *s, struct sym_dso *d);
/* .symtab, else .dynsym, of any ELF into t (finished). 0 or -ENOENT. */
int elfsym_table(Elf *elf, struct sym_table *t);

/* plt.c: "<callee>@plt" symbols for elf's .plt stubs, as perf synthesizes them. 0 or -ENOMEM */
int plt_symbols(struct sym_session *s, Elf *elf, struct sym_table *t);

/* lines.c */
/* The first section of elf named name (or alt, unless NULL) that has bytes, or NULL. */
Elf_Scn *lines_section(Elf *elf, const char *name, const char *alt);
int lines_has_debug_info(Elf *elf);
/* How many of libdw's realpath("/proc/self/fd/-1") lines.c answered without asking the
 * kernel (dwarf_begin_elf on an Elf made from memory asks it each time). */
extern unsigned long sym_no_fd_realpaths;
/* Marks elf's compressed location lists (.debug_loclists, .debug_loc) SHT_NOBITS, so that
 * dwarf_begin_elf, which inflates every compressed debug section it knows on opening, leaves
 * them be: lines and inline chains never read a variable's location. elf must have been
 * opened ELF_C_READ_MMAP_PRIVATE (its section headers are written, in memory only). */
void lines_skip_unread(Elf *elf);
/* The address ranges of dw's CUs, sorted by start (*cus malloc'd, NULL if none). 0 or
 * -ENOMEM (what was indexed is still returned). Touches nothing but its arguments. */
int lines_index_cus(Dwarf *dw, struct cu_range **cus, size_t *n_cus);
int lines_lookup(struct sym_session *s, struct sym_dso *d, struct sym_cached *c);
void lines_free(struct sym_dso *d);

/* inflate.c */
void lines_zbuf_free(struct lines_zbuf *z);
/* 1 when lines_inflate can work: libdeflate loaded (on the first call: call it from one
 * thread) and JITPROF_DWARF_INFLATE is not "libdw". */
int lines_inflate_ready(void);
/* Inflates elf's zlib-compressed .debug_* sections with libdeflate into one buffer (*z) and
 * hands them to libdw as if libelf's elf_compress had (the data and section headers of this
 * handle, in memory: open it ELF_C_READ_MMAP_PRIVATE). Returns how many sections libdeflate
 * refused (left compressed for libdw). Only after lines_inflate_ready said 1; out of memory
 * is fatal (jp_nomem). */
size_t lines_inflate(Elf *elf, struct lines_zbuf *z);
/* The buffer lines_inflate fills for elf: its size (0: nothing to inflate) and sections. */
size_t lines_inflate_size(Elf *elf, size_t *n);
/* The sections it inflates, in order, each at its offset in the buffer (*off advanced to
 * it; SIZE_MAX on overflow); NULL after the last. */
Elf_Scn *lines_inflate_next(Elf *elf, size_t shstrndx, Elf_Scn *scn, size_t *off,
			    GElf_Chdr *ch, Elf_Data **raw);
/* scn's data replaced by its inflated bytes (ch->ch_size of them at bytes). */
void lines_inflate_set(Elf_Scn *scn, Elf_Data *raw, const GElf_Chdr *ch, void *bytes);

/* inflate_cache.c: what lines_inflate made, kept in the build-id cache for the next run */
/* The cache root for a worker: an O_PATH descriptor of root; -1 without one, or with
 * JITPROF_DWARF_INFLATE=nocache. */
int lines_zcache_root(const char *root);
/* lines_inflate through the cache: elf's sections from the entry for the debug file srcfd
 * (build-id bid) when there is a sound one of ours (mapped: *z), else inflated and, when every
 * section was, written as that entry (failing to write leaves none and says nothing). rootfd
 * -1: lines_inflate alone. Returns the sections left compressed, as lines_inflate. */
size_t lines_inflate_cached(int rootfd, const struct sym_build_id *bid, int srcfd, Elf *elf,
			    struct lines_zbuf *z);

/* inflate_cache.c: the cache entry's path beneath the root for build-id bid, its name
 * followed by suffix ("" for the DWARF itself), in LINES_ZCACHE_DIR: 0, or -1 (no build-id,
 * too long). */
#define LINES_ZCACHE_DIR ".jitprof/dwarf"
int lines_zcache_entry(const struct sym_build_id *bid, const char *suffix, char *rel,
		       size_t len);
/* cus_cache.c: the CU index lines_index_cus made of a debug file whose DWARF came mapped
 * from the cache (z), kept beside that entry: load gives *cus, *n_cus (1) or 0 when there is
 * no sound one; save writes it (failing silently). dw: the Dwarf read from z's sections. */
int lines_cus_load(int rootfd, const struct sym_build_id *bid, const struct lines_zbuf *z,
		   Dwarf *dw, struct cu_range **cus, size_t *n_cus);
void lines_cus_save(int rootfd, const struct sym_build_id *bid, const struct lines_zbuf *z,
		    const struct cu_range *cus, size_t n_cus);

/* dwarf_ahead.c */
/* dw_open for a DSO being read ahead: waits for the worker, adopts its Dwarf (or reports why
 * there is none). 0 or -errno, as dw_open. */
int dwarf_ahead_take(struct sym_session *s, struct sym_dso *d);
/* dw_open for a DSO whose DWARF is in a separate debug file, on this thread the way a
 * read-ahead reads it (its own private handle, the unread sections skipped, inflated through
 * the build-id cache): 0 or -errno as dw_open; 1 when d has no such file (nothing done). */
int dwarf_read_now(struct sym_session *s, struct sym_dso *d);
/* 1 while d's DWARF is being read ahead (it will be ready later without waiting now). */
int dwarf_ahead_busy(const struct sym_dso *d);
/* Waits for and frees a read-ahead nobody took. */
void dwarf_ahead_drop(struct sym_dso *d);
/* Waits for the worker and stops it (before the DSOs are released). */
void dwarf_ahead_end(struct sym_session *s);

/* kernel.c */
int kernel_load(struct sym_session *s);
/* The kernel symbol covering addr (after kernel_load), or NULL. */
struct sym_entry *kernel_find(struct sym_session *s, uint64_t addr);

/* sym_upper_bound reads each element's sort key from its first 8 bytes */
static_assert(offsetof(struct sym_entry, start) == 0, "key first");
static_assert(offsetof(struct cu_range, lo) == 0, "key first");
static_assert(offsetof(struct ksym, addr) == 0, "key first");
static_assert(offsetof(struct sym_map, start) == 0, "key first");

#endif
