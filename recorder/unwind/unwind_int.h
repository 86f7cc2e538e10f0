/* unwind_int.h - what cfi.c and walk.c share: the CFI of one ELF. */
#ifndef JITPROF_UNWIND_INT_H
#define JITPROF_UNWIND_INT_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stddef.h>
#include <string.h>

#include "recorder/unwind/unwind.h"

struct unw_load { uint64_t off, filesz, vaddr; };

struct unw_cfi {
	Elf *elf;
	Dwarf *dw;		/* for .debug_frame only */
	Dwarf_CFI *eh, *debug;	/* either may be NULL, not both */
	struct unw_load *loads;
	size_t nloads;
};

/* The ELF address of file offset off (0), or -ENOENT outside every PT_LOAD's file bytes. */
int unw_cfi_vaddr(const struct unw_cfi *c, uint64_t off, uint64_t *vaddr);
/* The row covering vaddr (0 and *frame, to be freed), or -ENOENT. */
int unw_cfi_frame(const struct unw_cfi *c, uint64_t vaddr, Dwarf_Frame **frame);

#endif
