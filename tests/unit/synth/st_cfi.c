/* st_cfi.c - see st_cfi.h. */
#include <criterion/criterion.h>
#include <dwarf.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/synth/st_cfi.h"

void put(struct code *c, const uint8_t *p, size_t n)
{
	cr_assert_leq(c->n + n, sizeof(c->b));
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

/* A C2 (or tier) load of code c, the rest of the 64 bytes nops (int3 would do as well). */
void load_of(struct st_load *l, struct code *c, uint32_t tier)
{
	st_load_init(l, 0);
	memset(l->code, 0x90, sizeof(l->code));
	memcpy(l->code, c->b, c->n);
	l->in.tier = tier;
	l->in.e_machine = EM_X86_64;
}

/* The row at code offset off of the ELF built from l (cr_assert when none). */
struct row row_at(Dwarf_CFI *cfi, const struct synth_elf *e, uint64_t off)
{
	Dwarf_Frame *fr;
	struct row r = { 0 };
	cr_assert_eq(dwarf_cfi_addrframe(cfi, e->text_offset + off, &fr), 0, "offset %llu: %s",
		     (unsigned long long)off, dwarf_errmsg(-1));
	Dwarf_Op *ops, buf[3];
	size_t nops;
	cr_assert_eq(dwarf_frame_cfa(fr, &ops, &nops), 0);
	cr_assert_eq(nops, 1);
	cr_assert_eq(ops[0].atom, DW_OP_bregx);
	cr_assert(ops[0].number == 7 || ops[0].number == 6, "CFA on rsp or rbp");
	r.cfa = (int64_t)ops[0].number2 + (ops[0].number == 6 ? ON_RBP : 0);
	cr_assert_eq(dwarf_frame_register(fr, 6, buf, &ops, &nops), 0);
	/* saved at CFA+N: DW_OP_call_frame_cfa, DW_OP_plus_uconst? libdw gives an offset op */
	r.rbp_saved = nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		      ops[1].atom == DW_OP_plus_uconst && (int64_t)ops[1].number == -16;
	if (!r.rbp_saved && nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_consts)
		r.rbp_saved = (int64_t)ops[1].number == -16;
	free(fr);
	return r;
}

void build(struct built *b, struct st_load *l)
{
	char err[256];
	cr_assert_eq(synth_build(&l->in, &b->e, JP_ERRBUF_LOG(err)), 0, "%s", err);
	b->elf = st_elf(&b->e);
	b->cfi = dwarf_getcfi_elf(b->elf);
}

void unbuild(struct built *b)
{
	if (b->cfi)
		dwarf_cfi_end(b->cfi);
	elf_end(b->elf);
	synth_elf_free(&b->e);
}

void expect(struct built *b, uint64_t from, uint64_t to, int64_t cfa, int rbp_saved)
{
	for (uint64_t off = from; off < to; off++) {
		struct row r = row_at(b->cfi, &b->e, off);
		cr_assert_eq(r.cfa, cfa, "offset %llu: CFA rsp+%lld, want rsp+%lld",
			     (unsigned long long)off, (long long)r.cfa, (long long)cfa);
		cr_assert_eq(r.rbp_saved, rbp_saved, "offset %llu: rbp saved %d, want %d",
			     (unsigned long long)off, r.rbp_saved, rbp_saved);
	}
}
