/* walk.c - the unwinding loop: registers from the sample, each step's CFA and caller
 * registers from the CFI row of the pc, evaluated by a small DWARF expression machine whose
 * only memory is the sample's copy of the stack. Bounded: max frames, a fixed expression
 * length and stack, and the stack pointer strictly rising at each step. */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/unwind/unwind_int.h"

#define NREGS UNW_NREGS
#define REG_AX 0
#define REG_BX 3
#define REG_BP 6
#define REG_SP 7
#define REG_R13 13
#define REG_RA 16
#define EXPR_MAX_OPS 64
#define EXPR_STACK 16

struct state {
	uint64_t r[NREGS];
	uint32_t valid;		/* bit per register */
};

struct machine {
	const struct unw_input *in;
	uint64_t stack_base;	/* the sampled sp: where the copy starts */
};

/* DWARF register -> perf's x86_64 register index (PERF_REG_X86_*). */
static const uint8_t perf_index[NREGS] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8,
};

static int initial_state(const struct unw_input *in, struct state *st)
{
	if (!in->regs_abi || !in->regs)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	/* where each register of the mask sits among the recorded ones: one pass, not a
	 * popcount per register (libgcc's, without -mpopcnt: 0.6% of a call-graph report) */
	unsigned at_of[64], n = 0;
	for (unsigned k = 0; k < 64; k++) {
		at_of[k] = n;
		n += (unsigned)(in->regs_mask >> k & 1);
	}
	for (int i = 0; i < NREGS; i++) {
		unsigned k = perf_index[i];
		if (!(in->regs_mask >> k & 1))
			continue;
		memcpy(&st->r[i], &in->regs[at_of[k]], 8);
		st->valid |= 1u << i;
	}
	uint32_t need = 1u << REG_SP | 1u << REG_RA;
	return (st->valid & need) == need ? 0 : -ENOENT;
}

/* 8 bytes at addr from the stack copy (0), or -EFAULT. */
static int read_stack(const struct machine *m, uint64_t addr, uint64_t *v)
{
	uint64_t off = addr - m->stack_base;
	if (addr < m->stack_base || off > m->in->stack_size || m->in->stack_size - off < 8)
		return -EFAULT;
	memcpy(v, m->in->stack + off, 8);
	return 0;
}

static int reg_value(const struct state *st, uint64_t reg, uint64_t *v)
{
	if (reg >= NREGS || !(st->valid >> reg & 1))
		return -EINVAL;
	*v = st->r[reg];
	return 0;
}

/* Binary operators on the two top entries (a below b). -EINVAL: not one. */
static int binary(uint8_t op, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (op) {
	case DW_OP_plus:  *out = a + b; return 0;
	case DW_OP_minus: *out = a - b; return 0;
	case DW_OP_mul:   *out = a * b; return 0;
	case DW_OP_and:   *out = a & b; return 0;
	case DW_OP_or:    *out = a | b; return 0;
	case DW_OP_xor:   *out = a ^ b; return 0;
	case DW_OP_shl:   *out = b < 64 ? a << b : 0; return 0;
	case DW_OP_shr:   *out = b < 64 ? a >> b : 0; return 0;
	case DW_OP_shra:  *out = (uint64_t)((int64_t)a >> (b < 64 ? b : 63)); return 0;
	case DW_OP_eq:    *out = a == b; return 0;
	case DW_OP_ne:    *out = a != b; return 0;
	case DW_OP_lt:    *out = (int64_t)a < (int64_t)b; return 0;
	case DW_OP_gt:    *out = (int64_t)a > (int64_t)b; return 0;
	case DW_OP_le:    *out = (int64_t)a <= (int64_t)b; return 0;
	case DW_OP_ge:    *out = (int64_t)a >= (int64_t)b; return 0;
	default: return -EINVAL;
	}
}

