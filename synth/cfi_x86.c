/* cfi_x86.c - the length of one x86_64 instruction, and which of the few instructions the
 * CFI of HotSpot code cares about it is (push/pop %rbp, leave, add $N,%rsp, ret, jmp): enough
 * to walk a method or stub from its entry, instruction by instruction, and find where its frame
 * is torn down. Legacy, REX, VEX and EVEX encodings; anything it does not know (an opcode
 * invalid in 64-bit mode, a truncated instruction) is 0, and the caller stops there, never
 * guessing where the next instruction starts. */
#include "synth/synth_int.h"

/* One-byte opcodes: bit 0 ModRM, bits 1-3 the immediate (IMM_*), 0xff invalid in 64-bit mode. */
enum { M = 1, I8 = 1 << 1, I16 = 2 << 1, IZ = 3 << 1, I16_8 = 4 << 1, MOFFS = 5 << 1,
       IV = 6 << 1, X = 0xff };
#define IMM(f) ((f) & 0x0e)

static const uint8_t one[256] = {
	/* 00-3f: the eight ALU ops, r/m forms then al,imm8 and eax,imm */
	M, M, M, M, I8, IZ, X, X, M, M, M, M, I8, IZ, X, 0,
	M, M, M, M, I8, IZ, X, X, M, M, M, M, I8, IZ, X, X,
	M, M, M, M, I8, IZ, 0, X, M, M, M, M, I8, IZ, 0, X,
	M, M, M, M, I8, IZ, 0, X, M, M, M, M, I8, IZ, 0, X,
	/* 40-4f REX (taken as prefixes), 50-5f push/pop */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 60-6f: 63 movsxd, 68 push imm, 69 imul imm, 6a push imm8, 6b imul imm8 */
	X, X, X, M, 0, 0, 0, 0, IZ, M | IZ, I8, M | I8, 0, 0, 0, 0,
	/* 70-7f jcc rel8 */
	I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8,
	/* 80-8f: group 1, test, xchg, mov, lea, mov sreg, pop r/m */
	M | I8, M | IZ, X, M | I8, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 90-9f: xchg, cbw, cwd, (9a invalid), fwait, pushf, popf, sahf, lahf */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, X, 0, 0, 0, 0, 0,
	/* a0-af: mov moffs, string ops, test al/eax,imm */
	MOFFS, MOFFS, MOFFS, MOFFS, 0, 0, 0, 0, I8, IZ, 0, 0, 0, 0, 0, 0,
	/* b0-bf: mov r8,imm8; mov r,imm (imm64 with REX.W) */
	I8, I8, I8, I8, I8, I8, I8, I8, IV, IV, IV, IV, IV, IV, IV, IV,
	/* c0-cf: shifts, ret imm16, ret, (c4 c5 VEX), mov imm, enter, leave, retf, int3, int */
	M | I8, M | I8, I16, 0, X, X, M | I8, M | IZ, I16_8, 0, I16, 0, 0, I8, X, 0,
	/* d0-df: shifts, (d4-d6 invalid), xlat, x87 */
	M, M, M, M, X, X, X, 0, M, M, M, M, M, M, M, M,
	/* e0-ef: loop/jrcxz rel8, in/out imm8, call/jmp rel32, (ea), jmp rel8, in/out dx */
	I8, I8, I8, I8, I8, I8, I8, I8, IZ, IZ, X, I8, 0, 0, 0, 0,
	/* f0-ff: (prefixes), int1, hlt, cmc, group 3 (test imm by reg), flags, groups 4 and 5 */
	0, 0, 0, 0, 0, 0, M, M, 0, 0, 0, 0, 0, 0, M, M,
};

/* Two-byte (0f xx) opcodes without a ModRM byte, and those with an imm8. */
static int map1_no_modrm(uint8_t op)
{
	return (op >= 0x05 && op <= 0x09) || op == 0x0b || (op >= 0x30 && op <= 0x37) ||
	       op == 0x77 || (op >= 0x80 && op <= 0x8f) || (op >= 0xa0 && op <= 0xa2) ||
	       op == 0xa8 || op == 0xa9 || op == 0xaa || (op >= 0xc8 && op <= 0xcf);
}

