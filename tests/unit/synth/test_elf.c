/* test_elf.c - synth/elf.c read back with libelf: header and program headers as DWARF-NOTES.md
 * requires, sections, the symbol, both notes, the code at .text, unwind placement, machines. */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/unit/synth/st.h"

static Elf *build(struct st_load *l, struct synth_elf *e)
{
	char err[256];
	cr_assert_eq(synth_build(&l->in, e, JP_ERRBUF_LOG(err)), 0, "%s", err);
	Elf *elf = st_elf(e);
	cr_assert_not_null(elf, "%s", elf_errmsg(-1));
	return elf;
}

Test(elf, header_and_segments)
{
	struct st_load l;
	st_load_init(&l, 1);
	struct synth_elf e;
	Elf *elf = build(&l, &e);
	GElf_Ehdr eh;
	cr_assert_not_null(gelf_getehdr(elf, &eh));
	cr_assert_eq(eh.e_ident[EI_CLASS], ELFCLASS64);
	cr_assert_eq(eh.e_type, ET_DYN);
	cr_assert_eq(eh.e_machine, EM_X86_64);
	cr_assert_eq(eh.e_phoff, sizeof(Elf64_Ehdr), "phdrs right after the ELF header");
	cr_assert_eq(eh.e_entry, e.text_offset);
	cr_assert_eq(e.text_offset % 16, 0);
	cr_assert_eq(synth_text_offset(&l.in), e.text_offset);
	cr_assert_eq(e.text_offset, 0xe0);
	cr_assert_eq(e.map_len, ST_CODE_SIZE);
	size_t nph;
	cr_assert_eq(elf_getphdrnum(elf, &nph), 0);
	cr_assert_eq(nph, 2, "no unwind data: PT_LOAD and PT_NOTE only");
	GElf_Phdr load, note;
	gelf_getphdr(elf, 0, &load);
	gelf_getphdr(elf, 1, &note);
	cr_assert_eq(load.p_type, PT_LOAD);
	cr_assert_eq(load.p_flags, PF_R | PF_X);
	cr_assert_eq(load.p_offset, 0);
	cr_assert_eq(load.p_vaddr, 0);
	cr_assert_eq(load.p_filesz, e.text_offset + ST_CODE_SIZE, "load ends at the end of .text");
	cr_assert_eq(note.p_type, PT_NOTE);
	cr_assert_eq(note.p_filesz, 36);
	cr_assert_lt(note.p_offset, e.text_offset, "note inside the load");
	elf_end(elf);
	synth_elf_free(&e);
}

Test(elf, text_symbol_and_notes)
{
	struct st_load l;
	st_load_init(&l, 0);
	struct synth_elf e;
	Elf *elf = build(&l, &e);
	GElf_Shdr sh;
	Elf_Scn *text = st_section(elf, ".text", &sh);
	cr_assert_not_null(text);
	cr_assert_eq(sh.sh_addr, e.text_offset, ".text vaddr == file offset");
	cr_assert_eq(sh.sh_offset, e.text_offset);
	cr_assert_eq(sh.sh_size, ST_CODE_SIZE);
	cr_assert_eq(sh.sh_flags, SHF_ALLOC | SHF_EXECINSTR);
	cr_assert(!memcmp(e.data + sh.sh_offset, l.code, ST_CODE_SIZE));
	size_t text_index = elf_ndxscn(text);

	Elf_Scn *symtab = st_section(elf, ".symtab", &sh);
	cr_assert_not_null(symtab);
	cr_assert_eq(sh.sh_size / sh.sh_entsize, 2);
	cr_assert_eq(sh.sh_info, 1);
	GElf_Sym sym;
	Elf_Data *d = elf_getdata(symtab, NULL);
	cr_assert_not_null(gelf_getsym(d, 1, &sym));
	cr_assert_str_eq(elf_strptr(elf, sh.sh_link, sym.st_name), "Lcom/acme/Foo;bar(I)I");
	cr_assert_eq(GELF_ST_TYPE(sym.st_info), STT_FUNC);
	cr_assert_eq(GELF_ST_BIND(sym.st_info), STB_GLOBAL);
	cr_assert_eq(sym.st_value, e.text_offset);
	cr_assert_eq(sym.st_size, ST_CODE_SIZE);
	cr_assert_eq(sym.st_shndx, text_index);

	Elf_Scn *idn = st_section(elf, ".note.gnu.build-id", &sh);
	cr_assert_not_null(idn);
	cr_assert_eq(sh.sh_flags, SHF_ALLOC);
	GElf_Nhdr nh;
	size_t name_off, desc_off;
	d = elf_getdata(idn, NULL);
	cr_assert_gt(gelf_getnote(d, 0, &nh, &name_off, &desc_off), 0);
	cr_assert_eq(nh.n_type, NT_GNU_BUILD_ID);
	cr_assert_str_eq((char *)d->d_buf + name_off, "GNU");
	cr_assert_eq(nh.n_descsz, 20);
	cr_assert(!memcmp((char *)d->d_buf + desc_off, e.build_id, 20));

	Elf_Scn *jp = st_section(elf, ".note.jitprof", &sh);
	cr_assert_not_null(jp);
	d = elf_getdata(jp, NULL);
	cr_assert_gt(gelf_getnote(d, 0, &nh, &name_off, &desc_off), 0);
	cr_assert_eq(nh.n_type, SYNTH_NOTE_TYPE);
	cr_assert_eq(nh.n_descsz, 0);
	cr_assert_str_eq((char *)d->d_buf + name_off,
			 "jitprof/1 generation=2 code_index=5 timestamp=987654321 tier=3 flags=0 pid=1234 "
			 "code_addr=0x7f0000001000 name=Lcom/acme/Foo;bar(I)I");
	for (const char *s = ".debug_info\0.debug_abbrev\0.debug_line\0.debug_aranges\0"; *s;
	     s += strlen(s) + 1)
		cr_assert_not_null(st_section(elf, s, &sh), "%s missing", s);
	cr_assert_null(st_section(elf, ".eh_frame", &sh));
	elf_end(elf);
	synth_elf_free(&e);
}