/* One operation that pushes a value of its own (constants, registers, the CFA). */
static int push_op(const Dwarf_Op *op, const struct state *st, uint64_t cfa, uint64_t *v)
{
	uint8_t a = op->atom;
	if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
		*v = a - DW_OP_lit0;
		return 0;
	}
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		if (reg_value(st, a - DW_OP_breg0, v))
			return -EINVAL;
		*v += op->number;
		return 0;
	}
	switch (a) {
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
		*v = op->number;
		return 0;
	case DW_OP_bregx:
		if (reg_value(st, op->number, v))
			return -EINVAL;
		*v += op->number2;
		return 0;
	case DW_OP_call_frame_cfa:
		*v = cfa;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Evaluates ops; *is_value: they end in DW_OP_stack_value (else the result is an address).
 * 0, -EFAULT (a read outside the copy) or -EINVAL (anything we do not evaluate). */
static int eval(const struct machine *m, const struct state *st, uint64_t cfa,
		const Dwarf_Op *ops, size_t nops, uint64_t *out, bool *is_value)
{
	uint64_t stk[EXPR_STACK];
	size_t sp = 0;

	*is_value = false;
	if (!nops || nops > EXPR_MAX_OPS)
		return -EINVAL;
	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint64_t v;
		if (op->atom == DW_OP_stack_value) {
			if (i + 1 != nops)
				return -EINVAL;
			*is_value = true;
			break;
		}
		if (op->atom == DW_OP_nop)
			continue;
		if (!push_op(op, st, cfa, &v)) {
			if (sp == EXPR_STACK)
				return -EINVAL;
			stk[sp++] = v;
			continue;
		}
		if (!sp)
			return -EINVAL;
		switch (op->atom) {
		case DW_OP_deref:
			if (read_stack(m, stk[sp - 1], &stk[sp - 1]))
				return -EFAULT;
			continue;
		case DW_OP_plus_uconst:
			stk[sp - 1] += op->number;
			continue;
		case DW_OP_neg:
			stk[sp - 1] = -stk[sp - 1];
			continue;
		case DW_OP_not:
			stk[sp - 1] = ~stk[sp - 1];
			continue;
		case DW_OP_dup:
			if (sp == EXPR_STACK)
				return -EINVAL;
			stk[sp] = stk[sp - 1];
			sp++;
			continue;
		case DW_OP_drop:
			sp--;
			continue;
		default:
			if (sp < 2 || binary(op->atom, stk[sp - 2], stk[sp - 1], &v))
				return -EINVAL;
			stk[sp - 2] = v;
			sp--;
		}
	}
	if (!sp)
		return -EINVAL;
	*out = stk[sp - 1];
	return 0;
}

/* The caller's registers from the row: 0, or -EFAULT / -EINVAL as eval. The CFA is the
 * caller's sp on x86_64, whatever the row says of rsp. */
static int step(const struct machine *m, Dwarf_Frame *fr, const struct state *cur,
		struct state *next)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	uint64_t cfa, v;
	bool is_value;
	int ra, rc;

	if (dwarf_frame_cfa(fr, &ops, &nops))
		return -EINVAL;
	if ((rc = eval(m, cur, 0, ops, nops, &cfa, &is_value)))
		return rc;
	ra = dwarf_frame_info(fr, NULL, NULL, NULL);
	if (ra != REG_RA)
		return -EINVAL;
	*next = (struct state){ 0 };
	for (int r = 0; r < NREGS; r++) {
		if (r == REG_SP || dwarf_frame_register(fr, r, mem, &ops, &nops))
			continue;
		if (!nops) {
			if (!ops && (cur->valid >> r & 1)) {	/* same value */
				next->r[r] = cur->r[r];
				next->valid |= 1u << r;
			}
			continue;	/* else undefined */
		}
		if ((rc = eval(m, cur, cfa, ops, nops, &v, &is_value))) {
			if (r == REG_RA)
				return rc;
			continue;	/* a register we cannot recover is unknown, not fatal */
		}
		if (!is_value && read_stack(m, v, &v)) {
			if (r == REG_RA)
				return -EFAULT;
			continue;
		}
		next->r[r] = v;
		next->valid |= 1u << r;
	}
	next->r[REG_SP] = cfa;
	next->valid |= 1u << REG_SP;
	return 0;
}

