/* test_buf.c - synth/buf.c: LEB128 and little-endian encodings, byte for byte (the examples of
 * DWARF 4 §7.6, figures 22 and 23), growth and patching. */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/synth_int.h"

static void expect(struct synth_buf *b, const uint8_t *want, size_t n)
{
	cr_assert_eq(b->len, n, "encoded %zu bytes, want %zu", b->len, n);
	cr_assert(!memcmp(b->p, want, n), "bytes differ");
	synth_buf_free(b);
}

Test(buf, uleb_dwarf_examples)
{
	static const struct { uint64_t v; uint8_t enc[3]; size_t n; } ex[] = {
		{ 2, { 2 }, 1 }, { 127, { 127 }, 1 }, { 128, { 0x80, 1 }, 2 },
		{ 129, { 0x81, 1 }, 2 }, { 130, { 0x82, 1 }, 2 }, { 12857, { 0xb9, 0x64 }, 2 },
		{ 0, { 0 }, 1 }, { 16384, { 0x80, 0x80, 1 }, 3 },
	};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct synth_buf b = { 0 };
		synth_buf_uleb(&b, ex[i].v);
		expect(&b, ex[i].enc, ex[i].n);
	}
}

Test(buf, uleb_max)
{
	struct synth_buf b = { 0 };
	synth_buf_uleb(&b, UINT64_MAX);
	static const uint8_t want[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1 };
	expect(&b, want, 10);
}

Test(buf, sleb_dwarf_examples)
{
	static const struct { int64_t v; uint8_t enc[2]; size_t n; } ex[] = {
		{ 2, { 2 }, 1 }, { -2, { 0x7e }, 1 }, { 127, { 0xff, 0 }, 2 },
		{ -127, { 0x81, 0x7f }, 2 }, { 128, { 0x80, 1 }, 2 }, { -128, { 0x80, 0x7f }, 2 },
		{ 129, { 0x81, 1 }, 2 }, { -129, { 0xff, 0x7e }, 2 }, { 63, { 0x3f }, 1 },
		{ 64, { 0xc0, 0 }, 2 }, { -64, { 0x40 }, 1 }, { -65, { 0xbf, 0x7f }, 2 },
	};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct synth_buf b = { 0 };
		synth_buf_sleb(&b, ex[i].v);
		expect(&b, ex[i].enc, ex[i].n);
	}
}

Test(buf, sleb_extremes)
{
	struct synth_buf b = { 0 };
	synth_buf_sleb(&b, INT64_MIN);
	static const uint8_t want[10] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					  0x7f };
	expect(&b, want, 10);
}

Test(buf, little_endian_and_strings)
{
	struct synth_buf b = { 0 };
	synth_buf_u8(&b, 0x11);
	synth_buf_u16(&b, 0x2233);
	synth_buf_u32(&b, 0x44556677);
	synth_buf_u64(&b, 0x8899aabbccddeeffull);
	synth_buf_str(&b, "ab");
	synth_buf_zero(&b, 2);
	static const uint8_t want[] = { 0x11, 0x33, 0x22, 0x77, 0x66, 0x55, 0x44, 0xff, 0xee,
					0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 'a', 'b', 0, 0, 0 };
	expect(&b, want, sizeof(want));
}

Test(buf, grows_and_patches)
{
	struct synth_buf b = { 0 };
	synth_buf_u32(&b, 0);
	for (int i = 0; i < 10000; i++)
		synth_buf_u8(&b, (uint8_t)i);
	synth_buf_put_u32(&b, 0, 0xdeadbeef);
	synth_buf_put_u32(&b, b.len - 2, 1);	/* would overrun: ignored */
	cr_assert_eq(b.len, 10004);
	cr_assert(!b.oom);
	cr_assert_eq(b.p[0], 0xef);
	cr_assert_eq(b.p[3], 0xde);
	cr_assert_eq(b.p[4 + 9999], (uint8_t)9999);
	cr_assert_eq(b.p[b.len - 2], (uint8_t)9998);
	synth_buf_free(&b);
	cr_assert_null(b.p);
}