Test(elf, unwind_tables_where_the_runtime_put_them)
{
	struct st_load l;
	st_load_init(&l, 0);
	st_add_unwind(&l);
	l.in.code_size = 61;	/* code end not 8-aligned: .eh_frame starts at ALIGN_8 */
	struct synth_elf e;
	Elf *elf = build(&l, &e);
	GElf_Shdr eh, hdr;
	cr_assert_not_null(st_section(elf, ".eh_frame", &eh));
	cr_assert_not_null(st_section(elf, ".eh_frame_hdr", &hdr));
	cr_assert_eq(eh.sh_addr, e.text_offset + 64);
	cr_assert_eq(eh.sh_size, 48);
	cr_assert_eq(hdr.sh_addr, eh.sh_addr + 48);
	cr_assert_eq(hdr.sh_size, 20);
	cr_assert(!memcmp(e.data + eh.sh_offset, l.unwind, 68), "blob copied verbatim");
	cr_assert_eq(e.map_len, 64 + 68, "ALIGN_8(code_size) + mapped_size");
	cr_assert_eq(synth_text_offset(&l.in), e.text_offset);
	cr_assert_eq(e.text_offset, 0x110);
	size_t nph;
	elf_getphdrnum(elf, &nph);
	cr_assert_eq(nph, 3);
	GElf_Phdr load, ehp;
	gelf_getphdr(elf, 0, &load);
	gelf_getphdr(elf, 2, &ehp);
	cr_assert_eq(ehp.p_type, PT_GNU_EH_FRAME);
	cr_assert_eq(ehp.p_vaddr, hdr.sh_addr);
	cr_assert_eq(ehp.p_filesz, 20);
	cr_assert_eq(load.p_filesz, hdr.sh_addr + 20, "load covers the unwind tables");
	elf_end(elf);
	synth_elf_free(&e);
}

Test(elf, machines)
{
	static const uint16_t m[] = { EM_X86_64, EM_AARCH64, EM_RISCV };
	for (size_t i = 0; i < 3; i++) {
		struct st_load l;
		st_load_init(&l, 1);
		l.in.e_machine = m[i];
		struct synth_elf e;
		Elf *elf = build(&l, &e);
		GElf_Ehdr eh;
		gelf_getehdr(elf, &eh);
		cr_assert_eq(eh.e_machine, m[i]);
		elf_end(elf);
		synth_elf_free(&e);
	}
	struct st_load l;
	st_load_init(&l, 0);
	l.in.e_machine = 0;	/* host */
	struct synth_elf e;
	Elf *elf = build(&l, &e);
	GElf_Ehdr eh;
	gelf_getehdr(elf, &eh);
#if defined(__x86_64__)
	cr_assert_eq(eh.e_machine, EM_X86_64);
#elif defined(__aarch64__)
	cr_assert_eq(eh.e_machine, EM_AARCH64);
#endif
	elf_end(elf);
	synth_elf_free(&e);
}