/* ops as "CFA + off" (a location; a value when is_value): 1, or 0 for any other shape. */
static int cfa_plus(const Dwarf_Op *ops, size_t nops, int64_t *off, bool *is_value)
{
	*is_value = nops && ops[nops - 1].atom == DW_OP_stack_value;
	nops -= *is_value;
	if (!nops || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return 0;
	if (nops == 2 && ops[1].atom != DW_OP_plus_uconst)
		return 0;
	*off = nops == 2 ? (int64_t)ops[1].number : 0;
	return 1;
}

/* ops as "register + offset": 1, or 0 for any other shape. libdw gives a DW_CFA_def_cfa
 * rule (nearly every row) as DW_OP_bregx (register, offset), an expression may say breg<n>. */
static int reg_plus(const Dwarf_Op *ops, size_t nops, uint8_t *reg, int64_t *off)
{
	uint64_t r;

	if (nops != 1)
		return 0;
	if (ops[0].atom == DW_OP_bregx) {
		r = ops[0].number;
		*off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		r = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
	} else {
		return 0;
	}
	*reg = (uint8_t)r;
	return r < NREGS;
}

/* The row's rule in the cached shape (r->ok = 0 when it is not). */
static void compile(Dwarf_Frame *fr, struct unw_rule *r)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	bool is_value;
	int64_t off;

	memset(r, 0, sizeof(*r));
	if (dwarf_frame_cfa(fr, &ops, &nops) || !reg_plus(ops, nops, &r->cfa_reg, &r->cfa_off) ||
	    dwarf_frame_info(fr, NULL, NULL, NULL) != REG_RA)
		return;
	for (int i = 0; i < NREGS; i++) {	/* the sp is the CFA, set apart */
		if (i == REG_SP || dwarf_frame_register(fr, i, mem, &ops, &nops))
			continue;	/* undefined */
		if (!nops) {
			r->same |= (uint32_t)!ops << i;	/* else undefined */
			continue;
		}
		if (!cfa_plus(ops, nops, &off, &is_value))
			return;
		r->saved[r->nsaved++] = (struct unw_saved){
			(uint8_t)i, is_value ? UNW_VAL_CFA : UNW_AT_CFA, off };
	}
	r->ok = 1;
}

/* step() for a compiled rule: the registers kept the same copied with the state (a register's
 * value counts only under its valid bit), the saved ones read. */
static int step_rule(const struct machine *m, const struct unw_rule *r, const struct state *cur,
		     struct state *next)
{
	uint64_t cfa, v;

	if (reg_value(cur, r->cfa_reg, &cfa))
		return -EINVAL;
	cfa += (uint64_t)r->cfa_off;
	*next = *cur;
	next->valid = cur->valid & r->same;
	for (uint8_t k = 0; k < r->nsaved; k++) {
		const struct unw_saved *sv = &r->saved[k];
		v = cfa + (uint64_t)sv->off;
		if (sv->how == UNW_AT_CFA && read_stack(m, v, &v)) {
			if (sv->reg == REG_RA)
				return -EFAULT;
			continue;
		}
		next->r[sv->reg] = v;
		next->valid |= 1u << sv->reg;
	}
	next->r[REG_SP] = cfa;
	next->valid |= 1u << REG_SP;
	return 0;
}

/* One step from the pc at vaddr of c: through its cached rule, else libdw's row. 0, -ENOENT
 * (no row), -ENOMEM, or step()'s errors. */
static int step_at(const struct machine *m, struct unw_cfi *c, uint64_t vaddr,
		   const struct state *cur, struct state *next)
{
	struct unw_rule *r = NULL;
	Dwarf_Frame *fr;
	int rc;

	if (!c->rules)
		c->rules = calloc(UNW_RULES, sizeof(*c->rules));
	if (c->rules) {
		r = &c->rules[(vaddr ^ vaddr >> 9) % UNW_RULES];
		if (r->vaddr == vaddr && vaddr && r->ok) {
			c->stats.kept++;
			return step_rule(m, r, cur, next);
		}
	}
	c->stats.rows++;
	if ((rc = unw_cfi_frame(c, vaddr, &fr)))
		return rc;
	if (r) {
		compile(fr, r);
		r->vaddr = vaddr;
	}
	rc = r && r->ok ? step_rule(m, r, cur, next) : step(m, fr, cur, next);
	free(fr);
	return rc;
}

