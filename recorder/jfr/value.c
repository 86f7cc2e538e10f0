/* value.c - values as the metadata lays them out: a primitive, a string, a constant-pool key,
 * an array (a count, then the values) or a class's fields in order. A field is found by
 * skipping the fields before it; a path step through a pool key continues at the pool
 * entry's bytes, so nothing is decoded that the caller did not ask for. */
#include <errno.h>
#include <string.h>

#include "recorder/jfr/jfr_int.h"

static int pool_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct jfr_chunk *ch = ctx;
	const uint64_t *k = key;
	return ch->pool[idx].type == k[0] && ch->pool[idx].key == k[1];
}

const struct jfr_pool_entry *jfr_pool_find(const struct jfr_chunk *ch, uint64_t type,
					   uint64_t key)
{
	uint64_t k[2] = { type, key };
	int64_t i = jp_hindex_find((struct jp_hindex *)&ch->pool_ix, jp_hindex_hash(k, sizeof(k)),
				   k, pool_eq, ch);
	return i < 0 ? NULL : &ch->pool[i];
}

static int skip_prim(struct jfr_cur *c, enum jfr_prim p)
{
	uint64_t v;
	uint8_t b;

	switch (p) {
	case JFR_P_BOOLEAN:
	case JFR_P_BYTE:
		return jfr_u8(c, &b);
	case JFR_P_FLOAT:
		return jfr_be(c, 4, &v);
	case JFR_P_DOUBLE:
		return jfr_be(c, 8, &v);
	case JFR_P_STRING: {
		int rc = jfr_string(c, NULL, 0, NULL, NULL);
		return rc == -ENOENT ? 0 : rc;
	}
	default:
		return jfr_varint(c, &v);
	}
}

static int skip_one(const struct jfr_chunk *ch, struct jfr_cur *c, const struct jfr_class *k,
		    int depth)
{
	if (k->prim != JFR_P_NONE)
		return skip_prim(c, k->prim);
	if (depth > JFR_MAX_DEPTH)
		return c->bad = 1, -EINVAL;
	for (size_t i = 0; i < k->nfields; i++) {
		const struct jfr_field *fl = &k->fields[i];
		if (jfr_skip_value(ch, c, fl->type, fl->cp, fl->array, depth + 1))
			return -EINVAL;
	}
	return 0;
}

int jfr_skip_value(const struct jfr_chunk *ch, struct jfr_cur *c, uint64_t type, int cp,
		   int array, int depth)
{
	const struct jfr_class *k = jfr_class_by_id(ch, type);
	uint64_t n = 1, key;

	if (!k)
		return c->bad = 1, -EINVAL;
	if (array && (jfr_varint(c, &n) || n > c->end - c->pos))
		return c->bad = 1, -EINVAL;	/* every value takes a byte at least */
	for (uint64_t i = 0; i < n; i++) {
		size_t before = c->pos;
		if (cp ? jfr_varint(c, &key) : skip_one(ch, c, k, depth))
			return -EINVAL;
		if (array && c->pos == before)	/* a class without fields: 0 bytes each */
			return c->bad = 1, -EINVAL;
	}
	return 0;
}

/* Where path's last step leads: the cursor at its value, with the field that holds it. */
struct spot {
	struct jfr_cur c;
	const struct jfr_field *fl;
	const struct jfr_chunk *ch;
};

