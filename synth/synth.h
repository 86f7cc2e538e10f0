/* synth.h - the whole public face of libsynth: one small ELF (ET_DYN) per code load, i.e. per
 * method generation, with a deterministic SHA-1 build-id, DWARF 4 lines and inline scopes,
 * the runtime's unwind tables and a vendor note saying which generation it is.
 *
 * Conventions: functions return 0 (or a documented positive value) on success and a negative
 * errno on failure, with its message sent at JP_LOG_ERROR through the caller's log (lib/log.h;
 * NULL drops it; jp_errbuf_log keeps it in a buffer). Everything is
 * thread-safe: no mutable static state, one libelf handle per call. docs/synth.md. */
#ifndef JITPROF_SYNTH_H
#define JITPROF_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "jitdump/jitdump.h"
#include "lib/log.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SYNTH_BUILD_ID_SIZE 20
#define SYNTH_BUILD_ID_HEX  (2 * SYNTH_BUILD_ID_SIZE + 1)
/* Longest method or line-table file name accepted (bytes, without NUL): past any JVM's (a
 * class and a method name of 65,535 bytes each and their descriptor), so a long name is an
 * ELF's whole, not a refused load; a bound all the same (the ELF's strings are u32 offsets). */
#define SYNTH_NAME_MAX      (1 << 20)
/* Longest script (a path) taken from the end of a V8 name (synth_name_script): PATH_MAX. */
#define SYNTH_SCRIPT_MAX    4096
#define SYNTH_FILE_NAME_MAX 64		/* "jitted-<u32>-<u64>.so" fits easily */

/* Vendor note in every ELF (section ".note.jitprof"): an NT_VERSION note (type 1, descsz 0)
 * whose owner name is one line of text, the convention eu-elflint and readelf -n accept for
 * vendor strings:
 *   "jitprof/1 generation=2 code_index=5 timestamp=999 tier=3 flags=2 pid=1234 code_addr=0x7f.. name=NAME"
 * NAME (the runtime's method name, may hold spaces) runs to the end; tier is enum jd_tier. */
#define SYNTH_NOTE_PREFIX "jitprof/1 "
#define SYNTH_NOTE_TYPE   1u

/* The note parsed back (note.c, beside the writer). name points into the parsed bytes. */
struct synth_note {
	uint32_t generation, tier, flags, pid;
	uint64_t code_index, timestamp, code_addr;
	const char *name;
};
/* Parses a note's owner text (len bytes, NUL inside): 0, or -EINVAL if it is not ours or is
 * malformed. Keys a later writer adds are skipped. */
int synth_note_parse(const char *text, size_t len, struct synth_note *n);
/* Finds our note in an ELF image in memory: 1 with *n filled, 0 if there is none. */
int synth_note_read(const void *elf, size_t size, struct synth_note *n);

/* One code load and everything that shapes its ELF. Pointers are borrowed, never freed. */
struct synth_input {
	uint16_t e_machine;		/* EM_X86_64, EM_AARCH64, EM_RISCV; 0 = this host's */
	uint32_t pid;
	uint64_t code_index;
	uint32_t generation;		/* 1, 2, 3 ... (0 = unknown) */
	uint32_t tier;			/* enum jd_tier */
	uint32_t load_flags;		/* JD_LOAD_* (back-filled, OSR): noted, not hashed */
	uint64_t timestamp;		/* the CODE_LOAD's timestamp */
	const char *name;		/* the runtime's name, e.g. "Lcom/acme/Foo;bar(I)I" */
	uint64_t code_addr;
	const uint8_t *code;
	uint64_t code_size;
	const struct jd_line *lines;	/* ascending addr, inside [code_addr, code_addr+size);
					 * entries that are not are dropped one by one */
	size_t nr_lines;
	const struct jd_ext_inline *inl;	/* NULL: no inline scopes */
	const uint8_t *unwind;		/* .eh_frame then .eh_frame_hdr (jitdump §2.8), or NULL */
	uint64_t unwind_size, eh_frame_hdr_size, mapped_size;
	const char *comp_dir;		/* DW_AT_comp_dir; NULL = "" (file names as given) */
	uint32_t file_seq;		/* see synth_index_file_seqs; not part of the ELF */
};

/* Fills *in from one entry of a jitdump index (and the dump header for e_machine/pid). */
void synth_input_from_load(struct synth_input *in, const struct jd_header *hdr,
			   const struct jd_load_entry *e);