static enum unw_end end_of(int rc)
{
	return rc == -EFAULT ? UNW_END_MEMORY : rc == -ENOENT ? UNW_END_NO_CFI : UNW_END_BAD_CFI;
}

/* How far above rbp + 16 an interpreter frame's sender sp may be: the arguments the c2i
 * adapter pushed (at most 255 words), with room; further is not this frame's. */
#define SENDER_SP_MAX (512 * 8)

int unw_hotspot_no_frame(const char *name)
{
	return name && (!strcmp(name, "vtable stub") || !strcmp(name, "itable stub"));
}

/* An interpreter frame's method and bcp words into *f (f->method left 0: none read). The
 * top frame's bcp is r13, the interpreter's live one (the slot is saved only at calls). A
 * method entry builds the frame's fixed part by pushes, the bcp slot among the last
 * (TemplateInterpreterGenerator::generate_fixed_frame: sender sp, last sp, Method*, mirror,
 * mdp, cache, locals, bcp): a sampled frame whose bcp slot is still below the sp is being
 * built, its slots not all written, what lies there another frame's. The entry holds the
 * Method* in rbx all along and, from before the Method* is pushed, the first bytecode's
 * address in r13: both are taken, the bcp slot as 0 (a native method's frame holds 0 there).
 * Checked like the slots: the caller refuses a method its table lacks, a bcp outside it. */
static void interp_words(const struct machine *m, const struct unw_module *mod, int top,
			 const struct state *cur, struct unw_frame *f)
{
	const uint32_t entry_regs = 1u << REG_BX | 1u << REG_R13;
	uint64_t fp = cur->r[REG_BP], v;
	uint64_t bcp_at = fp + (uint64_t)((int64_t)mod->bcp_slot * 8);

	if (top && bcp_at < cur->r[REG_SP] && bcp_at < fp) {
		if ((cur->valid & entry_regs) == entry_regs) {
			f->method = cur->r[REG_BX];
			f->bcp = cur->r[REG_R13];
			f->bcp_slot = 0;
			/* between enter and the bcp's load r13 is still the sender sp, just
			 * above rbp: the frame is at its first bytecode */
			if (mod->method_start && f->bcp > fp && f->bcp - fp <= SENDER_SP_MAX)
				f->bcp = mod->method_start(mod->data, f->method, &v) ? 0 : v;
		}
		return;
	}
	if (read_stack(m, fp + (uint64_t)((int64_t)mod->method_slot * 8), &f->method) ||
	    read_stack(m, bcp_at, &v)) {
		f->method = 0;
		return;
	}
	f->bcp_slot = v;
	f->bcp = top && (cur->valid >> REG_R13 & 1) ? cur->r[REG_R13] : v;
}

/* 1 when pc is a caller's return address into code find knows (any file-backed map with CFI,
 * jitted code, the interpreter, a stub). */
static int is_code(unw_find_fn find, void *ctx, uint64_t pc)
{
	struct unw_module cm = { 0 };
	return pc > 1 && find(ctx, pc - 1, &cm) == 0;
}

/* The top frame in a method entry before its frame exists (HotSpot x86_64:
 * TemplateInterpreterGenerator::generate_normal_entry and generate_native_entry, up to the
 * enter in generate_fixed_frame). The entry is reached with the callee's Method* in rbx and
 * its caller's sp in r13 (the sender sp: the interpreter's invoke sets it past the return
 * address, the c2i adapter below the arguments it pushed); rbp is still the caller's; the
 * return address is at [rsp] until the entry pops it to push the locals, then in rax, then at
 * [rsp] again until enter. Stepped by rbp, such a frame was read as its caller's and named as
 * nothing. Taken only when rbx is a method of the table (method_start), r13 lies between rsp
 * + 8 and SENDER_SP_MAX above it (a bytecode pointer, the frame's r13 once built, is no
 * stack address) and rbp is not between rsp and r13 (after enter it is this frame's, below
 * its sender sp); the return address is the first of [rsp] and rax that is code. The frame is
 * at its first bytecode. 0, or -ENOENT: not such a frame, stepped as any other. */
