/* origins.h - the whole face of recorder/origins/: where the ELFs of an `inject --no-elfs`
 * recording come from (the origins section: each dump's identity, each ELF's build-id and
 * records, origins.c) and the symbols provider that builds those ELFs in memory when a reader
 * (report, archive) first asks for one (ondemand.c). inject writes the section and its
 * `--elfs-for` reads it; report and archive read it through inj_ondemand_attach. Its own
 * module, beside symbols, so that report does not use inject. docs/inject.md. The names keep
 * the inj_ prefix they were born with. */
#ifndef JITPROF_ORIGINS_H
#define JITPROF_ORIGINS_H

#include <stddef.h>
#include <stdint.h>

#include "jitdump/jitdump.h"
#include "lib/log.h"

/* No load: what inj_load_at_offset (and inject's segment maps) answer for none. */
#define INJ_NONE UINT32_MAX

/* ---- ELFs without files: their origins (origins.c; inject's noelfs.c writes them) ----------
 * `inject --no-elfs` writes, instead of ELF files, where each one comes from: a perf.data
 * feature section (id INJ_FEAT_ORIGINS, above every feature perf knows, which perf skips)
 * naming each dump with its identity (device, inode, size, mtime, ctime, SHA-1 of the whole
 * file; the same for its companion) and, per ELF, its build-id, the dump's file offset of its CODE_LOAD and its
 * code_index. report/archive build those ELFs in memory on demand (ondemand.c); `inject
 * --elfs-for` writes them as files later. Format: docs/inject.md. */

#define INJ_FEAT_ORIGINS 200u
#define INJ_ORIGINS_MAGIC "JPORIGN1"

#define INJ_ORIGINS_VERSION 2u	/* 1: a dump's size, mtime and the SHA-1 of its first page */

struct inj_file_id {		/* identity of a file as inject read it */
	uint64_t dev, ino, size, mtime_ns, ctime_ns;
	uint8_t sha1[20];	/* SHA-1 of the whole file */
	int present;
};

struct inj_origin_dump {
	char *path;		/* absolute path the dump was read from */
	struct inj_file_id dump, comp;	/* the dump and its companion "<path>.jitprof" */
};

#define INJ_ORIGIN_NOLINES 1u	/* built without its line tables (synth refused them) */

struct inj_origin {
	uint8_t build_id[20];
	uint32_t dump;		/* index into dumps */
	uint32_t file_seq;	/* synth_input.file_seq */
	uint32_t flags;		/* INJ_ORIGIN_* */
	uint64_t offset;	/* of the CODE_LOAD record in the dump */
	uint64_t code_index;
	uint32_t generation;	/* the index's: nth load of its name in the dump */
	/* the records the index joined to it (0: none), read again alone by ondemand.c */
	uint64_t debug_offset, unwind_offset;	/* in the dump */
	uint64_t info_offset, inl_offset;	/* in the companion */
};

struct inj_origins {
	struct inj_origin_dump *dumps;
	size_t nr_dumps;
	struct inj_origin *v;
	size_t n;
};

/* Identity of path now (read whole without blocking, regular files only, unchanged while
 * read). 0 (present 0 when the file does not exist) or -errno, logged. */
int inj_file_id_get(const char *path, struct inj_file_id *id, const struct jp_log *log);
/* Readers of a dump a recording names. INJ_ID_FORCE (-f): a file owned by another user than
 * the running one or root is read too. */
#define INJ_ID_FORCE 1u
/* The bytes a reader checks a dump against its identity with are held in memory at once. */
#define INJ_ID_READ_MAX (2ull << 30)
/* path read whole into *buf (malloc'd; NULL for an absent file id says was absent) once it
 * is a regular file (opened without blocking), owned by the running user or root (unless
 * INJ_ID_FORCE), with id's size and mtime, and its bytes have id's SHA-1: the caller uses
 * these bytes, no others. Device, inode and ctime (a copy or a rename has others) only name
 * the cause when the bytes differ. 0, or -ESTALE (changed), -EPERM (owner),
 * SIO_ENOTREG, ... logged, naming path and the reason (never a byte of the file); out of
 * memory is fatal (jp_nomem), never a changed file. */
int inj_file_id_read(const char *path, const struct inj_file_id *id, unsigned flags,
		     uint8_t **buf, size_t *len, const struct jp_log *log);
