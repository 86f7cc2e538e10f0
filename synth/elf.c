/* elf.c - lays out one ELF per code load in memory, every structure encoded by libelf; every
 * offset is ours, so the bytes are deterministic (and equal to what elf_update writes with
 * ELF_F_LAYOUT for the same plan). Layout (docs/synth.md, "ELF layout"): program headers after
 * the ELF header, build-id note, .text at vaddr == file offset, unwind tables, then the
 * non-allocated notes, DWARF and symbols. docs/synth.md draws it. */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/dwarf_int.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uint64_t)(a) - 1))

enum { S_NOTE_ID = 1, S_TEXT, S_EH, S_EH_HDR, S_NOTE_JP, S_ABBREV, S_INFO, S_LINE, S_ARANGES,
       S_SYMTAB, S_STRTAB, S_SHSTRTAB, S_COUNT };

static const char *const sec_names[S_COUNT] = {
	[S_NOTE_ID] = ".note.gnu.build-id", [S_TEXT] = ".text", [S_EH] = ".eh_frame",
	[S_EH_HDR] = ".eh_frame_hdr", [S_NOTE_JP] = ".note.jitprof",
	[S_ABBREV] = ".debug_abbrev", [S_INFO] = ".debug_info", [S_LINE] = ".debug_line",
	[S_ARANGES] = ".debug_aranges", [S_SYMTAB] = ".symtab", [S_STRTAB] = ".strtab",
	[S_SHSTRTAB] = ".shstrtab",
};

/* One planned section: where it goes and what it holds. */
struct sec {
	const void *buf;
	uint64_t size, off, align, flags;
	uint32_t type, entsize, link, info;
	Elf_Type dtype;
	int present;
	size_t index;	/* in the file (absent sections take none) */
};

struct plan {
	struct sec s[S_COUNT];
	uint64_t alloc_end, shoff;
	size_t nphdr, nsec;
};

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static int elf_ok;
static void init_libelf(void)
{
	elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

/* Largest power of two (up to max) dividing off: keeps eu-elflint's alignment check true for
 * unwind tables the runtime placed at whatever offset follows its code. */
static uint64_t align_of(uint64_t off, uint64_t max)
{
	uint64_t a = 1;
	while (a < max && !(off & a))
		a <<= 1;
	return a;
}

static void put_sec(struct plan *p, int id, const void *buf, uint64_t size, uint32_t type,
		    uint64_t flags, uint64_t align, uint64_t off)
{
	struct sec *s = &p->s[id];
	s->buf = buf;
	s->size = size;
	s->type = type;
	s->flags = flags;
	s->align = align;
	s->off = off;
	s->dtype = ELF_T_BYTE;
	s->present = 1;
}

/* Non-allocated sections follow each other at their alignment. */
static uint64_t put_tail(struct plan *p, int id, const void *buf, uint64_t size,
			 uint32_t type, uint64_t align, uint64_t off)
{
	off = ALIGN_UP(off, align);
	put_sec(p, id, buf, size, type, 0, align, off);
	return off + size;
}

static void note_header(struct synth_buf *b, const char *name, uint32_t descsz, uint32_t type)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	synth_buf_u32(b, namesz);
	synth_buf_u32(b, descsz);
	synth_buf_u32(b, type);
	synth_buf_bytes(b, name, namesz);
	synth_buf_zero(b, ALIGN_UP(namesz, 4) - namesz);
}