#define ENTRY_RETURNED_SPAN 64
static int step_entry(const struct machine *m, unw_find_fn find, void *ctx,
		      const struct unw_module *mod, const struct state *cur, struct state *next,
		      struct unw_frame *f)
{
	const uint32_t need = 1u << REG_BX | 1u << REG_R13;
	uint64_t sp = cur->r[REG_SP], sender = cur->r[REG_R13], fp = cur->r[REG_BP], ra, bcp;

	if (!mod->method_start || (cur->valid & need) != need || sender < sp + 8 ||
	    sender - (sp + 8) > SENDER_SP_MAX)
		return -ENOENT;
	if ((cur->valid >> REG_BP & 1) && fp >= sp && fp < sender)
		return -ENOENT;
	if (mod->method_start(mod->data, cur->r[REG_BX], &bcp))
		return -ENOENT;
	if (read_stack(m, sp, &ra) || !is_code(find, ctx, ra)) {
		if (!(cur->valid >> REG_AX & 1) || !is_code(find, ctx, cur->r[REG_AX]))
			return -ENOENT;
		ra = cur->r[REG_AX];
	}
	/* The pc just past that return address: the call has returned, into the caller's return
	 * entry, which has not yet restored the caller's sp and bcp (JDK 25: mov -0x10(%rbp),
	 * %rcx; lea (%rbp,%rcx,8),%rsp; ...; mov -0x40(%rbp),%r13), rbx and r13 still the
	 * call's. Not an entry: the frame at rbp is the pc's (javac-like runs: 1 in ~5,000). */
	if (cur->r[REG_RA] >= ra && cur->r[REG_RA] - ra < ENTRY_RETURNED_SPAN)
		return -ENOENT;
	f->method = cur->r[REG_BX];
	f->bcp = bcp;
	f->bcp_slot = 0;
	f->data = mod->data;
	*next = (struct state){ 0 };
	next->r[REG_RA] = ra;
	next->r[REG_SP] = sender;
	next->r[REG_BP] = fp;
	next->valid = 1u << REG_RA | 1u << REG_SP | (cur->valid & 1u << REG_BP);
	return 0;
}

/* An rbp-based frame (the interpreter's, or jitted code's with -XX:+PreserveFramePointer):
 * caller pc at [rbp + 8], its rbp at [rbp], its sp rbp + 16; the other registers are
 * unknown past it. For the interpreter also the method and bcp words into *f. 0, or
 * -EFAULT (rbp not in the copy, or below the sp: not a frame of this stack). */
static int step_fp(const struct machine *m, const struct unw_module *mod, int top,
		   const struct state *cur, struct state *next, struct unw_frame *f)
{
	uint64_t fp = cur->r[REG_BP], ra, link, v;

	if (!(cur->valid >> REG_BP & 1) || fp < cur->r[REG_SP] || fp > UINT64_MAX - 16)
		return -EFAULT;
	/* The frame's own words first: below rbp, they may be in the copy when its link and
	 * return address (the copy's last bytes) are not, and the frame is then still named. */
	f->method = 0;
	if (mod->code == UNW_CODE_INTERP)
		interp_words(m, mod, top, cur, f);
	f->data = mod->data;
	if (read_stack(m, fp + 8, &ra) || read_stack(m, fp, &link))
		return -EFAULT;
	*next = (struct state){ 0 };
	next->r[REG_RA] = ra;
	next->r[REG_BP] = link;
	next->r[REG_SP] = fp + 16;
	/* An interpreter frame holds its caller's sp (HotSpot x86_64:
	 * frame::interpreter_frame_sender_sp_offset, rbp - 8). A compiled caller called through
	 * the c2i adapter, which pushed the arguments below that sp, has its frame above it, not
	 * at rbp + 16: stepped by its CFI (no frame pointers) it needs the real one. */
	if (mod->code == UNW_CODE_INTERP && !read_stack(m, fp - 8, &v) && v >= fp + 16 &&
	    v - (fp + 16) <= SENDER_SP_MAX)
		next->r[REG_SP] = v;
	next->valid = 1u << REG_RA | 1u << REG_BP | 1u << REG_SP;
	return 0;
}

