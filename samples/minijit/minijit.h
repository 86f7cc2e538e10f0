/* minijit.h - internals of the minijit sample: a code buffer that remembers which source line
 * (and which inlined call) each instruction came from, a tiny x86-64 assembler over it, and the
 * compilers of the toy functions in toy.mjs. Every piece of emitted code is position independent
 * (relative branches only), so its bytes do not depend on where it is placed. */
#ifndef MINIJIT_H
#define MINIJIT_H

#include <stddef.h>
#include <stdint.h>

/* Line numbers in toy.mjs that the line tables point to. */
enum toy_line {
	TOY_MIX_BODY = 5,	/* return x * 31 + i; */
	TOY_CK_INIT = 9,	/* let s = 0; */
	TOY_CK_LOOP = 10,	/* for (let i = 0; i < n; i++) */
	TOY_CK_BODY = 11,	/* s += mix(a[i], i); */
	TOY_CK_RET = 13,	/* return s; */
	TOY_FILL_LOOP = 17,
	TOY_FILL_LCG = 18,
	TOY_FILL_STORE = 19,
	TOY_FILL_RET = 21,
};

#define MJ_CODE_MAX   1024
#define MJ_MARKS_MAX  96
#define MJ_LABELS_MAX 16
#define MJ_FIXUPS_MAX 32

/* From offset `off` on, code belongs to source line `line` of the compiled function; if
 * `inl_line` is non-zero it is the body of the inlined mix() at that line, called from `line`. */
struct mj_mark {
	uint32_t off;
	int32_t line;
	int32_t inl_line;
};

struct mj_code {
	uint8_t buf[MJ_CODE_MAX];
	size_t len;
	struct mj_mark marks[MJ_MARKS_MAX];
	size_t nr_marks;
	int32_t label_off[MJ_LABELS_MAX];	/* -1 until bound */
	int nr_labels;
	struct { uint32_t at; int label; } fixups[MJ_FIXUPS_MAX];	/* rel32 to patch */
	int nr_fixups;
	int error;		/* sticky: buffer, mark or label table overflowed */
};

/* x86-64 registers by encoding number. */
enum mj_reg { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11 };
enum mj_cc { CC_AE = 0x3, CC_B = 0x2 };

void mj_init(struct mj_code *c);
void mj_line(struct mj_code *c, int line, int inl_line);
int mj_label(struct mj_code *c);
void mj_bind(struct mj_code *c, int label);
/* Resolves branches; 0 or -EOVERFLOW / -EINVAL (unbound label) when the code is unusable. */
int mj_finish(struct mj_code *c);

/* The instructions the toy compilers need (64-bit operations unless named 32). */
void mj_xor32(struct mj_code *c, int dst, int src);
void mj_mov(struct mj_code *c, int dst, int src);
void mj_mov32(struct mj_code *c, int dst, int src);
void mj_add(struct mj_code *c, int dst, int src);
void mj_cmp(struct mj_code *c, int a, int b);		/* flags of a - b */
void mj_addi(struct mj_code *c, int dst, int8_t imm);
void mj_andi(struct mj_code *c, int dst, int8_t imm);
void mj_shli(struct mj_code *c, int dst, uint8_t imm);
void mj_shri(struct mj_code *c, int dst, uint8_t imm);
void mj_imuli(struct mj_code *c, int dst, int src, int8_t imm);
void mj_imul(struct mj_code *c, int dst, int src);
void mj_imul32i(struct mj_code *c, int dst, int src, int32_t imm);
void mj_add32i(struct mj_code *c, int dst, int32_t imm);
/* dst32 = [base + index*4 + disp] (zero-extended), and the store of src32 there. */
void mj_load32(struct mj_code *c, int dst, int base, int index, int8_t disp);
void mj_store32(struct mj_code *c, int src, int base, int index, int8_t disp);
void mj_jcc(struct mj_code *c, enum mj_cc cc, int label);
void mj_jmp(struct mj_code *c, int label);
void mj_ret(struct mj_code *c);

/* The toy functions, as the C reference computes them. */
uint64_t toy_checksum(const uint32_t *a, uint64_t n);
uint32_t toy_fill(uint32_t *a, uint64_t n, uint32_t seed);

typedef uint64_t (*checksum_fn)(const uint32_t *a, uint64_t n);
typedef uint32_t (*fill_fn)(uint32_t *a, uint64_t n, uint32_t seed);

/* Compilers: tier 0 naive loop, tier 1 unrolled by four, tier 2 closed form (sum * 31 plus
 * n(n-1)/2, two accumulators). Return mj_finish()'s result. */
int mj_compile_checksum(struct mj_code *c, int tier);
int mj_compile_fill(struct mj_code *c);

#endif
