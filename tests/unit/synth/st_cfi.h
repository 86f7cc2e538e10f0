/* st_cfi.h - what the tests of synth's CFI share (test_prologue.c, test_cfi_stubs.c):
 * hand-assembled code put into a load of a tier, the ELF built from it, and its rows read back
 * with libdw's dwarf_cfi_addrframe. */
#ifndef JITPROF_SYNTH_ST_CFI_H
#define JITPROF_SYNTH_ST_CFI_H

#include <elfutils/libdw.h>

#include "tests/unit/synth/st.h"

struct code {
	uint8_t b[ST_CODE_SIZE];
	size_t n;
};

void put(struct code *c, const uint8_t *p, size_t n);
#define PUT(c, a) put(c, a, sizeof(a))

/* A load of tier with code c, the rest of its ST_CODE_SIZE bytes nops. */
void load_of(struct st_load *l, struct code *c, uint32_t tier);

/* A CFA on rbp in expect(): rbp + x (else rsp + x). */
#define ON_RBP 0x100000
#define RBP(x) (ON_RBP + (x))

struct row {
	int64_t cfa;	/* rsp + cfa, or RBP(cfa) */
	int rbp_saved;	/* rbp at CFA-16 */
};
/* The row at code offset off of the ELF e (cr_assert when none). */
struct row row_at(Dwarf_CFI *cfi, const struct synth_elf *e, uint64_t off);

struct built {
	struct synth_elf e;
	Elf *elf;
	Dwarf_CFI *cfi;
};
void build(struct built *b, struct st_load *l);
void unbuild(struct built *b);
/* Every offset in [from, to) has CFA cfa (rsp + cfa, or RBP(x)) and rbp saved or not. */
void expect(struct built *b, uint64_t from, uint64_t to, int64_t cfa, int rbp_saved);

#endif
