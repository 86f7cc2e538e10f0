/* strset.c - see strset.h. Linear probing over (hash, string) slots, strings copied into
 * 64 KiB chunks: millions of small mallocs would dominate a report. A report interns every
 * frame's names, so each slot keeps its full hash: a probe compares hashes before strings and
 * growing never re-reads (strlen + rehash) the strings already in. The names come from the
 * recording: the hash is seeded (lib/hash_seed.h), or crafted names share one probe run. */
#include "lib/strset.h"

#include "lib/hash_seed.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u << 10)

struct jp_strset_chunk {
	struct jp_strset_chunk *next;
	size_t used, cap;
	char data[];
};

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
	if (!s->cap)
		s->seed = jp_hash_seed();
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
	size_t len = strlen(str);
	uint64_t h = jp_hash_bytes(str, len, s->seed);
	size_t j = h & (s->cap - 1);
	for (; s->slots[j].str; j = (j + 1) & (s->cap - 1), s->probes++)
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