Test(elf, free_is_safe_twice)
{
	struct synth_elf e = { 0 };
	synth_elf_free(&e);
	synth_elf_free(NULL);
	struct st_load l;
	st_load_init(&l, 0);
	char err[64];
	cr_assert_eq(synth_build(&l.in, &e, JP_ERRBUF_LOG(err)), 0);
	synth_elf_free(&e);
	cr_assert_null(e.data);
	synth_elf_free(&e);
}

/* The image is what libelf's own writer produces: copy every header and section of it into a
 * new ELF written by elf_update (ELF_F_LAYOUT, same offsets) and compare the bytes. */
Test(elf, equals_elf_update_output)
{
	struct st_load l;
	st_load_init(&l, 1);
	st_add_unwind(&l);
	struct synth_elf e;
	Elf *src = build(&l, &e);
	int fd = memfd_create("synth-test", MFD_CLOEXEC);
	cr_assert_geq(fd, 0);
	Elf *dst = elf_begin(fd, ELF_C_WRITE, NULL);
	cr_assert_not_null(dst);
	elf_flagelf(dst, ELF_C_SET, ELF_F_LAYOUT);
	GElf_Ehdr eh;
	gelf_getehdr(src, &eh);
	cr_assert_not_null(gelf_newehdr(dst, ELFCLASS64));
	gelf_update_ehdr(dst, &eh);
	size_t nph;
	elf_getphdrnum(src, &nph);
	cr_assert_not_null(gelf_newphdr(dst, nph));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		gelf_getphdr(src, (int)i, &ph);
		gelf_update_phdr(dst, (int)i, &ph);
	}
	for (Elf_Scn *s = elf_nextscn(src, NULL); s; s = elf_nextscn(src, s)) {
		GElf_Shdr sh;
		gelf_getshdr(s, &sh);
		Elf_Scn *d = elf_newscn(dst);
		gelf_update_shdr(d, &sh);
		Elf_Data *in = elf_getdata(s, NULL), *out = elf_newdata(d);
		*out = *in;
	}
	off_t size = elf_update(dst, ELF_C_WRITE);
	cr_assert_eq(size, (off_t)e.size, "elf_update wrote %lld bytes, synth %zu",
		     (long long)size, e.size);
	uint8_t *back = malloc(e.size);
	cr_assert_eq(pread(fd, back, e.size, 0), (ssize_t)e.size);
	for (size_t i = 0; i < e.size; i++)
		cr_assert_eq(back[i], e.data[i], "byte %zu differs", i);
	free(back);
	elf_end(dst);
	close(fd);
	elf_end(src);
	synth_elf_free(&e);
}

/* synth_build_symbols: the id given, no DWARF, and everything a symbol lookup reads as the
 * whole ELF has it: .text at the same offset with the code, the symbol, the unwind data. */
Test(elf, symbols_only_keeps_text_symbol_unwind_under_the_given_id)
{
	struct st_load l;
	st_load_init(&l, 1);
	st_add_unwind(&l);
	struct synth_elf full, lite;
	char err[256];
	Elf *fe = build(&l, &full);
	uint8_t id[SYNTH_BUILD_ID_SIZE];
	memcpy(id, full.build_id, sizeof(id));
	cr_assert_eq(synth_build_symbols(&l.in, id, &lite, JP_ERRBUF_LOG(err)), 0, "%s", err);
	Elf *le = st_elf(&lite);
	cr_assert_not_null(le, "%s", elf_errmsg(-1));
	cr_assert_arr_eq(lite.build_id, id, sizeof(id));
	cr_assert_eq(lite.text_offset, full.text_offset);
	cr_assert_eq(lite.map_len, full.map_len);
	cr_assert_lt(lite.size, full.size);
	GElf_Shdr sh;
	for (const char *const *n = (const char *const[]){ ".debug_info", ".debug_line",
							   ".debug_abbrev", ".debug_aranges", NULL };
	     *n; n++) {
		cr_assert_not_null(st_section(fe, *n, &sh), "the whole ELF has %s", *n);
		cr_assert_null(st_section(le, *n, &sh), "a symbols-only ELF has %s", *n);
	}
	/* the same bytes from the program headers through .eh_frame_hdr: the allocated part
	 * (the ELF header differs: its section count and table offset) */
	GElf_Shdr ft, lt;
	cr_assert_not_null(st_section(fe, ".eh_frame_hdr", &ft));
	cr_assert_not_null(st_section(le, ".eh_frame_hdr", &lt));
	cr_assert_eq(lt.sh_offset, ft.sh_offset);
	cr_assert_eq(memcmp(lite.data + sizeof(Elf64_Ehdr), full.data + sizeof(Elf64_Ehdr),
			    ft.sh_offset + ft.sh_size - sizeof(Elf64_Ehdr)), 0,
		     "the loaded part of the two ELFs differs");
	GElf_Shdr fsym, lsym;
	Elf_Scn *fs = st_section(fe, ".symtab", &fsym), *ls = st_section(le, ".symtab", &lsym);
	cr_assert(fs && ls);
	GElf_Sym a, b;
	cr_assert_not_null(gelf_getsym(elf_getdata(fs, NULL), 1, &a));
	cr_assert_not_null(gelf_getsym(elf_getdata(ls, NULL), 1, &b));
	cr_assert_str_eq(elf_strptr(le, lsym.sh_link, b.st_name),
			 elf_strptr(fe, fsym.sh_link, a.st_name));
	cr_assert_eq(b.st_value, a.st_value);
	cr_assert_eq(b.st_size, a.st_size);
	elf_end(fe);
	elf_end(le);
	synth_elf_free(&full);
	synth_elf_free(&lite);
}

