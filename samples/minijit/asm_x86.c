/* asm_x86.c - the smallest x86-64 assembler minijit needs: REX/ModRM/SIB encoding for the
 * handful of instructions in minijit.h, labels with rel32 fixups, and source-line marks.
 * Pure byte generation: it builds on any host; only running the result needs x86-64. */
#include "samples/minijit/minijit.h"

#include <errno.h>
#include <string.h>

void mj_init(struct mj_code *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < MJ_LABELS_MAX; i++)
		c->label_off[i] = -1;
}

static void put(struct mj_code *c, uint8_t b)
{
	if (c->len >= MJ_CODE_MAX) {
		c->error = 1;
		return;
	}
	c->buf[c->len++] = b;
}

static void put32(struct mj_code *c, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		put(c, (uint8_t)(v >> (8 * i)));
}

void mj_line(struct mj_code *c, int line, int inl_line)
{
	if (c->nr_marks > 0) {
		struct mj_mark *last = &c->marks[c->nr_marks - 1];
		if (last->line == line && last->inl_line == inl_line)
			return;		/* same row: the table stays minimal */
		if (last->off == c->len) {	/* nothing emitted under the last mark */
			last->line = line;
			last->inl_line = inl_line;
			return;
		}
	}
	if (c->nr_marks >= MJ_MARKS_MAX) {
		c->error = 1;
		return;
	}
	c->marks[c->nr_marks++] = (struct mj_mark){ (uint32_t)c->len, line, inl_line };
}

int mj_label(struct mj_code *c)
{
	if (c->nr_labels >= MJ_LABELS_MAX) {
		c->error = 1;
		return 0;
	}
	return c->nr_labels++;
}

void mj_bind(struct mj_code *c, int label)
{
	c->label_off[label] = (int32_t)c->len;
}

int mj_finish(struct mj_code *c)
{
	if (c->error)
		return -EOVERFLOW;
	for (int i = 0; i < c->nr_fixups; i++) {
		int32_t target = c->label_off[c->fixups[i].label];
		uint32_t at = c->fixups[i].at;
		if (target < 0)
			return -EINVAL;
		/* rel32 counts from the end of the 4-byte displacement */
		uint32_t rel = (uint32_t)(target - (int32_t)(at + 4));
		for (int b = 0; b < 4; b++)
			c->buf[at + b] = (uint8_t)(rel >> (8 * b));
	}
	return 0;
}

/* REX prefix when the operation is 64-bit or any register is r8..r15. */
static void rex(struct mj_code *c, int w, int reg, int index, int base)
{
	uint8_t r = (uint8_t)(0x40 | (w ? 8 : 0) | ((reg & 8) ? 4 : 0) | ((index & 8) ? 2 : 0) |
			      ((base & 8) ? 1 : 0));
	if (r != 0x40)
		put(c, r);
}

static void opcode(struct mj_code *c, unsigned op)
{
	if (op > 0xff)
		put(c, (uint8_t)(op >> 8));
	put(c, (uint8_t)op);
}

/* op with a register-direct ModRM: reg field `reg`, r/m field `rm`. */
static void op_rr(struct mj_code *c, int w, unsigned op, int reg, int rm)
{
	rex(c, w, reg, 0, rm);
	opcode(c, op);
	put(c, (uint8_t)(0xc0 | ((reg & 7) << 3) | (rm & 7)));
}

/* op with a [base + index*4 + disp8] operand. */
static void op_mem(struct mj_code *c, int w, unsigned op, int reg, int base, int index,
		   int8_t disp)
{
	/* mod 00 with base rbp/r13 would mean "no base": always carry the disp8 then */
	int mod = (disp != 0 || (base & 7) == RBP) ? 1 : 0;
	rex(c, w, reg, index, base);
	opcode(c, op);
	put(c, (uint8_t)((mod << 6) | ((reg & 7) << 3) | 4));
	put(c, (uint8_t)((2 << 6) | ((index & 7) << 3) | (base & 7)));
	if (mod)
		put(c, (uint8_t)disp);
}

void mj_xor32(struct mj_code *c, int dst, int src) { op_rr(c, 0, 0x31, src, dst); }
void mj_mov(struct mj_code *c, int dst, int src) { op_rr(c, 1, 0x89, src, dst); }
void mj_mov32(struct mj_code *c, int dst, int src) { op_rr(c, 0, 0x89, src, dst); }
void mj_add(struct mj_code *c, int dst, int src) { op_rr(c, 1, 0x01, src, dst); }
void mj_cmp(struct mj_code *c, int a, int b) { op_rr(c, 1, 0x39, b, a); }
void mj_imul(struct mj_code *c, int dst, int src) { op_rr(c, 1, 0x0faf, dst, src); }

/* Group-1/group-2 forms: the ModRM reg field is an opcode extension. */
static void op_ext_imm8(struct mj_code *c, unsigned op, int ext, int dst, uint8_t imm)
{
	op_rr(c, 1, op, ext, dst);
	put(c, imm);
}

void mj_addi(struct mj_code *c, int dst, int8_t imm) { op_ext_imm8(c, 0x83, 0, dst, (uint8_t)imm); }
void mj_andi(struct mj_code *c, int dst, int8_t imm) { op_ext_imm8(c, 0x83, 4, dst, (uint8_t)imm); }
void mj_shli(struct mj_code *c, int dst, uint8_t imm) { op_ext_imm8(c, 0xc1, 4, dst, imm); }
void mj_shri(struct mj_code *c, int dst, uint8_t imm) { op_ext_imm8(c, 0xc1, 5, dst, imm); }

void mj_imuli(struct mj_code *c, int dst, int src, int8_t imm)
{
	op_rr(c, 1, 0x6b, dst, src);
	put(c, (uint8_t)imm);
}

void mj_imul32i(struct mj_code *c, int dst, int src, int32_t imm)
{
	op_rr(c, 0, 0x69, dst, src);
	put32(c, (uint32_t)imm);
}

void mj_add32i(struct mj_code *c, int dst, int32_t imm)
{
	op_rr(c, 0, 0x81, 0, dst);
	put32(c, (uint32_t)imm);
}

void mj_load32(struct mj_code *c, int dst, int base, int index, int8_t disp)
{
	op_mem(c, 0, 0x8b, dst, base, index, disp);
}

void mj_store32(struct mj_code *c, int src, int base, int index, int8_t disp)
{
	op_mem(c, 0, 0x89, src, base, index, disp);
}

static void branch(struct mj_code *c, unsigned op, int label)
{
	opcode(c, op);
	if (c->nr_fixups >= MJ_FIXUPS_MAX || label < 0 || label >= c->nr_labels) {
		c->error = 1;
		return;
	}
	c->fixups[c->nr_fixups].at = (uint32_t)c->len;
	c->fixups[c->nr_fixups++].label = label;
	put32(c, 0);
}

void mj_jcc(struct mj_code *c, enum mj_cc cc, int label) { branch(c, 0x0f80u | cc, label); }
void mj_jmp(struct mj_code *c, int label) { branch(c, 0xe9, label); }
void mj_ret(struct mj_code *c) { put(c, 0xc3); }
