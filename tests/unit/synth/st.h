/* st.h - what the synth unit tests share: a hand-built code load (lines over three files, a
 * two-deep inline chain), a real .eh_frame/.eh_frame_hdr blob placed as a runtime would, and
 * libelf read-back of a built image. */
#ifndef JITPROF_SYNTH_ST_H
#define JITPROF_SYNTH_ST_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "synth/synth.h"

#define ST_CODE_ADDR 0x7f0000001000ull
#define ST_CODE_SIZE 64u

struct st_load {
	uint8_t code[ST_CODE_SIZE];
	struct jd_line lines[6];
	struct jd_inline_method methods[3];
	struct jd_inline_frame f[6][3];
	struct jd_inline_pc pcs[6];
	struct jd_ext_inline inl;
	uint8_t unwind[128];
	struct synth_input in;
};

/* A valid load: "Lcom/acme/Foo;bar(I)I" with lines (Foo.java, Bar.java, Baz.java) and, when
 * with_inline, Bar.inl inlined at Foo.java:12 and Baz.deep inlined into it at Bar.java:42. */
void st_load_init(struct st_load *l, int with_inline);
/* Adds a CIE + one FDE covering the code and an .eh_frame_hdr (68 bytes, hdr 20). */
void st_add_unwind(struct st_load *l);

/* An Elf over the image (elf_memory); NULL on failure. Close with elf_end. */
Elf *st_elf(const struct synth_elf *e);
/* The section named name, its header into *sh; NULL if absent. */
Elf_Scn *st_section(Elf *elf, const char *name, GElf_Shdr *sh);

#endif
