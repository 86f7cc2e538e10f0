/* strset.c - see strset.h. FNV-1a hash, linear probing, strings copied into 64 KiB chunks:
 * millions of small mallocs would dominate a report. */
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

static uint64_t hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
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
	const char **v = calloc(cap, sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->slots[i])
			continue;
		size_t j = hash(s->slots[i], strlen(s->slots[i])) & (cap - 1);
		while (v[j])
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
	size_t j = hash(str, len) & (s->cap - 1);
	for (; s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (!strcmp(s->slots[j], str))
			return s->slots[j];
	const char *p = store(s, str, len + 1);
	if (!p)
		return NULL;
	s->slots[j] = p;
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