/* synth_symbol: the PT_LOAD and the symbol the ELF would hold, with and without unwind data
 * (which moves the .text offset and extends the load), and the same refusal. */
Test(elf, symbol_without_elf_is_what_the_elf_holds)
{
	for (int unwind = 0; unwind < 2; unwind++) {
		struct st_load l;
		st_load_init(&l, 1);
		if (unwind)
			st_add_unwind(&l);
		struct synth_elf e;
		Elf *elf = build(&l, &e);
		struct synth_symbol sym;
		char err[256];
		cr_assert_eq(synth_symbol(&l.in, &sym, JP_ERRBUF_LOG(err)), 0, "%s", err);
		GElf_Phdr load;
		cr_assert_not_null(gelf_getphdr(elf, 0, &load));
		cr_assert_eq(load.p_type, PT_LOAD);
		cr_assert_eq(load.p_offset, 0);
		cr_assert_eq(load.p_vaddr, 0);
		cr_assert_eq(sym.load_size, load.p_filesz, "unwind %d: %llu vs %llu", unwind,
			     (unsigned long long)sym.load_size, (unsigned long long)load.p_filesz);
		GElf_Shdr sh;
		Elf_Scn *ss = st_section(elf, ".symtab", &sh);
		cr_assert_not_null(ss);
		GElf_Sym s1;
		cr_assert_not_null(gelf_getsym(elf_getdata(ss, NULL), 1, &s1));
		cr_assert_str_eq(sym.name, elf_strptr(elf, sh.sh_link, s1.st_name));
		cr_assert_eq(sym.value, s1.st_value);
		cr_assert_eq(sym.size, s1.st_size);
		elf_end(elf);
		synth_elf_free(&e);
	}
	struct st_load bad;
	st_load_init(&bad, 0);
	bad.in.code_size = 0;
	struct synth_symbol sym;
	cr_assert_lt(synth_symbol(&bad.in, &sym, NULL), 0, "code_size 0 makes no ELF");
}

/* synth_build_known: under the id synth_build_id gives the input, the very bytes synth_build
 * makes (lines, inline tree, unwind data and all), without hashing again; an input synth
 * refuses is refused the same way whatever id is given. */
Test(elf, known_id_builds_the_same_bytes)
{
	struct st_load l;
	st_load_init(&l, 1);
	st_add_unwind(&l);
	struct synth_elf full, known;
	char err[256];
	uint8_t id[SYNTH_BUILD_ID_SIZE];
	cr_assert_eq(synth_build(&l.in, &full, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(synth_build_id(&l.in, id, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(synth_build_known(&l.in, id, &known, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(known.size, full.size);
	cr_assert_eq(memcmp(known.data, full.data, full.size), 0, "the ELFs differ");
	cr_assert_arr_eq(known.build_id, full.build_id, SYNTH_BUILD_ID_SIZE);
	cr_assert_eq(known.text_offset, full.text_offset);
	synth_elf_free(&known);
	l.in.code_size = 0;	/* no code: refused by both */
	cr_assert_lt(synth_build(&l.in, &known, JP_ERRBUF_LOG(err)), 0);
	cr_assert_lt(synth_build_known(&l.in, id, &known, JP_ERRBUF_LOG(err)), 0);
	synth_elf_free(&known);
	synth_elf_free(&full);
}
