/* test_prologue.c - the .eh_frame synth writes for HotSpot C1/C2 code from its frame set-up
 * (synth/prologue.c): hand-assembled prologues behind an inline-cache check give the rows
 * their instructions make (read back with libdw's dwarf_cfi_addrframe); an unknown set-up,
 * or the same bytes from another runtime (no C1/C2 tier), give none. */
#include <criterion/criterion.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/synth/st_cfi.h"

/* C2's unverified entry (JDK 17): mov 0x8(%rsi),%r10d; shl $3,%r10; cmp %r10,%rax;
 * jne ic_miss; nopl (%rax): 20 bytes before the verified entry. */
static const uint8_t uep[] = { 0x44, 0x8b, 0x56, 0x08, 0x49, 0xc1, 0xe2, 0x03, 0x49, 0x3b,
			       0xc2, 0x0f, 0x85, 0x10, 0x20, 0x30, 0x40, 0x0f, 0x1f, 0x00 };
static const uint8_t bang[] = { 0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff };	/* -0x14000 */
static const uint8_t push_rbp[] = { 0x55 };
static const uint8_t mov_rbp[] = { 0x48, 0x89, 0xe5 };
static const uint8_t sub8[] = { 0x48, 0x83, 0xec, 0x30 };		/* sub $0x30,%rsp */
static const uint8_t sub32[] = { 0x48, 0x81, 0xec, 0x18, 0x01, 0x00, 0x00 };	/* $0x118 */
static const uint8_t save_rbp8[] = { 0x48, 0x89, 0x6c, 0x24, 0x10 };	/* %rbp,0x10(%rsp) */
static const uint8_t save_rbp32[] = { 0x48, 0x89, 0xac, 0x24, 0x10, 0x01, 0x00, 0x00 };

Test(prologue, push_form_behind_the_ic_check)
{
	struct code c = { .n = 0 };
	PUT(&c, uep);
	PUT(&c, bang);
	PUT(&c, push_rbp);
	PUT(&c, mov_rbp);
	PUT(&c, sub8);
	struct st_load l;
	load_of(&l, &c, JD_TIER_C2);
	struct synth_prologue pr;
	cr_assert_eq(synth_prologue_find(l.code, ST_CODE_SIZE, &pr), 1);
	cr_assert_eq(pr.kind, SYNTH_PROLOGUE_PUSH);
	cr_assert_eq(pr.entry, sizeof(uep));
	cr_assert_eq(synth_prologue_cfi(&l.in), 1);
	struct built b;
	build(&b, &l);
	cr_assert_not_null(b.cfi, "%s", dwarf_errmsg(-1));
	uint64_t push_end = sizeof(uep) + sizeof(bang) + 1, mov_end = push_end + 3;
	expect(&b, 0, push_end, 8, 0);			/* the IC check and the bang */
	expect(&b, push_end, mov_end, 16, 1);		/* after push %rbp */
	expect(&b, mov_end, ST_CODE_SIZE, RBP(16), 1);	/* rbp is the frame pointer */
	Dwarf_Frame *fr;
	cr_assert_neq(dwarf_cfi_addrframe(b.cfi, b.e.text_offset + ST_CODE_SIZE + 8, &fr), 0,
		      "no row beyond the code");
	/* The build-id is the input's, the CFI being derived from its code and tier. */
	uint8_t id[SYNTH_BUILD_ID_SIZE];
	cr_assert_eq(synth_build_id(&l.in, id, NULL), 0);
	cr_assert_arr_eq(id, b.e.build_id, sizeof(id));
	/* synth_symbol's load covers the .eh_frame as the ELF's PT_LOAD does. */
	struct synth_symbol sym;
	cr_assert_eq(synth_symbol(&l.in, &sym, NULL), 0);
	GElf_Shdr sh;
	cr_assert_not_null(st_section(b.elf, ".eh_frame", &sh));
	/* With an .eh_frame_hdr right after it (perf's libunwind needs PT_GNU_EH_FRAME), so the
	 * .text is where synth_text_offset says without building. */
	GElf_Shdr hdr;
	cr_assert_not_null(st_section(b.elf, ".eh_frame_hdr", &hdr));
	cr_assert_eq(hdr.sh_addr, sh.sh_addr + sh.sh_size);
	cr_assert_eq(sym.load_size, hdr.sh_addr + hdr.sh_size);
	cr_assert_eq(b.e.text_offset, synth_text_offset(&l.in));
	cr_assert_eq(b.e.text_offset, 0x110);
	unbuild(&b);
}

