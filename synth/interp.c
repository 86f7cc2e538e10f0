/* interp.c - one ELF per process for its interpreted methods (synth.h, "A process's
 * interpreted methods"): a symbol and a DWARF subprogram per method over one byte per bytecode,
 * line rows per bci, so perf, addr2line and report name an interpreter frame inject placed at
 * .text + offset + bci. The image is laid out here in one buffer (its structures are few and
 * fixed); the DWARF pieces are dwarf.c's and dwarf_line.c's. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libcrypto's SHA-1 itself, as buildid_hash.c uses it (no allocation, nothing to free). */
#include "lib/sha1.h"
#include "synth/dwarf_int.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define NPHDR 2
#define ID_NOTE_SIZE (12 + 4 + SYNTH_BUILD_ID_SIZE)
#define TEXT_OFF ALIGN_UP(sizeof(Elf64_Ehdr) + NPHDR * sizeof(Elf64_Phdr) + ID_NOTE_SIZE, 16)
#define NAME_PREFIX "jitted-"
#define NAME_INFIX "-interp"

enum { S_NOTE_ID = 1, S_TEXT, S_ABBREV, S_INFO, S_LINE, S_ARANGES, S_SYMTAB, S_STRTAB,
       S_SHSTRTAB, S_COUNT };

static const char *const sec_names[S_COUNT] = {
	[S_NOTE_ID] = ".note.gnu.build-id", [S_TEXT] = ".text", [S_ABBREV] = ".debug_abbrev",
	[S_INFO] = ".debug_info", [S_LINE] = ".debug_line", [S_ARANGES] = ".debug_aranges",
	[S_SYMTAB] = ".symtab", [S_STRTAB] = ".strtab", [S_SHSTRTAB] = ".shstrtab",
};

struct parts {
	struct synth_dwarf dw;
	struct synth_buf sym, str, prog;
	struct synth_dw_files files;
	struct jd_line *rows;
};

static void parts_free(struct parts *p)
{
	synth_dwarf_free(&p->dw);
	synth_buf_free(&p->sym);
	synth_buf_free(&p->str);
	synth_buf_free(&p->prog);
	synth_dw_files_free(&p->files);
	free(p->rows);
}

/* The usable rows of m at [lo, lo + size): inside the method, in bci order (a row at the
 * bci of the one before replaces it: the later run is the one a bci search finds), a
 * negative line as 0 (no line), and line 0 from bci 0 up to the first row (the bytecodes
 * before it are the file's, at no line). Returns how many, in rows (room for nr_lines + 1). */
static size_t method_rows(const struct synth_interp_method *m, uint64_t lo, struct jd_line *rows)
{
	size_t n = 1;
	rows[0] = (struct jd_line){ .addr = lo, .line = 0, .file = m->file };
	for (uint32_t i = 0; i < m->nr_lines; i++) {
		const struct jd_method_line *l = &m->lines[i];
		if (l->bci >= m->size || lo + l->bci < rows[n - 1].addr)
			continue;
		if (lo + l->bci == rows[n - 1].addr)
			n--;
		rows[n++] = (struct jd_line){ .addr = lo + l->bci, .line = l->line > 0 ? l->line : 0,
					      .file = m->file };
	}
	return n;
}

static void put_sym(struct synth_buf *b, uint32_t name, uint8_t info, uint16_t shndx,
		    uint64_t value, uint64_t size)
{
	synth_buf_u32(b, name);
	synth_buf_u8(b, info);
	synth_buf_u8(b, 0);		/* st_other */
	synth_buf_u16(b, shndx);
	synth_buf_u64(b, value);
	synth_buf_u64(b, size);
}

/* Symbols, subprograms and line sequences of every method; the text's size in *text. */
static int encode(const struct synth_interp *in, struct parts *p, uint64_t *text)
{
	uint64_t off = 0;
	size_t max_rows = 0;
	for (size_t k = 0; k < in->n; k++) {
		if (!in->m[k].size || in->m[k].size > SYNTH_INTERP_METHOD_MAX || !in->m[k].name)
			return -EINVAL;
		if (in->m[k].nr_lines > max_rows)
			max_rows = in->m[k].nr_lines;
		off += in->m[k].size;
	}
	*text = off;
	if (!(p->rows = malloc((max_rows + 1) * sizeof(*p->rows))))
		return -ENOMEM;
	synth_dw_abbrev(&p->dw.abbrev);
	synth_dw_cu_head(&p->dw.info, "interpreted", 1, TEXT_OFF, *text, NULL);
	synth_buf_u8(&p->str, 0);
	put_sym(&p->sym, 0, 0, 0, 0, 0);
	off = TEXT_OFF;
	for (size_t k = 0; k < in->n; k++) {
		const struct synth_interp_method *m = &in->m[k];
		/* the names are report's, demangled whole: any length */
		if (p->str.len > UINT32_MAX - strlen(m->name) - 1)
			return -EFBIG;
		put_sym(&p->sym, (uint32_t)p->str.len, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), S_TEXT,
			off, m->size);
		synth_buf_str(&p->str, m->name);
		synth_dw_sub(&p->dw.info, m->name, m->linkage ? m->linkage : m->name, off, m->size);
		size_t n = m->file && m->file[0] ? method_rows(m, off, p->rows) : 0;
		if (n)	/* a method without a file gets no sequence: no line, not its neighbour's */
			synth_dw_line_seq(&p->prog, &p->files, p->rows, n, off, m->size, off);
		off += m->size;
	}
	synth_buf_u8(&p->dw.info, 0);	/* end of the CU's children */
	if (p->dw.info.len > UINT32_MAX - 16)
		return -EFBIG;
	synth_buf_put_u32(&p->dw.info, 0, (uint32_t)(p->dw.info.len - 4));
	synth_dw_line_wrap(&p->dw.line, &p->files, &p->prog);
	synth_dw_aranges(&p->dw.aranges, TEXT_OFF, *text);
	return p->dw.abbrev.oom || p->dw.info.oom || p->dw.line.oom || p->dw.aranges.oom ||
	       p->sym.oom || p->str.oom || p->prog.oom || p->files.oom ? -ENOMEM : 0;
}

