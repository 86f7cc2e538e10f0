/* build_chunk.c - see build_chunk.h. */
#include "tests/unit/jfr/build_chunk.h"

#include <string.h>

void bb_u8(struct bbuf *b, uint8_t v)
{
	if (b->n < sizeof(b->p))
		b->p[b->n++] = v;
}

void bb_varint(struct bbuf *b, uint64_t v)
{
	for (int i = 0; i < 8 && v >= 0x80; i++, v >>= 7)
		bb_u8(b, (uint8_t)(v | 0x80));
	bb_u8(b, (uint8_t)v);
}

void bb_be(struct bbuf *b, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--)
		bb_u8(b, (uint8_t)(v >> (8 * i)));
}

void bb_bytes(struct bbuf *b, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bb_u8(b, ((const uint8_t *)p)[i]);
}

void bb_utf8(struct bbuf *b, const char *s)
{
	bb_u8(b, 3);
	bb_varint(b, strlen(s));
	bb_bytes(b, s, strlen(s));
}

void bb_event(struct bbuf *out, const struct bbuf *payload)
{
	size_t size = payload->n + 1;
	if (size >= 0x80)	/* the size counts its own bytes */
		size++;
	bb_varint(out, size);
	bb_bytes(out, payload->p, payload->n);
}

/* The metadata's string table, by index. */
static const char *const strs[] = {
	"root", "metadata", "class", "field", "id", "name", "constantPool", "true",
	"dimension", "1", "long", "int", "java.lang.String", "Symbol", "Method", "test.Deopt",
	"20", "21", "22", "30", "31", "100", "string", "line", "startTime", "compileId",
	"tags", "method", "reason", "note",
};

static size_t s(const char *str)
{
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(strs[i], str))
			return i;
	return 0;
}

/* <field name=N class=T [constantPool=true] [dimension=1]/> */
static void field(struct bbuf *m, const char *name, const char *type, int cp, int array)
{
	bb_varint(m, s("field"));
	bb_varint(m, 2 + !!cp + !!array);
	bb_varint(m, s("name"));
	bb_varint(m, s(name));
	bb_varint(m, s("class"));
	bb_varint(m, s(type));
	if (cp) {
		bb_varint(m, s("constantPool"));
		bb_varint(m, s("true"));
	}
	if (array) {
		bb_varint(m, s("dimension"));
		bb_varint(m, s("1"));
	}
	bb_varint(m, 0);
}

static void class_head(struct bbuf *m, const char *name, const char *id, size_t nfields)
{
	bb_varint(m, s("class"));
	bb_varint(m, 2);
	bb_varint(m, s("name"));
	bb_varint(m, s(name));
	bb_varint(m, s("id"));
	bb_varint(m, s(id));
	bb_varint(m, nfields);
}

static void metadata(struct bbuf *out)
{
	static struct bbuf m;
	m.n = 0;
	bb_varint(&m, 0);	/* type: metadata */
	bb_varint(&m, 1000);	/* start, duration, id */
	bb_varint(&m, 0);
	bb_varint(&m, 1);
	bb_varint(&m, sizeof(strs) / sizeof(strs[0]));
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		bb_utf8(&m, strs[i]);
	bb_varint(&m, s("root"));
	bb_varint(&m, 0);
	bb_varint(&m, 1);
	bb_varint(&m, s("metadata"));
	bb_varint(&m, 0);
	bb_varint(&m, 6);
	class_head(&m, "long", "20", 0);
	class_head(&m, "int", "21", 0);
	class_head(&m, "java.lang.String", "22", 0);
	class_head(&m, "Symbol", "30", 1);
	field(&m, "string", "22", 0, 0);
	class_head(&m, "Method", "31", 2);
	field(&m, "name", "30", 1, 0);
	field(&m, "line", "21", 0, 0);
	class_head(&m, "test.Deopt", "100", 6);
	field(&m, "startTime", "20", 0, 0);
	field(&m, "compileId", "21", 0, 0);
	field(&m, "tags", "21", 0, 1);
	field(&m, "method", "31", 1, 0);
	field(&m, "reason", "22", 0, 0);
	field(&m, "note", "22", 1, 0);
	bb_event(out, &m);
}

