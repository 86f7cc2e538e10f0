/* test_dwarf.c - synth/dwarf.c: the abbreviation table byte for byte, readable JVM names, the
 * compile unit header and .debug_aranges encodings; DIE content is read back with libdw in
 * test_libdw.c. */
#include <criterion/criterion.h>
#include <dwarf.h>
#include <string.h>

#include "synth/dwarf_int.h"
#include "tests/unit/synth/st.h"

Test(dwarf, abbrev_entries_byte_exact)
{
	struct synth_buf b = { 0 };
	synth_dw_abbrev(&b);
	static const uint8_t cu_java[] = {
		1, DW_TAG_compile_unit, DW_CHILDREN_yes,
		DW_AT_name, DW_FORM_string, DW_AT_producer, DW_FORM_string,
		DW_AT_language, DW_FORM_data2, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8, DW_AT_stmt_list, DW_FORM_sec_offset,
		DW_AT_comp_dir, DW_FORM_string, 0, 0,
	};
	static const uint8_t inlined[] = {
		11, DW_TAG_inlined_subroutine, DW_CHILDREN_no,
		DW_AT_abstract_origin, DW_FORM_ref4, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8, DW_AT_call_line, DW_FORM_udata,
		0, 0, 0 /* end of table */,
	};
	cr_assert_eq(cu_java[0], 1);
	cr_assert(!memcmp(b.p, cu_java, sizeof(cu_java)), "first abbreviation differs");
	cr_assert(!memcmp(b.p + b.len - sizeof(inlined), inlined, sizeof(inlined)),
		  "last abbreviation differs");
	/* Walk: codes 1..11 in order, each (attr, form) list ends with 0,0. */
	size_t o = 0;
	unsigned code = 0;
	while (b.p[o]) {
		cr_assert_eq(b.p[o], ++code);
		o += 3;		/* code, tag (all < 0x80), children */
		while (b.p[o] || b.p[o + 1])
			o += 2;
		o += 2;
	}
	cr_assert_eq(code, 11);
	cr_assert_eq(o + 1, b.len);
	synth_buf_free(&b);
}

Test(dwarf, readable_names)
{
	char buf[128];
	cr_assert_eq(synth_dw_readable_name("Lcom/acme/Foo;bar(I)I", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "com.acme.Foo.bar");
	cr_assert_eq(synth_dw_readable_name("LFixture$Mul;apply(J)J", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "Fixture$Mul.apply");
	cr_assert_eq(synth_dw_readable_name("LFoo;<init>()V", buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "Foo.<init>");
	/* Not JVM names: kept as they are. */
	cr_assert_eq(synth_dw_readable_name("itable stub", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "itable stub");
	cr_assert_eq(synth_dw_readable_name("JS:~f /a/b.js:1:1", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "JS:~f /a/b.js:1:1");
	cr_assert_eq(synth_dw_readable_name("L;x()V", buf, sizeof(buf)), 0);
	cr_assert_eq(synth_dw_readable_name("LFoo;(I)V", buf, sizeof(buf)), 0);
	cr_assert_eq(synth_dw_readable_name("LFoo;bar", buf, sizeof(buf)), 0);
	/* Truncation keeps a terminated string. */
	cr_assert_eq(synth_dw_readable_name("Lcom/acme/Foo;bar(I)I", buf, 8), 1);
	cr_assert_str_eq(buf, "com.acm");
}

Test(dwarf, unit_headers_and_aranges)
{
	struct st_load l;
	st_load_init(&l, 1);
	struct synth_dwarf d;
	char err[256];
	cr_assert_eq(synth_dwarf_build(&l.in, 0xe0, &d, JP_ERRBUF_LOG(err)), 0, "%s", err);
	/* .debug_info: unit_length covers the rest; v4, abbrev offset 0, 8-byte addresses. */
	uint32_t ulen = d.info.p[0] | d.info.p[1] << 8 | d.info.p[2] << 16 | (uint32_t)d.info.p[3] << 24;
	cr_assert_eq(ulen + 4, d.info.len);
	static const uint8_t ihdr[] = { 4, 0, 0, 0, 0, 0, 8, 1 /* AB_CU_JAVA: a JVM name */ };
	cr_assert(!memcmp(d.info.p + 4, ihdr, sizeof(ihdr)));
	/* .debug_aranges: one range [0xe0, +64) for the unit at offset 0. */
	static const uint8_t ar[48] = {
		44, 0, 0, 0, 2, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0,
		0xe0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0,
	};
	cr_assert_eq(d.aranges.len, sizeof(ar));
	cr_assert(!memcmp(d.aranges.p, ar, sizeof(ar)));
	cr_assert_gt(d.line.len, 30);
	synth_dwarf_free(&d);
}

Test(dwarf, non_java_unit_has_no_language)
{
	struct st_load l;
	st_load_init(&l, 0);
	l.in.name = "JS:*fib /tmp/x.js:3:13";
	struct synth_dwarf d;
	char err[256];
	cr_assert_eq(synth_dwarf_build(&l.in, 0xe0, &d, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(d.info.p[11], 2, "abbreviation 2: compile unit without DW_AT_language");
	synth_dwarf_free(&d);
}
