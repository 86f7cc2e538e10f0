/* cfi.c - one ELF file's call frame information (.eh_frame, else .debug_frame) through libdw,
 * opened once per DSO, and the file offset -> ELF address translation of its PT_LOADs. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "recorder/unwind/unwind_int.h"
#include "safeio/safeio.h"

/* Whether libelf's or libdw's last failure was an allocation (their messages are the only
 * public form of their codes): a resource error, never "no CFI". */
static int elf_nomem(void)
{
	const char *m = elf_errmsg(-1);
	return m && !strcmp(m, "out of memory");
}

/* After a libdw call with errno cleared before it: some of its paths fail an allocation
 * without saying so in their own code, but malloc's errno stays. */
static int dw_nomem(void)
{
	const char *m = dwarf_errmsg(-1);
	return errno == ENOMEM || (m && !strcmp(m, "out of memory"));
}

/* Past this many PT_LOADs the rest are ignored (a real DSO has 4 or 5). */
#define CFI_MAX_LOADS 16

static int has_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return 1;
	}
	return 0;
}

static int read_loads(struct unw_cfi *c)
{
	size_t nph;

	if (elf_getphdrnum(c->elf, &nph))
		return -ENOENT;
	for (size_t i = 0; i < nph && c->nloads < CFI_MAX_LOADS; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		c->loads = c->loads ? c->loads : calloc(CFI_MAX_LOADS, sizeof(*c->loads));
		if (!c->loads)
			return -ENOMEM;
		c->loads[c->nloads++] = (struct unw_load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	return c->nloads ? 0 : -ENOENT;
}

/* The PT_LOADs and the CFI sections of c->elf. 0, -ENOENT or -ENOMEM. */
static int cfi_read(struct unw_cfi *c)
{
	int err = read_loads(c);
	GElf_Ehdr eh;
	if (err)
		return err;
	if (gelf_getehdr(c->elf, &eh))
		c->entry = eh.e_entry;
	errno = 0;
	if (!(c->eh = dwarf_getcfi_elf(c->elf)) && dw_nomem())
		return -ENOMEM;
	if (has_section(c->elf, ".debug_frame")) {
		errno = 0;
		if ((c->dw = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL)))
			c->debug = dwarf_getcfi(c->dw);
		if (!c->debug && dw_nomem())
			return -ENOMEM;
	}
	return c->eh || c->debug ? 0 : -ENOENT;
}

int unw_cfi_open_mem(const void *image, size_t len, struct unw_cfi **out)
{
	struct unw_cfi *c = calloc(1, sizeof(*c));
	int err = -ENOENT;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	c->elf = elf_memory((char *)image, len);	/* read only: libelf writes nothing */
	if (!c->elf && elf_nomem())
		err = -ENOMEM;
	if (c->elf && elf_kind(c->elf) == ELF_K_ELF && !(err = cfi_read(c))) {
		*out = c;
		return 0;
	}
	unw_cfi_close(c);
	return err;
}

int unw_cfi_open(const char *path, struct unw_cfi **out)
{
	struct unw_cfi *c = calloc(1, sizeof(*c));
	int fd = -1, err = -ENOMEM;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	if ((fd = sio_open_regular(path)) < 0) {
		err = fd;
		goto out_free;
	}
	/* Mapped whole: the fd is not needed past elf_begin (so a report of many DSOs keeps
	 * no descriptor per DSO). */
	c->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!c->elf || elf_kind(c->elf) != ELF_K_ELF) {
		err = !c->elf && elf_nomem() ? -ENOMEM : -ENOENT;
		goto out_free;
	}
	elf_cntl(c->elf, ELF_C_FDDONE);
	close(fd);
	fd = -1;
	if ((err = cfi_read(c)))
		goto out_free;
	*out = c;
	return 0;
out_free:
	if (fd >= 0)
		close(fd);
	unw_cfi_close(c);
	return err;
}

void unw_cfi_close(struct unw_cfi *c)
{
	if (!c)
		return;
	if (c->eh)
		dwarf_cfi_end(c->eh);
	if (c->dw)
		dwarf_end(c->dw);	/* ends c->debug with it */
	if (c->elf)
		elf_end(c->elf);
	free(c->loads);
	free(c->rules);
	free(c);
}

void unw_cfi_stats(const struct unw_cfi *c, struct unw_cfi_stats *st)
{
	*st = c->stats;
}

int unw_cfi_vaddr(const struct unw_cfi *c, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < c->nloads; i++) {
		const struct unw_load *l = &c->loads[i];
		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* One lookup; an allocation failed inside it (errno) is -ENOMEM even when libdw answered:
 * its caches swallow some and answer from what they lack (an allocation sweep saw rows
 * change). */
static int addrframe(Dwarf_CFI *cfi, uint64_t vaddr, Dwarf_Frame **frame)
{
	errno = 0;
	int rc = dwarf_cfi_addrframe(cfi, vaddr, frame);
	if (errno == ENOMEM || (rc && dw_nomem())) {
		free(*frame);
		*frame = NULL;
		return -ENOMEM;
	}
	return rc ? -ENOENT : 0;
}

/* The CFI row covering vaddr, .eh_frame first (what the loader and C++ unwinding trust). */
int unw_cfi_frame(const struct unw_cfi *c, uint64_t vaddr, Dwarf_Frame **frame)
{
	int rc = -ENOENT;
	*frame = NULL;
	if (c->eh && (rc = addrframe(c->eh, vaddr, frame)) != -ENOENT)
		return rc;
	if (c->debug)
		rc = addrframe(c->debug, vaddr, frame);
	return rc;
}
