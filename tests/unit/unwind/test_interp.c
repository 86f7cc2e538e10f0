/* test_interp.c - recorder/unwind's rbp-based frames (walk.c step_fp): HotSpot interpreter
 * frames give their method and bcp words (the top one's bcp from r13, the slot's beside it),
 * jitted code kept on frame pointers is stepped by rbp; hostile stacks (rbp outside the copy
 * or below the sp, slots outside the copy, a chain of rbps that loops, a truncated copy,
 * SIZE 0) end the walk with the reason said, bounded, never a crash. Code addresses are made
 * up: the find callback here says what each range is. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "recorder/unwind/unwind.h"

#define INTERP_LO 0x10000u	/* [0x10000, 0x20000): the interpreter */
#define FP_LO 0x20000u		/* [0x20000, 0x30000): jitted code keeping rbp */
#define ROOT_PC 0x30010u	/* a pc the find callback knows nothing of */
#define STUB_LO 0x40000u	/* [0x40000, 0x40100): a vtable stub (no frame of its own) */
#define SP 0x7ffd0000u
static const char data_tag[] = "index";

/* The method table: Method* 0xaaa0 (bytecodes at 0xb000) and 0xddd0 (at 0xe000). */
static int method_start(const void *data, uint64_t method, uint64_t *bcp)
{
	cr_assert_eq(data, data_tag, "the module's data handed back");
	if (method != 0xaaa0 && method != 0xddd0)
		return -ENOENT;
	*bcp = method == 0xaaa0 ? 0xb000 : 0xe000;
	return 0;
}

static int find(void *ctx, uint64_t pc, struct unw_module *m)
{
	(void)ctx;
	if (pc >= INTERP_LO && pc < FP_LO) {
		m->code = UNW_CODE_INTERP;
		m->method_slot = -3;
		m->bcp_slot = -8;
		m->data = data_tag;
		m->method_start = method_start;
		return 0;
	}
	if (pc >= FP_LO && pc < ROOT_PC - 0x10) {
		m->code = UNW_CODE_FP;
		return 0;
	}
	if (pc >= STUB_LO && pc < STUB_LO + 0x100) {
		m->code = UNW_CODE_NO_FRAME;
		return 0;
	}
	return -ENOENT;
}

/* perf's packed registers with mask 0xff0fff: AX..SS at 0-11, R8..R15 at 12-19. */
struct sample {
	uint64_t regs[20];
	uint8_t stack[16384];	/* room for more than UNW_MAX_FRAMES 16-byte frames */
	struct unw_input in;
};

static void sample_at(struct sample *s, uint64_t ip, uint64_t sp, uint64_t bp, uint64_t r13,
		      size_t size)
{
	memset(s, 0, sizeof(*s));
	s->regs[6] = bp;
	s->regs[7] = sp;
	s->regs[8] = ip;
	s->regs[12 + 5] = r13;
	s->in = (struct unw_input){ .regs_abi = 2, .regs_mask = 0xff0fffULL, .regs = s->regs,
				    .stack = s->stack, .stack_size = size };
}

static void put64(struct sample *s, uint64_t addr, uint64_t v)
{
	memcpy(s->stack + (addr - SP), &v, 8);
}

/* The sample's rbx (perf's BX, packed at 1), the entry's Method* register. */
static void set_rbx(struct sample *s, uint64_t rbx)
{
	s->regs[1] = rbx;
}

/* An interpreter frame at fp: method, bcp, link, return address. */
static void interp_frame(struct sample *s, uint64_t fp, uint64_t method, uint64_t bcp,
			 uint64_t link, uint64_t ra)
{
	put64(s, fp - 3 * 8, method);
	put64(s, fp - 8 * 8, bcp);
	put64(s, fp, link);
	put64(s, fp + 8, ra);
}