static void build_notes(struct synth_buf *idn, struct synth_buf *jp, const struct synth_input *in,
			const uint8_t id[SYNTH_BUILD_ID_SIZE])
{
	note_header(idn, "GNU", SYNTH_BUILD_ID_SIZE, NT_GNU_BUILD_ID);
	synth_buf_bytes(idn, id, SYNTH_BUILD_ID_SIZE);

	/* The text is the note's name, so readelf -n prints it as the owner. */
	char head[192];
	int n = snprintf(head, sizeof(head), SYNTH_NOTE_PREFIX "generation=%" PRIu32
			 " code_index=%" PRIu64 " timestamp=%" PRIu64 " tier=%" PRIu32
			 " flags=%" PRIu32 " pid=%" PRIu32 " code_addr=0x%" PRIx64 " name=",
			 in->generation, in->code_index, in->timestamp, in->tier, in->load_flags,
			 in->pid, in->code_addr);
	size_t hlen = n > 0 && (size_t)n < sizeof(head) ? (size_t)n : 0;
	size_t namesz = hlen + strlen(in->name) + 1;
	synth_buf_u32(jp, (uint32_t)namesz);
	synth_buf_u32(jp, 0);
	synth_buf_u32(jp, SYNTH_NOTE_TYPE);
	synth_buf_bytes(jp, head, hlen);
	synth_buf_str(jp, in->name);
	synth_buf_zero(jp, ALIGN_UP(namesz, 4) - namesz);
}

struct parts {
	struct synth_buf idnote, jpnote, strtab, shstrtab;
	struct synth_dwarf dw;
	Elf64_Sym sym[2];
};

static void free_parts(struct parts *pt)
{
	synth_buf_free(&pt->idnote);
	synth_buf_free(&pt->jpnote);
	synth_buf_free(&pt->strtab);
	synth_buf_free(&pt->shstrtab);
	synth_dwarf_free(&pt->dw);
}

/* namesz, descsz, type, "GNU\0", the id */
#define ID_NOTE_SIZE (12 + 4 + SYNTH_BUILD_ID_SIZE)

uint64_t synth_text_offset(const struct synth_input *in)
{
	/* The prologue CFI (prologue.c) comes with an .eh_frame_hdr. */
	size_t nphdr = (in->unwind_size ? in->eh_frame_hdr_size != 0 : synth_prologue_cfi(in))
		       ? 3 : 2;
	return ALIGN_UP(sizeof(Elf64_Ehdr) + nphdr * sizeof(Elf64_Phdr) + ID_NOTE_SIZE, 16);
}

/* End of the allocated part (.text, then the unwind tables where the runtime put them): the
 * one PT_LOAD covers [0, this). */
static uint64_t alloc_end_of(const struct synth_input *in)
{
	uint64_t text = synth_text_offset(in);
	struct synth_buf blob = { 0 };
	uint64_t size = in->unwind_size;
	if (!size && synth_prologue_eh_frame(in, &blob) > 0)	/* the CFI build() adds */
		size = blob.len;
	synth_buf_free(&blob);
	if (!size)
		return text + in->code_size;
	return text + (ALIGN_UP(in->code_addr + in->code_size, 8) - in->code_addr) + size;
}

