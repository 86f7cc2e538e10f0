/* test_cfi_stubs.c - the CFI synth writes past the prologue (synth/cfi_rows.c, cfi_stubs.c,
 * cfi_x86.c): tear-downs of C1 and C2 frames and of native wrappers, HotSpot's stubs by kind
 * (frameless vtable/itable stubs, the adapters' frameless entry, enter() stubs, C2 runtime
 * stubs), no CFI for stubs of unknown kind; and the instruction decoder's lengths. Code is
 * hand-assembled; rows are read back with libdw's dwarf_cfi_addrframe. */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_int.h"
#include "tests/unit/synth/st_cfi.h"

static const uint8_t uep[] = { 0x44, 0x8b, 0x56, 0x08, 0x44, 0x3b, 0x50, 0x08,	/* IC check */
			       0x0f, 0x85, 0x10, 0x20, 0x30, 0x40 };
static const uint8_t bang[] = { 0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff };
static const uint8_t enter[] = { 0x55, 0x48, 0x89, 0xe5 };	/* push %rbp; mov %rsp,%rbp */
static const uint8_t push_rbp[] = { 0x55 };
static const uint8_t pop_rbp[] = { 0x5d };
static const uint8_t sub_60[] = { 0x48, 0x83, 0xec, 0x60 };
static const uint8_t add_60[] = { 0x48, 0x83, 0xc4, 0x60 };
static const uint8_t leave_[] = { 0xc9 };
static const uint8_t ret[] = { 0xc3 };
static const uint8_t mov_rax_rbx[] = { 0x48, 0x89, 0xc3 };
static const uint8_t poll[] = { 0x49, 0x3b, 0x67, 0x20 };	/* cmp 0x20(%r15),%rsp */
static const uint8_t call[] = { 0xe8, 0x00, 0x10, 0x00, 0x00 };

static void named(struct st_load *l, struct code *c, uint32_t tier, const char *name)
{
	load_of(l, c, tier);
	l->in.name = name;
}

/* No row at any offset of [from, to). */
static void expect_none(struct built *b, uint64_t from, uint64_t to)
{
	for (uint64_t off = from; off < to; off++) {
		Dwarf_Frame *fr;
		int rc = dwarf_cfi_addrframe(b->cfi, b->e.text_offset + off, &fr);
		if (!rc)
			free(fr);
		cr_assert_neq(rc, 0, "offset %llu has a row", (unsigned long long)off);
	}
}

/* A native wrapper (tier "other": level 0): bang, enter(), sub; CFA on rbp (its slow paths
 * realign rsp around calls); leave tears it down until the ret. */
Test(cfi_stubs, native_wrapper)
{
	struct code c = { .n = 0 };
	PUT(&c, uep);
	PUT(&c, bang);
	PUT(&c, enter);
	PUT(&c, sub_60);
	PUT(&c, call);
	uint64_t leave_at = c.n;
	PUT(&c, leave_);
	PUT(&c, poll);
	PUT(&c, ret);
	uint64_t after = c.n;
	struct st_load l;
	load_of(&l, &c, JD_TIER_OTHER);
	cr_assert_eq(synth_prologue_cfi(&l.in), 1);
	struct built b;
	build(&b, &l);
	cr_assert_not_null(b.cfi);
	uint64_t push_end = sizeof(uep) + sizeof(bang) + 1;
	expect(&b, 0, push_end, 8, 0);
	expect(&b, push_end, push_end + 3, 16, 1);
	expect(&b, push_end + 3, leave_at + 1, RBP(16), 1);	/* through the call's return */
	expect(&b, leave_at + 1, after, 8, 0);			/* torn down: poll, ret */
	expect(&b, after, ST_CODE_SIZE, RBP(16), 1);		/* another path after the ret */
	unbuild(&b);
	/* Without enter()'s mov (method-handle intrinsics set up no frame; another set-up is not
	 * a native wrapper's): none. */
	struct code d = { .n = 0 };
	PUT(&d, bang);
	PUT(&d, push_rbp);
	PUT(&d, sub_60);
	load_of(&l, &d, JD_TIER_OTHER);
	cr_assert_eq(synth_prologue_cfi(&l.in), 0);
}

/* C1: push, sub $0x60; the epilogue add $0x60,%rsp; pop %rbp; ret. */
Test(cfi_stubs, c1_epilogue)
{
	struct code c = { .n = 0 };
	PUT(&c, bang);
	PUT(&c, push_rbp);
	PUT(&c, sub_60);
	PUT(&c, mov_rax_rbx);
	uint64_t add_at = c.n;
	PUT(&c, add_60);
	PUT(&c, pop_rbp);
	PUT(&c, ret);
	uint64_t after = c.n;
	struct st_load l;
	load_of(&l, &c, JD_TIER_C1);
	struct built b;
	build(&b, &l);
	expect(&b, 8, 12, 16, 1);
	expect(&b, 12, add_at + 4, 16 + 0x60, 1);	/* the add is not done at its own pc */
	expect(&b, add_at + 4, add_at + 5, 16, 1);	/* at the pop */
	expect(&b, add_at + 5, after, 8, 0);		/* at the ret */
	expect(&b, after, ST_CODE_SIZE, 16 + 0x60, 1);
	unbuild(&b);
}