/* Checks everything synth_build would refuse (code_size 0, oversized name, inconsistent unwind
 * sizes, bad inline tables). 0 or -EINVAL/-ENOTSUP. A line table is never refused: its bad
 * entries are dropped one by one (synth_lines_dropped counts them). */
int synth_validate(const struct synth_input *in, const struct jp_log *log);
/* Line-table entries synth_build leaves out because they are unusable: outside the code (but for
 * the last one at most SYNTH_LINE_BEFORE_MAX bytes before it, kept at the code start), below
 * an earlier entry's address, a negative line, a missing, empty or oversized file name (a file
 * name that is not text counts as missing when the load's name gives no script). Rows with
 * line 0 ("no line") are not counted: their range joins the row before them. */
size_t synth_lines_dropped(const struct synth_input *in);
/* Rows whose file name is not text (invalid UTF-8, control characters: node 20 writes some
 * from freed memory) that synth_build keeps with the script the load's name gives instead. */
size_t synth_lines_renamed(const struct synth_input *in);
/* Both in one walk of the rows: the dropped ones, and the renamed ones in *renamed (may be
 * NULL). */
size_t synth_lines_count(const struct synth_input *in, size_t *renamed);
/* How far before the code start a line row may be and still give the code's first bytes its
 * line (clamped to the start): a prologue's entry is a few bytes early; rows further away are
 * another code's or garbage, and dropped. */
#define SYNTH_LINE_BEFORE_MAX 64
/* The file of a line row with file name file, as synth reads it: file when it is text, else
 * script (synth_name_script of the load's name, may be NULL); NULL for a missing or empty
 * name. Readers of a dump's rows use it to agree with the ELFs. */
const char *synth_line_file(const char *file, const char *script);
/* The script a load's name ends with, " PATH:LINE:COL" as V8 names code ("JS:*fib
 * /x/fib.js:1:13" -> "/x/fib.js"), copied into buf; NULL when the name ends otherwise, PATH
 * does not fit or is not text. */
const char *synth_name_script(const char *name, char *buf, size_t len);
/* For callers that prefer an ELF without them to none: when only the inline table or unwind
 * data are bad (real dumps carry such), drops what is bad and returns 1 with the first reason
 * logged (at JP_LOG_ERROR: the input is damaged, yet the call succeeds); 0 if in was valid; a
 * negative errno if in cannot make an ELF at all. Use it before synth_build_id too, so ids and
 * ELFs agree. */
int synth_input_drop_bad_debug(struct synth_input *in, const struct jp_log *log);

/* The deterministic build-id without building the ELF: SHA-1 (libcrypto EVP) over tagged,
 * length-prefixed fields: e_machine, name, generation, code_index, code_addr, tier, code,
 * line table, inline table, unwind data. Equal to the id synth_build writes. */
int synth_build_id(const struct synth_input *in, uint8_t id[SYNTH_BUILD_ID_SIZE],
		   const struct jp_log *log);
/* synth_build_id for an input synth_input_drop_bad_debug has just returned >= 0 for: that
 * call validated it, so this one does not again, and the line rows' counts (as
 * synth_lines_count gives them: dropped returned in *dropped, renamed in *renamed) come from
 * the walk that hashes the rows. inject hashes every load of a dump this way. */
int synth_build_id_counted(const struct synth_input *in, uint8_t id[SYNTH_BUILD_ID_SIZE],
			   size_t *dropped, size_t *renamed);
/* Lower-case hex, NUL-terminated. */
void synth_build_id_hex(const uint8_t id[SYNTH_BUILD_ID_SIZE], char hex[SYNTH_BUILD_ID_HEX]);

/* HotSpot code brings no unwind data (jitdump UNWINDING_INFO) of its own; synth_build then
 * writes an .eh_frame read off its frame set-up and tear-downs (synth/prologue.c,
 * synth/cfi_stubs.c, docs/synth.md): for a load with no unwind data, x86_64, tier C1 or C2
 * (the agent's LOAD_INFO: never another runtime's code) when synth_prologue_find recognises
 * the set-up in the first bytes of its code, tier "other" (native wrappers) with the whole
 * set-up, tier "stub" for the stubs cfi_stubs.c knows (synth_prologue_applies says which tiers
 * are looked at). An unrecognised one gets no CFI. */
