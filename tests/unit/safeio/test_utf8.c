/* test_utf8.c - strict UTF-8: valid sequences of each length, and every kind of invalid one
 * that RFC 3629 names (stray continuation, cut, overlong, surrogate, above U+10FFFF); text
 * for a terminal keeps what is not printable UTF-8 as \xNN, and the characters that reorder or
 * break lines (issue 34 finding 12) as \uXXXX; JSON strings escape the same set. */
#include <stdio.h>
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
	escaped_is("\xc2\x9b" "31m", "\\u009b31m");	/* CSI as a C1 control */
	escaped_is("cut\xc3", "cut\\xc3");
	escaped_is("\xed\xa0\x80", "\\xed\\xa0\\x80");	/* a surrogate */
}

/* Issue 34 finding 12: the bidirectional controls and marks and the line and paragraph
 * separators are valid, printable UTF-8, but reorder what follows them on a terminal or a page
 * (a name shown as another) or end a line: escaped, each one, and nothing near them. */
Test(text, bidi_controls_and_line_separators_are_escaped)
{
	static const struct { const char *in, *esc; } c[] = {
		{ "\xd8\x9c", "\\u061c" },
		{ "\xe2\x80\x8e", "\\u200e" }, { "\xe2\x80\x8f", "\\u200f" },
		{ "\xe2\x80\xa8", "\\u2028" }, { "\xe2\x80\xa9", "\\u2029" },
		{ "\xe2\x80\xaa", "\\u202a" }, { "\xe2\x80\xab", "\\u202b" },
		{ "\xe2\x80\xac", "\\u202c" }, { "\xe2\x80\xad", "\\u202d" },
		{ "\xe2\x80\xae", "\\u202e" },
		{ "\xe2\x81\xa6", "\\u2066" }, { "\xe2\x81\xa7", "\\u2067" },
		{ "\xe2\x81\xa8", "\\u2068" }, { "\xe2\x81\xa9", "\\u2069" },
		/* their neighbours are text */
		{ "\xd8\x9b", "\xd8\x9b" }, { "\xe2\x80\x8d", "\xe2\x80\x8d" },
		{ "\xe2\x80\x90", "\xe2\x80\x90" }, { "\xe2\x80\xa7", "\xe2\x80\xa7" },
		{ "\xe2\x80\xaf", "\xe2\x80\xaf" }, { "\xe2\x81\xa5", "\xe2\x81\xa5" },
		{ "\xe2\x81\xaa", "\xe2\x81\xaa" }, { "\xc2\xa0", "\xc2\xa0" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char in[64], want[64];
		snprintf(in, sizeof(in), "evil%sgpj.exe", c[i].in);
		snprintf(want, sizeof(want), "evil%sgpj.exe", c[i].esc);
		escaped_is(in, want);
	}
}

static char *through(int (*fn)(const char *, FILE *), const char *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(fn(in, f), 0);
	fclose(f);
	return buf;
}

/* The stream writer is the same escaper; the JSON one escapes the same set as \uXXXX (C0
 * controls as \u00NN), its own syntax, and a byte that is not UTF-8 as U+FFFD. */
Test(text, stream_and_json_writers_escape_the_same_set)
{
	static const struct { const char *in, *text, *json; } c[] = {
		{ "", "", "\"\"" },
		{ "plain()", "plain()", "\"plain()\"" },
		{ "a\"b\\c", "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "\x1b]0;t\x07", "\\x1b]0;t\\x07", "\"\\u001b]0;t\\u0007\"" },
		{ "\x7f\xc2\x9b", "\\x7f\\u009b", "\"\\u007f\\u009b\"" },
		{ "r\xe2\x80\xaeL\xe2\x80\xa8", "r\\u202eL\\u2028", "\"r\\u202eL\\u2028\"" },
		{ "Caf\xc3\xa9 \xf0\x9f\x94\xa5", "Caf\xc3\xa9 \xf0\x9f\x94\xa5",
		  "\"Caf\xc3\xa9 \xf0\x9f\x94\xa5\"" },
		{ "\xe3k\xc3", "\\xe3k\\xc3", "\"\\ufffdk\\ufffd\"" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *t = through(sio_fputs_text, c[i].in), *j = through(sio_fput_json_str, c[i].in);
		cr_assert_str_eq(t, c[i].text, "text of case %zu", i);
		cr_assert_str_eq(j, c[i].json, "JSON of case %zu", i);
		free(t);
		free(j);
	}
}
