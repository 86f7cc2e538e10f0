/* st.c - shared fixtures for the synth unit tests (see st.h). */
#include <string.h>

#include "tests/unit/synth/st.h"

void st_load_init(struct st_load *l, int with_inline)
{
	static const char foo[] = "com/acme/Foo.java", bar[] = "com/acme/Bar.java",
			  baz[] = "/src/acme/Baz.java";
	memset(l, 0, sizeof(*l));
	for (unsigned i = 0; i < ST_CODE_SIZE; i++)
		l->code[i] = 0x90;	/* nop ... ret */
	l->code[ST_CODE_SIZE - 1] = 0xc3;
	/* pc offset, line, file: Foo:10, Foo:12, Bar:40 (inlined), Baz:41 (inlined twice),
	 * Foo:13, Foo:13 again with a discriminator. */
	static const struct { unsigned off; int line; int fi; int discrim; } rows[6] = {
		{ 0x00, 10, 0, 0 }, { 0x08, 12, 0, 0 }, { 0x10, 40, 1, 0 },
		{ 0x18, 41, 2, 0 }, { 0x20, 13, 0, 0 }, { 0x30, 13, 0, 2 },
	};
	const char *files[3] = { foo, bar, baz };
	for (unsigned i = 0; i < 6; i++) {
		l->lines[i].addr = ST_CODE_ADDR + rows[i].off;
		l->lines[i].line = rows[i].line;
		l->lines[i].discrim = rows[i].discrim;
		l->lines[i].file = files[rows[i].fi];
	}
	l->methods[0] = (struct jd_inline_method){ "Lcom/acme/Foo;bar(I)I", foo };
	l->methods[1] = (struct jd_inline_method){ "Lcom/acme/Bar;inl()V", bar };
	l->methods[2] = (struct jd_inline_method){ "Lcom/acme/Baz;deep()V", baz };
	/* frames[0] innermost ... frames[depth-1] = Foo.bar itself. */
	static const struct { unsigned depth; struct jd_inline_frame f[3]; } stacks[6] = {
		{ 1, { { 0, 10, -1 } } }, { 1, { { 0, 12, -1 } } }, { 2, { { 1, 40, -1 }, { 0, 12, -1 } } },
		{ 3, { { 2, 41, -1 }, { 1, 42, -1 }, { 0, 12, -1 } } }, { 1, { { 0, 13, -1 } } },
		{ 1, { { 0, 13, -1 } } },
	};
	for (unsigned i = 0; i < 6; i++) {
		memcpy(l->f[i], stacks[i].f, sizeof(l->f[i]));
		l->pcs[i] = (struct jd_inline_pc){ l->lines[i].addr, stacks[i].depth, l->f[i] };
	}
	l->inl = (struct jd_ext_inline){ .code_index = 5, .code_addr = ST_CODE_ADDR,
		.nr_methods = 3, .nr_pcs = 6, .methods = l->methods, .pcs = l->pcs };
	l->in = (struct synth_input){
		.e_machine = 62, .pid = 1234, .code_index = 5, .generation = 2,
		.tier = JD_TIER_C2, .timestamp = 987654321, .name = "Lcom/acme/Foo;bar(I)I",
		.code_addr = ST_CODE_ADDR, .code = l->code, .code_size = ST_CODE_SIZE,
		.lines = l->lines, .nr_lines = 6, .inl = with_inline ? &l->inl : NULL,
	};
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void st_add_unwind(struct st_load *l)
{
	/* Where a runtime puts it: ALIGN_8(code end), .eh_frame_hdr right after. */
	uint64_t eh = (ST_CODE_ADDR + ST_CODE_SIZE + 7) & ~7ull, hdr = eh + 48;
	static const uint8_t cie[24] = {
		20, 0, 0, 0, 0, 0, 0, 0,	/* length, CIE id */
		1, 'z', 'R', 0, 1, 0x78, 16,	/* version, "zR", code 1, data -8, RA r16 */
		1, 0x1b,			/* augmentation: FDE pointers pcrel|sdata4 */
		0x0c, 7, 8, 0x90, 1, 0, 0,	/* def_cfa rsp+8; rip at cfa-8; nops */
	};
	uint8_t *u = l->unwind;
	memcpy(u, cie, sizeof(cie));
	put32(u + 24, 16);			/* FDE length */
	put32(u + 28, 28);			/* CIE pointer: back to offset 0 */
	put32(u + 32, (uint32_t)(ST_CODE_ADDR - (eh + 32)));	/* pc_begin, pcrel */
	put32(u + 36, ST_CODE_SIZE);		/* pc_range */
	u[40] = 0;				/* augmentation length */
	u[41] = 0x41;				/* advance_loc 1 */
	u[42] = 0x0e;				/* def_cfa_offset 16 */
	u[43] = 16;
	put32(u + 44, 0);			/* terminator */
	uint8_t *h = u + 48;
	h[0] = 1, h[1] = 0x1b, h[2] = 0x03, h[3] = 0x3b;
	put32(h + 4, (uint32_t)(eh - (hdr + 4)));	/* eh_frame_ptr, pcrel */
	put32(h + 8, 1);				/* fde_count */
	put32(h + 12, (uint32_t)(ST_CODE_ADDR - hdr));	/* initial location, datarel */
	put32(h + 16, (uint32_t)(eh + 24 - hdr));	/* FDE address, datarel */
	l->in.unwind = u;
	l->in.unwind_size = 68;
	l->in.eh_frame_hdr_size = 20;
	l->in.mapped_size = 68;
}

Elf *st_elf(const struct synth_elf *e)
{
	elf_version(EV_CURRENT);
	return elf_memory((char *)e->data, e->size);
}

Elf_Scn *st_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		if (!gelf_getshdr(s, sh))
			return NULL;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}
