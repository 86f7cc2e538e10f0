/* test_utf8.c - strict UTF-8: valid sequences of each length, and every kind of invalid one
 * that RFC 3629 names (stray continuation, cut, overlong, surrogate, above U+10FFFF); text
 * for a terminal keeps what is not printable UTF-8 as \xNN. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "safeio/safeio.h"

static size_t len_of(const char *s)
{
	return sio_utf8_len((const unsigned char *)s);
}

Test(text, valid_sequences_of_each_length)
{
	cr_assert_eq(len_of("a"), 1);
	cr_assert_eq(len_of("\x01"), 1, "a control character is valid UTF-8");
	cr_assert_eq(len_of("\xc3\xa9"), 2);		/* é */
	cr_assert_eq(len_of("\xe2\x82\xac"), 3);	/* € */
	cr_assert_eq(len_of("\xef\xbf\xbd"), 3);	/* U+FFFD */
	cr_assert_eq(len_of("\xf0\x9f\x94\xa5"), 4);	/* U+1F525 */
	cr_assert_eq(len_of("\xf4\x8f\xbf\xbf"), 4);	/* U+10FFFF */
}

Test(text, invalid_sequences)
{
	cr_assert_eq(len_of("\x80"), 0, "stray continuation byte");
	cr_assert_eq(len_of("\xbf"), 0);
	cr_assert_eq(len_of("\xc3"), 0, "cut at the string's end");
	cr_assert_eq(len_of("\xe2\x82"), 0);
	cr_assert_eq(len_of("\xe3k\x02"), 0, "what node 20 wrote as a file name");
	cr_assert_eq(len_of("\xc0\xaf"), 0, "overlong '/'");
	cr_assert_eq(len_of("\xc1\xbf"), 0);
	cr_assert_eq(len_of("\xe0\x80\xaf"), 0, "overlong in three bytes");
	cr_assert_eq(len_of("\xf0\x80\x80\xaf"), 0, "overlong in four bytes");
	cr_assert_eq(len_of("\xed\xa0\x80"), 0, "surrogate U+D800");
	cr_assert_eq(len_of("\xf4\x90\x80\x80"), 0, "above U+10FFFF");
	cr_assert_eq(len_of("\xf5\x80\x80\x80"), 0);
	cr_assert_eq(len_of("\xff"), 0);
}

Test(text, text_is_valid_utf8_without_controls)
{
	cr_assert(sio_utf8_is_text("", 10));
	cr_assert(sio_utf8_is_text("node:internal/util", 64));
	cr_assert(sio_utf8_is_text("Caf\xc3\xa9.java", 64));
	cr_assert(sio_utf8_is_text("a\tb", 64), "a tab is text");
	cr_assert_not(sio_utf8_is_text("\xb6~\x02H\x0b\x7f", 64), "node 20's freed memory");
	cr_assert_not(sio_utf8_is_text("a\nb", 64));
	cr_assert_not(sio_utf8_is_text("a\x7f", 64));
	cr_assert_not(sio_utf8_is_text("ab\xc3", 64));
	cr_assert(sio_utf8_is_text("abcd", 4));
	cr_assert_not(sio_utf8_is_text("abcde", 4), "longer than max");
	cr_assert_not(sio_utf8_is_text("abc\xc3\xa9", 4), "max counts bytes");
}

Test(text, every_byte_after_an_ascii_run_is_judged_as_the_strict_reading_does)
{
	for (int b = 1; b < 256; b++) {
		char s[] = { 'A', 'b', 'c', (char)b, 'd', 'e', 0 };
		int want = b == '\t' || (b >= 0x20 && b < 0x7f);	/* alone, >= 0x80 is cut */
		cr_assert_eq(sio_utf8_is_text(s, 64), want, "byte 0x%02x", b);
	}
	cr_assert(sio_utf8_is_text("abc", 3));
	cr_assert_not(sio_utf8_is_text("abc", 2), "the ASCII run alone passes max");
	cr_assert(sio_utf8_is_text("ab\xc3\xa9" "cd", 6), "ASCII after a sequence still counts");
	cr_assert_not(sio_utf8_is_text("ab\xc3\xa9" "cd", 5));
}

static void escaped_is(const char *in, const char *want)
{
	char *e = sio_escape_controls(in);
	cr_assert_not_null(e);
	cr_assert_str_eq(e, want, "escape of %s", in);
	cr_assert_eq(sio_has_controls(in), strcmp(in, want) != 0, "has_controls(%s)", in);
	free(e);
}

Test(text, escape_keeps_printable_utf8_and_writes_the_rest_as_xNN)
{
	escaped_is("plain()", "plain()");
	escaped_is("Caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5",
		   "Caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
	escaped_is("m\x1b[2J", "m\\x1b[2J");
	escaped_is("a\tb\x7f", "a\\x09b\\x7f");
	escaped_is("\xe3k\x02:1", "\\xe3k\\x02:1");	/* node 20's file name */
	escaped_is("\xc2\x9b" "31m", "\\xc2\\x9b31m");	/* CSI as a C1 control */
	escaped_is("cut\xc3", "cut\\xc3");
	escaped_is("\xed\xa0\x80", "\\xed\\xa0\\x80");	/* a surrogate */
}
