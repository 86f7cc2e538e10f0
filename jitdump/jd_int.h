/* jd_int.h - libjitdump internals shared by its .c files: unaligned/byte-swapped field access,
 * the on-disk encoders, clocks and paths. Not installed; callers use jitdump/jitdump.h. */
#ifndef JITPROF_JD_INT_H
#define JITPROF_JD_INT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "jitdump/jitdump.h"

/* Internal to libjitdump: not exported from libjitdump.so. */
#pragma GCC visibility push(hidden)

/* Companion record sizes (prefix included); layouts in docs/jitdump.md. */
#define JD_EXT_LOAD_INFO_SIZE   48u	/* version 1: up to level */
#define JD_EXT_LOAD_INFO2_SIZE  56u	/* version 2: + i32 compile_id, osr_bci (JD_LOAD_IDS) */
#define JD_EXT_INLINE_FIXED     40u
#define JD_EXT_INLINE_PC_FIXED  12u	/* u64 addr, u32 depth */
#define JD_EXT_INLINE_FRAME     8u	/* u32 method, i32 line */
#define JD_EXT_INLINE_BCI       4u	/* version 2: one i32 bci per frame after the strings */
#define JD_EXT_UNLOAD_SIZE      40u
#define JD_EXT_STATS_SIZE       64u
#define JD_EXT_METHOD_FIXED     40u	/* u64 method, code_addr, u32 code_size, nr_lines */
#define JD_EXT_METHOD_LINE      8u	/* u32 bci, i32 line; then name and file, NUL-ended */
#define JD_EXT_VM_SIZE          40u
#define JD_EXT_SAMPLE_FIXED     48u	/* u32 kind, tid; u64 weight, size; u32 nr_frames, pad */
#define JD_EXT_SAMPLE_FRAME     16u	/* u64 method, i32 bci, line; then klass, NUL-ended */
#define JD_EXT_JMETHOD_FIXED    24u	/* u64 method; then name and file, NUL-ended */
#define JD_CLOSE_SIZE           16u

/* The options rule of lib/opts.h (docs/ARCHITECTURE.md, "Options structs"), copied because
 * libjitdump depends on libc only: 0 with dst (dst_size bytes) holding what the caller's
 * struct has and zero (the default) for the rest, or -EINVAL when the caller's struct is
 * larger than ours and a byte we do not know is not zero. The first member is size_t sz,
 * required: a 0 there was once read as "this header's size", and a program built against an
 * older, smaller struct then had bytes past its struct read (JD_OPTS sets sz). Not inlined,
 * as lib/opts.h says why. */
static __attribute__((noinline, unused))
int jd_opts_take(void *dst, size_t dst_size, const void *opts)
{
	size_t sz = 0;
	memset(dst, 0, dst_size);
	if (opts) {
		memcpy(&sz, opts, sizeof(sz));
		if (sz < sizeof(size_t))
			return -EINVAL;
		for (size_t i = dst_size; i < sz; i++)
			if (((const uint8_t *)opts)[i])
				return -22;
		memcpy(dst, opts, sz < dst_size ? sz : dst_size);
	}
	memcpy(dst, &dst_size, sizeof(dst_size));
	return 0;
}

struct stat;
/* A read-only mapping of the regular file fd (st its fstat) when the running user owns it and
 * nobody else may write it, guarded against the file shrinking (map_guard.c); NULL (and *slot
 * -1) otherwise, and the caller copies the file instead. */
const void *jd_map_guarded(int fd, const struct stat *st, int *slot);
/* 1 once a read past the end of a file that shrank under mapping slot found zeros. */
int jd_map_shrunk(int slot);
void jd_map_release(int slot, const void *p, size_t len);