Test(prologue, sub_form_of_a_c2_leaf)
{
	static const uint8_t *saves[] = { save_rbp8, save_rbp32 };
	static const size_t nsave[] = { sizeof(save_rbp8), sizeof(save_rbp32) };
	for (int k = 0; k < 2; k++) {
		struct code c = { .n = 0 };
		PUT(&c, sub32);
		uint8_t save[8];
		memcpy(save, saves[k], nsave[k]);
		if (k == 0)
			save[4] = 0x10;		/* disp8 can't hold 0x110: a frame of 0x18 */
		put(&c, save, nsave[k]);
		if (k == 0)
			c.b[3] = 0x18, c.b[4] = 0;
		struct st_load l;
		load_of(&l, &c, JD_TIER_C2);
		int64_t f = k == 0 ? 0x18 : 0x118;
		struct built b;
		build(&b, &l);
		cr_assert_not_null(b.cfi, "%s", dwarf_errmsg(-1));
		expect(&b, 0, 7, 8, 0);
		expect(&b, 7, 7 + nsave[k], 8 + f, 0);
		expect(&b, 7 + nsave[k], ST_CODE_SIZE, 8 + f, 1);
		unbuild(&b);
	}
}

Test(prologue, c1_and_several_bangs)
{
	struct code c = { .n = 0 };
	PUT(&c, bang);
	PUT(&c, bang);
	PUT(&c, push_rbp);
	PUT(&c, sub32);
	struct st_load l;
	load_of(&l, &c, JD_TIER_C1);
	struct built b;
	build(&b, &l);
	cr_assert_not_null(b.cfi);
	expect(&b, 0, 15, 8, 0);
	expect(&b, 15, 22, 16, 1);
	expect(&b, 22, ST_CODE_SIZE, 16 + 0x118, 1);
	unbuild(&b);
}

/* No CFI: a set-up not recognised (push without a bang, the rbp store at another offset than
 * the frame's top), or the right bytes in code no C1/C2 tier marks as HotSpot's. */
Test(prologue, unknown_gives_none)
{
	struct code cases[4] = { { .n = 0 } };
	PUT(&cases[0], uep);
	PUT(&cases[0], push_rbp);
	PUT(&cases[0], sub8);
	PUT(&cases[1], sub32);
	PUT(&cases[1], save_rbp32);
	cases[1].b[cases[1].n - 4] = 0x08;	/* 0x108: not F-8 */
	PUT(&cases[2], bang);			/* a bang and nothing after it */
	PUT(&cases[3], bang);
	PUT(&cases[3], push_rbp);
	uint32_t tiers[4] = { JD_TIER_C2, JD_TIER_C2, JD_TIER_C1, JD_TIER_UNKNOWN };
	for (int k = 0; k < 4; k++) {
		struct st_load l;
		load_of(&l, &cases[k], tiers[k]);
		cr_assert_eq(synth_prologue_cfi(&l.in), 0, "case %d", k);
		struct built b;
		build(&b, &l);
		GElf_Shdr sh;
		cr_assert_null(st_section(b.elf, ".eh_frame", &sh), "case %d has CFI", k);
		cr_assert_eq(b.e.text_offset, 0xe0);
		unbuild(&b);
	}
	/* The same bytes as node's or another writer's code (tier STUB, OTHER): none either. */
	struct st_load l;
	load_of(&l, &cases[3], JD_TIER_OTHER);
	cr_assert_eq(synth_prologue_cfi(&l.in), 0);
	l.in.tier = JD_TIER_C2;
	cr_assert_eq(synth_prologue_cfi(&l.in), 1, "the bytes are a set-up for C2");
}