struct sec { const struct synth_buf *b; uint64_t off, size, align, addr, flags;
	     uint32_t type, link, info, entsize; };

static void ehdr(struct synth_buf *b, uint16_t machine, uint64_t shoff)
{
	uint8_t ident[EI_NIDENT] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				     EV_CURRENT, ELFOSABI_NONE };
	synth_buf_bytes(b, ident, sizeof(ident));
	synth_buf_u16(b, ET_DYN);
	synth_buf_u16(b, machine);
	synth_buf_u32(b, EV_CURRENT);
	synth_buf_u64(b, TEXT_OFF);		/* e_entry */
	synth_buf_u64(b, sizeof(Elf64_Ehdr));	/* e_phoff */
	synth_buf_u64(b, shoff);
	synth_buf_u32(b, 0);			/* e_flags */
	synth_buf_u16(b, sizeof(Elf64_Ehdr));
	synth_buf_u16(b, sizeof(Elf64_Phdr));
	synth_buf_u16(b, NPHDR);
	synth_buf_u16(b, sizeof(Elf64_Shdr));
	synth_buf_u16(b, S_COUNT);
	synth_buf_u16(b, S_SHSTRTAB);
}

static void phdr(struct synth_buf *b, uint32_t type, uint32_t flags, uint64_t off, uint64_t size,
		 uint64_t align)
{
	synth_buf_u32(b, type);
	synth_buf_u32(b, flags);
	synth_buf_u64(b, off);	/* p_offset, p_vaddr, p_paddr: vaddr == offset */
	synth_buf_u64(b, off);
	synth_buf_u64(b, off);
	synth_buf_u64(b, size);
	synth_buf_u64(b, size);
	synth_buf_u64(b, align);
}

static void shdr(struct synth_buf *b, uint32_t name, const struct sec *s)
{
	synth_buf_u32(b, name);
	synth_buf_u32(b, s->type);
	synth_buf_u64(b, s->flags);
	synth_buf_u64(b, s->addr);
	synth_buf_u64(b, s->off);
	synth_buf_u64(b, s->size);
	synth_buf_u32(b, s->link);
	synth_buf_u32(b, s->info);
	synth_buf_u64(b, s->align);
	synth_buf_u64(b, s->entsize);
}

/* The image: headers, the id note (zeroed), zeros for .text, the rest where plan says. */
static void lay_out(const struct synth_interp *in, struct parts *p, uint64_t text,
		    struct synth_buf *img)
{
	struct synth_buf shstr = { 0 };
	struct sec s[S_COUNT] = { 0 };
	const struct synth_buf *tail[S_COUNT] = {
		[S_ABBREV] = &p->dw.abbrev, [S_INFO] = &p->dw.info, [S_LINE] = &p->dw.line,
		[S_ARANGES] = &p->dw.aranges, [S_SYMTAB] = &p->sym, [S_STRTAB] = &p->str,
		[S_SHSTRTAB] = &shstr,
	};
	synth_buf_u8(&shstr, 0);
	for (int i = 1; i < S_COUNT; i++)
		synth_buf_str(&shstr, sec_names[i]);
	uint64_t note = sizeof(Elf64_Ehdr) + NPHDR * sizeof(Elf64_Phdr);
	s[S_NOTE_ID] = (struct sec){ .off = note, .addr = note, .size = ID_NOTE_SIZE, .align = 4,
				     .type = SHT_NOTE, .flags = SHF_ALLOC };
	s[S_TEXT] = (struct sec){ .off = TEXT_OFF, .addr = TEXT_OFF, .size = text, .align = 16,
				  .type = SHT_PROGBITS, .flags = SHF_ALLOC | SHF_EXECINSTR };
	uint64_t off = TEXT_OFF + text;
	for (int i = S_ABBREV; i < S_COUNT; i++) {
		uint64_t a = i == S_SYMTAB ? 8 : 1;
		off = ALIGN_UP(off, a);
		s[i] = (struct sec){ .b = tail[i], .off = off, .size = tail[i]->len, .align = a,
				     .type = i == S_SYMTAB ? SHT_SYMTAB :
					     i >= S_STRTAB ? SHT_STRTAB : SHT_PROGBITS };
		off += tail[i]->len;
	}
	s[S_SYMTAB].link = S_STRTAB;
	s[S_SYMTAB].info = 1;		/* first non-local symbol */
	s[S_SYMTAB].entsize = sizeof(Elf64_Sym);
	uint64_t shoff = ALIGN_UP(off, 8);

