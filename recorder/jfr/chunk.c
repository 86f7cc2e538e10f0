/* chunk.c - a JFR file is chunks laid end to end; each is a 68-byte header (magic "FLR\0",
 * version 2.x, the chunk's size, where its last constant pools and its metadata are, its
 * start in nanoseconds and ticks, the tick rate, flags) and then events, each its size (a
 * compressed integer counting itself) and its type id. Type 0 is the metadata, type 1 a
 * checkpoint of constant pools; every other event is kept by reference for the callers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/jfr/jfr_int.h"

void jfr_damaged(const struct jfr_file *f, size_t off, const char *what)
{
	jp_logf(f->log, JP_LOG_ERROR, "%s: not a readable JFR file at byte %zu: %s", f->name, off,
		what);
}

/* One checkpoint event at [c->pos, c->end): pools of entries, each a key and a value of the
 * pool's type, indexed by (type, key); the first entry of a key wins. */
static int checkpoint(struct jfr_chunk *ch, struct jfr_cur *c)
{
	uint64_t skip, npools, type, count, key;
	uint8_t flags;

	for (int i = 0; i < 3; i++)	/* start, duration, delta to the previous checkpoint */
		jfr_varint(c, &skip);
	if (jfr_u8(c, &flags) || jfr_varint(c, &npools) || npools > c->end - c->pos)
		return -EINVAL;
	for (uint64_t p = 0; p < npools; p++) {
		if (jfr_varint(c, &type) || jfr_varint(c, &count) || count > c->end - c->pos ||
		    !jfr_class_by_id(ch, type))
			return c->bad = 1, -EINVAL;
		for (uint64_t i = 0; i < count; i++) {
			if (jfr_varint(c, &key))
				return -EINVAL;
			size_t off = c->pos;
			if (jfr_skip_value(ch, c, type, 0, 0, 0))
				return -EINVAL;
			if (jfr_pool_find(ch, type, key))
				continue;
			uint64_t k[2] = { type, key };
			if (JP_GROW_FOR(ch->pool, ch->cap_pool, ch->npool) ||
			    jp_hindex_add(&ch->pool_ix, jp_hindex_hash(k, sizeof(k)), ch->npool))
				return -ENOMEM;
			ch->pool[ch->npool++] = (struct jfr_pool_entry){ .type = type, .key = key,
									 .off = off, .end = c->end };
		}
	}
	return 0;
}

/* The events of the chunk at [ch->start, ch->end), after its metadata was read. */
static int events(struct jfr_file *f, struct jfr_chunk *ch, uint32_t idx)
{
	size_t pos = ch->start + JFR_HEADER_SIZE;

	while (pos < ch->end) {
		struct jfr_cur c = { .p = f->p, .pos = pos, .end = ch->end };
		uint64_t size, type;
		if (jfr_varint(&c, &size) || size < c.pos - pos + 1 || size > ch->end - pos ||
		    (c.end = pos + size, jfr_varint(&c, &type)))
			return jfr_damaged(f, pos, "an event's size is past its chunk"), -EINVAL;
		if (type == 1) {
			int rc = checkpoint(ch, &c);
			if (rc == -ENOMEM)
				return rc;
			if (rc)
				return jfr_damaged(f, c.pos, "constant pool cut short or malformed"),
				       -EINVAL;
		} else if (type != 0) {
			if (JP_GROW_FOR(f->ev, f->cap_ev, f->nev))
				return -ENOMEM;
			f->ev[f->nev++] = (struct jfr_ev_ref){ .chunk = idx, .type = type,
							       .off = c.pos, .end = c.end };
		}
		pos += size;
	}
	return 0;
}