/* interpreted leaf -> interpreted caller -> jitted (fp) -> a pc of nothing known. */
Test(interp, frames_decoded_then_fp_then_the_end)
{
	static struct sample s;
	struct unw_frame f[UNW_MAX_FRAMES];
	enum unw_end end;
	uint32_t fp;
	uint64_t fp0 = SP + 0x100, fp1 = SP + 0x200, fp2 = SP + 0x300;
	sample_at(&s, INTERP_LO + 0x40, SP, fp0, 0xb0b5, 1024);
	interp_frame(&s, fp0, 0xaaa0, 0xb000, fp1, INTERP_LO + 0x99);
	interp_frame(&s, fp1, 0xccc0, 0xd004, fp2, FP_LO + 0x10);
	put64(&s, fp2, 0);
	put64(&s, fp2 + 8, ROOT_PC);
	int n = unw_walk_frames(&s.in, find, NULL, f, UNW_MAX_FRAMES, &end, &fp);
	cr_assert_eq(n, 4, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(end, UNW_END_NO_CFI, "%s", unw_end_name(end));
	cr_assert_eq(fp, 1);
	cr_assert_eq(f[0].pc, INTERP_LO + 0x40);
	cr_assert_eq(f[0].method, 0xaaa0);
	cr_assert_eq(f[0].bcp, 0xb0b5, "the top frame's live bcp is r13's");
	cr_assert_eq(f[0].bcp_slot, 0xb000);
	cr_assert_eq(f[0].data, data_tag);
	cr_assert_eq(f[1].pc, INTERP_LO + 0x99);
	cr_assert_eq(f[1].method, 0xccc0);
	cr_assert_eq(f[1].bcp, 0xd004, "a caller's bcp is its slot's");
	cr_assert_eq(f[2].pc, FP_LO + 0x10);
	cr_assert_eq(f[2].method, 0, "jitted frames carry no method");
	cr_assert_eq(f[3].pc, ROOT_PC);
	/* unw_walk gives the same pcs. */
	uint64_t pcs[UNW_MAX_FRAMES];
	cr_assert_eq(unw_walk(&s.in, find, NULL, pcs, UNW_MAX_FRAMES, &end), 4);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pcs[i], f[i].pc);
}

Test(interp, rbp_outside_the_copy_or_below_sp)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	sample_at(&s, INTERP_LO, SP, SP + 0x2000, 0, 1024);	/* past the copy's valid bytes */
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 1);
	cr_assert_eq(end, UNW_END_NO_FP, "%s", unw_end_name(end));
	cr_assert_eq(f[0].method, 0, "nothing read for slots not in the copy");
	sample_at(&s, INTERP_LO, SP, SP - 0x100, 0, 1024);	/* below the sp */
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 1);
	cr_assert_eq(end, UNW_END_NO_FP, "%s", unw_end_name(end));
	sample_at(&s, FP_LO, SP, UINT64_MAX - 8, 0, 1024);	/* would wrap */
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 1);
	cr_assert_eq(end, UNW_END_NO_FP, "%s", unw_end_name(end));
	/* SIZE 0 and no copy at all: the same, at once. */
	sample_at(&s, INTERP_LO, SP, SP + 0x10, 0, 0);
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 1);
	cr_assert_eq(end, UNW_END_NO_FP, "%s", unw_end_name(end));
	s.in.stack = NULL;
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 1);
	cr_assert_eq(end, UNW_END_NO_FP, "%s", unw_end_name(end));
}

/* The slots below rbp start before the copy: the frame is stepped, its words not read. */
Test(interp, slots_outside_the_copy)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	sample_at(&s, INTERP_LO, SP, SP + 0x10, 0x1234, 1024);
	put64(&s, SP + 0x10, 0);
	put64(&s, SP + 0x18, ROOT_PC);
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 2);
	cr_assert_eq(f[0].method, 0);
	cr_assert_eq(f[1].pc, ROOT_PC);
}

