/* strset.c - see strset.h. Linear probing over (hash, string) slots, strings copied into
 * 64 KiB chunks: millions of small mallocs would dominate a report. A report interns every
 * frame's names, so each slot keeps its full hash: a probe compares hashes before strings and
 * growing never re-reads (strlen + rehash) the strings already in. */
#include "lib/strset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u << 10)

struct jp_strset_chunk {
	struct jp_strset_chunk *next;
	size_t used, cap;
	char data[];
};

/* Eight bytes a step (names and paths are tens of bytes long), mixed by a multiply and a
 * shift; the tail is read bytewise so nothing past the string's end is touched. Returns the
 * length through *lenp: the one pass over the string does both. */
static uint64_t hash(const char *p, size_t *lenp)
{
	const uint64_t m = 0x9e3779b97f4a7c15ull;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t len = strlen(p), i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * m;
		h ^= h >> 29;
	}
	uint64_t t = 0;
	for (size_t k = 0; i + k < len; k++)
		t |= (uint64_t)(uint8_t)p[i + k] << (8 * k);
	h = (h ^ t ^ len) * m;
	h ^= h >> 32;
	*lenp = len;
	return h;
}

static char *store(struct jp_strset *s, const char *str, size_t len)
{
	struct jp_strset_chunk *c = s->chunks;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > CHUNK ? len : CHUNK;
		if (!(c = malloc(sizeof(*c) + cap)))
			return NULL;
		c->next = s->chunks;
		c->used = 0;
		c->cap = cap;
		s->chunks = c;
	}
	char *p = c->data + c->used;
	memcpy(p, str, len);
	c->used += len;
	return p;
}

static int grow(struct jp_strset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	struct jp_strset_slot *v = calloc(cap, sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->slots[i].str)
			continue;
		size_t j = s->slots[i].hash & (cap - 1);
		while (v[j].str)
			j = (j + 1) & (cap - 1);
		v[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = v;
	s->cap = cap;
	return 0;
}

const char *jp_strset_add(struct jp_strset *s, const char *str)
{
	if (!str)
		return NULL;
	if (s->n * 2 >= s->cap && grow(s))
		return NULL;
	size_t len;
	uint64_t h = hash(str, &len);
	size_t j = h & (s->cap - 1);
	for (; s->slots[j].str; j = (j + 1) & (s->cap - 1))
		if (s->slots[j].hash == h && !memcmp(s->slots[j].str, str, len + 1))
			return s->slots[j].str;
	const char *p = store(s, str, len + 1);
	if (!p)
		return NULL;
	s->slots[j] = (struct jp_strset_slot){ h, p };
	s->n++;
	return p;
}

void jp_strset_free(struct jp_strset *s)
{
	while (s->chunks) {
		struct jp_strset_chunk *n = s->chunks->next;
		free(s->chunks);
		s->chunks = n;
	}
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