/* The chunk at pos: 1 read, 0 none (an unfinished or cut chunk: the file ends here), <0. */
static int chunk(struct jfr_file *f, size_t pos)
{
	struct jfr_cur c = { .p = f->p, .pos = pos, .end = f->size };
	uint64_t major, minor, size, cp, meta, start_ns, dur, ticks, tps, flags;

	if (f->size - pos < JFR_HEADER_SIZE || memcmp(f->p + pos, "FLR", 4))
		return pos ? 0 : (jfr_damaged(f, pos, "no FLR magic"), -EINVAL);
	c.pos += 4;
	jfr_be(&c, 2, &major);
	jfr_be(&c, 2, &minor);
	jfr_be(&c, 8, &size);
	jfr_be(&c, 8, &cp);
	jfr_be(&c, 8, &meta);
	jfr_be(&c, 8, &start_ns);
	jfr_be(&c, 8, &dur);
	jfr_be(&c, 8, &ticks);
	jfr_be(&c, 8, &tps);
	jfr_be(&c, 4, &flags);
	if (major != 2) {
		jp_logf(f->log, JP_LOG_ERROR, "%s: JFR format %u.%u at byte %zu: only 2.x (JDK 11 "
			"and later) is read", f->name, (unsigned)major, (unsigned)minor, pos);
		return -ENOTSUP;
	}
	/* The JVM writes the size and positions when it finishes a chunk: zeros, or numbers
	 * past the file's end, are a chunk still being written or a file cut short. */
	if (size < JFR_HEADER_SIZE || size > f->size - pos || meta < JFR_HEADER_SIZE ||
	    meta >= size || !tps)
		return 0;
	if (f->nchunks >= JFR_MAX_CHUNKS)
		return jfr_damaged(f, pos, "more chunks than the reader takes"), -EINVAL;
	if (JP_GROW_FOR(f->chunks, f->cap_chunks, f->nchunks))
		return -ENOMEM;
	struct jfr_chunk *ch = &f->chunks[f->nchunks++];
	*ch = (struct jfr_chunk){ .start = pos, .end = pos + size, .start_ns = start_ns,
				  .start_ticks = ticks, .ticks_per_s = tps };
	struct jfr_cur m = { .p = f->p, .pos = pos + meta, .end = pos + size };
	uint64_t msize, mtype;
	if (jfr_varint(&m, &msize) || jfr_varint(&m, &mtype) || mtype != 0 ||
	    msize > size - meta)
		return jfr_damaged(f, pos + meta, "the header's metadata position holds no "
				   "metadata event"), -EINVAL;
	int rc = jfr_parse_metadata(f, ch, m.pos, pos + meta + msize);
	if (!rc)
		rc = events(f, ch, (uint32_t)(f->nchunks - 1));
	return rc ? rc : 1;
}

int jfr_open_mem(const void *p, size_t size, const char *name, const struct jp_log *log,
		 struct jfr_file **out)
{
	struct jfr_file *f = calloc(1, sizeof(*f));
	int rc = 0;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	*f = (struct jfr_file){ .p = p, .size = size, .name = name ? name : "JFR file",
				.log = log };
	size_t pos = 0;
	while (pos < size && (rc = chunk(f, pos)) > 0)
		pos = f->chunks[f->nchunks - 1].end;
	if (rc < 0) {
		jfr_close(f);
		return rc;
	}
	if (pos < size) {
		f->truncated = 1;
		if (!f->nchunks) {
			jfr_damaged(f, pos, "its only chunk is unfinished or cut short");
			jfr_close(f);
			return -EINVAL;
		}
		jp_logf(log, JP_LOG_WARN, "%s: the chunk at byte %zu is unfinished or cut short: "
			"%zu chunk(s) before it read", f->name, pos, f->nchunks);
	}
	*out = f;
	return 0;
}

void jfr_close(struct jfr_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nchunks; i++)
		jfr_chunk_free(&f->chunks[i]);
	free(f->chunks);
	free(f->ev);
	free(f);
}

size_t jfr_nr_chunks(const struct jfr_file *f)
{
	return f->nchunks;
}

int jfr_truncated(const struct jfr_file *f)
{
	return f->truncated;
}

int jfr_each_event(const struct jfr_file *f, const char *type, jfr_event_fn fn, void *arg)
{
	const struct jfr_class *k = NULL;
	size_t chunk = SIZE_MAX;

	for (size_t i = 0; i < f->nev; i++) {
		const struct jfr_ev_ref *r = &f->ev[i];
		if (r->chunk != chunk) {	/* type ids are per chunk */
			chunk = r->chunk;
			k = jfr_class_by_name(&f->chunks[chunk], type);
		}
		if (!k || r->type != k->id)
			continue;
		struct jfr_event ev = { .f = f, .c = &f->chunks[chunk], .k = k, .off = r->off,
					.end = r->end };
		int rc = fn(&ev, arg);
		if (rc)
			return rc;
	}
	return 0;
}

static int count_one(const struct jfr_event *ev, void *arg)
{
	(void)ev;
	++*(size_t *)arg;
	return 0;
}

size_t jfr_count_events(const struct jfr_file *f, const char *type)
{
	size_t n = 0;
	jfr_each_event(f, type, count_one, &n);
	return n;
}