/* rbp chains that point back at themselves or down the stack: the sp must rise. */
Test(interp, a_chain_that_loops)
{
	static struct sample s;
	struct unw_frame f[UNW_MAX_FRAMES];
	enum unw_end end;
	uint32_t fp;
	uint64_t fp0 = SP + 0x100, fp1 = SP + 0x200;
	sample_at(&s, FP_LO, SP, fp0, 0, 1024);
	put64(&s, fp0, fp1);
	put64(&s, fp0 + 8, FP_LO + 4);
	put64(&s, fp1, fp0);		/* back down */
	put64(&s, fp1 + 8, FP_LO + 8);
	int n = unw_walk_frames(&s.in, find, NULL, f, UNW_MAX_FRAMES, &end, &fp);
	cr_assert_eq(n, 3, "%d: %s", n, unw_end_name(end));
	cr_assert_eq(end, UNW_END_NO_FP, "%s", unw_end_name(end));
	put64(&s, fp0, fp0);		/* itself */
	n = unw_walk_frames(&s.in, find, NULL, f, UNW_MAX_FRAMES, &end, &fp);
	cr_assert_leq(n, 3, "%d", n);
	cr_assert(end == UNW_END_NO_FP || end == UNW_END_LOOP, "%s", unw_end_name(end));
}

/* The copy ends between the frame's words and its link: named, then the end. */
Test(interp, copy_ends_at_the_link)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	sample_at(&s, INTERP_LO, SP, SP + 0x100, 0, 0x100);
	put64(&s, SP + 0x100 - 24, 0xaaa0);
	put64(&s, SP + 0x100 - 64, 0xb000);
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 1);
	cr_assert_eq(end, UNW_END_NO_FP, "%s", unw_end_name(end));
	cr_assert_eq(f[0].method, 0xaaa0);
	cr_assert_eq(f[0].bcp_slot, 0xb000);
}

/* A deep, valid chain stops at the frame limit. */
Test(interp, max_frames)
{
	static struct sample s;
	struct unw_frame f[UNW_MAX_FRAMES];
	enum unw_end end;
	uint32_t fp;
	sample_at(&s, INTERP_LO, SP, SP + 0x40, 0, sizeof(s.stack));
	for (uint64_t a = SP + 0x40; a + 16 <= SP + sizeof(s.stack); a += 16) {
		put64(&s, a, a + 16);
		put64(&s, a + 8, INTERP_LO + 1);
	}
	int n = unw_walk_frames(&s.in, find, NULL, f, UNW_MAX_FRAMES, &end, &fp);
	cr_assert_eq(n, UNW_MAX_FRAMES, "%d: %s", n, unw_end_name(end));
	cr_assert_eq(end, UNW_END_MAX, "%s", unw_end_name(end));
}

/* A sample in a vtable stub (a jump to the target: no frame, rbp still its caller's): the
 * caller is the return address at [sp], then the caller's own by its rbp. Stepped by rbp the
 * caller was lost (the stub's frame taken for its caller's). As a caller, such a stub is no
 * frame of this stack: the walk ends there. */
Test(interp, frameless_stub_leaf_keeps_its_caller)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	uint64_t fp0 = SP + 0x100;
	sample_at(&s, STUB_LO + 4, SP, fp0, 0, 1024);
	put64(&s, SP, FP_LO + 0x20);		/* the call into the stub */
	put64(&s, fp0, 0);
	put64(&s, fp0 + 8, ROOT_PC);
	int n = unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp);
	cr_assert_eq(n, 3, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(f[0].pc, STUB_LO + 4);
	cr_assert_eq(f[1].pc, FP_LO + 0x20, "the stub's caller, from [sp]");
	cr_assert_eq(f[2].pc, ROOT_PC);
	cr_assert_eq(end, UNW_END_NO_CFI, "%s", unw_end_name(end));
	sample_at(&s, FP_LO + 8, SP, fp0, 0, 1024);
	put64(&s, fp0, SP + 0x200);
	put64(&s, fp0 + 8, STUB_LO + 8);
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 2);
	cr_assert_eq(end, UNW_END_NO_CFI, "%s", unw_end_name(end));
	/* [sp] outside the copy: said so. */
	sample_at(&s, STUB_LO, SP, fp0, 0, 4);
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 1);
	cr_assert_eq(end, UNW_END_MEMORY, "%s", unw_end_name(end));
}

/* A sample in a method entry that is still pushing its frame's fixed part: rbp is the new
 * frame (at bp), its link and return address in place, rbx the Method*, r13 the bytecodes'
 * start. */