static void plan_layout(struct plan *p, struct parts *pt, const struct synth_input *in)
{
	memset(p, 0, sizeof(*p));
	p->nphdr = in->unwind_size && in->eh_frame_hdr_size ? 3 : 2;
	uint64_t note_off = sizeof(Elf64_Ehdr) + p->nphdr * sizeof(Elf64_Phdr);
	uint64_t text = synth_text_offset(in);
	put_sec(p, S_NOTE_ID, pt->idnote.p, pt->idnote.len, SHT_NOTE, SHF_ALLOC, 4, note_off);
	put_sec(p, S_TEXT, in->code, in->code_size, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16,
		text);
	p->alloc_end = text + in->code_size;
	if (in->unwind_size) {
		/* Where the runtime put it: ALIGN_8(code end) in its own address space (§2.8), so
		 * the blob's pc-relative pointers stay true without relocation. */
		uint64_t eh = text + (ALIGN_UP(in->code_addr + in->code_size, 8) - in->code_addr);
		uint64_t ehsz = in->unwind_size - in->eh_frame_hdr_size;
		if (ehsz)
			put_sec(p, S_EH, in->unwind, ehsz, SHT_PROGBITS, SHF_ALLOC,
				align_of(eh, 8), eh);
		if (in->eh_frame_hdr_size)
			put_sec(p, S_EH_HDR, in->unwind + ehsz, in->eh_frame_hdr_size,
				SHT_PROGBITS, SHF_ALLOC, align_of(eh + ehsz, 4), eh + ehsz);
		p->alloc_end = eh + in->unwind_size;
	}
	uint64_t off = p->alloc_end;
	off = put_tail(p, S_NOTE_JP, pt->jpnote.p, pt->jpnote.len, SHT_NOTE, 4, off);
	if (pt->dw.info.len) {	/* none in a symbols-only ELF (synth_build_symbols) */
		off = put_tail(p, S_ABBREV, pt->dw.abbrev.p, pt->dw.abbrev.len, SHT_PROGBITS, 1,
			       off);
		off = put_tail(p, S_INFO, pt->dw.info.p, pt->dw.info.len, SHT_PROGBITS, 1, off);
		off = put_tail(p, S_LINE, pt->dw.line.p, pt->dw.line.len, SHT_PROGBITS, 1, off);
		off = put_tail(p, S_ARANGES, pt->dw.aranges.p, pt->dw.aranges.len, SHT_PROGBITS,
			       1, off);
	}
	off = put_tail(p, S_SYMTAB, pt->sym, sizeof(pt->sym), SHT_SYMTAB, 8, off);
	p->s[S_SYMTAB].dtype = ELF_T_SYM;
	p->s[S_SYMTAB].entsize = sizeof(Elf64_Sym);
	p->s[S_SYMTAB].info = 1;	/* first non-local symbol */
	off = put_tail(p, S_STRTAB, pt->strtab.p, pt->strtab.len, SHT_STRTAB, 1, off);
	/* Names of the sections present, in index order (emit() counts offsets alike). */
	synth_buf_u8(&pt->shstrtab, 0);
	for (int i = 1; i < S_SHSTRTAB; i++)
		if (p->s[i].present)
			synth_buf_str(&pt->shstrtab, sec_names[i]);
	synth_buf_str(&pt->shstrtab, sec_names[S_SHSTRTAB]);
	off = put_tail(p, S_SHSTRTAB, pt->shstrtab.p, pt->shstrtab.len, SHT_STRTAB, 1, off);
	p->shoff = ALIGN_UP(off, 8);
	for (int i = 1; i < S_COUNT; i++)
		if (p->s[i].present)
			p->s[i].index = ++p->nsec;
	p->s[S_SYMTAB].link = (uint32_t)p->s[S_STRTAB].index;
}

static void set_phdr(Elf64_Phdr *ph, uint32_t type, uint32_t flags, const struct sec *s,
		     uint64_t align)
{
	ph->p_type = type;
	ph->p_flags = flags;
	ph->p_offset = ph->p_vaddr = ph->p_paddr = s->off;
	ph->p_filesz = ph->p_memsz = s->size;
	ph->p_align = align;
}

/* libelf converts each structure to the file's representation (what elf_update does for a
 * file); placing them in one buffer ourselves saves the descriptor and the ~15 write syscalls
 * per ELF that elf_update needs, which cost 20-30 us of the ~35 us per ELF (docs/synth.md). */
static int xlate(uint8_t *dst, const void *src, size_t size, Elf_Type type)
{
	Elf_Data from = { .d_buf = (void *)src, .d_type = type, .d_size = size,
			  .d_version = EV_CURRENT };
	Elf_Data to = { .d_buf = dst, .d_size = size, .d_version = EV_CURRENT };
	return elf64_xlatetof(&to, &from, ELFDATA2LSB) ? 0 : -1;
}

