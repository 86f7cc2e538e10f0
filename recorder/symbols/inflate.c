/* inflate.c - a separate debug file's zlib-compressed DWARF inflated by libdeflate (loaded on
 * first use) before libdw sees it. dwarf_begin_elf inflates every compressed debug section it
 * knows through zlib when it opens a file: libc's debug file (8.6 MB of DWARF once its location
 * lists are skipped) cost 33 ms of zlib, the largest part of a call-graph report's start-up on
 * a C program; libdeflate gives the same bytes in 12 ms. Without libdeflate, or for a section
 * it refuses, libdw inflates as before (and says what it finds wrong). */
#include "recorder/symbols/symbols_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/dynload.h"
#include "lib/nomem.h"

/* libdeflate's API (libdeflate.h, stable since 1.0); its header is not needed to load it. */
struct deflate_api {
	void *(*alloc)(void);
	int (*zlib)(void *d, const void *in, size_t in_n, void *out, size_t out_n, size_t *got);
	void (*free)(void *d);
};
enum { DEFLATE_SUCCESS = 0 };

static struct deflate_api api;
static struct jp_dynlib lib = {
	.soname = "libdeflate.so.0",
	.names = (const char *const[]){ "libdeflate_alloc_decompressor",
					 "libdeflate_zlib_decompress",
					 "libdeflate_free_decompressor" },
	.slots = (void **)&api,
	.n = sizeof(api) / sizeof(void *),
};

/* zlib's DEFLATE expands at most 1032:1: a header claiming more is damaged, and is left to
 * libdw rather than allocated. */
#define MAX_RATIO 1032u

/* JITPROF_DWARF_INFLATE=libdw leaves every section to libdw (for comparing the two). */
int lines_inflate_ready(void)
{
	const char *v = getenv("JITPROF_DWARF_INFLATE");
	if (v && !strcmp(v, "libdw"))
		return 0;
	return jp_dynload(&lib) == 0;
}

static size_t chdr_size(Elf *elf)
{
	return gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
}

/* A section this inflates: a zlib-compressed .debug_* (ELF compression, not .zdebug's)
 * that libdw would read, with a size its data can hold. Fills *ch and *raw. */
static int wanted(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Chdr *ch, Elf_Data **raw)
{
	GElf_Shdr sh;
	const char *name;
	if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
	    !(sh.sh_flags & SHF_COMPRESSED) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
	    strncmp(name, ".debug_", 7) || !gelf_getchdr(scn, ch) || ch->ch_type != ELFCOMPRESS_ZLIB)
		return 0;
	*raw = elf_getdata(scn, NULL);
	return *raw && (*raw)->d_buf && (*raw)->d_size > chdr_size(elf) && ch->ch_size &&
	       ch->ch_size / MAX_RATIO <= (*raw)->d_size && ch->ch_addralign <= 4096 &&
	       !(ch->ch_addralign & (ch->ch_addralign - 1));
}

/* Where the next wanted section after scn goes in the buffer (*off, aligned; scn == NULL
 * starts at the first section): that section, or NULL after the last; SIZE_MAX in *off if
 * the sizes overflow. */
Elf_Scn *lines_inflate_next(Elf *elf, size_t shstrndx, Elf_Scn *scn, size_t *off,
			    GElf_Chdr *ch, Elf_Data **raw)
{
	while ((scn = elf_nextscn(elf, scn))) {
		if (!wanted(elf, shstrndx, scn, ch, raw))
			continue;
		size_t a = ch->ch_addralign ? ch->ch_addralign : 1;
		if (*off > SIZE_MAX - a || (*off = (*off + a - 1) / a * a) > SIZE_MAX - ch->ch_size)
			*off = SIZE_MAX;
		return scn;
	}
	return NULL;
}

void lines_inflate_set(Elf_Scn *scn, Elf_Data *raw, const GElf_Chdr *ch, void *bytes)
{
	/* what elf_compress(scn, 0, 0) leaves: the data inflated, the header without
	 * SHF_COMPRESSED (both in this handle's memory only) */
	GElf_Shdr sh;
	gelf_getshdr(scn, &sh);
	raw->d_buf = bytes;
	raw->d_size = ch->ch_size;
	raw->d_type = ELF_T_BYTE;
	raw->d_align = ch->ch_addralign ? ch->ch_addralign : 1;
	sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh.sh_size = ch->ch_size;
	sh.sh_addralign = raw->d_align;
	gelf_update_shdr(scn, &sh);
}

size_t lines_inflate_size(Elf *elf, size_t *n)
{
	size_t shstrndx, total = 0;
	GElf_Chdr ch;
	Elf_Data *raw;
	*n = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	for (Elf_Scn *scn = NULL; (scn = lines_inflate_next(elf, shstrndx, scn, &total, &ch,
							     &raw));) {
		if (total == SIZE_MAX)
			return 0;	/* sizes no file this process can map holds */
		total += ch.ch_size;
		++*n;
	}
	return total;
}

size_t lines_inflate(Elf *elf, struct lines_zbuf *z)
{
	size_t shstrndx, n, left = 0, total = lines_inflate_size(elf, &n);
	GElf_Chdr ch;
	Elf_Data *raw;
	*z = (struct lines_zbuf){ 0 };
	if (!total || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	/* one buffer for all of them, each section at its alignment */
	char *buf = malloc(total);
	void *dec = buf ? api.alloc() : NULL;
	if (!dec)
		jp_nomem("a debug file's inflated DWARF");
	size_t off = 0, got;
	for (Elf_Scn *scn = NULL; (scn = lines_inflate_next(elf, shstrndx, scn, &off, &ch,
							     &raw));) {
		size_t hdr = chdr_size(elf);
		if (api.zlib(dec, (char *)raw->d_buf + hdr, raw->d_size - hdr, buf + off,
			     ch.ch_size, &got) != DEFLATE_SUCCESS || got != ch.ch_size) {
			left++;
			continue;	/* damaged: libdw inflates it and decides */
		}
		lines_inflate_set(scn, raw, &ch, buf + off);
		off += ch.ch_size;
	}
	api.free(dec);
	*z = (struct lines_zbuf){ .p = buf, .len = total };
	return left;
}

void lines_zbuf_free(struct lines_zbuf *z)
{
	if (z->mapped)
		munmap(z->p, z->len);
	else
		free(z->p);
	*z = (struct lines_zbuf){ 0 };
}