static void entry_sample(struct sample *s, uint64_t bp)
{
	sample_at(s, INTERP_LO + 0x70, SP, bp, 0xb000, 1024);
	set_rbx(s, 0xaaa0);
	put64(s, bp + 8, ROOT_PC);
}

/* The bcp slot (and, earlier, the Method* slot) lies below the sp, where another frame's
 * words are. The method is rbx's, the bcp r13's, the bcp slot 0: whatever lies below the sp
 * is never read. Before this, such leaves were left 'Interpreter' (31 of JDK 25's 40 on
 * javac). */
Test(interp, leaf_in_a_method_entry_from_rbx_and_r13)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	/* Sender sp, last sp and Method* pushed: the Method* slot is [sp], the bcp slot 40
	 * bytes below. */
	entry_sample(&s, SP + 24);
	put64(&s, SP, 0xaaa0);
	int n = unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp);
	cr_assert_eq(n, 2, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(f[0].method, 0xaaa0);
	cr_assert_eq(f[0].bcp, 0xb000);
	cr_assert_eq(f[0].bcp_slot, 0, "the slot is not written yet");
	cr_assert_eq(f[1].pc, ROOT_PC, "the caller, by the new frame's link");
	/* Only the sender sp pushed: the Method* slot below the sp too, rbx still read. */
	entry_sample(&s, SP + 8);
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 2);
	cr_assert_eq(f[0].method, 0xaaa0);
	cr_assert_eq(f[0].bcp, 0xb000);
	/* No rbx in the sample: nothing taken. */
	entry_sample(&s, SP + 24);
	s.in.regs_mask = 0xff0fffULL & ~(1ULL << 1);	/* BX left out, the rest packed as is */
	memmove(&s.regs[1], &s.regs[2], sizeof(s.regs) - 2 * sizeof(s.regs[0]));
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 2);
	cr_assert_eq(f[0].method, 0, "no rbx: no method");
}

/* A built frame (the bcp slot at or above the sp) is read from its slots whatever rbx holds
 * (an invoke template's callee Method*), and a caller is never named from the registers,
 * even when its bcp slot is below the sampled sp (a frame of another stack). */
Test(interp, built_frames_and_callers_never_from_rbx)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	uint64_t fp0 = SP + 64, fp1 = SP + 0x200;
	sample_at(&s, INTERP_LO + 0x40, SP, fp0, 0xb005, 1024);
	set_rbx(&s, 0xccc0);
	interp_frame(&s, fp0, 0xaaa0, 0xb000, fp1, INTERP_LO + 0x99);
	interp_frame(&s, fp1, 0xddd0, 0xe004, 0, ROOT_PC);
	int n = unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp);
	cr_assert_eq(n, 3, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(f[0].method, 0xaaa0, "the bcp slot is [sp]: built, its slot's method");
	cr_assert_eq(f[0].bcp, 0xb005);
	cr_assert_eq(f[0].bcp_slot, 0xb000);
	cr_assert_eq(f[1].method, 0xddd0);
	cr_assert_eq(f[1].bcp, 0xe004);
}

/* A method entry sampled before its frame exists: rbx the callee's Method*, r13 its sender sp
 * (the caller's sp past the return address), rbp still the caller's, the return address at
 * [sp]. The leaf is the callee at its first bytecode, the caller its interpreter frame at
 * rbp with its own method. Stepped by rbp instead, the leaf was read as the caller's frame
 * and the callee lost (javac: 6 'Interpreter' leaves with no caller, JDK 17). */
