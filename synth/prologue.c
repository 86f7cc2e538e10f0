/* prologue.c - .eh_frame for HotSpot C1/C2 code, which brings no unwinding info of its own
 * (jitdump UNWINDING_INFO): the rows are read off the frame set-up the compilers emit, so a
 * stack copy without frame pointers unwinds through compiled Java frames. x86_64 only.
 *
 * The two set-ups (MacroAssembler::verified_entry for C2, C1_MacroAssembler::build_frame):
 *   A: [mov %eax,-N(%rsp)]... push %rbp; [mov %rsp,%rbp]; [sub $F,%rsp]
 *      (C1 always, C2 when it bangs the stack: the bang comes first);
 *   B: sub $F,%rsp (imm32, forced); mov %rbp,F-8(%rsp)  (C2 without a stack bang: leaves).
 * The verified entry is not at offset 0 (the inline-cache check comes first, clinit barriers
 * may too), so the first SCAN bytes are searched for a start. What precedes it runs with the
 * caller's frame untouched: CFA = rsp+8. From the completed set-up to the end of the code the
 * frame is whole; an .eh_frame_hdr follows. Epilogues (add $F,%rsp; pop %rbp; poll; ret) get no rows of their own: they
 * cannot be found without decoding every instruction, and are a few bytes of each method.
 * Anything else gets no CFI at all, never a guess. */
#include <string.h>

#include "synth/synth_int.h"

#include <elf.h>

#define SCAN 96			/* bytes searched for the verified entry's frame set-up */
#define MAX_BANGS 8		/* one per page of a large frame */

/* What the set-up does, as offsets from the code start. */
struct setup {
	uint64_t push_end;	/* A: after push %rbp (0 in B) */
	uint64_t sub_end, frame;	/* after the sub (0: none), its immediate */
	uint64_t save_end;	/* B: after mov %rbp,F-8(%rsp) */
};

static int32_t s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/* sub $imm,%rsp at c[i] (imm8 48 83 ec, imm32 48 81 ec): its length, 0 if not there. */
static unsigned sub_rsp(const uint8_t *c, uint64_t i, uint64_t n, int imm32_only,
			uint64_t *imm)
{
	if (!imm32_only && n - i >= 4 && c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xec &&
	    c[i + 3] < 0x80) {
		*imm = c[i + 3];
		return 4;
	}
	if (n - i >= 7 && c[i] == 0x48 && c[i + 1] == 0x81 && c[i + 2] == 0xec &&
	    s32(c + i + 3) > 0) {
		*imm = (uint64_t)s32(c + i + 3);
		return 7;
	}
	return 0;
}

static int match_a(const uint8_t *c, uint64_t i, uint64_t n, struct setup *s)
{
	int bangs = 0;
	/* mov %eax,-N(%rsp): 89 84 24 disp32, N > 0 */
	while (bangs < MAX_BANGS && n - i >= 7 && c[i] == 0x89 && c[i + 1] == 0x84 &&
	       c[i + 2] == 0x24 && s32(c + i + 3) < 0) {
		i += 7;
		bangs++;
	}
	if (!bangs || i >= n || c[i] != 0x55)
		return 0;
	memset(s, 0, sizeof(*s));
	s->push_end = ++i;
	/* mov %rsp,%rbp: 48 89 e5 or 48 8b ec (-XX:+PreserveFramePointer) */
	if (n - i >= 3 && c[i] == 0x48 && ((c[i + 1] == 0x89 && c[i + 2] == 0xe5) ||
					   (c[i + 1] == 0x8b && c[i + 2] == 0xec)))
		i += 3;
	unsigned len = sub_rsp(c, i, n, 0, &s->frame);
	if (len)
		s->sub_end = i + len;
	return 1;
}

static int match_b(const uint8_t *c, uint64_t i, uint64_t n, struct setup *s)
{
	uint64_t f;
	unsigned len = sub_rsp(c, i, n, 1, &f);
	if (!len || f < 8)
		return 0;
	i += len;
	/* mov %rbp,disp(%rsp): 48 89 6c 24 disp8, or 48 89 ac 24 disp32; disp = F-8 */
	int64_t disp;
	unsigned mlen;
	if (n - i >= 5 && c[i] == 0x48 && c[i + 1] == 0x89 && c[i + 2] == 0x6c &&
	    c[i + 3] == 0x24) {
		disp = (int8_t)c[i + 4];
		mlen = 5;
	} else if (n - i >= 8 && c[i] == 0x48 && c[i + 1] == 0x89 && c[i + 2] == 0xac &&
		   c[i + 3] == 0x24) {
		disp = s32(c + i + 4);
		mlen = 8;
	} else {
		return 0;
	}
	if (disp != (int64_t)f - 8)
		return 0;
	memset(s, 0, sizeof(*s));
	s->sub_end = i;
	s->frame = f;
	s->save_end = i + mlen;
	return 1;
}

int synth_prologue_find(const uint8_t *code, uint64_t size, struct synth_prologue *out)
{
	struct setup s;
	for (uint64_t i = 0; i < SCAN && i < size; i++) {
		if (!match_a(code, i, size, &s) && !match_b(code, i, size, &s))
			continue;
		out->kind = s.push_end ? SYNTH_PROLOGUE_PUSH : SYNTH_PROLOGUE_SUB;
		out->entry = i;
		out->push_end = s.push_end;
		out->sub_end = s.sub_end;
		out->save_end = s.save_end;
		out->frame = s.frame;
		return 1;
	}
	memset(out, 0, sizeof(*out));
	return 0;
}