enum synth_prologue_kind {
	SYNTH_PROLOGUE_NONE = 0,
	SYNTH_PROLOGUE_PUSH,	/* [stack bangs] push %rbp; [mov %rsp,%rbp]; [sub $F,%rsp] */
	SYNTH_PROLOGUE_SUB,	/* sub $F,%rsp (imm32); mov %rbp,F-8(%rsp) */
};
struct synth_prologue {
	enum synth_prologue_kind kind;
	uint64_t entry;		/* offset of the set-up's first instruction */
	uint64_t push_end;	/* PUSH: offset after push %rbp */
	uint64_t mov_end;	/* PUSH: offset after mov %rsp,%rbp (0: none) */
	uint64_t sub_end;	/* offset after sub $F,%rsp (0: PUSH without one) */
	uint64_t save_end;	/* SUB: offset after the store of rbp */
	uint64_t frame;		/* F */
};
int synth_prologue_applies(const struct synth_input *in);
/* 1 and *out when code's first bytes hold a set-up above, else 0 (*out zeroed). */
int synth_prologue_find(const uint8_t *code, uint64_t size, struct synth_prologue *out);
/* The same at offset 0 only (a stub's entry). */
int synth_prologue_find_entry(const uint8_t *code, uint64_t size, struct synth_prologue *out);
/* 1 when synth_build writes such CFI for in (applies and recognised), else 0. */
int synth_prologue_cfi(const struct synth_input *in);

/* A complete ELF in memory. */
struct synth_elf {
	uint8_t *data;
	size_t size;
	uint8_t build_id[SYNTH_BUILD_ID_SIZE];
	uint64_t text_offset;	/* file offset == vaddr of .text: the MMAP2 pgoff */
	uint64_t map_len;	/* MMAP2 len: code_size, or ALIGN_8(code_size)+mapped_size */
};

int synth_build(const struct synth_input *in, struct synth_elf *out, const struct jp_log *log);
/* synth_build for an input whose build-id the caller has just computed with synth_build_id or
 * synth_build_id_counted from this very input (it vouches for id): the same ELF, without
 * hashing the input a second time (inject's file path hashed every load for its MMAP2). */
int synth_build_known(const struct synth_input *in, const uint8_t id[SYNTH_BUILD_ID_SIZE],
		      struct synth_elf *out, const struct jp_log *log);
/* The same ELF without what only line and inline lookups read (no DWARF at all; .text, the
 * symbol, the notes and the unwind data as synth_build makes them, so the .text offset is the
 * same), under id: the build-id synth_build gives the whole input, which
 * the caller vouches for (a reader that needs symbols only, from a dump whose identity it
 * checked, need not hash lines it will never read). */
int synth_build_symbols(const struct synth_input *in, const uint8_t id[SYNTH_BUILD_ID_SIZE],
			struct synth_elf *out, const struct jp_log *log);
/* What a reader of symbols alone takes from the ELF synth_build_symbols would make, without
 * making it (a report over tens of thousands of sampled generations need not build and parse
 * an ELF per generation for one name): its one PT_LOAD, [0, load_size) at file offset ==
 * vaddr, and its one symbol, a global function at value (the .text offset) of size bytes
 * named name (in's, borrowed). Validates in as synth_build_symbols does: 0 or its error. */
struct synth_symbol {
	uint64_t load_size;
	uint64_t value, size;
	const char *name;
};
int synth_symbol(const struct synth_input *in, struct synth_symbol *out,
		 const struct jp_log *log);
/* The .text offset (MMAP2 pgoff) synth_build will give in, without building: 0xe0, or 0x110
 * when in carries unwind data with an .eh_frame_hdr (one more program header), or gets the
 * prologue CFI (synth_prologue_cfi: it has one). */
uint64_t synth_text_offset(const struct synth_input *in);
void synth_elf_free(struct synth_elf *e);	/* NULL-safe; leaves *e zeroed */

/* ---- A process's interpreted methods as one ELF (interp.c) -----------------------------
 * An interpreter frame has no code of its own to name it: inject gives each interpreted
 * method (one method table record) an address range in one ELF per process, one byte per
 * bytecode, so the frame of bci b in method k is .text + offset_k + b; its symbol is the
 * method and its DWARF line rows give each bci's source line. Methods are laid out back to
 * back in the order given (offset_k = the sizes before k). .text holds zeros. */
