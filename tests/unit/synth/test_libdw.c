/* test_libdw.c - every synthesized ELF read back with libdw (what report uses): the line of
 * every row, the subprogram, the inline chain at each pc, aranges, and the CFI of the unwind
 * tables. Mirrors synth/dwarf.c + synth/elf.c from the consumer's side. */
#include <criterion/criterion.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/synth/st.h"

struct dw {
	struct synth_elf e;
	Elf *elf;
	Dwarf *dbg;
};

static void open_dw(struct dw *d, struct st_load *l)
{
	char err[256];
	cr_assert_eq(synth_build(&l->in, &d->e, JP_ERRBUF_LOG(err)), 0, "%s", err);
	d->elf = st_elf(&d->e);
	d->dbg = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	cr_assert_not_null(d->dbg, "%s", dwarf_errmsg(-1));
}

static void close_dw(struct dw *d)
{
	dwarf_end(d->dbg);
	elf_end(d->elf);
	synth_elf_free(&d->e);
}

static uint64_t vaddr(const struct dw *d, uint64_t code_addr)
{
	return d->e.text_offset + (code_addr - ST_CODE_ADDR);
}

static const char *tail_of(const char *path, const char *want)
{
	size_t lp = strlen(path), lw = strlen(want);
	return lp >= lw && !strcmp(path + lp - lw, want) ? want : path;
}

Test(libdw, lines_of_every_row)
{
	struct st_load l;
	st_load_init(&l, 0);
	struct dw d;
	open_dw(&d, &l);
	for (int i = 0; i < 6; i++) {
		Dwarf_Die cu;
		uint64_t pc = vaddr(&d, l.lines[i].addr);
		cr_assert_not_null(dwarf_addrdie(d.dbg, pc, &cu), "no CU for row %d (aranges)", i);
		Dwarf_Line *line = dwarf_getsrc_die(&cu, pc);
		cr_assert_not_null(line, "row %d", i);
		int ln;
		dwarf_lineno(line, &ln);
		Dwarf_Addr a;
		dwarf_lineaddr(line, &a);
		cr_assert_eq(ln, l.lines[i].line, "row %d line", i);
		cr_assert_eq(a, pc, "row %d address", i);
		/* libdw joins relative names to an empty comp_dir as "/name": compare tails. */
		const char *src = dwarf_linesrc(line, NULL, NULL);
		cr_assert_str_eq(tail_of(src, l.lines[i].file), l.lines[i].file, "row %d: %s", i, src);
		unsigned disc = 99;
		dwarf_linediscriminator(line, &disc);
		cr_assert_eq(disc, (unsigned)l.lines[i].discrim);
	}
	/* The last instruction still belongs to the last row (end_sequence at the code end). */
	Dwarf_Die cu;
	uint64_t last = vaddr(&d, ST_CODE_ADDR + ST_CODE_SIZE - 1);
	cr_assert_not_null(dwarf_addrdie(d.dbg, last, &cu));
	int ln = 0;
	dwarf_lineno(dwarf_getsrc_die(&cu, last), &ln);
	cr_assert_eq(ln, 13);
	/* The file table holds each file once. */
	Dwarf_Files *files;
	size_t nfiles;
	cr_assert_eq(dwarf_getsrcfiles(&cu, &files, &nfiles), 0);
	cr_assert_eq(nfiles, 4, "entry 0 plus three files");
	close_dw(&d);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	return n ? n : "";
}

