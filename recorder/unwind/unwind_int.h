/* unwind_int.h - what cfi.c and walk.c share: the CFI of one ELF. */
#ifndef JITPROF_UNWIND_INT_H
#define JITPROF_UNWIND_INT_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stddef.h>
#include <string.h>

#include "recorder/unwind/unwind.h"

struct unw_load { uint64_t off, filesz, vaddr; };

#define UNW_NREGS 17		/* DWARF x86_64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, rip */

/* A CFI row in the shape nearly every row has (CFA = register + offset; each register the
 * same, undefined, saved at CFA + offset, or CFA + offset itself), kept per pc so a pc seen
 * again costs no libdw call. Compiled for the step: the registers kept the same as a mask,
 * the few recovered from the CFA as a list (a step copies the state and reads those). */
enum unw_how { UNW_AT_CFA, UNW_VAL_CFA };
struct unw_saved {
	uint8_t reg, how;	/* how: enum unw_how */
	int64_t off;
};
struct unw_rule {
	uint64_t vaddr;		/* the pc looked up (0: empty slot) */
	uint8_t ok;		/* 0: not in this shape, take libdw's row each time */
	uint8_t cfa_reg;
	uint8_t nsaved;
	uint32_t same;		/* bit per register */
	int64_t cfa_off;
	struct unw_saved saved[UNW_NREGS];
};
#define UNW_RULES 256		/* per ELF, direct-mapped by pc */

struct unw_cfi {
	Elf *elf;
	Dwarf *dw;		/* for .debug_frame only */
	Dwarf_CFI *eh, *debug;	/* either may be NULL, not both */
	struct unw_load *loads;
	size_t nloads;
	struct unw_rule *rules;	/* UNW_RULES, made on first use (NULL: none yet or no memory) */
	struct unw_cfi_stats stats;
	uint64_t entry;		/* the ELF header's entry point (0: none) */
};

/* How far past a file's entry point a pc without CFI is still the entry's own code: the
 * dynamic loader's _start (mov %rsp,%rdi; call _dl_start) has no FDE, and a process's first
 * frames while it loads its libraries sit there, the root of the main thread. */
#define UNW_ENTRY_SPAN 16

/* The ELF address of file offset off (0), or -ENOENT outside every PT_LOAD's file bytes. */
int unw_cfi_vaddr(const struct unw_cfi *c, uint64_t off, uint64_t *vaddr);
/* The row covering vaddr (0 and *frame, to be freed), -ENOENT, or -ENOMEM (libdw's). */
int unw_cfi_frame(const struct unw_cfi *c, uint64_t vaddr, Dwarf_Frame **frame);

#endif