static void checkpoint(struct bbuf *out)
{
	static struct bbuf c;
	c.n = 0;
	bb_varint(&c, 1);	/* type: checkpoint */
	bb_varint(&c, 1000);
	bb_varint(&c, 0);
	bb_varint(&c, 0);	/* delta */
	bb_u8(&c, 0);		/* flags */
	bb_varint(&c, 3);	/* pools */
	bb_varint(&c, 30);	/* Symbol: 1 -> "foo" */
	bb_varint(&c, 1);
	bb_varint(&c, 1);
	bb_utf8(&c, "foo");
	bb_varint(&c, 31);	/* Method: 5 -> {name 1, line 42} */
	bb_varint(&c, 1);
	bb_varint(&c, 5);
	bb_varint(&c, 1);
	bb_varint(&c, 42);
	bb_varint(&c, 22);	/* String: 9 -> "pooled" */
	bb_varint(&c, 1);
	bb_varint(&c, 9);
	bb_utf8(&c, "pooled");
	bb_event(out, &c);
}

static void deopt(struct bbuf *out, uint64_t ticks, int32_t id, int second)
{
	static struct bbuf e;
	e.n = 0;
	bb_varint(&e, 100);
	bb_varint(&e, ticks);
	bb_varint(&e, (uint32_t)id);
	bb_varint(&e, 3);	/* tags: 3 ints, skipped on the way to later fields */
	bb_varint(&e, 1);
	bb_varint(&e, 300);
	bb_varint(&e, 70000);
	bb_varint(&e, 5);	/* method: pool key 5 */
	if (!second) {
		bb_utf8(&e, "null_check");
	} else {	/* Latin-1 "caf\xe9", then... */
		bb_u8(&e, 5);
		bb_varint(&e, 4);
		bb_bytes(&e, "caf\xe9", 4);
	}
	bb_varint(&e, 9);	/* note: key 9 of the String pool */
	bb_event(out, &e);
}

#define SIZE_AT 8	/* the chunk's size, then the checkpoint's and metadata's offsets */

void bb_chunk_begin(struct bbuf *b, uint64_t start_ns, uint64_t dur_ns, uint64_t start_ticks,
		    uint64_t ticks_per_s)
{
	b->n = 0;
	bb_bytes(b, "FLR", 4);
	bb_be(b, 2, 2);
	bb_be(b, 1, 2);
	bb_be(b, 0, 8);
	bb_be(b, 0, 8);
	bb_be(b, 0, 8);
	bb_be(b, start_ns, 8);
	bb_be(b, dur_ns, 8);
	bb_be(b, start_ticks, 8);
	bb_be(b, ticks_per_s, 8);
	bb_be(b, 3, 4);		/* compressed ints, final chunk */
}

void bb_chunk_end(struct bbuf *b, size_t cp, size_t meta)
{
	size_t end = b->n;
	b->n = SIZE_AT;
	bb_be(b, end, 8);
	bb_be(b, cp, 8);
	bb_be(b, meta, 8);
	b->n = end;
}

void build_test_chunk(struct bbuf *out)
{
	struct bbuf *b = out;
	/* 1000 ticks a second from tick 1000000 */
	bb_chunk_begin(b, 1700000000000000000ull, 5000000000ull, 1000000, 1000);
	deopt(b, 1000000 + 2000, 7, 0);
	size_t cp = b->n;
	checkpoint(b);
	deopt(b, 1000000 + 3500, -1, 1);
	size_t meta = b->n;
	metadata(b);
	bb_chunk_end(b, cp, meta);
}
