/* buf.c - the growable byte buffer and the little-endian / LEB128 encoders that synth's ELF
 * and DWARF writers build their sections with. */
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "synth/synth_int.h"

void synth_buf_free(struct synth_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int grow(struct synth_buf *b, size_t n)
{
	if (b->oom)
		return -1;
	if (n <= b->cap - b->len)
		return 0;
	if (n > SIZE_MAX - b->len || jp_grow(&b->p, &b->cap, b->len + n, 1, 256)) {
		b->oom = 1;
		return -1;
	}
	return 0;
}

void synth_buf_bytes(struct synth_buf *b, const void *src, size_t n)
{
	if (!n || grow(b, n))
		return;
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

void synth_buf_zero(struct synth_buf *b, size_t n)
{
	if (!n || grow(b, n))
		return;
	memset(b->p + b->len, 0, n);
	b->len += n;
}

static void put_le(struct synth_buf *b, uint64_t v, unsigned n)
{
	uint8_t t[8];
	for (unsigned i = 0; i < n; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	synth_buf_bytes(b, t, n);
}

void synth_buf_u8(struct synth_buf *b, uint8_t v) { put_le(b, v, 1); }
void synth_buf_u16(struct synth_buf *b, uint16_t v) { put_le(b, v, 2); }
void synth_buf_u32(struct synth_buf *b, uint32_t v) { put_le(b, v, 4); }
void synth_buf_u64(struct synth_buf *b, uint64_t v) { put_le(b, v, 8); }

void synth_buf_uleb(struct synth_buf *b, uint64_t v)
{
	uint8_t t[10];
	unsigned n = 0;
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		t[n++] = byte | (v ? 0x80 : 0);
	} while (v);
	synth_buf_bytes(b, t, n);
}

void synth_buf_sleb(struct synth_buf *b, int64_t v)
{
	uint8_t t[10];
	unsigned n = 0;
	for (;;) {
		uint8_t byte = v & 0x7f;
		/* Arithmetic shift of a negative value: gcc and clang both define it. */
		v >>= 7;
		int done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
		t[n++] = byte | (done ? 0 : 0x80);
		if (done)
			break;
	}
	synth_buf_bytes(b, t, n);
}

void synth_buf_str(struct synth_buf *b, const char *s)
{
	synth_buf_bytes(b, s, strlen(s) + 1);
}

void synth_buf_put_u32(struct synth_buf *b, size_t off, uint32_t v)
{
	if (b->oom || off > b->len || b->len - off < 4)
		return;
	for (unsigned i = 0; i < 4; i++)
		b->p[off + i] = (uint8_t)(v >> (8 * i));
}