/* C2 without a bang: sub $F; mov %rbp,F-8(%rsp); then add $F-8,%rsp; pop %rbp; the safepoint
 * poll; ret. */
Test(cfi_stubs, c2_epilogue_with_poll)
{
	static const uint8_t sub[] = { 0x48, 0x81, 0xec, 0x18, 0x00, 0x00, 0x00 };
	static const uint8_t save[] = { 0x48, 0x89, 0x6c, 0x24, 0x10 };
	static const uint8_t add[] = { 0x48, 0x83, 0xc4, 0x10 };
	struct code c = { .n = 0 };
	PUT(&c, uep);
	PUT(&c, sub);
	PUT(&c, save);
	PUT(&c, mov_rax_rbx);
	uint64_t add_at = c.n;
	PUT(&c, add);
	PUT(&c, pop_rbp);
	PUT(&c, poll);
	PUT(&c, ret);
	uint64_t after = c.n;
	struct st_load l;
	load_of(&l, &c, JD_TIER_C2);
	struct built b;
	build(&b, &l);
	expect(&b, sizeof(uep) + 12, add_at + 4, 8 + 0x18, 1);
	expect(&b, add_at + 4, add_at + 5, 16, 1);
	expect(&b, add_at + 5, after, 8, 0);
	expect(&b, after, ST_CODE_SIZE, 8 + 0x18, 1);
	unbuild(&b);
}

/* vtable and itable stubs: frameless, CFA = rsp+8 over all their code. */
Test(cfi_stubs, vtable_itable_frameless)
{
	static const uint8_t vtable[] = { 0x8b, 0x46, 0x08, 0x48, 0x8b, 0x98, 0x00, 0x04, 0x00,
					  0x00, 0xff, 0x63, 0x40 };
	const char *names[] = { "vtable stub", "itable stub" };
	for (int k = 0; k < 2; k++) {
		struct code c = { .n = 0 };
		PUT(&c, vtable);
		struct st_load l;
		named(&l, &c, JD_TIER_STUB, names[k]);
		cr_assert_eq(synth_prologue_cfi(&l.in), 1, "%s", names[k]);
		struct built b;
		build(&b, &l);
		expect(&b, 0, ST_CODE_SIZE, 8, 0);
		unbuild(&b);
	}
}

/* The adapters' i2c entry: mov %rsp,%r11; pop %rax; ...: rows up to and at the pop, none
 * after it. */
Test(cfi_stubs, adapter_entry)
{
	static const uint8_t i2c[] = { 0x4c, 0x8b, 0xdc, 0x58, 0x48, 0x83, 0xe4, 0xf0, 0x50 };
	struct code c = { .n = 0 };
	PUT(&c, i2c);
	struct st_load l;
	named(&l, &c, JD_TIER_STUB, "I2C/C2I adapters(0xbb)");
	struct built b;
	build(&b, &l);
	expect(&b, 0, 4, 8, 0);
	expect_none(&b, 4, ST_CODE_SIZE);
	unbuild(&b);
}

/* The c2i unverified entry right after the i2c's jmp: a second FDE, frameless up to and at
 * its pop of the return address; none between the i2c's pop and its jmp, none after. */
Test(cfi_stubs, adapter_c2i_entry)
{
	static const uint8_t i2c[] = { 0x4c, 0x8b, 0xdc, 0x58, 0x48, 0x83, 0xe4, 0xf0, 0x50,
				       0x41, 0xff, 0xe3 };	/* ... push %rax; jmp *%r11 */
	static const uint8_t c2i[] = { 0x44, 0x8b, 0x56, 0x08, 0x44, 0x3b, 0x50, 0x08, 0x0f,
				       0x85, 0x10, 0x00, 0x00, 0x00, 0x58, 0x48, 0x83, 0xec,
				       0x10 };	/* IC check, jne, pop %rax, sub $0x10,%rsp */
	struct code c = { .n = 0 };
	PUT(&c, i2c);
	PUT(&c, c2i);
	struct st_load l;
	named(&l, &c, JD_TIER_STUB, "I2C/C2I adapters(0xbb)");
	struct built b;
	build(&b, &l);
	GElf_Shdr hdr;
	cr_assert_not_null(st_section(b.elf, ".eh_frame_hdr", &hdr));
	cr_assert_eq(hdr.sh_size, 12 + 2 * 8, "two table entries");
	cr_assert_eq(b.e.text_offset, synth_text_offset(&l.in));
	expect(&b, 0, 4, 8, 0);
	uint64_t c2i_at = sizeof(i2c), pop_at = c2i_at + 14;
	expect_none(&b, 4, c2i_at);
	expect(&b, c2i_at, pop_at + 1, 8, 0);
	expect_none(&b, pop_at + 1, ST_CODE_SIZE);
	unbuild(&b);
}

