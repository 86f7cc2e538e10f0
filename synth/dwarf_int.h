/* dwarf_int.h - synth's own DWARF 4 encoder (docs/synth.md says why not libdwarf): the four
 * sections one jitted function needs, plus the pieces its unit tests check byte for byte. */
#ifndef JITPROF_SYNTH_DWARF_INT_H
#define JITPROF_SYNTH_DWARF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hindex.h"
#include "synth/synth_int.h"

/* Line program parameters (DWARF 4 standard opcode set). */
#define SYNTH_DW_LINE_BASE   (-5)
#define SYNTH_DW_LINE_RANGE  14
#define SYNTH_DW_OPCODE_BASE 13

struct synth_dwarf {
	struct synth_buf abbrev, info, line, aranges;
};

/* Encodes all four sections for in, with code_addr placed at text_vaddr. in must have passed
 * synth_validate. */
int synth_dwarf_build(const struct synth_input *in, uint64_t text_vaddr, struct synth_dwarf *d,
		      const struct jp_log *log);
void synth_dwarf_free(struct synth_dwarf *d);

/* The fixed abbreviation table (.debug_abbrev). */
void synth_dw_abbrev(struct synth_buf *b);

/* De-duplicated file table: names in order of first use, index = position + 1. */
struct synth_dw_files {
	const char **names;
	struct jp_hindex index;	/* name -> its index in names */
	uint32_t n;
	size_t cap_names;
	int oom;
	const char *last;	/* the string asked last and its index: rows and inline frames */
	uint32_t last_id;	/* ask for one string many times over (no hash, no compare) */
};
/* Index (>= 1) of name, adding it when new; 0 on allocation failure. */
uint32_t synth_dw_file(struct synth_dw_files *f, const char *name);
void synth_dw_files_free(struct synth_dw_files *f);

/* A whole .debug_line unit (v4 header, file table, one sequence ending at code end) for rows
 * lines[0..n) (absolute addresses) of code [code_addr, code_addr+code_size) placed at
 * text_vaddr. */
void synth_dw_line_unit(struct synth_buf *b, struct synth_dw_files *files,
			const struct jd_line *lines, size_t n, uint64_t code_addr,
			uint64_t code_size, uint64_t text_vaddr);

/* One sequence (its rows, then DW_LNE_end_sequence at the code's end) of a line program,
 * appended to prog; rows as synth_dw_line_unit takes them. */
void synth_dw_line_seq(struct synth_buf *prog, struct synth_dw_files *files,
		       const struct jd_line *lines, size_t n, uint64_t code_addr,
		       uint64_t code_size, uint64_t text_vaddr);
/* A whole .debug_line unit around a program of such sequences (files: the table they use). */
void synth_dw_line_wrap(struct synth_buf *b, struct synth_dw_files *files,
			const struct synth_buf *prog);
/* The unit header and compile unit DIE of .debug_info (java: DW_LANG_Java), children to
 * follow; the caller ends them with a 0 and patches unit_length (the first u32). */
void synth_dw_cu_head(struct synth_buf *b, const char *name, int java, uint64_t low,
		      uint64_t size, const char *comp_dir);
/* A subprogram without children or file: [low, low + size). */
void synth_dw_sub(struct synth_buf *b, const char *name, const char *linkage, uint64_t low,
		  uint64_t size);
/* .debug_aranges: one range for the one CU. */
void synth_dw_aranges(struct synth_buf *b, uint64_t low, uint64_t size);

/* "Lcom/acme/Foo;bar(I)I" -> "com.acme.Foo.bar" (returns 1, JVM name); anything else is copied
 * (returns 0). Truncated to fit len. */
int synth_dw_readable_name(const char *name, char *buf, size_t len);

#endif
