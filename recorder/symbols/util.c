/* util.c - what the symbols files share: binary search and an inline sort
 * over 8-byte keys, the session's arena (DSOs and their names: freed all at once) and its
 * interned strings. */
#include "recorder/symbols/symbols_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

size_t sym_upper_bound(const void *base, size_t n, size_t stride, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, (const char *)base + mid * stride, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct sym_chunk {
	struct sym_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

void *sess_alloc(struct sym_session *s, size_t n)
{
	/* big enough that calloc maps it fresh (zero pages, no memset of megabytes of DSOs) */
	enum { CHUNK = 1 << 20 };
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	struct sym_chunk *c = s->arena;
	if (!n || n > SIZE_MAX / 2)
		return NULL;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK / 4 ? n : CHUNK;
		/* mapped: the kernel's zero pages, where calloc may memset a reused heap */
		void *m = mmap(NULL, sizeof(*c) + cap, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		c = m;
		c->cap = cap;
		/* a big block alone keeps the current chunk's room for what follows */
		if (cap == n && s->arena) {
			c->next = s->arena->next;
			s->arena->next = c;
		} else {
			c->next = s->arena;
			s->arena = c;
		}
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

void sess_arena_free(struct sym_session *s)
{
	for (struct sym_chunk *c = s->arena, *n; c; c = n) {
		n = c->next;
		munmap(c, sizeof(*c) + c->cap);
	}
	s->arena = NULL;
}

char *sess_strdup(struct sym_session *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *p = sess_alloc(s, n);
	return p ? memcpy(p, str, n) : NULL;
}

static int key_less(const struct sym_key *a, const struct sym_key *b)
{
	return a->key != b->key ? a->key < b->key : a->idx < b->idx;
}

/* Quicksort (median of three, smaller side first so the stack stays O(log n)) with the
 * comparison inline: symbol tables of 10^5 entries are sorted on every report. */
void sym_sort_keys(struct sym_key *v, size_t n)
{
	while (n > 16) {
		size_t mid = n / 2;
		struct sym_key t;
#define KSWAP(i, j) (t = v[i], v[i] = v[j], v[j] = t)
		if (key_less(&v[mid], &v[0]))
			KSWAP(mid, 0);
		if (key_less(&v[n - 1], &v[mid])) {
			KSWAP(n - 1, mid);
			if (key_less(&v[mid], &v[0]))
				KSWAP(mid, 0);
		}
		struct sym_key pivot = v[mid];
		size_t i = 0, j = n - 1;
		for (;;) {
			while (key_less(&v[i], &pivot))
				i++;
			while (key_less(&pivot, &v[j]))
				j--;
			if (i >= j)
				break;
			KSWAP(i, j);
			i++;
			j--;
		}
#undef KSWAP
		/* [0, j] and [j + 1, n) */
		if (j + 1 < n - j - 1) {
			sym_sort_keys(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			sym_sort_keys(v + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct sym_key x = v[i];
		size_t j = i;
		for (; j && key_less(&x, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

const char *sess_intern(struct sym_session *s, const char *str)
{
	return jp_strset_add(&s->strs, str);
}
