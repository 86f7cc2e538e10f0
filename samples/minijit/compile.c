/* compile.c - minijit's "compilers" for the functions of toy.mjs, and the C reference each
 * generation is checked against. Three tiers of checksum() differ in code, not in result, so
 * the profile shows one name with three generations; mix() is always inlined and marked so. */
#include "samples/minijit/minijit.h"

uint64_t toy_checksum(const uint32_t *a, uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += (uint64_t)a[i] * 31 + i;
	return s;
}

uint32_t toy_fill(uint32_t *a, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = seed;
	}
	return seed;
}

/* Loop exit test: leave for `label` once i (rcx) reaches `limit`. */
static void exit_if_done(struct mj_code *c, int limit, int label)
{
	mj_cmp(c, RCX, limit);
	mj_jcc(c, CC_AE, label);
}

/* s += mix(a[i + k], i + k) without the "+ i" part, which the callers add in bulk. */
static void mix_times31(struct mj_code *c, int k)
{
	mj_line(c, TOY_CK_BODY, 0);
	mj_load32(c, RDX, RDI, RCX, (int8_t)(4 * k));
	mj_line(c, TOY_CK_BODY, TOY_MIX_BODY);
	mj_imuli(c, RDX, RDX, 31);
}

/* One element, one iteration: the loop a baseline compiler emits. rcx = i, rsi = n. */
static void naive_loop(struct mj_code *c, int head, int done)
{
	mj_bind(c, head);
	mj_line(c, TOY_CK_LOOP, 0);
	exit_if_done(c, RSI, done);
	mix_times31(c, 0);
	mj_add(c, RDX, RCX);
	mj_line(c, TOY_CK_BODY, 0);
	mj_add(c, RAX, RDX);
	mj_line(c, TOY_CK_LOOP, 0);
	mj_addi(c, RCX, 1);
	mj_jmp(c, head);
}

/* Four elements an iteration; the four "+ i" terms folded into one 4i + 6. Remainder naive. */
static void unrolled_loop(struct mj_code *c, int done)
{
	int head = mj_label(c), tail = mj_label(c);

	mj_mov(c, R8, RSI);
	mj_andi(c, R8, -4);
	mj_bind(c, head);
	exit_if_done(c, R8, tail);
	for (int k = 0; k < 4; k++) {
		mix_times31(c, k);
		mj_line(c, TOY_CK_BODY, 0);
		mj_add(c, RAX, RDX);
	}
	mj_line(c, TOY_CK_BODY, TOY_MIX_BODY);
	mj_mov(c, R9, RCX);
	mj_shli(c, R9, 2);
	mj_addi(c, R9, 6);
	mj_line(c, TOY_CK_BODY, 0);
	mj_add(c, RAX, R9);
	mj_line(c, TOY_CK_LOOP, 0);
	mj_addi(c, RCX, 4);
	mj_jmp(c, head);
	naive_loop(c, tail, done);
}

/* acc += a[i + k]: the sum(a) part of the closed form. */
static void sum_elem(struct mj_code *c, int acc, int k)
{
	mj_line(c, TOY_CK_BODY, 0);
	mj_load32(c, RDX, RDI, RCX, (int8_t)(4 * k));
	mj_add(c, acc, RDX);
}

/* A different algorithm: sum(a) with two accumulators, then sum * 31 + n(n-1)/2, the mix()
 * terms taken out of the loop (exact while n(n-1) fits in 64 bits). */
static void closed_form(struct mj_code *c)
{
	int head = mj_label(c), tail = mj_label(c), fin = mj_label(c);

	mj_xor32(c, R9, R9);
	mj_mov(c, R8, RSI);
	mj_andi(c, R8, -2);
	mj_bind(c, head);
	exit_if_done(c, R8, tail);
	sum_elem(c, RAX, 0);
	sum_elem(c, R9, 1);
	mj_line(c, TOY_CK_LOOP, 0);
	mj_addi(c, RCX, 2);
	mj_jmp(c, head);
	mj_bind(c, tail);
	exit_if_done(c, RSI, fin);
	sum_elem(c, RAX, 0);
	mj_bind(c, fin);
	mj_add(c, RAX, R9);
	mj_line(c, TOY_CK_BODY, TOY_MIX_BODY);
	mj_imuli(c, RAX, RAX, 31);
	mj_mov(c, RDX, RSI);
	mj_mov(c, RCX, RSI);
	mj_addi(c, RCX, -1);
	mj_imul(c, RDX, RCX);
	mj_shri(c, RDX, 1);
	mj_add(c, RAX, RDX);
}

int mj_compile_checksum(struct mj_code *c, int tier)
{
	int loop = mj_label(c), done = mj_label(c);

	mj_line(c, TOY_CK_INIT, 0);
	mj_xor32(c, RAX, RAX);
	mj_line(c, TOY_CK_LOOP, 0);
	mj_xor32(c, RCX, RCX);
	if (tier == 0)
		naive_loop(c, loop, done);
	else if (tier == 1)
		unrolled_loop(c, done);
	else
		closed_form(c);
	mj_bind(c, done);
	mj_line(c, TOY_CK_RET, 0);
	mj_ret(c);
	return mj_finish(c);
}

int mj_compile_fill(struct mj_code *c)
{
	int loop = mj_label(c), done = mj_label(c);

	mj_line(c, TOY_FILL_LOOP, 0);
	mj_xor32(c, RCX, RCX);
	mj_mov32(c, RAX, RDX);
	mj_bind(c, loop);
	exit_if_done(c, RSI, done);
	mj_line(c, TOY_FILL_LCG, 0);
	mj_imul32i(c, RAX, RAX, 1103515245);
	mj_add32i(c, RAX, 12345);
	mj_line(c, TOY_FILL_STORE, 0);
	mj_store32(c, RAX, RDI, RCX, 0);
	mj_line(c, TOY_FILL_LOOP, 0);
	mj_addi(c, RCX, 1);
	mj_jmp(c, loop);
	mj_bind(c, done);
	mj_line(c, TOY_FILL_RET, 0);
	mj_ret(c);
	return mj_finish(c);
}
