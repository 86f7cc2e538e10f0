/* cfi_rows.c - the .eh_frame (one CIE, one FDE) and .eh_frame_hdr synth writes for HotSpot
 * code that brings no unwind data of its own (prologue.c for compiled methods and native
 * wrappers, cfi_stubs.c for stubs), and the rows of a frame's tear-downs: from the end of the
 * set-up the code is decoded instruction by instruction (cfi_x86.c); after `add $N,%rsp; pop
 * %rbp` (C1, C2) or `leave` (native wrappers, stubs) the caller's frame is back (CFA = rsp+8,
 * rbp restored) until the ret or jmp that ends that path, and the whole frame's rule again after
 * it (the code that follows is another path through the frame). */
#include "synth/synth_int.h"

enum { CFA_ADVANCE = 0x40, CFA_OFFSET = 0x80, CFA_RESTORE = 0xc0, CFA_ADVANCE1 = 0x02,
       CFA_ADVANCE2 = 0x03, CFA_ADVANCE4 = 0x04, CFA_DEF_CFA = 0x0c,
       CFA_DEF_CFA_REGISTER = 0x0d, CFA_DEF_CFA_OFFSET = 0x0e, REG_RA = 16,
       PE_PCREL_SDATA4 = 0x1b, PE_UDATA4 = 0x03, PE_DATAREL_SDATA4 = 0x3b };

static void advance(struct synth_cfi *f, uint64_t to)
{
	struct synth_buf *b = f->b;
	uint64_t d = to - f->at;
	if (!d)
		return;
	if (d < 0x40) {
		synth_buf_u8(b, (uint8_t)(CFA_ADVANCE | d));
	} else if (d <= 0xff) {
		synth_buf_u8(b, CFA_ADVANCE1);
		synth_buf_u8(b, (uint8_t)d);
	} else if (d <= 0xffff) {
		synth_buf_u8(b, CFA_ADVANCE2);
		synth_buf_u16(b, (uint16_t)d);
	} else {
		synth_buf_u8(b, CFA_ADVANCE4);
		synth_buf_u32(b, (uint32_t)d);
	}
	f->at = to;
}

void synth_cfi_cfa(struct synth_cfi *f, uint64_t pc, unsigned reg, uint64_t off)
{
	advance(f, pc);
	if (reg == f->reg) {
		synth_buf_u8(f->b, CFA_DEF_CFA_OFFSET);
	} else {
		synth_buf_u8(f->b, off == f->off ? CFA_DEF_CFA_REGISTER : CFA_DEF_CFA);
		synth_buf_uleb(f->b, reg);
		if (off == f->off)
			goto out;
	}
	synth_buf_uleb(f->b, off);
out:
	f->reg = reg;
	f->off = off;
}

void synth_cfi_rbp(struct synth_cfi *f, uint64_t pc, int saved)
{
	advance(f, pc);
	if (saved) {	/* at CFA-16: DW_CFA_offset r6, 2 * data_align(-8) */
		synth_buf_u8(f->b, CFA_OFFSET | SYNTH_REG_RBP);
		synth_buf_uleb(f->b, 2);
	} else {	/* the CIE's rule: the caller's own value */
		synth_buf_u8(f->b, CFA_RESTORE | SYNTH_REG_RBP);
	}
}

/* Pads a record from its length field at start to a multiple of 8 with DW_CFA_nop and sets
 * the length. */
static void close_record(struct synth_buf *b, size_t start)
{
	while ((b->len - start) % 8)
		synth_buf_u8(b, 0);
	synth_buf_put_u32(b, start, (uint32_t)(b->len - start - 4));
}

/* The place synth puts unwind data: ALIGN_8(code end) in the runtime's address space
 * (elf.c). */
static uint64_t eh_addr(const struct synth_input *in)
{
	return (in->code_addr + in->code_size + 7) & ~7ull;
}

/* Opens an FDE over code from offset start (its range set when it closes). */
static void open_fde(struct synth_cfi *f, uint64_t start)
{
	struct synth_buf *b = f->b;
	size_t fde = b->len;
	f->fde[f->nfde] = fde;
	f->start[f->nfde++] = start;
	f->at = start;
	f->reg = SYNTH_REG_RSP;
	f->off = 8;
	synth_buf_u32(b, 0);
	synth_buf_u32(b, (uint32_t)(fde + 4 - f->cie));	/* back to the CIE */
	/* pc_begin: the code's start + start, relative to this field */
	synth_buf_u32(b, (uint32_t)(f->in->code_addr + start - (eh_addr(f->in) + b->len)));
	synth_buf_u32(b, 0);
	synth_buf_uleb(b, 0);
}

static void close_fde(struct synth_cfi *f, uint64_t end)
{
	size_t fde = f->fde[f->nfde - 1];
	synth_buf_put_u32(f->b, fde + 12, (uint32_t)(end - f->start[f->nfde - 1]));
	close_record(f->b, fde);
}

