/* prologue.c - .eh_frame for HotSpot code that brings no unwinding info of its own (jitdump
 * UNWINDING_INFO), read off the frame set-up it emits, so a stack copy without frame pointers
 * unwinds through compiled Java frames. x86_64 only.
 *
 * The two set-ups (MacroAssembler::verified_entry for C2, C1_MacroAssembler::build_frame,
 * SharedRuntime::generate_native_wrapper):
 *   A: [mov %eax,-N(%rsp)]... push %rbp; [mov %rsp,%rbp]; [sub $F,%rsp]
 *      (C1 always, C2 when it bangs the stack: the bang comes first; native wrappers with the
 *      mov: enter());
 *   B: sub $F,%rsp (imm32, forced); mov %rbp,F-8(%rsp)  (C2 without a stack bang: leaves).
 * The verified entry is not at offset 0 (the inline-cache check comes first, clinit barriers
 * may too), so the first SCAN bytes are searched for a start. What precedes it runs with the
 * caller's frame untouched: CFA = rsp+8. From the completed set-up the frame is whole: CFA =
 * rsp+16+F (A), rsp+8+F (B), or rbp+16 when the set-up made rbp the frame pointer (the mov:
 * -XX:+PreserveFramePointer code and native wrappers, whose slow paths realign rsp around their
 * calls into the VM); its tear-downs (add $F,%rsp; pop %rbp; [poll]; ret, or leave) get rows
 * of their own (cfi_rows.c). Anything else gets no CFI at all, never a guess. Native
 * wrappers (tier "other": the agent's level 0, also method-handle intrinsics, which set up no
 * frame and so get none) only with the whole A set-up, bang, push, mov and sub. Stubs:
 * cfi_stubs.c. */
#include <string.h>

#include "synth/synth_int.h"

#include <elf.h>

#define SCAN 96			/* bytes searched for the verified entry's frame set-up */
#define MAX_BANGS 8		/* one per page of a large frame */

/* What the set-up does, as offsets from the code start. */
struct setup {
	uint64_t push_end;	/* A: after push %rbp (0 in B) */
	uint64_t mov_end;	/* A: after mov %rsp,%rbp (0: none) */
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
		s->mov_end = i += 3;
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
	if (n - i >= 4 && c[i] == 0x48 && c[i + 1] == 0x89 && c[i + 2] == 0x2c &&
	    c[i + 3] == 0x24) {
		disp = 0;	/* (%rsp): C2's runtime stubs, a frame of one word */
		mlen = 4;
	} else if (n - i >= 5 && c[i] == 0x48 && c[i + 1] == 0x89 && c[i + 2] == 0x6c &&
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

/* The set-up at offset i, or (scan) in the first SCAN bytes. */
static int find_at(const uint8_t *code, uint64_t size, uint64_t from, uint64_t to,
		   struct synth_prologue *out)
{
	struct setup s;
	for (uint64_t i = from; i < to && i < size; i++) {
		if (!match_a(code, i, size, &s) && !match_b(code, i, size, &s))
			continue;
		out->kind = s.push_end ? SYNTH_PROLOGUE_PUSH : SYNTH_PROLOGUE_SUB;
		out->entry = i;
		out->push_end = s.push_end;
		out->mov_end = s.mov_end;
		out->sub_end = s.sub_end;
		out->save_end = s.save_end;
		out->frame = s.frame;
		return 1;
	}
	memset(out, 0, sizeof(*out));
	return 0;
}

int synth_prologue_find(const uint8_t *code, uint64_t size, struct synth_prologue *out)
{
	return find_at(code, size, 0, SCAN, out);
}

int synth_prologue_find_entry(const uint8_t *code, uint64_t size, struct synth_prologue *out)
{
	return find_at(code, size, 0, 1, out);
}

int synth_prologue_applies(const struct synth_input *in)
{
	return !in->unwind_size && synth_machine(in) == EM_X86_64 &&
	       (in->tier == JD_TIER_C1 || in->tier == JD_TIER_C2 || in->tier == JD_TIER_OTHER ||
		in->tier == JD_TIER_STUB);
}

/* A method's set-up (C1, C2, a native wrapper's), 1 and *pr, else 0. */
static int method_setup(const struct synth_input *in, struct synth_prologue *pr)
{
	if (!synth_prologue_find(in->code, in->code_size, pr))
		return 0;
	if (in->tier == JD_TIER_OTHER)	/* a native wrapper: enter() and its frame */
		return pr->kind == SYNTH_PROLOGUE_PUSH && pr->mov_end && pr->sub_end;
	return 1;
}

void synth_prologue_rows(struct synth_cfi *f, const struct synth_prologue *pr,
			 const uint8_t *code, uint64_t size)
{
	uint64_t whole;
	if (pr->kind == SYNTH_PROLOGUE_PUSH) {
		synth_cfi_cfa(f, pr->push_end, SYNTH_REG_RSP, 16);
		synth_cfi_rbp(f, pr->push_end, 1);
		whole = pr->push_end;
		if (pr->mov_end)	/* rbp is the frame pointer from here */
			synth_cfi_cfa(f, whole = pr->mov_end, SYNTH_REG_RBP, 16);
		if (pr->sub_end && !pr->mov_end)
			synth_cfi_cfa(f, whole = pr->sub_end, SYNTH_REG_RSP, 16 + pr->frame);
		if (pr->sub_end)
			whole = pr->sub_end;
	} else {
		synth_cfi_cfa(f, pr->sub_end, SYNTH_REG_RSP, 8 + pr->frame);
		synth_cfi_rbp(f, pr->save_end, 1);
		whole = pr->save_end;
	}
	synth_cfi_epilogues(f, code, whole, size);
}

int synth_prologue_eh_frame(const struct synth_input *in, struct synth_buf *b)
{
	struct synth_prologue pr;
	struct synth_cfi f;
	if (!synth_prologue_applies(in) || in->code_size > UINT32_MAX)
		return 0;
	if (in->tier == JD_TIER_STUB)
		return synth_stub_cfi(in, b);
	if (!method_setup(in, &pr))
		return 0;
	synth_cfi_begin(&f, in, b);
	synth_prologue_rows(&f, &pr, in->code, in->code_size);
	return synth_cfi_end(&f, in->code_size);
}

int synth_prologue_cfi(const struct synth_input *in)
{
	struct synth_prologue pr;
	if (!synth_prologue_applies(in) || in->code_size > UINT32_MAX)
		return 0;
	return in->tier == JD_TIER_STUB ? synth_stub_cfi_applies(in) : method_setup(in, &pr);
}

const struct synth_input *synth_input_with_cfi(const struct synth_input *in,
					       struct synth_input *with,
					       struct synth_buf *blob)
{
	int hdr = synth_prologue_eh_frame(in, blob);
	if (hdr <= 0)
		return in;
	*with = *in;
	with->unwind = blob->p;
	with->unwind_size = blob->len;
	with->eh_frame_hdr_size = (uint64_t)hdr;
	with->mapped_size = 0;
	return with;
}