static int walk(const struct jfr_event *ev, const char *path, struct spot *out)
{
	const struct jfr_chunk *ch = ev->c;
	const struct jfr_class *k = ev->k;
	struct jfr_cur c = { .p = ev->f->p, .pos = ev->off, .end = ev->end };
	int steps = 0;

	for (;;) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		const struct jfr_field *fl = NULL;
		for (size_t i = 0; i < k->nfields; i++) {
			if (strlen(k->fields[i].name) == len && !memcmp(k->fields[i].name, path, len)) {
				fl = &k->fields[i];
				break;
			}
			if (jfr_skip_value(ch, &c, k->fields[i].type, k->fields[i].cp,
					   k->fields[i].array, 1))
				return -EINVAL;
		}
		if (!fl || fl->array || ++steps > JFR_MAX_DEPTH)
			return -ENOENT;	/* arrays are not read by path */
		k = jfr_class_by_id(ch, fl->type);
		/* A type of one field (the metadata's simpleType, e.g. a deoptimization's
		 * reason) reads as that field, as the JDK's own tools print it. */
		int simple = k && k->prim == JFR_P_NONE && k->nfields == 1;
		if (!dot && !simple) {
			*out = (struct spot){ .c = c, .fl = fl, .ch = ch };
			return 0;
		}
		if (!k || k->prim != JFR_P_NONE)
			return -ENOENT;
		if (fl->cp) {
			uint64_t key;
			if (jfr_varint(&c, &key))
				return -EINVAL;
			const struct jfr_pool_entry *e = jfr_pool_find(ch, fl->type, key);
			if (!e)
				return -ENOENT;
			c = (struct jfr_cur){ .p = ev->f->p, .pos = e->off, .end = e->end };
		}
		path = dot ? dot + 1 : k->fields[0].name;
	}
}

int jfr_get_int(const struct jfr_event *ev, const char *path, int64_t *out)
{
	struct spot s;
	uint64_t v;
	uint8_t b;
	int rc = walk(ev, path, &s);

	if (rc)
		return rc;
	const struct jfr_class *k = jfr_class_by_id(s.ch, s.fl->type);
	if (s.fl->cp || !k)
		return -ENOENT;
	switch (k->prim) {
	case JFR_P_BOOLEAN:
	case JFR_P_BYTE:
		if (jfr_u8(&s.c, &b))
			return -EINVAL;
		*out = k->prim == JFR_P_BYTE ? (int8_t)b : b;
		return 0;
	case JFR_P_CHAR:
	case JFR_P_SHORT:
	case JFR_P_INT:
	case JFR_P_LONG:
		if (jfr_varint(&s.c, &v))
			return -EINVAL;
		/* ints are written as their unsigned 32 bits (-1: 5 bytes), shorts as 16 */
		*out = k->prim == JFR_P_LONG ? (int64_t)v : k->prim == JFR_P_INT ?
		       (int64_t)(int32_t)(uint32_t)v : k->prim == JFR_P_SHORT ?
		       (int64_t)(int16_t)(uint16_t)v : (int64_t)(uint16_t)v;
		return 0;
	default:
		return -EINVAL;
	}
}

int jfr_get_str(const struct jfr_event *ev, const char *path, char *buf, size_t len,
		size_t *full)
{
	struct spot s;
	uint64_t key;
	int rc = walk(ev, path, &s);

	if (rc)
		return rc;
	const struct jfr_class *k = jfr_class_by_id(s.ch, s.fl->type);
	if (!k || k->prim != JFR_P_STRING)
		return -ENOENT;
	if (s.fl->cp) {	/* a key into the string pool instead of the string */
		if (jfr_varint(&s.c, &key))
			return -EINVAL;
	} else if ((rc = jfr_string(&s.c, buf, len, full, &key)) || key == UINT64_MAX) {
		return rc;
	}
	const struct jfr_pool_entry *e = jfr_pool_find(s.ch, s.ch->string_type, key);
	if (!e)
		return -ENOENT;
	struct jfr_cur pc = { .p = ev->f->p, .pos = e->off, .end = e->end };
	rc = jfr_string(&pc, buf, len, full, &key);
	return !rc && key != UINT64_MAX ? -EINVAL : rc;	/* a pool entry is the string itself */
}

int64_t jfr_event_time_ns(const struct jfr_event *ev)
{
	int64_t ticks;

	if (jfr_get_int(ev, "startTime", &ticks))
		return -1;
	/* In 128 bits: a damaged tick count or rate must not overflow; a time outside what
	 * int64 nanoseconds hold is no time (-1). */
	const struct jfr_chunk *ch = ev->c;
	__int128 d = ((__int128)ticks - (__int128)ch->start_ticks) * 1000000000;
	__int128 t = (__int128)ch->start_ns + d / (__int128)ch->ticks_per_s;
	return t < 0 || t > INT64_MAX ? -1 : (int64_t)t;
}