static void fill_ehdr(Elf64_Ehdr *eh, const struct plan *p, const struct synth_input *in,
		      uint64_t text)
{
	memset(eh, 0, sizeof(*eh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = ET_DYN;
	eh->e_machine = synth_machine(in);
	/* RISC-V Linux code is RVC + double-float ABI; disassemblers read it from e_flags. */
	eh->e_flags = eh->e_machine == EM_RISCV ? EF_RISCV_RVC | EF_RISCV_FLOAT_ABI_DOUBLE : 0;
	eh->e_version = EV_CURRENT;
	eh->e_entry = text;
	eh->e_phoff = sizeof(Elf64_Ehdr);
	eh->e_shoff = p->shoff;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = (uint16_t)p->nphdr;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (uint16_t)(p->nsec + 1);
	eh->e_shstrndx = (uint16_t)p->s[S_SHSTRTAB].index;
}

static void fill_phdrs(Elf64_Phdr *ph, const struct plan *p)
{
	memset(ph, 0, 3 * sizeof(*ph));
	/* The R+X load covers the note too, or gdb warns that it lies outside every segment. */
	struct sec load = { .off = 0, .size = p->alloc_end };
	set_phdr(&ph[0], PT_LOAD, PF_R | PF_X, &load, 0x1000);
	set_phdr(&ph[1], PT_NOTE, PF_R, &p->s[S_NOTE_ID], 4);
	if (p->nphdr > 2)
		set_phdr(&ph[2], PT_GNU_EH_FRAME, PF_R, &p->s[S_EH_HDR], 4);
}

/* Section headers, and each section's bytes into the image. */
static int place_sections(uint8_t *img, Elf64_Shdr *shdrs, const struct plan *p)
{
	size_t name_off = 1, k = 1;
	memset(&shdrs[0], 0, sizeof(shdrs[0]));
	for (int i = 1; i < S_COUNT; i++) {
		const struct sec *s = &p->s[i];
		if (!s->present)
			continue;
		Elf64_Shdr *sh = &shdrs[k++];
		memset(sh, 0, sizeof(*sh));
		sh->sh_name = (uint32_t)name_off;
		name_off += strlen(sec_names[i]) + 1;
		sh->sh_type = s->type;
		sh->sh_flags = s->flags;
		sh->sh_addr = s->flags & SHF_ALLOC ? s->off : 0;
		sh->sh_offset = s->off;
		sh->sh_size = s->size;
		sh->sh_link = s->link;
		sh->sh_info = s->info;
		sh->sh_addralign = s->align;
		sh->sh_entsize = s->entsize;
		if (s->dtype != ELF_T_BYTE) {
			if (xlate(img + s->off, s->buf, s->size, s->dtype))
				return -1;
		} else if (s->size) {
			memcpy(img + s->off, s->buf, s->size);
		}
	}
	return 0;
}

static int write_elf(const struct plan *p, const struct synth_input *in, uint64_t text,
		     struct synth_elf *out, const struct jp_log *log)
{
	size_t size = p->shoff + (p->nsec + 1) * sizeof(Elf64_Shdr);
	uint8_t *img = calloc(1, size);
	if (!img)
		return synth_err(log, -ENOMEM, "out of memory for a %zu-byte ELF", size);
	Elf64_Ehdr eh;
	Elf64_Phdr ph[3];
	Elf64_Shdr sh[S_COUNT];
	fill_ehdr(&eh, p, in, text);
	fill_phdrs(ph, p);
	if (xlate(img, &eh, sizeof(eh), ELF_T_EHDR) ||
	    xlate(img + eh.e_phoff, ph, p->nphdr * sizeof(ph[0]), ELF_T_PHDR) ||
	    place_sections(img, sh, p) ||
	    xlate(img + p->shoff, sh, (p->nsec + 1) * sizeof(sh[0]), ELF_T_SHDR)) {
		free(img);
		return synth_err(log, -EIO, "libelf: %s", elf_errmsg(-1));
	}
	out->data = img;
	out->size = size;
	return 0;
}

/* The ELF of in under the build-id out->build_id already holds (in validated), with its
 * DWARF unless symbols_only. */
static int build(const struct synth_input *in, int symbols_only, struct synth_elf *out,
		 const struct jp_log *log)
{
	int rc;
	pthread_once(&elf_once, init_libelf);
	if (!elf_ok)
		return synth_err(log, -ENOSYS, "libelf: %s", elf_errmsg(-1));

	/* HotSpot code without unwind data: the CFI of its prologue in its place (prologue.c);
	 * it derives from the code and tier alone, so the build-id stays the input's. */
	struct synth_input with;
	struct synth_buf cfi = { 0 };
	in = synth_input_with_cfi(in, &with, &cfi);
	if (cfi.oom)
		return synth_err(log, -ENOMEM, "out of memory building the prologue's CFI");
	struct parts pt = { 0 };
	uint64_t text = synth_text_offset(in);
	if (!symbols_only && (rc = synth_dwarf_build(in, text, &pt.dw, log)))
		return rc;
	build_notes(&pt.idnote, &pt.jpnote, in, out->build_id);
	synth_buf_u8(&pt.strtab, 0);
	synth_buf_str(&pt.strtab, in->name);
	struct plan p;
	plan_layout(&p, &pt, in);

	pt.sym[1].st_name = 1;
	pt.sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	pt.sym[1].st_shndx = (uint16_t)p.s[S_TEXT].index;
	pt.sym[1].st_value = text;
	pt.sym[1].st_size = in->code_size;

	if (pt.idnote.oom || pt.jpnote.oom || pt.strtab.oom || pt.shstrtab.oom)
		rc = synth_err(log, -ENOMEM, "out of memory building sections");
	else
		rc = write_elf(&p, in, text, out, log);
	free_parts(&pt);
	synth_buf_free(&cfi);
	if (rc)
		return rc;
	out->text_offset = text;
	out->map_len = in->mapped_size ? ALIGN_UP(in->code_size, 8) + in->mapped_size
				       : in->code_size;
	return 0;
}

int synth_build(const struct synth_input *in, struct synth_elf *out, const struct jp_log *log)
{
	memset(out, 0, sizeof(*out));
	int rc = synth_build_id(in, out->build_id, log);	/* validates too */
	if (rc)
		return rc;
	return build(in, 0, out, log);
}

int synth_build_known(const struct synth_input *in, const uint8_t id[SYNTH_BUILD_ID_SIZE],
		      struct synth_elf *out, const struct jp_log *log)
{
	memset(out, 0, sizeof(*out));
	int rc = synth_validate(in, log);
	if (rc)
		return rc;
	memcpy(out->build_id, id, SYNTH_BUILD_ID_SIZE);
	return build(in, 0, out, log);
}

/* in without what only line and inline lookups read, validated into *lite. 0 or the error. */
static int symbols_input(const struct synth_input *in, struct synth_input *lite,
			 const struct jp_log *log)
{
	*lite = *in;
	lite->lines = NULL;
	lite->nr_lines = 0;
	lite->inl = NULL;
	return synth_validate(lite, log);
}

int synth_build_symbols(const struct synth_input *in, const uint8_t id[SYNTH_BUILD_ID_SIZE],
			struct synth_elf *out, const struct jp_log *log)
{
	struct synth_input lite;
	memset(out, 0, sizeof(*out));
	int rc = symbols_input(in, &lite, log);
	if (rc)
		return rc;
	memcpy(out->build_id, id, SYNTH_BUILD_ID_SIZE);
	return build(&lite, 1, out, log);
}

int synth_symbol(const struct synth_input *in, struct synth_symbol *out,
		 const struct jp_log *log)
{
	struct synth_input lite;	/* what synth_build_symbols validates */
	memset(out, 0, sizeof(*out));
	int rc = symbols_input(in, &lite, log);
	if (rc)
		return rc;
	out->load_size = alloc_end_of(in);
	out->value = synth_text_offset(in);
	out->size = in->code_size;
	out->name = in->name;
	return 0;
}

void synth_elf_free(struct synth_elf *e)
{
	if (!e)
		return;
	free(e->data);
	memset(e, 0, sizeof(*e));
}