/* A stub entered by enter() (StubGenerator, C1 and shared runtime blobs): CFA = rbp+16 once
 * rbp is set, the caller's after leave, until the ret. The interpreter and frame-rebuilding
 * blobs with the same first bytes, and a stub of unknown kind without enter(), get none. */
Test(cfi_stubs, enter_stub_and_unknown)
{
	struct code c = { .n = 0 };
	PUT(&c, enter);
	PUT(&c, call);
	uint64_t leave_at = c.n;
	PUT(&c, leave_);
	PUT(&c, ret);
	struct st_load l;
	named(&l, &c, JD_TIER_STUB, "Shared Runtime resolve_virtual_call_blob");
	struct built b;
	build(&b, &l);
	expect(&b, 0, 1, 8, 0);
	expect(&b, 1, 4, 16, 1);
	expect(&b, 4, leave_at + 1, RBP(16), 1);
	expect(&b, leave_at + 1, leave_at + 2, 8, 0);
	expect(&b, leave_at + 2, ST_CODE_SIZE, RBP(16), 1);
	unbuild(&b);
	const char *none[] = { "Interpreter", "DeoptimizationBlob", "UncommonTrapBlob" };
	for (int k = 0; k < 3; k++) {
		named(&l, &c, JD_TIER_STUB, none[k]);
		cr_assert_eq(synth_prologue_cfi(&l.in), 0, "%s", none[k]);
	}
	/* push %rbx (not enter()), and a decodable leaf that calls out: none */
	static const uint8_t push_rbx[] = { 0x53 }, pop_rbx[] = { 0x5b };
	struct code d = { .n = 0 }, e = { .n = 0 };
	PUT(&d, push_rbx);
	PUT(&d, mov_rax_rbx);
	PUT(&d, pop_rbx);
	PUT(&d, ret);
	PUT(&e, mov_rax_rbx);
	PUT(&e, call);
	PUT(&e, ret);
	struct code *cases[] = { &d, &e };
	for (int k = 0; k < 2; k++) {
		named(&l, cases[k], JD_TIER_STUB, "some_stub");
		cr_assert_eq(synth_prologue_cfi(&l.in), 0, "case %d", k);
		build(&b, &l);
		GElf_Shdr sh;
		cr_assert_null(st_section(b.elf, ".eh_frame", &sh), "case %d", k);
		unbuild(&b);
	}
}

/* A leaf stub that never touches the stack (JDK 17's flush_icache_stub: test, je, mfence,
 * clflush loop, mov, ret): frameless, CFA = rsp+8 over all of it; the same with an AVX
 * instruction (not looked into) gets none. */
Test(cfi_stubs, frameless_leaf)
{
	static const uint8_t flush[] = { 0x85, 0xf6, 0x0f, 0x84, 0x11, 0x00, 0x00, 0x00, 0x0f,
					 0xae, 0xf0, 0x0f, 0xae, 0x3f, 0x48, 0x83, 0xc7, 0x40,
					 0xff, 0xce, 0x75, 0xf5, 0x0f, 0xae, 0xf0, 0x48, 0x8b,
					 0xc2, 0xc3 };
	static const uint8_t vzeroupper[] = { 0xc5, 0xf8, 0x77 };
	struct code c = { .n = 0 };
	PUT(&c, flush);
	struct st_load l;
	named(&l, &c, JD_TIER_STUB, "flush_icache_stub");
	struct built b;
	build(&b, &l);
	expect(&b, 0, ST_CODE_SIZE, 8, 0);
	unbuild(&b);
	struct code d = { .n = 0 };
	PUT(&d, vzeroupper);
	PUT(&d, flush);
	named(&l, &d, JD_TIER_STUB, "flush_icache_stub");
	cr_assert_eq(synth_prologue_cfi(&l.in), 0);
}