/* The same check without keeping the bytes (buf NULL in inj_file_id_read too: the file is
 * hashed a MiB at a time). */
int inj_file_id_check(const char *path, const struct inj_file_id *id, unsigned flags,
		      const struct jp_log *log);
/* Section bytes (malloc'd) <-> origins. Decoding checks every length; errors name the byte
 * offset inside the section. */
int inj_origins_encode(const struct inj_origins *o, void **buf, size_t *size);
int inj_origins_decode(struct inj_origins *o, const void *buf, size_t size,
		       const struct jp_log *log);
struct pd_reader;
/* The origins section of an opened perf.data: 0, -ENOENT (none, nothing logged), or -EINVAL
 * with a message naming input logged. */
int inj_origins_read(const struct pd_reader *r, const char *input, struct inj_origins *o,
		     const struct jp_log *log);
void inj_origins_free(struct inj_origins *o);
/* Load index of the CODE_LOAD record at file offset off in x, or INJ_NONE. */
uint32_t inj_load_at_offset(const struct jd_index *x, uint64_t off);
/* The directory of a recording read from a file ("dir/x.data" -> "dir", "x.data" -> "."),
 * malloc'd; NULL for a pipe ("-", NULL) or out of memory. */
char *inj_input_dir(const char *input);
/* Where origin dump k is read: its recorded path, or, gone from there, a regular file of its
 * name (jit-PID.dump) in input_dir, the directory of the recording that names it (moved with
 * it: mv, cp -a). malloc'd, NULL when out of memory. Its identity is checked all the same. */
char *inj_origin_dump_path(const struct inj_origins *o, size_t k, const char *input_dir);
/* Opens origin dump k, read at path (inj_origin_dump_path), after checking the identities of
 * it and its companion (inj_file_id_check, flags INJ_ID_FORCE or 0): -ESTALE with a message
 * saying what changed, -EPERM for another user's file, or another -errno. */
int inj_origins_open_dump(const struct inj_origins *o, size_t k, const char *path,
			  unsigned flags, struct jd_index **x, const struct jp_log *log);

struct pd_reader;
struct sym_session;
/* Gives ss the ELFs r's origins section names, built in memory on first use and kept for the
 * run (ondemand.c). flags: INJ_OD_SYMBOLS_ONLY for a reader that looks up symbols and nothing
 * else (no lines, inline frames or code: `report --sort dso,sym`): each ELF is built without
 * its line table and inline scopes, under the recorded build-id (synth_build_symbols), and
 * those records are not read. 1 attached, 0 when r has no origins section, -errno with its
 * message logged (JP_LOG_ERROR; log may be NULL). */
#define INJ_OD_SYMBOLS_ONLY 1u
/* With INJ_OD_SYMBOLS_ONLY, for a reader that never reads a jitted ELF's bytes (no note, no
 * file): no ELF is built at all; each load's symbol and layout are given straight
 * (sym_provider.get_symbols, synth_symbol), the same as the ELF would give. */
#define INJ_OD_NO_ELF 2u
/* A dump (or companion) owned by another user than the running one or root is read too (-f);
 * without it, its ELFs are refused with a warning naming it. */
#define INJ_OD_FORCE 4u
int inj_ondemand_attach(struct sym_session *ss, const struct pd_reader *r, const char *input,
			unsigned flags, const struct jp_log *log);

/* An interpreter frame's method and bci from the two words read from it (unw_frame's method,
 * bcp, bcp_slot: the live bcp first, the slot's next) through the method table of x at time,
 * with the line of that bci (0 unknown). 0, or -ENOENT when the table does not hold the
 * method or the bcp is outside its bytecodes: never a guess. inject (interp.c) and report
 * (interp_names.c) name frames with it (interp_resolve.c). */
struct jd_index;
struct jd_ext_method;
int inj_interp_resolve(const struct jd_index *x, uint64_t method, uint64_t bcp,
		       uint64_t bcp_slot, uint64_t time, const struct jd_ext_method **out,
		       uint32_t *bci, uint32_t *line);
/* The first bytecode's address of method in x's table (its last record: the walk that asks
 * has no time; inj_interp_resolve checks the bcp at the frame's time afterwards), for a frame
 * sampled in its method entry (unwind.h, unw_module.method_start). 0, or -ENOENT. */
int inj_interp_method_start(const struct jd_index *x, uint64_t method, uint64_t *bcp);

#endif