Test(interp, entry_before_its_frame_names_the_callee_and_keeps_the_caller)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	uint64_t fp1 = SP + 0x200;
	sample_at(&s, INTERP_LO + 0x70, SP, fp1, SP + 8, 1024);
	set_rbx(&s, 0xaaa0);
	put64(&s, SP, INTERP_LO + 0x99);	/* the invoke's return entry */
	interp_frame(&s, fp1, 0xddd0, 0xe004, 0, ROOT_PC);
	int n = unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp);
	cr_assert_eq(n, 3, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(f[0].method, 0xaaa0, "the callee, from rbx");
	cr_assert_eq(f[0].bcp, 0xb000, "at its first bytecode");
	cr_assert_eq(f[1].pc, INTERP_LO + 0x99, "the return address at [sp]");
	cr_assert_eq(f[1].method, 0xddd0, "the caller, from its frame at rbp");
	cr_assert_eq(f[1].bcp, 0xe004);
	cr_assert_eq(f[2].pc, ROOT_PC);

	/* Later in the entry: the return address popped into rax while the locals are pushed
	 * (zeros at [sp]); the caller compiled code keeping rbp, 24 bytes of arguments above
	 * the locals. */
	uint64_t jfp = SP + 0x100;
	sample_at(&s, INTERP_LO + 0x80, SP, jfp, SP + 64, 1024);
	set_rbx(&s, 0xaaa0);
	s.regs[0] = FP_LO + 0x10;	/* rax */
	put64(&s, jfp, 0);
	put64(&s, jfp + 8, ROOT_PC);
	n = unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp);
	cr_assert_eq(n, 3, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(f[0].method, 0xaaa0);
	cr_assert_eq(f[1].pc, FP_LO + 0x10, "the return address in rax");
	cr_assert_eq(f[2].pc, ROOT_PC, "the compiled caller stepped by its rbp");
}

/* Not an entry before its frame, so not taken: rbx a method the table lacks, r13 a bytecode
 * pointer (a built frame's), r13 far above the sp, a pc just past the return address (the
 * call has returned), or rbp between the sp and r13 (after enter: the frame is this
 * method's). Each is stepped by rbp as before. */
Test(interp, entry_rule_refuses_what_is_not_an_entry)
{
	static struct sample s;
	struct unw_frame f[8];
	enum unw_end end;
	uint32_t fp;
	uint64_t fp1 = SP + 0x200;
	static const struct { uint64_t rbx, r13; } cases[] = {
		{ 0xccc0, SP + 8 }, { 0xaaa0, 0xb005 }, { 0xaaa0, SP + 0x8000 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sample_at(&s, INTERP_LO + 0x70, SP, fp1, cases[i].r13, 1024);
		set_rbx(&s, cases[i].rbx);
		put64(&s, SP, INTERP_LO + 0x99);
		interp_frame(&s, fp1, 0xddd0, 0xe004, 0, ROOT_PC);
		int n = unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp);
		cr_assert_eq(n, 2, "case %zu: %d frames", i, n);
		cr_assert_eq(f[0].method, 0xddd0, "case %zu: the frame at rbp's", i);
		cr_assert_eq(f[1].pc, ROOT_PC, "case %zu", i);
	}
	/* A return entry just reached: the callee returned to [sp] = pc - 4, rbx and r13 still
	 * the call's (JDK 25, Inlined: C.area named under drive, kernel lost). The frame at rbp
	 * is the pc's. */
	sample_at(&s, INTERP_LO + 0x99 + 4, SP, fp1, SP + 8, 1024);
	set_rbx(&s, 0xaaa0);
	put64(&s, SP, INTERP_LO + 0x99);
	interp_frame(&s, fp1, 0xddd0, 0xe004, 0, ROOT_PC);
	cr_assert_eq(unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp), 2);
	cr_assert_eq(f[0].method, 0xddd0, "returned: the frame at rbp's");
	/* After enter: rbp is the new frame, just below r13 (the sender sp); the Method* slot
	 * not pushed yet. The method is rbx's, at its first bytecode (r13 is no bcp yet). */
	uint64_t bp = SP + 8;
	sample_at(&s, INTERP_LO + 0x70, SP, bp, bp + 16, 1024);
	set_rbx(&s, 0xaaa0);
	put64(&s, bp, 0);
	put64(&s, bp + 8, ROOT_PC);
	int n = unw_walk_frames(&s.in, find, NULL, f, 8, &end, &fp);
	cr_assert_eq(n, 2, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(f[0].method, 0xaaa0);
	cr_assert_eq(f[0].bcp, 0xb000, "the first bytecode, not the sender sp");
	cr_assert_eq(f[1].pc, ROOT_PC, "the caller by the new frame's link");
}