int unw_walk_frames(const struct unw_input *in, unw_find_fn find, void *ctx,
		    struct unw_frame *frames, uint32_t max, enum unw_end *end, uint32_t *fp)
{
	const struct unw_input no_copy = { 0 };
	struct machine m = { .in = in };
	struct state cur, next;
	uint32_t n = 0;
	int rc;

	*fp = 0;
	if (initial_state(in, &cur) || !max) {
		*end = max ? UNW_END_NO_REGS : UNW_END_MAX;
		return 0;
	}
	if (!in->stack)
		m.in = &no_copy;	/* every read fails */
	m.stack_base = cur.r[REG_SP];
	frames[n++] = (struct unw_frame){ .pc = cur.r[REG_RA] };
	for (;;) {
		struct unw_module mod = { 0 };
		uint64_t pc = cur.r[REG_RA], vaddr;
		/* A caller's pc is a return address: its call is the byte before. */
		uint64_t at = n == 1 ? pc : pc - 1;

		if (n >= max) {
			*end = UNW_END_MAX;
			break;
		}
		rc = find(ctx, at, &mod);
		if (rc == -ENOMEM)
			return rc;
		if (!rc && mod.code == UNW_CODE_NO_FRAME) {
			/* Only the sampled frame can be in such a stub: it calls nothing. */
			uint64_t ra;
			if (n > 1 || read_stack(&m, cur.r[REG_SP], &ra)) {
				*end = n > 1 ? UNW_END_NO_CFI : UNW_END_MEMORY;
				break;
			}
			next = (struct state){ 0 };
			next.r[REG_RA] = ra;
			next.r[REG_BP] = cur.r[REG_BP];
			next.r[REG_SP] = cur.r[REG_SP] + 8;
			next.valid = 1u << REG_RA | 1u << REG_SP | (cur.valid & 1u << REG_BP);
		} else if (!rc && mod.code == UNW_CODE_INTERP && n == 1 &&
			   !step_entry(&m, find, ctx, &mod, &cur, &next, &frames[0])) {
			/* stepped: the top frame in a method entry */
		} else if (!rc && mod.code != UNW_CODE_CFI) {
			if (step_fp(&m, &mod, n == 1, &cur, &next, &frames[n - 1])) {
				*end = UNW_END_NO_FP;
				break;
			}
			*fp += mod.code == UNW_CODE_FP;
		} else if (rc || !mod.cfi || unw_cfi_vaddr(mod.cfi, mod.file_off, &vaddr)) {
			*end = UNW_END_NO_CFI;
			break;
		} else if ((rc = step_at(&m, mod.cfi, vaddr, &cur, &next))) {
			if (rc == -ENOMEM)
				return rc;
			/* no CFI at the file's entry point: the process's first frame */
			*end = rc == -ENOENT && mod.cfi->entry && vaddr >= mod.cfi->entry &&
					       vaddr - mod.cfi->entry < UNW_ENTRY_SPAN
				       ? UNW_END_ROOT : end_of(rc);
			break;
		}
		if (!(next.valid >> REG_RA & 1) || !next.r[REG_RA]) {
			*end = UNW_END_ROOT;
			break;
		}
		if (next.r[REG_SP] <= cur.r[REG_SP]) {
			*end = UNW_END_LOOP;
			break;
		}
		frames[n++] = (struct unw_frame){ .pc = next.r[REG_RA] };
		cur = next;
	}
	return (int)n;
}

int unw_walk(const struct unw_input *in, unw_find_fn find, void *ctx, uint64_t *pcs,
	     uint32_t max, enum unw_end *end)
{
	struct unw_frame f[UNW_MAX_FRAMES];
	uint32_t fp;
	int n = unw_walk_frames(in, find, ctx, f, max < UNW_MAX_FRAMES ? max : UNW_MAX_FRAMES,
				end, &fp);

	for (int i = 0; i < n; i++)
		pcs[i] = f[i].pc;
	return n;
}
