/* text.c - text from untrusted input made safe to print (safeio.h). Names and paths reach us
 * as bytes (a process name, the symbols of an ELF from another machine, a runtime's own debug
 * info: node 20 writes DEBUG_INFO file names from freed memory) and can hold a terminal's
 * escape sequences or characters that reorder or break what is shown, while terminals, JSON,
 * XML and the viewers that parse them want text: such bytes are kept as the visible text \xNN
 * or \uXXXX instead, by one escaper that every output goes through. UTF-8 is read strictly:
 * no overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
#include "safeio/safeio.h"
#include "safeio/safeio_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sio_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	/* the second byte's range per lead byte (RFC 3629's table): it rules out overlong
	 * forms (C0, C1, E0 80-9F, F0 80-8F), surrogates (ED A0-BF) and > U+10FFFF */
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;	/* also stops at a NUL: the sequence is cut */
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The bytes at s that are one printable character (1-4), or 0: a control character (C0, DEL,
 * the C1 range U+0080-U+009F, which some terminals obey too) or not UTF-8. */
static size_t printable_len(const unsigned char *s)
{
	size_t n = sio_utf8_len(s);
	if (n == 1 && (s[0] < 0x20 || s[0] == 0x7f))
		return 0;
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	return n;
}

int sio_utf8_is_text(const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t used = 0;
	for (;;) {
		/* Runs of printable ASCII, nearly every byte of a name, at one compare a byte:
		 * inject checks the file name of each of a Java dump's line rows this way. */
		const unsigned char *run = s;
		while ((unsigned char)(*s - 0x20) < 0x5f)
			s++;
		if ((used += (size_t)(s - run)) > max)
			return 0;
		if (!*s)
			return 1;
		size_t n = *s == '\t' ? 1 : printable_len(s);
		if (!n || (used += n) > max)
			return 0;
		s += n;
	}
}

/* The code point of the valid UTF-8 sequence of n bytes at s. */
static uint32_t decode(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[n];
	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/* Characters that are printable UTF-8 but not safe to show as they are: the C1 controls (some
 * terminals obey them as escape sequences), the bidirectional controls and marks (U+061C,
 * U+200E/U+200F, U+202A-U+202E, U+2066-U+2069: they reorder what a terminal or a browser shows
 * after them, a name can look like another) and the line and paragraph separators U+2028/
 * U+2029 (line ends for some viewers and older JavaScript). */
static int invisible(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* One character of s as it may be shown: *len the bytes it takes (1 for a byte that is not
 * UTF-8), and its escape in esc (NUL-terminated; empty when the bytes are shown as they are):
 * text gets \xNN for a C0 control, DEL or a byte that is not UTF-8, \uXXXX for the rest;
 * JSON \u00NN for a C0 control, \ufffd for a byte that is not UTF-8, \uXXXX for the rest,
 * \" and \\ for its own syntax. */
static void escape_char(const unsigned char *s, int json, size_t *len, char esc[8])
{
	size_t n = sio_utf8_len(s);
	esc[0] = 0;
	*len = n ? n : 1;
	if (!n)
		snprintf(esc, 8, json ? "\\ufffd" : "\\x%02x", s[0]);
	else if (n == 1 && (s[0] < 0x20 || s[0] == 0x7f))
		snprintf(esc, 8, json ? "\\u%04x" : "\\x%02x", s[0]);
	else if (n == 1 && json && (s[0] == '"' || s[0] == '\\'))
		snprintf(esc, 8, "\\%c", s[0]);
	else if (n > 1 && invisible(decode(s, n)))
		snprintf(esc, 8, "\\u%04x", (unsigned)decode(s, n));
}

/* The bytes of s from the start that need no escape: printable ASCII (nearly every byte of a
 * name, at one compare each) without JSON's quote and backslash. */
static size_t plain_run(const unsigned char *s, int json)
{
	size_t n = 0;
	while ((unsigned char)(s[n] - 0x20) < 0x5f && (!json || (s[n] != '"' && s[n] != '\\')))
		n++;
	return n;
}

int sio_has_controls(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*(s += plain_run(s, 0))) {
		size_t n;
		char esc[8];
		escape_char(s, 0, &n, esc);
		if (esc[0])
			return 1;
		s += n;
	}
	return 0;
}

/* s escaped for text, as the inside of a JSON string, or as a message (text whose own
 * newlines are lines: its data was escaped when it was formatted), written by put(ctx, bytes,
 * n): the one escaping path of every output. */
void sio_escape_to(const char *str, enum sio_esc mode,
		   void (*put)(void *, const void *, size_t), void *ctx)
{
	const unsigned char *s = (const unsigned char *)str;
	int json = mode == SIO_ESC_JSON;
	for (;;) {
		size_t n = plain_run(s, json);
		if (n)
			put(ctx, s, n);
		if (!*(s += n))
			return;
		char esc[8];
		if (mode == SIO_ESC_MESSAGE && *s == '\n') {
			put(ctx, s++, 1);
			continue;
		}
		escape_char(s, json, &n, esc);
		if (esc[0])
			put(ctx, esc, strlen(esc));
		else
			put(ctx, s, n);
		s += n;
	}
}

static void put_mem(void *ctx, const void *p, size_t n)
{
	char **o = ctx;
	memcpy(*o, p, n);
	*o += n;
}

char *sio_escape_controls(const char *str)
{
	/* at most 4 characters a byte: \xNN for one byte, \uXXXX for 2 or 3 */
	char *out = malloc(strlen(str) * 4 + 1), *o = out;
	if (!out)
		return NULL;
	sio_escape_to(str, SIO_ESC_TEXT, put_mem, &o);
	*o = 0;
	return out;
}

static void put_file(void *ctx, const void *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

int sio_fputs_text(const char *s, FILE *fp)
{
	sio_escape_to(s, SIO_ESC_TEXT, put_file, fp);
	return ferror(fp) ? EOF : 0;
}

int sio_fput_json_str(const char *s, FILE *fp)
{
	fputc('"', fp);
	sio_escape_to(s, SIO_ESC_JSON, put_file, fp);
	fputc('"', fp);
	return ferror(fp) ? EOF : 0;
}

int sio_fputs_message(const char *msg, FILE *fp)
{
	sio_escape_to(msg, SIO_ESC_MESSAGE, put_file, fp);
	return ferror(fp) ? EOF : 0;
}