static int map1_imm8(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba ||
	       op == 0xc2 || (op >= 0xc4 && op <= 0xc6);
}

/* ModRM, SIB and displacement bytes from c[0] (the ModRM), 0 if past n. */
static unsigned modrm_len(const uint8_t *c, uint64_t n)
{
	if (!n)
		return 0;
	unsigned mod = c[0] >> 6, rm = c[0] & 7, len = 1;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (c[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4;	/* rip + disp32 */
	}
	len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	return len <= n ? len : 0;
}

/* A VEX (c4, c5) or EVEX (62) instruction at c: its length (0: not decoded). */
static unsigned vex_len(const uint8_t *c, uint64_t n)
{
	unsigned payload = c[0] == 0xc5 ? 1 : c[0] == 0xc4 ? 2 : 3;
	if (n < 1 + payload + 1)
		return 0;
	unsigned map = c[0] == 0xc5 ? 1 : c[1] & (c[0] == 0x62 ? 0x07 : 0x1f);
	uint8_t op = c[1 + payload];
	if (map < 1 || map > 3)
		return 0;
	unsigned len = 1 + payload + 1;
	if (map == 1 && op == 0x77 && c[0] != 0x62)
		return len;	/* vzeroupper, vzeroall: no ModRM */
	unsigned m = modrm_len(c + len, n - len);
	if (!m)
		return 0;
	len += m + (map == 3 || (map == 1 && map1_imm8(op)));
	return len <= n ? len : 0;
}

/* Opcodes whose ModRM reg field extends the opcode instead of naming a register. */
static int group_op(uint8_t op, uint8_t op2)
{
	if (op == 0x0f)
		return op2 == 0x00 || op2 == 0x01 || op2 == 0x0d || (op2 >= 0x18 && op2 <= 0x1f) ||
		       (op2 >= 0x71 && op2 <= 0x73) || op2 == 0xae || op2 == 0xba || op2 == 0xc7;
	return (op >= 0x80 && op <= 0x83) || op == 0x8f || op == 0xc0 || op == 0xc1 ||
	       op == 0xc6 || op == 0xc7 || (op >= 0xd0 && op <= 0xdf) || op == 0xf6 ||
	       op == 0xf7 || op == 0xfe || op == 0xff;
}

/* Whether an instruction may move rsp or use the stack: push, pop, call, enter, leave,
 * pushf/popf, mov $imm,%esp, or rsp named as a register operand (a write or a read: not told
 * apart). Conservative: a frameless verdict rests on none being found. */
static int stack_op(uint8_t op, uint8_t op2, uint8_t modrm, int has_modrm, unsigned rex)
{
	if (op == 0x0f) {
		if (op2 == 0xa0 || op2 == 0xa1 || op2 == 0xa8 || op2 == 0xa9 || op2 == 0x05)
			return 1;	/* push/pop fs/gs, syscall */
	} else if ((op >= 0x50 && op <= 0x5f) || op == 0x68 || op == 0x6a || op == 0x9c ||
		   op == 0x9d || op == 0xc8 || op == 0xc9 || op == 0xe8 || op == 0x8f ||
		   (op == 0xbc && !(rex & 1))) {
		return 1;
	}
	if (!has_modrm)
		return 0;
	unsigned reg = modrm >> 3 & 7;
	if (op == 0xff)		/* call, call far, push */
		return reg == 2 || reg == 3 || reg == 6;
	if (modrm >> 6 == 3 && (modrm & 7) == 4 && !(rex & 1))
		return 1;
	return !group_op(op, op2) && reg == 4 && !(rex & 4);
}

/* mov r/m,r (89) or r,r/m (8b) whose destination is rsp (or esp). */
static int mov_to_rsp(uint8_t op, uint8_t modrm, unsigned rex)
{
	if (op == 0x89)
		return modrm >> 6 == 3 && (modrm & 7) == 4 && !(rex & 1);
	return (modrm >> 3 & 7) == 4 && !(rex & 4);
}

unsigned synth_x86_insn(const uint8_t *c, uint64_t n, enum synth_x86_op *what)
{
	unsigned i = 0, osize16 = 0, asize32 = 0, rex = 0;

	*what = SYNTH_X86_OTHER;
	for (; i < n && i < 14; i++) {
		uint8_t b = c[i];
		if (b == 0x66)
			osize16 = 1;
		else if (b == 0x67)
			asize32 = 1;
		else if (!(b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 ||
			   b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65))
			break;
	}
	if (i < n && (c[i] & 0xf0) == 0x40)
		rex = c[i++];
	if (i >= n)
		return 0;
	uint8_t op = c[i];
	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		unsigned len = rex ? 0 : vex_len(c + i, n - i);	/* REX before VEX: #UD */
		*what = SYNTH_X86_STACK;	/* not looked into: may name rsp */
		return len ? i + len : 0;
	}
	unsigned len = i + 1, imm = 0, flags, mpos = 0;
	uint8_t op2 = 0;
	if (op == 0x0f) {
		if (len >= n)
			return 0;
		op2 = c[len++];
		if (op2 == 0x38 || op2 == 0x3a) {
			if (len >= n)
				return 0;
			op2 = 0xff;	/* three-byte maps: no group opcodes */
			len++;
			flags = M | (op2 == 0x3a ? I8 : 0);
		} else if (op2 == 0x0f) {
			return 0;	/* 3DNow!: not in HotSpot's code */
		} else {
			flags = map1_no_modrm(op2) ? 0 : M;
			flags |= map1_imm8(op2) ? I8 : (op2 >= 0x80 && op2 <= 0x8f) ? IZ : 0;
		}
	} else {
		flags = one[op];
		if (flags == X)
			return 0;
		/* group 3: test r/m,imm is /0 (and /1) only */
		if ((op == 0xf6 || op == 0xf7) && len < n && ((c[len] >> 3) & 7) < 2)
			flags |= op == 0xf6 ? I8 : IZ;
	}
	if (flags & M) {
		mpos = len;
		unsigned m = modrm_len(c + len, n - len);
		if (!m)
			return 0;
		if (op == 0xff && ((c[len] >> 3) & 7) >= 4 && ((c[len] >> 3) & 7) <= 5)
			*what = SYNTH_X86_JMP;	/* jmp r/m, jmp far */
		len += m;
	}
	switch (IMM(flags)) {
	case I8: imm = 1; break;
	case I16: imm = 2; break;
	case IZ: imm = osize16 && op != 0xe8 && op != 0xe9 && op != 0x0f ? 2 : 4; break;
	case I16_8: imm = 3; break;
	case MOFFS: imm = asize32 ? 4 : 8; break;
	case IV: imm = (rex & 8) ? 8 : osize16 ? 2 : 4; break;
	}
	len += imm;
	if (len > n)
		return 0;
	/* The ones the CFI needs, exactly as HotSpot emits them. */
	if (len == 1 && op == 0x55)
		*what = SYNTH_X86_PUSH_RBP;
	else if (len == 1 && op == 0x5d)
		*what = SYNTH_X86_POP_RBP;
	else if (len == 1 && op == 0xc9)
		*what = SYNTH_X86_LEAVE;
	else if (!rex && (op == 0xc3 || op == 0xc2) && i == 0)
		*what = SYNTH_X86_RET;
	else if (i == 0 && (op == 0xe9 || op == 0xeb))
		*what = SYNTH_X86_JMP;
	else if (rex == 0x48 && i == 1 && (op == 0x83 || op == 0x81) && c[2] == 0xc4)
		*what = SYNTH_X86_ADD_RSP;
	else if ((op == 0x89 || op == 0x8b) && !osize16 && !mov_to_rsp(op, c[i + 1], rex))
		*what = SYNTH_X86_MOV;
	else if (*what == SYNTH_X86_OTHER &&
		 stack_op(op, op2, (flags & M) ? c[mpos] : 0, flags & M, rex))
		*what = SYNTH_X86_STACK;
	return len;
}

int64_t synth_x86_add_rsp_imm(const uint8_t *c)
{
	if (c[1] == 0x83)
		return (int8_t)c[3];
	return (int32_t)((uint32_t)c[3] | (uint32_t)c[4] << 8 | (uint32_t)c[5] << 16 |
			 (uint32_t)c[6] << 24);
}