/* Fields are read with memcpy: records are unpadded, so nothing in the file is aligned. */
static inline uint32_t jd_get32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t jd_get64(const uint8_t *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static inline uint8_t *jd_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static inline uint8_t *jd_put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static inline uint8_t *jd_put_bytes(uint8_t *p, const void *src, size_t n)
{
	if (n)
		memcpy(p, src, n);
	return p + n;
}

/* ---- encode.c: native-order records. *_size() says how many bytes *_encode() writes;
 * every size is computed with overflow checks (0 means "does not fit a record"). */
size_t jd_enc_header(uint8_t *dst, uint32_t magic, uint32_t elf_mach, uint32_t pid,
		     uint64_t timestamp, uint64_t flags);
uint8_t *jd_enc_prefix(uint8_t *p, uint32_t id, uint32_t total, uint64_t timestamp);
uint64_t jd_debug_size(const struct jd_line *lines, size_t nr, int shorthand);
uint8_t *jd_enc_debug(uint8_t *p, uint64_t ts, uint64_t code_addr, const struct jd_line *l,
		      size_t nr, int shorthand, uint32_t total);
uint64_t jd_unwind_size(uint64_t unwind_size);
uint8_t *jd_enc_unwind(uint8_t *p, uint64_t ts, const struct jd_load_desc *d, uint32_t total);
/* The CODE_LOAD without its code bytes (which are the record's tail). */
uint64_t jd_load_size(const char *name, uint64_t code_size);
uint8_t *jd_enc_load_head(uint8_t *p, uint64_t ts, const struct jd_code_load *l,
			  uint32_t total);
uint8_t *jd_enc_move(uint8_t *p, uint64_t ts, const struct jd_code_move *m);
uint8_t *jd_enc_close(uint8_t *p, uint64_t ts);
/* Version 2 (56 bytes) when i->flags has JD_LOAD_IDS, else version 1 (48 bytes). */
uint32_t jd_load_info_size(const struct jd_ext_load_info *i);
uint8_t *jd_enc_load_info(uint8_t *p, uint64_t ts, const struct jd_ext_load_info *i);
uint64_t jd_inline_size(const struct jd_ext_inline *in);
uint8_t *jd_enc_inline(uint8_t *p, uint64_t ts, const struct jd_ext_inline *in,
		       uint32_t total);
uint8_t *jd_enc_unload(uint8_t *p, uint64_t ts, const struct jd_ext_unload *u);
uint8_t *jd_enc_stats(uint8_t *p, uint64_t ts, const struct jd_ext_agent_stats *s);
uint64_t jd_method_size(const struct jd_ext_method *m);	/* 0: does not fit a record */
uint8_t *jd_enc_method(uint8_t *p, uint64_t ts, const struct jd_ext_method *m,
		       uint32_t total);
uint8_t *jd_enc_vm(uint8_t *p, uint64_t ts, const struct jd_ext_vm *v);
uint64_t jd_sample_size(const struct jd_ext_sample *s);	/* 0: does not fit a record */
uint8_t *jd_enc_sample(uint8_t *p, uint64_t ts, const struct jd_ext_sample *s, uint32_t total);
uint64_t jd_jmethod_size(const struct jd_ext_jmethod *m);	/* 0: does not fit a record */
uint8_t *jd_enc_jmethod(uint8_t *p, uint64_t ts, const struct jd_ext_jmethod *m,
			uint32_t total);

/* ---- clock.c */
int jd_clock_check(enum jd_clock c);	/* 0 or -ENOTSUP / -EINVAL */
uint64_t jd_clock_read(enum jd_clock c);

/* ---- paths.c */
/* Directory for a new dump: opts->dir, $JITDUMPDIR, $HOME/.debug/jit; created 0700. */
int jd_dump_dir(const char *dir, char *buf, size_t len);
uint32_t jd_self_elf_mach(void);

/* ---- decode.c: one record's payload -> struct jd_record. Lengths were checked against the
 * file by the caller; this checks the fields against total_size. Returns 0, or -EINVAL with
 * a message (without file/offset, the caller adds them) in msg. */
struct jd_decode_bufs {
	struct jd_line *lines;
	size_t lines_cap;
	struct jd_inline_method *methods;
	size_t methods_cap;
	struct jd_inline_pc *pcs;
	size_t pcs_cap;
	struct jd_inline_frame *frames;
	size_t frames_cap;
	struct jd_method_line *mlines;
	size_t mlines_cap;
	struct jd_java_frame *jframes;
	size_t jframes_cap;
};
int jd_decode(struct jd_record *rec, const uint8_t *p, int swap, struct jd_decode_bufs *b,
	      char *msg, size_t msglen);
void jd_decode_bufs_free(struct jd_decode_bufs *b);
/* 1 if the id is one libjitdump decodes (perf's 0..4 and ours). */
int jd_id_known(uint32_t id);

#pragma GCC visibility pop

#endif
