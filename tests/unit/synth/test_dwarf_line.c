/* test_dwarf_line.c - synth/dwarf_line.c: a whole .debug_line unit byte for byte (header, file
 * table, special opcodes, advance_line/advance_pc fallbacks, discriminators, end_sequence at
 * the code end), and the de-duplicating file table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "synth/dwarf_int.h"

Test(dwarf_line, unit_byte_exact)
{
	const struct jd_line rows[] = {
		{ 0x1000, 10, 0, "A.java" }, { 0x1008, 12, 0, "A.java" },
		{ 0x1010, 40, 0, "B.java" }, { 0x1010, 41, 3, "B.java" },
		{ 0x1030, 9, 0, "A.java" }, { 0x1035, 9, 0, "A.java" },
		{ 0x1300, 100, 0, "A.java" },
	};
	static const uint8_t want[] = {
		92, 0, 0, 0, 4, 0, 40, 0, 0, 0,			/* unit_length, v4, header_length */
		1, 1, 1, 0xfb, 14, 13,				/* min_inst, max_ops, is_stmt, -5, 14, 13 */
		0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1,		/* standard_opcode_lengths */
		0,						/* no include_directories */
		'A', '.', 'j', 'a', 'v', 'a', 0, 0, 0, 0,
		'B', '.', 'j', 'a', 'v', 'a', 0, 0, 0, 0, 0,
		0, 9, 2, 0xe0, 0, 0, 0, 0, 0, 0, 0,		/* set_address 0xe0 */
		3, 9, 0x12,					/* line +9, row */
		0x84,						/* +2 lines, +8 bytes */
		4, 2, 3, 28, 0x82,				/* file 2, line +28, +8 bytes */
		0, 2, 4, 3, 0x13,				/* discriminator 3, line +1 */
		4, 1, 3, 0x60, 2, 32, 0x12,			/* file 1, line -32, pc +32 */
		0x58,						/* pc +5 */
		3, 0xdb, 0, 2, 0xcb, 5, 0x12,			/* line +91, pc +715 */
		2, 0x80, 2, 0, 1, 1,				/* to code end, end_sequence */
	};
	struct synth_buf b = { 0 };
	struct synth_dw_files f = { 0 };
	synth_dw_line_unit(&b, &f, rows, 7, 0x1000, 0x400, 0xe0);
	cr_assert(!b.oom);
	cr_assert_eq(b.len, sizeof(want), "unit is %zu bytes, want %zu", b.len, sizeof(want));
	for (size_t i = 0; i < sizeof(want); i++)
		cr_assert_eq(b.p[i], want[i], "byte %zu: 0x%02x, want 0x%02x", i, b.p[i], want[i]);
	synth_buf_free(&b);
	synth_dw_files_free(&f);
}

Test(dwarf_line, no_rows_no_sequence)
{
	struct synth_buf b = { 0 };
	struct synth_dw_files f = { 0 };
	synth_dw_line_unit(&b, &f, NULL, 0, 0x1000, 0x40, 0xe0);
	/* header only: 10 + 6 + 12 + 1 (dirs) + 1 (files) */
	cr_assert_eq(b.len, 30);
	cr_assert_eq(b.p[0], 26);
	cr_assert_eq(b.p[6], 20);
	synth_buf_free(&b);
}

Test(dwarf_line, row_at_code_end_needs_no_advance)
{
	const struct jd_line rows[] = { { 0x1000, 1, 0, "x" }, { 0x100f, 2, 0, "x" } };
	struct synth_buf b = { 0 };
	struct synth_dw_files f = { 0 };
	synth_dw_line_unit(&b, &f, rows, 2, 0x1000, 0x10, 0x100);
	/* ... row 1 (line +0 at pc +0 = 0x12), row 2 (+1 line, +15 bytes), advance 1, end. */
	const uint8_t tail[] = { 0x12, 19 + 15 * 14, 2, 1, 0, 1, 1 };
	cr_assert(!memcmp(b.p + b.len - sizeof(tail), tail, sizeof(tail)));
	synth_buf_free(&b);
	synth_dw_files_free(&f);
}

Test(dwarf_line, file_table_dedups_many_names)
{
	struct synth_dw_files f = { 0 };
	static char names[3000][16];
	for (int i = 0; i < 3000; i++)
		snprintf(names[i], sizeof(names[i]), "F%d.java", i);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3000; i++)
			cr_assert_eq(synth_dw_file(&f, names[i]), (uint32_t)i + 1);
	/* Equal text at another address is the same file. */
	char copy[16];
	strcpy(copy, names[1234]);
	cr_assert_eq(synth_dw_file(&f, copy), 1235);
	cr_assert_eq(f.n, 3000);
	synth_dw_files_free(&f);
}

/* The file table answers a string asked again at once without looking it up (rows and inline
 * frames repeat one string), and still gives equal names one index whatever their pointers,
 * different names their own, in the order first asked. */
Test(dwarf_line, file_indexes_by_name_with_the_last_string_remembered)
{
	char a2[] = "A.java";	/* equal bytes, another pointer */
	const char *a = "A.java", *b = "B.java", *c = "C.java";
	struct synth_dw_files f = { 0 };
	const char *ask[] = { a, a, b, b, a2, a, c, c, b, a2 };
	const uint32_t want[] = { 1, 1, 2, 2, 1, 1, 3, 3, 2, 1 };
	for (size_t i = 0; i < sizeof(ask) / sizeof(ask[0]); i++)
		cr_assert_eq(synth_dw_file(&f, ask[i]), want[i], "ask %zu (%s)", i, ask[i]);
	cr_assert_eq(f.n, 3);
	synth_dw_files_free(&f);
}