	ehdr(img, in->e_machine ? in->e_machine : EM_X86_64, shoff);
	/* The R+X load covers the note too (gdb), as synth's generations do. */
	phdr(img, PT_LOAD, PF_R | PF_X, 0, TEXT_OFF + text, 0x1000);
	phdr(img, PT_NOTE, PF_R, note, ID_NOTE_SIZE, 4);
	synth_buf_u32(img, 4);
	synth_buf_u32(img, SYNTH_BUILD_ID_SIZE);
	synth_buf_u32(img, NT_GNU_BUILD_ID);
	synth_buf_bytes(img, "GNU", 4);
	synth_buf_zero(img, SYNTH_BUILD_ID_SIZE + (TEXT_OFF - note - ID_NOTE_SIZE) + text);
	for (int i = S_ABBREV; i < S_COUNT; i++) {
		synth_buf_zero(img, s[i].off - img->len);
		synth_buf_bytes(img, s[i].b->p, s[i].b->len);
	}
	synth_buf_zero(img, shoff - img->len);
	shdr(img, 0, &s[0]);
	for (uint32_t i = 1, name = 1; i < S_COUNT; name += (uint32_t)strlen(sec_names[i++]) + 1)
		shdr(img, name, &s[i]);
	if (shstr.oom)
		img->oom = 1;
	synth_buf_free(&shstr);
}

int synth_build_interp(const struct synth_interp *in, struct synth_elf *out,
		       const struct jp_log *log)
{
	struct parts p = { 0 };
	struct synth_buf img = { 0 };
	uint64_t text = 0;
	memset(out, 0, sizeof(*out));
	if (!in->n)
		return synth_err(log, -EINVAL, "no interpreted methods");
	int rc = encode(in, &p, &text);
	if (rc == 0) {
		lay_out(in, &p, text, &img);
		rc = img.oom ? -ENOMEM : 0;
	}
	parts_free(&p);
	if (rc) {
		synth_buf_free(&img);
		return synth_err(log, rc, rc == -EINVAL ? "an interpreted method without a name "
				 "or of a size out of 1..%u bytes" : rc == -EFBIG ?
				 "too many interpreted methods for one ELF" :
				 "out of memory building the interpreted methods' ELF",
				 SYNTH_INTERP_METHOD_MAX);
	}
	/* The id: the SHA-1 of the image with its place zeroed (the same methods, the same id). */
	uint8_t *id = img.p + sizeof(Elf64_Ehdr) + NPHDR * sizeof(Elf64_Phdr) + 16;
	const char *why = NULL;
	_Static_assert(SYNTH_BUILD_ID_SIZE == JP_SHA1_DIGEST, "a build-id is a SHA-1");
	if (jp_sha1_buf(img.p, img.len, out->build_id, &why)) {
		synth_buf_free(&img);
		return synth_err(log, -EIO, "the interpreted methods' ELF: build-id: SHA-1: %s", why);
	}
	memcpy(id, out->build_id, SYNTH_BUILD_ID_SIZE);
	out->data = img.p;
	out->size = img.len;
	out->text_offset = TEXT_OFF;
	out->map_len = text;
	return 0;
}

int synth_interp_file_name(uint32_t pid, uint32_t seq, char *buf, size_t len)
{
	int n = seq ? snprintf(buf, len, NAME_PREFIX "%u" NAME_INFIX "-%u.so", pid, seq)
		    : snprintf(buf, len, NAME_PREFIX "%u" NAME_INFIX ".so", pid);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int synth_is_interp_name(const char *path)
{
	const char *b = strrchr(path, '/');
	unsigned pid, seq;
	int end = 0;
	b = b ? b + 1 : path;
	if (strncmp(b, NAME_PREFIX, strlen(NAME_PREFIX)) || !(b[7] >= '0' && b[7] <= '9'))
		return 0;
	if (sscanf(b, NAME_PREFIX "%u" NAME_INFIX ".so%n", &pid, &end) == 1 && end && !b[end])
		return 1;
	end = 0;
	return sscanf(b, NAME_PREFIX "%u" NAME_INFIX "-%u.so%n", &pid, &seq, &end) == 2 && end &&
	       !b[end];
}