Test(libdw, subprogram_and_inline_chain)
{
	struct st_load l;
	st_load_init(&l, 1);
	struct dw d;
	open_dw(&d, &l);
	Dwarf_Die cu;
	uint64_t deep = vaddr(&d, ST_CODE_ADDR + 0x18);
	cr_assert_not_null(dwarf_addrdie(d.dbg, deep, &cu));
	Dwarf_Attribute a;
	Dwarf_Word lang;
	cr_assert_eq(dwarf_formudata(dwarf_attr(&cu, DW_AT_language, &a), &lang), 0);
	cr_assert_eq(lang, DW_LANG_Java);
	Dwarf_Die *scopes;
	int n = dwarf_getscopes(&cu, deep, &scopes);
	cr_assert_geq(n, 2);
	/* Innermost first: Baz.deep inlined into Bar.inl (called at Bar.java:42), Bar.inl into
	 * Foo.bar (called at Foo.java:12). */
	cr_assert_eq(dwarf_tag(&scopes[0]), DW_TAG_inlined_subroutine);
	cr_assert_str_eq(die_name(&scopes[0]), "Lcom/acme/Baz;deep()V");
	Dwarf_Word call_line;
	dwarf_formudata(dwarf_attr(&scopes[0], DW_AT_call_line, &a), &call_line);
	cr_assert_eq(call_line, 42);
	Dwarf_Die *chain;
	int m = dwarf_getscopes_die(&scopes[0], &chain);
	cr_assert_eq(m, 4, "inlined, inlined, subprogram, unit");
	cr_assert_str_eq(die_name(&chain[1]), "Lcom/acme/Bar;inl()V");
	dwarf_formudata(dwarf_attr(&chain[1], DW_AT_call_line, &a), &call_line);
	cr_assert_eq(call_line, 12);
	cr_assert_eq(dwarf_tag(&chain[2]), DW_TAG_subprogram);
	cr_assert_str_eq(die_name(&chain[2]), "Lcom/acme/Foo;bar(I)I");
	cr_assert_str_eq(dwarf_diename(&chain[2]), "com.acme.Foo.bar");
	Dwarf_Addr lo, hi;
	cr_assert_eq(dwarf_lowpc(&chain[2], &lo), 0);
	cr_assert_eq(dwarf_highpc(&chain[2], &hi), 0);
	cr_assert_eq(lo, d.e.text_offset);
	cr_assert_eq(hi, d.e.text_offset + ST_CODE_SIZE);
	/* Bar.inl's range runs over both inlined pcs, Baz.deep's over one. */
	dwarf_lowpc(&chain[1], &lo);
	dwarf_highpc(&chain[1], &hi);
	cr_assert_eq(lo, vaddr(&d, ST_CODE_ADDR + 0x10));
	cr_assert_eq(hi, vaddr(&d, ST_CODE_ADDR + 0x20));
	free(chain);
	free(scopes);
	/* Where nothing is inlined, the scope is the subprogram. */
	n = dwarf_getscopes(&cu, vaddr(&d, ST_CODE_ADDR + 0x20), &scopes);
	cr_assert_geq(n, 1);
	cr_assert_eq(dwarf_tag(&scopes[0]), DW_TAG_subprogram);
	free(scopes);
	close_dw(&d);
}

/* A method inlined twice with other code between: two DIEs, one per contiguous range. */
Test(libdw, interrupted_inline_gets_two_ranges)
{
	struct st_load l;
	st_load_init(&l, 1);
	l.pcs[4].depth = 2;	/* Bar.inl again at 0x20, after a non-inlined... */
	l.f[4][0] = (struct jd_inline_frame){ 1, 44, -1 };
	l.f[4][1] = (struct jd_inline_frame){ 0, 13, -1 };
	l.pcs[1].depth = 2;	/* ... and once before it at 0x08 with another call line */
	l.f[1][0] = (struct jd_inline_frame){ 1, 39, -1 };
	l.f[1][1] = (struct jd_inline_frame){ 0, 11, -1 };
	struct dw d;
	open_dw(&d, &l);
	static const struct { unsigned off; int call_line; } want[] = {
		{ 0x08, 11 }, { 0x10, 12 }, { 0x20, 13 },
	};
	Dwarf_Die cu;
	for (int i = 0; i < 3; i++) {
		uint64_t pc = vaddr(&d, ST_CODE_ADDR + want[i].off);
		cr_assert_not_null(dwarf_addrdie(d.dbg, pc, &cu));
		Dwarf_Die *scopes;
		int n = dwarf_getscopes(&cu, pc, &scopes);
		cr_assert_geq(n, 1);
		int k = 0;
		while (k + 1 < n && strcmp(die_name(&scopes[k]), "Lcom/acme/Bar;inl()V"))
			k++;
		Dwarf_Attribute a;
		Dwarf_Word cl = 0;
		dwarf_formudata(dwarf_attr(&scopes[k], DW_AT_call_line, &a), &cl);
		cr_assert_eq((int)cl, want[i].call_line, "pc +0x%x", want[i].off);
		Dwarf_Addr lo;
		dwarf_lowpc(&scopes[k], &lo);
		cr_assert_eq(lo, pc, "a new range starts at +0x%x", want[i].off);
		free(scopes);
	}
	close_dw(&d);
}