int synth_prologue_applies(const struct synth_input *in)
{
	return !in->unwind_size && synth_machine(in) == EM_X86_64 &&
	       (in->tier == JD_TIER_C1 || in->tier == JD_TIER_C2);
}

enum { CFA_ADVANCE = 0x40, CFA_OFFSET = 0x80, CFA_ADVANCE1 = 0x02, CFA_ADVANCE2 = 0x03,
       CFA_ADVANCE4 = 0x04, CFA_DEF_CFA = 0x0c, CFA_DEF_CFA_OFFSET = 0x0e, REG_RSP = 7,
       REG_RBP = 6, REG_RA = 16, PE_PCREL_SDATA4 = 0x1b, PE_UDATA4 = 0x03,
       PE_DATAREL_SDATA4 = 0x3b };

static void advance(struct synth_buf *b, uint64_t *at, uint64_t to)
{
	uint64_t d = to - *at;
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
	*at = to;
}

static void cfa_offset(struct synth_buf *b, uint64_t *at, uint64_t pc, uint64_t off)
{
	advance(b, at, pc);
	synth_buf_u8(b, CFA_DEF_CFA_OFFSET);
	synth_buf_uleb(b, off);
}

/* rbp saved at CFA-16: DW_CFA_offset r6, 2 * data_align(-8) */
static void rbp_saved(struct synth_buf *b, uint64_t *at, uint64_t pc)
{
	advance(b, at, pc);
	synth_buf_u8(b, CFA_OFFSET | REG_RBP);
	synth_buf_uleb(b, 2);
}

/* Pads a record from its length field at start to a multiple of 8 with DW_CFA_nop and sets
 * the length. */
static void close_record(struct synth_buf *b, size_t start)
{
	while ((b->len - start) % 8)
		synth_buf_u8(b, 0);
	synth_buf_put_u32(b, start, (uint32_t)(b->len - start - 4));
}

int synth_prologue_eh_frame(const struct synth_input *in, struct synth_buf *b)
{
	struct synth_prologue pr;
	if (!synth_prologue_applies(in) || in->code_size > UINT32_MAX ||
	    !synth_prologue_find(in->code, in->code_size, &pr))
		return 0;
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
	synth_buf_uleb(b, REG_RSP);
	synth_buf_uleb(b, 8);
	synth_buf_u8(b, CFA_OFFSET | REG_RA);
	synth_buf_uleb(b, 1);
	close_record(b, 0);

	/* The FDE, at the place synth puts unwind data: ALIGN_8(code end) in the runtime's
	 * address space (elf.c), so pc_begin is code_addr relative to its own field. */
	size_t fde = b->len;
	uint64_t eh = (in->code_addr + in->code_size + 7) & ~7ull;
	synth_buf_u32(b, 0);
	synth_buf_u32(b, (uint32_t)(fde + 4));	/* back to the CIE at 0 */
	synth_buf_u32(b, (uint32_t)(in->code_addr - (eh + b->len)));
	synth_buf_u32(b, (uint32_t)in->code_size);
	synth_buf_uleb(b, 0);
	uint64_t at = 0;
	if (pr.kind == SYNTH_PROLOGUE_PUSH) {
		cfa_offset(b, &at, pr.push_end, 16);
		rbp_saved(b, &at, pr.push_end);
		if (pr.sub_end)
			cfa_offset(b, &at, pr.sub_end, 16 + pr.frame);
	} else {
		cfa_offset(b, &at, pr.sub_end, 8 + pr.frame);
		rbp_saved(b, &at, pr.save_end);
	}
	close_record(b, fde);
	synth_buf_u32(b, 0);	/* the terminator */
	/* .eh_frame_hdr (LSB 3.0) right after it: perf's libunwind finds FDEs only through
	 * PT_GNU_EH_FRAME. eh_frame_ptr pc-relative, one table entry relative to the header. */
	uint64_t hdr = eh + b->len;
	synth_buf_u8(b, 1);
	synth_buf_u8(b, PE_PCREL_SDATA4);
	synth_buf_u8(b, PE_UDATA4);
	synth_buf_u8(b, PE_DATAREL_SDATA4);
	synth_buf_u32(b, (uint32_t)(eh - (hdr + 4)));
	synth_buf_u32(b, 1);
	synth_buf_u32(b, (uint32_t)(in->code_addr - hdr));
	synth_buf_u32(b, (uint32_t)(eh + fde - hdr));
	return b->oom ? -1 : 1;
}

int synth_prologue_cfi(const struct synth_input *in)
{
	struct synth_prologue pr;
	return synth_prologue_applies(in) && in->code_size <= UINT32_MAX &&
	       synth_prologue_find(in->code, in->code_size, &pr);
}

const struct synth_input *synth_input_with_cfi(const struct synth_input *in,
					       struct synth_input *with,
					       struct synth_buf *blob)
{
	if (synth_prologue_eh_frame(in, blob) <= 0)
		return in;
	*with = *in;
	with->unwind = blob->p;
	with->unwind_size = blob->len;
	with->eh_frame_hdr_size = SYNTH_PROLOGUE_HDR_SIZE;
	with->mapped_size = 0;
	return with;
}
