/* synth_int.h - libsynth's internal helpers shared by its files: error formatting, a growable
 * byte buffer with the little-endian and LEB128 encoders the ELF and DWARF writers use. */
#ifndef JITPROF_SYNTH_INT_H
#define JITPROF_SYNTH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "synth/synth.h"

/* Logs the message at JP_LOG_ERROR through log (NULL: dropped); returns rc. */
int synth_err(const struct jp_log *log, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
uint16_t synth_host_machine(void);
uint16_t synth_machine(const struct synth_input *in);
/* The unwind blob's record chain and header (eh_frame.c); sizes already checked. */
int synth_check_unwind(const struct synth_input *in, const struct jp_log *log);

/* The usable rows of a line table (line_rows.c), in order: inside [code_addr, +code_size) (the
 * last row at most SYNTH_LINE_BEFORE_MAX bytes before it moved to code_addr), not
 * below the previous usable row (line 0 included), a file name, line > 0. Line 0 rows are skipped silently; the
 * other refused rows are counted in bad. */
struct synth_line_it {
	const struct jd_line *rows;
	size_t n, i, kept, bad, renamed;
	uint64_t lo, size, last;
	int seen;		/* a row inside the code was seen: last is set */
	const char *script;	/* the file of rows whose own is not text, or NULL */
	const char *text_file;	/* the last file name found to be text (rows share them) */
	int text_fits;		/* and whether it is at most SYNTH_NAME_MAX bytes */
	struct jd_line cur;	/* such a row, renamed, or the row before the code, clamped */
	const struct jd_line *before;	/* the last row before the code so far, held */
	const char *before_file;	/* its file as synth reads it */
	size_t clamped;		/* rows before the code kept at its start (0 or 1) */
};

/* script: synth_name_script of the load's name, owned by the caller while the rows are used */
void synth_line_it_init(struct synth_line_it *it, const struct jd_line *rows, size_t n,
			uint64_t code_addr, uint64_t code_size, const char *script);
const struct jd_line *synth_line_next(struct synth_line_it *it);	/* NULL at the end */

/* Growable buffer. Errors are sticky: after a failed allocation every append is a no-op and
 * buf.oom is set, so encoders check once at the end. Targets are little-endian only. */
struct synth_buf {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

void synth_buf_free(struct synth_buf *b);
void synth_buf_bytes(struct synth_buf *b, const void *src, size_t n);
void synth_buf_u8(struct synth_buf *b, uint8_t v);
void synth_buf_u16(struct synth_buf *b, uint16_t v);
void synth_buf_u32(struct synth_buf *b, uint32_t v);
void synth_buf_u64(struct synth_buf *b, uint64_t v);
void synth_buf_uleb(struct synth_buf *b, uint64_t v);
void synth_buf_sleb(struct synth_buf *b, int64_t v);
void synth_buf_str(struct synth_buf *b, const char *s);	/* with its NUL */
void synth_buf_zero(struct synth_buf *b, size_t n);
/* Overwrites 4 bytes at off (for lengths known only at the end). */
void synth_buf_put_u32(struct synth_buf *b, size_t off, uint32_t v);

/* x86_64 instructions one at a time (cfi_x86.c): the length of the one at c (at most n bytes),
 * 0 when not decoded (invalid in 64-bit mode, truncated, an encoding it does not know); *what
 * says which of those the CFI needs it is. */
enum synth_x86_op {
	SYNTH_X86_OTHER = 0,
	SYNTH_X86_PUSH_RBP,	/* 55 */
	SYNTH_X86_POP_RBP,	/* 5d */
	SYNTH_X86_LEAVE,	/* c9 */
	SYNTH_X86_ADD_RSP,	/* add $imm8/imm32,%rsp: synth_x86_add_rsp_imm */
	SYNTH_X86_RET,		/* ret, ret $imm16 */
	SYNTH_X86_JMP,		/* jmp rel8/rel32/r/m/far: no fall-through */
	SYNTH_X86_MOV,		/* mov (89, 8b) that does not write rsp */
	SYNTH_X86_STACK,	/* may move rsp or use the stack (or is VEX/EVEX: not looked
				 * into); push/pop %rbp, leave and add to rsp have their own */
};
unsigned synth_x86_insn(const uint8_t *c, uint64_t n, enum synth_x86_op *what);
int64_t synth_x86_add_rsp_imm(const uint8_t *c);

/* The .eh_frame of one code load (cfi_rows.c): synth_cfi_begin writes the CIE (CFA = rsp+8,
 * the return address at CFA-8) and opens an FDE at offset 0; rows are added in pc order (code
 * offsets); synth_cfi_next closes the FDE at end and opens another at start (a gap between
 * them has no CFI; at most SYNTH_CFI_MAX_FDES); synth_cfi_end closes the last one at range
 * and appends the .eh_frame_hdr: its size (SYNTH_CFI_HDR_SIZE), or -1 out of memory. */
enum { SYNTH_REG_RBP = 6, SYNTH_REG_RSP = 7 };
#define SYNTH_CFI_MAX_FDES 2
#define SYNTH_CFI_HDR_SIZE(n) (12 + 8 * (n))
struct synth_cfi {
	struct synth_buf *b;
	const struct synth_input *in;
	size_t cie;		/* the CIE's offset in b */
	size_t fde[SYNTH_CFI_MAX_FDES];	/* the FDEs' offsets in b */
	uint64_t start[SYNTH_CFI_MAX_FDES];	/* and the code offsets they start at */
	unsigned nfde;
	uint64_t at;		/* the pc the rows have reached */
	unsigned reg;		/* the current CFA rule: reg + off */
	uint64_t off;
};
void synth_cfi_begin(struct synth_cfi *f, const struct synth_input *in, struct synth_buf *b);
void synth_cfi_cfa(struct synth_cfi *f, uint64_t pc, unsigned reg, uint64_t off);
/* rbp saved at CFA-16 (saved), or back to its caller's value */
void synth_cfi_rbp(struct synth_cfi *f, uint64_t pc, int saved);
/* Rows for every tear-down of the frame whose rule is the current one, decoding code from
 * offset from to end (see cfi_rows.c). */
void synth_cfi_epilogues(struct synth_cfi *f, const uint8_t *code, uint64_t from, uint64_t end);
int synth_cfi_next(struct synth_cfi *f, uint64_t end, uint64_t start);	/* 1, 0 refused */
int synth_cfi_end(struct synth_cfi *f, uint64_t range);
/* The rows of a set-up synth_prologue_find found in code, and of its tear-downs. */
void synth_prologue_rows(struct synth_cfi *f, const struct synth_prologue *pr,
			 const uint8_t *code, uint64_t size);
/* What cfi_stubs.c writes for a HotSpot stub (tier STUB): as synth_prologue_eh_frame. */
int synth_stub_cfi(const struct synth_input *in, struct synth_buf *b);
/* Whether it would write some (no buffer). */
int synth_stub_cfi_applies(const struct synth_input *in);

/* The .eh_frame and .eh_frame_hdr synth writes for HotSpot code without unwind data
 * (prologue.c) appended to b: the .eh_frame_hdr's size (its last bytes, > 0) when written, 0
 * none applies (b untouched), -1 out of memory. */
int synth_prologue_eh_frame(const struct synth_input *in, struct synth_buf *b);
/* in with that .eh_frame as its unwind data in *with (blob holds it; free it after): returns
 * with, or in itself when there is none. */
const struct synth_input *synth_input_with_cfi(const struct synth_input *in,
					       struct synth_input *with,
					       struct synth_buf *blob);

#endif
