/* jfr_writer.c - the byte encoding of a Flight Recorder chunk: compressed integers, strings
 * with their encoding byte, big-endian header fields, and events prefixed by their size. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/jfr_int.h"
#include "recorder/report_views/views_int.h"

/* Room for len more bytes (the report's one growth helper); a failure is kept in err. */
static int grow(struct rp_jfr_buf *b, size_t len)
{
	if (b->err)
		return -1;
	if (len > SIZE_MAX / 2 - b->n || rp_grow(&b->p, &b->cap, b->n + len, 1))
		return b->err = -ENOMEM, -1;
	return 0;
}

void rp_jfr_put(struct rp_jfr_buf *b, const void *bytes, size_t len)
{
	if (len && !grow(b, len)) {
		memcpy(b->p + b->n, bytes, len);
		b->n += len;
	}
}

void rp_jfr_u8(struct rp_jfr_buf *b, uint8_t v)
{
	rp_jfr_put(b, &v, 1);
}

void rp_jfr_varint(struct rp_jfr_buf *b, uint64_t v)
{
	uint8_t t[9];
	size_t n = 0;
	while (n < 8 && v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;	/* the ninth byte holds the last 8 bits whole */
	rp_jfr_put(b, t, n);
}

size_t rp_jfr_varint_len(uint64_t v)
{
	size_t n = 1;
	while (n < 9 && v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void rp_jfr_str(struct rp_jfr_buf *b, const char *s)
{
	if (!s) {
		rp_jfr_u8(b, 0);
	} else if (!*s) {
		rp_jfr_u8(b, 1);
	} else {
		size_t len = strlen(s);
		rp_jfr_u8(b, 3);
		rp_jfr_varint(b, len);
		rp_jfr_put(b, s, len);
	}
}

void rp_jfr_be16(struct rp_jfr_buf *b, uint16_t v)
{
	uint8_t t[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	rp_jfr_put(b, t, 2);
}

void rp_jfr_be64(struct rp_jfr_buf *b, uint64_t v)
{
	uint8_t t[8];
	for (int i = 0; i < 8; i++)
		t[i] = (uint8_t)(v >> (56 - 8 * i));
	rp_jfr_put(b, t, 8);
}

void rp_jfr_event(struct rp_jfr_buf *out, const struct rp_jfr_buf *ev)
{
	if (ev->err) {
		if (!out->err)
			out->err = ev->err;
		return;
	}
	/* The size counts its own bytes: one more byte of size may make it need one more. */
	size_t n = rp_jfr_varint_len(ev->n + 1);
	while (rp_jfr_varint_len(ev->n + n) > n)
		n++;
	rp_jfr_varint(out, ev->n + n);
	rp_jfr_put(out, ev->p, ev->n);
}

void rp_jfr_buf_free(struct rp_jfr_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
