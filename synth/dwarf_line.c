/* dwarf_line.c - .debug_line version 4 for one jitted function: a file table with each file
 * once, rows in ascending address order, and DW_LNE_end_sequence at the end of the code (not
 * at the last row, so the tail of the code keeps the last row's line). */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "synth/dwarf_int.h"

/* File names come from the dump: the index is seeded (lib/hindex.h). */
static int name_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct synth_dw_files *f = ctx;
	return !strcmp(f->names[idx], key);
}

uint32_t synth_dw_file(struct synth_dw_files *f, const char *name)
{
	if (f->oom)
		return 0;
	if (name == f->last)
		return f->last_id;
	f->last = name;
	uint64_t h = jp_hindex_hash(name, strlen(name));
	int64_t at = jp_hindex_find(&f->index, h, name, name_eq, f);
	if (at >= 0)
		return f->last_id = (uint32_t)at + 1;
	if (f->n >= UINT32_MAX - 1 || JP_GROW_FOR(f->names, f->cap_names, f->n) ||
	    jp_hindex_add(&f->index, h, f->n)) {
		f->oom = 1;
		return 0;
	}
	f->names[f->n++] = name;
	return f->last_id = f->n;
}

void synth_dw_files_free(struct synth_dw_files *f)
{
	free(f->names);
	jp_hindex_free(&f->index);
	memset(f, 0, sizeof(*f));
}

static size_t uleb_len(uint64_t v)
{
	size_t n = 1;
	while (v >>= 7)
		n++;
	return n;
}

/* Extended opcode header; len is the operands' size. */
static void ext_op(struct synth_buf *b, uint8_t op, size_t len)
{
	synth_buf_u8(b, 0);
	synth_buf_uleb(b, len + 1);
	synth_buf_u8(b, op);
}

/* One row: line and address deltas as a special opcode where they fit. */
static void emit_row(struct synth_buf *b, int64_t dline, uint64_t daddr)
{
	if (dline < SYNTH_DW_LINE_BASE || dline >= SYNTH_DW_LINE_BASE + SYNTH_DW_LINE_RANGE) {
		synth_buf_u8(b, DW_LNS_advance_line);
		synth_buf_sleb(b, dline);
		dline = 0;
	}
	uint64_t lpart = (uint64_t)(dline - SYNTH_DW_LINE_BASE) + SYNTH_DW_OPCODE_BASE;
	if (daddr > (255 - lpart) / SYNTH_DW_LINE_RANGE) {
		synth_buf_u8(b, DW_LNS_advance_pc);
		synth_buf_uleb(b, daddr);
		daddr = 0;
	}
	synth_buf_u8(b, (uint8_t)(lpart + daddr * SYNTH_DW_LINE_RANGE));
}

void synth_dw_line_seq(struct synth_buf *b, struct synth_dw_files *files,
			 const struct jd_line *lines, size_t n, uint64_t code_addr,
			 uint64_t code_size, uint64_t text_vaddr)
{
	uint64_t addr = text_vaddr;
	uint32_t file = 1;
	int64_t line = 1;
	ext_op(b, DW_LNE_set_address, 8);
	synth_buf_u64(b, addr);
	for (size_t i = 0; i < n; i++) {
		uint32_t f = synth_dw_file(files, lines[i].file);
		if (f != file) {
			synth_buf_u8(b, DW_LNS_set_file);
			synth_buf_uleb(b, f);
			file = f;
		}
		if (lines[i].discrim > 0) {
			ext_op(b, DW_LNE_set_discriminator, uleb_len((uint64_t)lines[i].discrim));
			synth_buf_uleb(b, (uint64_t)lines[i].discrim);
		}
		uint64_t a = text_vaddr + (lines[i].addr - code_addr);
		emit_row(b, (int64_t)lines[i].line - line, a - addr);
		addr = a;
		line = lines[i].line;
	}
	uint64_t end = text_vaddr + code_size;
	if (end > addr) {
		synth_buf_u8(b, DW_LNS_advance_pc);
		synth_buf_uleb(b, end - addr);
	}
	ext_op(b, DW_LNE_end_sequence, 0);
}

void synth_dw_line_unit(struct synth_buf *b, struct synth_dw_files *files,
			const struct jd_line *lines, size_t n, uint64_t code_addr,
			uint64_t code_size, uint64_t text_vaddr)
{
	/* The program is encoded first: it fills the file table the header lists. */
	struct synth_buf prog = { 0 };
	if (n)	/* no rows, no sequence: an empty program is valid, a row-less one is not */
		synth_dw_line_seq(&prog, files, lines, n, code_addr, code_size, text_vaddr);
	synth_dw_line_wrap(b, files, &prog);
	synth_buf_free(&prog);
}

void synth_dw_line_wrap(struct synth_buf *b, struct synth_dw_files *files,
			const struct synth_buf *prog)
{
	static const uint8_t std_lengths[SYNTH_DW_OPCODE_BASE - 1] = {
		0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1
	};
	struct synth_buf hdr = { 0 };
	synth_buf_u8(&hdr, 1);		/* minimum_instruction_length */
	synth_buf_u8(&hdr, 1);		/* maximum_operations_per_instruction */
	synth_buf_u8(&hdr, 1);		/* default_is_stmt */
	synth_buf_u8(&hdr, (uint8_t)SYNTH_DW_LINE_BASE);
	synth_buf_u8(&hdr, SYNTH_DW_LINE_RANGE);
	synth_buf_u8(&hdr, SYNTH_DW_OPCODE_BASE);
	synth_buf_bytes(&hdr, std_lengths, sizeof(std_lengths));
	synth_buf_u8(&hdr, 0);		/* no include_directories: names are used as given */
	for (uint32_t i = 0; i < files->n; i++) {
		synth_buf_str(&hdr, files->names[i]);
		synth_buf_uleb(&hdr, 0);	/* directory: the CU's comp_dir */
		synth_buf_uleb(&hdr, 0);	/* mtime */
		synth_buf_uleb(&hdr, 0);	/* length */
	}
	synth_buf_u8(&hdr, 0);

	size_t start = b->len;
	synth_buf_u32(b, 0);			/* unit_length, patched below */
	synth_buf_u16(b, 4);
	synth_buf_u32(b, (uint32_t)hdr.len);	/* header_length */
	synth_buf_bytes(b, hdr.p, hdr.len);
	synth_buf_bytes(b, prog->p, prog->len);
	synth_buf_put_u32(b, start, (uint32_t)(b->len - start - 4));
	if (hdr.oom || prog->oom || files->oom)
		b->oom = 1;
	synth_buf_free(&hdr);
}