Test(libdw, lines_from_inline_table_alone)
{
	struct st_load l;
	st_load_init(&l, 1);
	l.in.lines = NULL;
	l.in.nr_lines = 0;
	struct dw d;
	open_dw(&d, &l);
	Dwarf_Die cu;
	uint64_t pc = vaddr(&d, ST_CODE_ADDR + 0x18);
	cr_assert_not_null(dwarf_addrdie(d.dbg, pc, &cu));
	int ln = 0;
	dwarf_lineno(dwarf_getsrc_die(&cu, pc), &ln);
	cr_assert_eq(ln, 41, "innermost frame's line");
	close_dw(&d);
}

Test(libdw, cfi_from_eh_frame)
{
	struct st_load l;
	st_load_init(&l, 0);
	st_add_unwind(&l);
	struct dw d;
	open_dw(&d, &l);
	Dwarf_CFI *cfi = dwarf_getcfi_elf(d.elf);
	cr_assert_not_null(cfi, "%s", dwarf_errmsg(-1));
	Dwarf_Frame *fr;
	cr_assert_eq(dwarf_cfi_addrframe(cfi, vaddr(&d, ST_CODE_ADDR + 4), &fr), 0,
		     "%s", dwarf_errmsg(-1));
	Dwarf_Addr start, end;
	dwarf_frame_info(fr, &start, &end, NULL);
	cr_assert_eq(start, vaddr(&d, ST_CODE_ADDR + 1), "after advance_loc 1");
	cr_assert_eq(end, vaddr(&d, ST_CODE_ADDR + ST_CODE_SIZE));
	Dwarf_Op *ops;
	size_t nops;
	cr_assert_eq(dwarf_frame_cfa(fr, &ops, &nops), 0);
	cr_assert_eq(nops, 1, "one bregx op");
	cr_assert_eq(ops[0].atom, DW_OP_bregx);
	cr_assert_eq(ops[0].number, 7, "rsp");
	cr_assert_eq(ops[0].number2, 16);
	free(fr);
	cr_assert_neq(dwarf_cfi_addrframe(cfi, vaddr(&d, ST_CODE_ADDR + ST_CODE_SIZE + 8), &fr), 0,
		      "no frame beyond the code");
	dwarf_cfi_end(cfi);
	close_dw(&d);
}

/* A caller whose source file is unknown: the inlined DIE keeps its call line, and has no
 * DW_AT_call_file (file index 0 would be invalid DWARF 4). */
Test(libdw, unknown_call_file_is_left_out)
{
	struct st_load l;
	st_load_init(&l, 1);
	l.methods[0].file = "";
	struct dw d;
	open_dw(&d, &l);
	Dwarf_Die cu, *scopes;
	uint64_t pc = vaddr(&d, ST_CODE_ADDR + 0x10);
	cr_assert_not_null(dwarf_addrdie(d.dbg, pc, &cu));
	cr_assert_gt(dwarf_getscopes(&cu, pc, &scopes), 0);
	cr_assert_eq(dwarf_tag(&scopes[0]), DW_TAG_inlined_subroutine);
	Dwarf_Attribute a;
	Dwarf_Word cl = 0;
	cr_assert_null(dwarf_attr(&scopes[0], DW_AT_call_file, &a));
	cr_assert_eq(dwarf_formudata(dwarf_attr(&scopes[0], DW_AT_call_line, &a), &cl), 0);
	cr_assert_eq(cl, 12);
	free(scopes);
	close_dw(&d);
}