void synth_cfi_begin(struct synth_cfi *f, const struct synth_input *in, struct synth_buf *b)
{
	*f = (struct synth_cfi){ .b = b, .in = in, .cie = b->len };
	/* The CIE: version 1, "zR", code align 1, data align -8, return address r16, FDE
	 * pointers pc-relative sdata4; at entry CFA = rsp+8, the return address at CFA-8. */
	synth_buf_u32(b, 0);
	synth_buf_u32(b, 0);
	synth_buf_u8(b, 1);
	synth_buf_str(b, "zR");
	synth_buf_uleb(b, 1);
	synth_buf_sleb(b, -8);
	synth_buf_uleb(b, REG_RA);
	synth_buf_uleb(b, 1);
	synth_buf_u8(b, PE_PCREL_SDATA4);
	synth_buf_u8(b, CFA_DEF_CFA);
	synth_buf_uleb(b, SYNTH_REG_RSP);
	synth_buf_uleb(b, 8);
	synth_buf_u8(b, CFA_OFFSET | REG_RA);
	synth_buf_uleb(b, 1);
	close_record(b, f->cie);
	open_fde(f, 0);
}

int synth_cfi_next(struct synth_cfi *f, uint64_t end, uint64_t start)
{
	if (f->nfde >= SYNTH_CFI_MAX_FDES || start < end || end < f->at)
		return 0;	/* no room, or not after the rows so far */
	close_fde(f, end);
	open_fde(f, start);
	return 1;
}

int synth_cfi_end(struct synth_cfi *f, uint64_t range)
{
	struct synth_buf *b = f->b;
	uint64_t eh = eh_addr(f->in);

	close_fde(f, range);
	synth_buf_u32(b, 0);	/* the terminator */
	/* .eh_frame_hdr (LSB 3.0) right after it: perf's libunwind finds FDEs only through
	 * PT_GNU_EH_FRAME. eh_frame_ptr pc-relative, a table entry per FDE (in pc order)
	 * relative to the header. */
	uint64_t hdr = eh + b->len;
	synth_buf_u8(b, 1);
	synth_buf_u8(b, PE_PCREL_SDATA4);
	synth_buf_u8(b, PE_UDATA4);
	synth_buf_u8(b, PE_DATAREL_SDATA4);
	synth_buf_u32(b, (uint32_t)(eh - (hdr + 4)));
	synth_buf_u32(b, f->nfde);
	for (unsigned i = 0; i < f->nfde; i++) {
		synth_buf_u32(b, (uint32_t)(f->in->code_addr + f->start[i] - hdr));
		synth_buf_u32(b, (uint32_t)(eh + f->fde[i] - hdr));
	}
	return b->oom ? -1 : (int)SYNTH_CFI_HDR_SIZE(f->nfde);
}

/* The whole frame's rule back (after a path that tore it down ended). */
static void body_back(struct synth_cfi *f, uint64_t pc, unsigned reg, uint64_t off)
{
	synth_cfi_cfa(f, pc, reg, off);
	synth_cfi_rbp(f, pc, 1);
}

void synth_cfi_epilogues(struct synth_cfi *f, const uint8_t *code, uint64_t from,
			 uint64_t end)
{
	const unsigned reg = f->reg;
	const uint64_t off = f->off;
	enum synth_x86_op op, next;
	int torn = 0;

	for (uint64_t pc = from; pc < end;) {
		unsigned len = synth_x86_insn(code + pc, end - pc, &op);
		if (!len) {	/* not decoded: the frame's rule from here (data, padding) */
			if (torn)
				body_back(f, pc, reg, off);
			return;
		}
		if (op == SYNTH_X86_ADD_RSP && !torn && pc + len < end &&
		    synth_x86_insn(code + pc + len, end - pc - len, &next) == 1 &&
		    next == SYNTH_X86_POP_RBP) {
			int64_t imm = synth_x86_add_rsp_imm(code + pc);
			/* rsp-based: exactly the frame below the saved rbp, else not this frame's
			 * tear-down (and no row); rbp-based: the add moves nothing the rule reads */
			if (reg == SYNTH_REG_RSP && imm > 0 && (uint64_t)imm == off - 16)
				synth_cfi_cfa(f, pc + len, reg, 16);
			pc += len;
			continue;	/* the pop next */
		}
		if ((op == SYNTH_X86_POP_RBP || (op == SYNTH_X86_LEAVE && reg == SYNTH_REG_RBP)) &&
		    !torn && (reg == SYNTH_REG_RBP || f->off == 16)) {
			synth_cfi_cfa(f, pc + len, SYNTH_REG_RSP, 8);
			synth_cfi_rbp(f, pc + len, 0);
			torn = 1;
		} else if ((op == SYNTH_X86_RET || op == SYNTH_X86_JMP) && torn) {
			if (pc + len < end)
				body_back(f, pc + len, reg, off);
			torn = 0;
		}
		pc += len;
	}
}
