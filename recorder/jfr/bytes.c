/* bytes.c - JFR's byte encodings, read through a bounded cursor: compressed integers (7 bits a
 * byte, least significant first, the ninth byte whole), big-endian header fields, and strings
 * with their encoding byte (null, empty, pool reference, UTF-8, UTF-16 units, Latin-1),
 * turned into UTF-8. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/jfr/jfr_int.h"

static int fail(struct jfr_cur *c)
{
	c->bad = 1;
	return -EINVAL;
}

int jfr_u8(struct jfr_cur *c, uint8_t *v)
{
	if (c->bad || c->pos >= c->end)
		return fail(c);
	*v = c->p[c->pos++];
	return 0;
}

int jfr_varint(struct jfr_cur *c, uint64_t *v)
{
	uint64_t r = 0;
	uint8_t b;

	for (int i = 0; i < 9; i++) {
		if (jfr_u8(c, &b))
			return -EINVAL;
		if (i == 8) {
			r |= (uint64_t)b << 56;
			break;
		}
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*v = r;
	return 0;
}

int jfr_be(struct jfr_cur *c, size_t n, uint64_t *v)
{
	uint64_t r = 0;
	uint8_t b;

	for (size_t i = 0; i < n; i++) {
		if (jfr_u8(c, &b))
			return -EINVAL;
		r = r << 8 | b;
	}
	*v = r;
	return 0;
}

/* Appends code point cp as UTF-8 within len (keeping room for the NUL); counts it in *n. */
static void put_utf8(char *buf, size_t len, size_t *n, uint32_t cp)
{
	char t[4];
	size_t k;

	if (cp < 0x80) {
		t[0] = (char)cp;
		k = 1;
	} else if (cp < 0x800) {
		t[0] = (char)(0xc0 | cp >> 6);
		t[1] = (char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		t[0] = (char)(0xe0 | cp >> 12);
		t[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		t[2] = (char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		t[0] = (char)(0xf0 | cp >> 18);
		t[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		t[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		t[3] = (char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	if (buf && *n + k < len)
		memcpy(buf + *n, t, k);
	*n += k;
}

/* Encoding 4: UTF-16 code units as compressed integers; pairs of surrogates joined, a lone
 * one U+FFFD. */
static int utf16(struct jfr_cur *c, uint64_t count, char *buf, size_t len, size_t *n)
{
	uint32_t hi = 0;

	for (uint64_t i = 0; i < count; i++) {
		uint64_t u;
		if (jfr_varint(c, &u) || u > 0xffff)
			return fail(c);
		if (u >= 0xd800 && u < 0xdc00) {
			if (hi)
				put_utf8(buf, len, n, 0xfffd);
			hi = (uint32_t)u;
			continue;
		}
		if (u >= 0xdc00 && u < 0xe000 && hi) {
			put_utf8(buf, len, n, 0x10000 + ((hi - 0xd800) << 10) + ((uint32_t)u - 0xdc00));
			hi = 0;
			continue;
		}
		if (hi)
			put_utf8(buf, len, n, 0xfffd);
		hi = 0;
		put_utf8(buf, len, n, u >= 0xdc00 && u < 0xe000 ? 0xfffd : (uint32_t)u);
	}
	if (hi)
		put_utf8(buf, len, n, 0xfffd);
	return 0;
}

int jfr_string(struct jfr_cur *c, char *buf, size_t len, size_t *full, uint64_t *pool_key)
{
	uint8_t enc;
	uint64_t count;
	size_t n = 0;

	if (pool_key)
		*pool_key = UINT64_MAX;
	if (buf && len)
		buf[0] = 0;
	if (jfr_u8(c, &enc))
		return -EINVAL;
	switch (enc) {
	case 0:
		return -ENOENT;
	case 1:
		break;
	case 2:	/* a key into the java.lang.String pool */
		if (jfr_varint(c, &count))
			return -EINVAL;
		if (pool_key)
			*pool_key = count;
		break;
	case 3:
	case 5:
		if (jfr_varint(c, &count) || count > c->end - c->pos || count > JFR_MAX_STRING)
			return fail(c);
		for (uint64_t i = 0; i < count; i++) {
			uint8_t b = c->p[c->pos + i];
			if (enc == 5)	/* Latin-1: each byte its code point */
				put_utf8(buf, len, &n, b);
			else if (buf && n + 1 < len)
				buf[n++] = (char)b;
			else
				n++;
		}
		c->pos += count;
		break;
	case 4:
		if (jfr_varint(c, &count) || count > JFR_MAX_STRING || count > c->end - c->pos)
			return fail(c);
		if (utf16(c, count, buf, len, &n))
			return -EINVAL;
		break;
	default:
		return fail(c);
	}
	if (buf && len)
		buf[n < len ? n : len - 1] = 0;
	if (full)
		*full = n;
	return 0;
}

int jfr_string_dup(struct jfr_cur *c, char **out)
{
	struct jfr_cur again = *c;
	size_t n = 0;
	int rc;

	*out = NULL;
	if ((rc = jfr_string(&again, NULL, 0, &n, NULL)) == -ENOENT) {
		*c = again;
		return 0;
	}
	if (rc)
		return fail(c);
	if (!(*out = malloc(n + 1)))
		return -ENOMEM;
	jfr_string(c, *out, n + 1, NULL, NULL);
	return 0;
}