/* Line of code address a (0: no row covers it). */
static int line_at(struct dw *d, uint64_t a)
{
	Dwarf_Die cu;
	int ln = 0;
	uint64_t pc = vaddr(d, a);
	if (!dwarf_addrdie(d->dbg, pc, &cu))
		return 0;
	Dwarf_Line *line = dwarf_getsrc_die(&cu, pc);
	if (line)
		dwarf_lineno(line, &ln);
	return ln;
}

/* A bad entry costs only itself; line 0 rows leave their range to the row before; the code
 * before the first row (a prologue) is on the first row's line. */
Test(libdw, bad_rows_dropped_one_by_one)
{
	struct st_load l;
	st_load_init(&l, 0);
	l.lines[0].addr = ST_CODE_ADDR + 0x04;		/* rows start after a prologue */
	l.lines[2].addr = ST_CODE_ADDR + ST_CODE_SIZE + 8;	/* outside: dropped */
	l.lines[3].line = 0;				/* no line: 0x18.. joins row 1 */
	struct dw d;
	open_dw(&d, &l);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR), 10, "prologue");
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x04), 10);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x08), 12);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x10), 12, "the outside row took nothing");
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x18), 12, "line 0 joined the row before");
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x20), 13, "rows after the bad ones are kept");
	cr_assert_eq(synth_lines_dropped(&l.in), 1);
	close_dw(&d);
}

/* A row a few bytes before the code start (a prologue's line) is the code's first bytes' line,
 * unless a row starts at the code; only the last such row counts, and rows further away than
 * SYNTH_LINE_BEFORE_MAX are dropped as before. */
Test(libdw, row_before_the_code_start_is_kept_at_the_start)
{
	struct st_load l;
	struct dw d;
	st_load_init(&l, 0);
	l.lines[0].addr = ST_CODE_ADDR - 4;	/* Foo:10, a prologue's row */
	open_dw(&d, &l);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR), 10, "the row before the code");
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x04), 10);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x08), 12);
	cr_assert_eq(synth_lines_dropped(&l.in), 0);
	close_dw(&d);

	/* two rows before the code: the later one; the earlier is dropped */
	l.lines[1].addr = ST_CODE_ADDR - 2;	/* Foo:12 */
	open_dw(&d, &l);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR), 12);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + 0x10), 40);
	cr_assert_eq(synth_lines_dropped(&l.in), 1);
	close_dw(&d);

	/* a row at the code start shadows the one before it */
	st_load_init(&l, 0);
	l.lines[0].addr = ST_CODE_ADDR - 4;
	l.lines[1].addr = ST_CODE_ADDR;		/* Foo:12 */
	open_dw(&d, &l);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR), 12);
	cr_assert_eq(synth_lines_dropped(&l.in), 1);
	close_dw(&d);

	/* too far before the code: another code's row, dropped; the next row starts the code */
	st_load_init(&l, 0);
	l.lines[0].addr = ST_CODE_ADDR - SYNTH_LINE_BEFORE_MAX - 1;
	open_dw(&d, &l);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR), 12);
	cr_assert_eq(synth_lines_dropped(&l.in), 1);
	close_dw(&d);

	/* the only row is before the code: it covers all of it */
	st_load_init(&l, 0);
	l.lines[0].addr = ST_CODE_ADDR - 1;
	l.in.nr_lines = 1;
	open_dw(&d, &l);
	cr_assert_eq(line_at(&d, ST_CODE_ADDR + ST_CODE_SIZE - 1), 10);
	cr_assert_eq(synth_lines_dropped(&l.in), 0);
	close_dw(&d);
}