/* C2's runtime stubs: sub $8,%rsp (imm32); mov %rbp,(%rsp) at offset 0. */
Test(cfi_stubs, c2_runtime_stub)
{
	static const uint8_t setup[] = { 0x48, 0x81, 0xec, 0x08, 0x00, 0x00, 0x00,
					 0x48, 0x89, 0x2c, 0x24 };
	struct code c = { .n = 0 };
	PUT(&c, setup);
	PUT(&c, call);
	PUT(&c, pop_rbp);
	PUT(&c, ret);
	struct st_load l;
	named(&l, &c, JD_TIER_STUB, "C2 Runtime new_instance");
	struct built b;
	build(&b, &l);
	expect(&b, 0, 7, 8, 0);
	expect(&b, 7, 11, 16, 0);
	expect(&b, 11, 17, 16, 1);
	expect(&b, 17, 18, 8, 0);
	expect(&b, 18, ST_CODE_SIZE, 16, 1);
	unbuild(&b);
}

/* Lengths of instructions HotSpot emits (as objdump decodes them), and what is refused. */
Test(cfi_stubs, x86_lengths)
{
	static const struct { uint8_t b[16]; unsigned len; enum synth_x86_op op; } t[] = {
		{ { 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 }, 9, SYNTH_X86_OTHER },
		{ { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }, 10, SYNTH_X86_OTHER },	/* movabs */
		{ { 0xf0, 0x83, 0x44, 0x24, 0xc0, 0x00 }, 6, SYNTH_X86_OTHER },	/* lock addl */
		{ { 0x0f, 0x85, 1, 2, 3, 4 }, 6, SYNTH_X86_OTHER },		/* jne rel32 */
		{ { 0xc4, 0xe2, 0xb8, 0xf5, 0xc0 }, 5, SYNTH_X86_STACK },	/* bzhi */
		{ { 0x62, 0xf1, 0x7f, 0xaa, 0x6f, 0x0c, 0x0f }, 7, SYNTH_X86_STACK },	/* vmovdqu8 */
		{ { 0xc5, 0xf8, 0x77 }, 3, SYNTH_X86_STACK },			/* vzeroupper */
		{ { 0xc4, 0xe3, 0x7d, 0x39, 0xc1, 0x01 }, 6, SYNTH_X86_STACK },	/* vextracti128 */
		{ { 0xf7, 0x05, 1, 2, 3, 4, 5, 6, 7, 8 }, 10, SYNTH_X86_OTHER },	/* test imm, rip */
		{ { 0x41, 0xff, 0xe3 }, 3, SYNTH_X86_JMP },			/* jmp *%r11 */
		{ { 0xe9, 1, 2, 3, 4 }, 5, SYNTH_X86_JMP },
		{ { 0xc3 }, 1, SYNTH_X86_RET },
		{ { 0xc9 }, 1, SYNTH_X86_LEAVE },
		{ { 0x5d }, 1, SYNTH_X86_POP_RBP },
		{ { 0x41, 0x5d }, 2, SYNTH_X86_STACK },				/* pop %r13 */
		{ { 0x48, 0x81, 0xc4, 0x10, 0x01, 0x00, 0x00 }, 7, SYNTH_X86_ADD_RSP },
		{ { 0x4c, 0x8b, 0xdc }, 3, SYNTH_X86_MOV },			/* mov %rsp,%r11 */
		{ { 0x48, 0x8b, 0xe5 }, 3, SYNTH_X86_STACK },			/* mov %rbp,%rsp */
		{ { 0x53 }, 1, SYNTH_X86_STACK },				/* push %rbx */
		{ { 0x48, 0x83, 0xec, 0x08 }, 4, SYNTH_X86_STACK },		/* sub $8,%rsp */
		{ { 0xff, 0xd0 }, 2, SYNTH_X86_STACK },				/* call *%rax */
		{ { 0x0f, 0xae, 0xf0 }, 3, SYNTH_X86_OTHER },			/* mfence */
		{ { 0x48, 0x8b, 0x44, 0x24, 0x08 }, 5, SYNTH_X86_MOV },		/* 8(%rsp),%rax */
		{ { 0x49, 0x89, 0xe4 }, 3, SYNTH_X86_MOV },			/* mov %rsp,%r12 */
		{ { 0x06 }, 0, SYNTH_X86_OTHER },				/* invalid in 64-bit */
		{ { 0x0f, 0x85, 1, 2 }, 0, SYNTH_X86_OTHER },			/* truncated */
	};
	static const unsigned avail[] = { 9, 10, 6, 6, 5, 7, 3, 6, 10, 3, 5, 1, 1, 1, 2, 7, 3,
					  3, 1, 4, 2, 3, 5, 3, 1, 4 };
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		enum synth_x86_op op;
		unsigned len = synth_x86_insn(t[i].b, avail[i], &op);
		cr_assert_eq(len, t[i].len, "case %zu: %u bytes, want %u", i, len, t[i].len);
		if (len)
			cr_assert_eq(op, t[i].op, "case %zu: op %d, want %d", i, op, t[i].op);
	}
}