struct synth_interp_method {
	const char *name;	/* the symbol, as every view prints it */
	const char *linkage;	/* the runtime's name (DW_AT_linkage_name) */
	const char *file;	/* source file; "" or NULL: no line rows */
	uint32_t size;		/* bytes: 1..SYNTH_INTERP_METHOD_MAX */
	const struct jd_method_line *lines;	/* ascending bci; rows at or past size, or below
						 * an earlier row, are dropped */
	uint32_t nr_lines;
};
/* A JVM method's bytecodes are at most 65535 bytes (JVMS 4.7.3); 1 for a method without. */
#define SYNTH_INTERP_METHOD_MAX 65535u
struct synth_interp {
	uint16_t e_machine;	/* 0 = this host's */
	uint32_t pid;
	const struct synth_interp_method *m;
	size_t n;
};
/* The ELF (ET_DYN, .text at vaddr == file offset out->text_offset, out->map_len bytes of
 * it; build-id the SHA-1 of the image with the id zeroed, so the same methods give the same
 * id). -EINVAL for a size out of bounds or no methods, -ENOMEM. */
int synth_build_interp(const struct synth_interp *in, struct synth_elf *out,
		       const struct jp_log *log);
/* "jitted-<pid>-interp.so", with seq n > 0 "jitted-<pid>-interp-<n>.so": a name
 * rp_is_jitted_name does not take for a generation's. */
int synth_interp_file_name(uint32_t pid, uint32_t seq, char *buf, size_t len);
/* 1 if path's last component is such a name. */
int synth_is_interp_name(const char *path);
/* The mark every view prints after an interpreted frame's method (report's own names too). */
#define SYNTH_INTERP_MARK "_[int]"

/* "jitted-<pid>-<code_index>.so", from integers only (never from a dump's names); with
 * file_seq n > 0, "jitted-<pid>-<code_index>-<n>.so". */
int synth_file_name(const struct synth_input *in, char *buf, size_t len);
/* Real dumps repeat code_index values (perf's own JVMTI agent: 70 of the 460 loads in
 * shared/fixtures/perf-jvmti), so perf's file name alone would give two loads one file.
 * seqs[i] (jd_index_nr_loads entries) = how many earlier loads of the dump carry load i's
 * code_index: 0 keeps perf's name. Copy it into synth_input.file_seq. */
int synth_index_file_seqs(const struct jd_index *x, uint32_t *seqs);

/* Nothing half-written is ever visible at path: a new file is written unnamed (O_TMPFILE)
 * and linked in whole; an existing one is replaced by "<path>.tmp.<pid>.<tid>"
 * (O_NOFOLLOW|O_EXCL) renamed over it. Mode 0644. */
int synth_write_file(const struct synth_elf *e, const char *path, const struct jp_log *log);

/* ---- perf's build-id cache ------------------------------------------------------------
 * root is the cache directory (callers resolve $PERF_BUILDID_DIR, else $HOME/.debug;
 * synth_cache_default_root does exactly that). abs_path is the DSO path the MMAP2 names: it
 * must be absolute, without "." / ".." components or empty components. */

int synth_cache_default_root(char *buf, size_t len);
/* <root>/<abs_path>/<hex>/elf */
int synth_cache_elf_path(const char *root, const char *abs_path,
			 const uint8_t id[SYNTH_BUILD_ID_SIZE], char *buf, size_t len);
/* <root>/.build-id/<xx>/<rest of hex> */
int synth_cache_link_path(const char *root, const uint8_t id[SYNTH_BUILD_ID_SIZE],
			  char *buf, size_t len);
/* Places e as <root>/<abs_path>/<hex>/elf plus the relative link
 * <root>/.build-id/xx/rest -> ../../<abs_path>/<hex> (directories 0755); when abs_path itself
 * holds these bytes, the cache entry is a hard link to it (as perf does), else a copy.
 * Returns 0 when written, 1 when an identical file (and link) was already there. */
int synth_cache_add(const struct synth_elf *e, const char *root, const char *abs_path,
		    const struct jp_log *log);

/* The one way a built ELF is placed (inject's writers and `jitprof synth`): the cache entry
 * first (cache_root NULL: none), as a copy of its own - placed after the file at path it would
 * hard-link that file, and `perf inject --jit` rewrites jitted-PID-N.so in place (O_TRUNC),
 * which would turn our cache entry into perf's ELF - then the file at path unless it already
 * holds these bytes. Both are tried (a read-only dump directory still leaves the cache);
 * *out says what happened; 0, or the first failure's -errno with its message logged. */
struct synth_placed { int written, reused, cached, cache_reused; };
int synth_place(const struct synth_elf *e, const char *path, const char *cache_root,
		struct synth_placed *out, const struct jp_log *log);

#ifdef __cplusplus
}
#endif
#endif
