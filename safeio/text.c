/* text.c - text from untrusted input made safe to print (safeio.h). Names and paths reach us
 * as bytes (a process name, the symbols of an ELF from another machine, a runtime's own debug
 * info: node 20 writes DEBUG_INFO file names from freed memory) and can hold a terminal's
 * escape sequences, while terminals, JSON, XML and the viewers that parse them want text:
 * what is not printable UTF-8 is kept as the visible text \xNN instead. UTF-8 is read
 * strictly: no overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
#include "safeio/safeio.h"

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

int sio_has_controls(const char *str)
{
	for (const unsigned char *s = (const unsigned char *)str; *s;) {
		if (*s >= 0x20 && *s < 0x7f) {	/* printable ASCII, nearly every byte */
			s++;
			continue;
		}
		size_t n = printable_len(s);
		if (!n)
			return 1;
		s += n;
	}
	return 0;
}

char *sio_escape_controls(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char *out = malloc(strlen(str) * 4 + 1), *o = out;
	if (!out)
		return NULL;
	while (*s) {
		size_t n = printable_len(s);
		if (n) {
			memcpy(o, s, n);
			o += n, s += n;
		} else {
			o += sprintf(o, "\\x%02x", *s++);
		}
	}
	*o = 0;
	return out;
}
