/* index_tab.c - storage for jd_index: see index_int.h. Tables double at half load, so a
 * lookup probes only a slot or two. */
#include "jitdump/index_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* Blocks double from ARENA_FIRST to ARENA_BLOCK: a dump of a few loads needs no 1 MiB block
 * (under ASan a fresh mapping per index, one per fuzzing execution of inject), and a big one
 * reaches full blocks after a few small ones. */
#define ARENA_FIRST (4u << 10)
#define ARENA_BLOCK (1u << 20)

struct jd_arena_block {
	struct jd_arena_block *next;
	size_t used, cap;
	_Alignas(8) unsigned char data[];
};

void *jd_arena_alloc(struct jd_arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct jd_arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		int one_off = n > ARENA_BLOCK / 4;
		size_t cap = n;
		if (!one_off) {
			cap = !b ? ARENA_FIRST : b->cap < ARENA_BLOCK / 2 ? b->cap * 2 : ARENA_BLOCK;
			while (cap < n)
				cap *= 2;
		}
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		/* A big one-off block goes behind the current one so its free space stays usable. */
		if (one_off && a->head) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

void *jd_arena_dup(struct jd_arena *a, const void *src, size_t n)
{
	void *p = jd_arena_alloc(a, n ? n : 1);
	if (p && n)
		memcpy(p, src, n);
	return p;
}

void jd_arena_free(struct jd_arena *a)
{
	while (a->head) {
		struct jd_arena_block *n = a->head->next;
		free(a->head);
		a->head = n;
	}
}

/* The tables' keys (method names, code indexes, addresses) come from the dump: hashed under a
 * per-process random seed, or a crafted dump puts every key in one probe run (issue 34). The
 * mix is lib/hash_seed.c's jp_hash_bytes (wyhash-style: a 64x64->128 multiply folded, the seed
 * in both factors); libjitdump may use libc only, so it keeps this copy. */
static uint64_t seed;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void seed_init(void)
{
	uint64_t v = 0;
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = ((uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec) * 0x9e3779b97f4a7c15ull ^
		    (uintptr_t)&v;
	}
	seed = v | 1;
}

static uint64_t tab_seed(void)
{
	pthread_once(&seed_once, seed_init);
	return seed;
}

static uint64_t mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

#define K1 0xe7037ed1a0b428dbull
#define K2 0x8ebc6af09c88c6e3ull

static uint64_t hash_u64(uint64_t k, uint64_t sd)
{
	return mum(K2 ^ 8, mum(k ^ sd ^ K1, sd ^ K2));
}

/* 16 bytes a step: a byte-wise FNV over every name was a tenth of indexing a 200k-load dump. */
static uint64_t hash_str(const char *s, uint64_t sd)
{
	size_t len = strlen(s), n = len;
	uint64_t h = mum(sd ^ 0xa0761d6478bd642full, len ^ K1), a = 0, b = 0;
	for (; n > 16; n -= 16, s += 16) {
		memcpy(&a, s, 8);
		memcpy(&b, s + 8, 8);
		h = mum(a ^ sd ^ K1, b ^ h);
	}
	a = b = 0;
	memcpy(&a, s, n > 8 ? 8 : n);
	if (n > 8)
		memcpy(&b, s + 8, n - 8);
	return mum(K2 ^ len, mum(a ^ sd ^ K1, b ^ h ^ K2));
}

/* What growing needs to know about a table's slots. */
struct slot_ops {
	size_t size;
	int (*used)(const void *slot);
	uint64_t (*hash)(const void *slot, uint64_t seed);
};

/* Doubles a table (power-of-two capacity, linear probing), reinserting every used slot. */
static int grow(void **slots, size_t *cap, const struct slot_ops *ops, uint64_t sd)
{
	size_t ncap = *cap ? *cap * 2 : 16;	/* small dumps are most dumps (and fuzz inputs) */
	char *ns = calloc(ncap, ops->size), *old = *slots;
	if (!ns)
		return -1;
	for (size_t i = 0; i < *cap; i++) {
		const char *slot = old + i * ops->size;
		if (!ops->used(slot))
			continue;
		size_t j = ops->hash(slot, sd) & (ncap - 1);
		while (ops->used(ns + j * ops->size))
			j = (j + 1) & (ncap - 1);
		memcpy(ns + j * ops->size, slot, ops->size);
	}
	free(old);
	*slots = ns;
	*cap = ncap;
	return 0;
}

static int name_used(const void *s)
{
	return ((const struct jd_name_slot *)s)->name != NULL;
}

static uint64_t name_hash(const void *s, uint64_t sd)
{
	(void)sd;	/* kept in the slot */
	return ((const struct jd_name_slot *)s)->hash;
}

static const struct slot_ops name_ops = { sizeof(struct jd_name_slot), name_used, name_hash };

uint32_t jd_name_tab_bump(struct jd_name_tab *t, const char *name)
{
	if (!t->seed)
		t->seed = tab_seed();
	if ((t->used + 1) * 2 > t->cap && grow((void **)&t->slots, &t->cap, &name_ops, t->seed))
		return 0;
	uint64_t h = hash_str(name, t->seed);
	size_t j = h & (t->cap - 1);
	for (;; j = (j + 1) & (t->cap - 1), t->probes++) {
		struct jd_name_slot *s = &t->slots[j];
		if (!s->name) {
			*s = (struct jd_name_slot){ name, h, 1 };
			t->used++;
			return 1;
		}
		if (s->hash == h && !strcmp(s->name, name))
			return ++s->count;
	}
}

void jd_name_tab_free(struct jd_name_tab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int u64_used(const void *s)
{
	return ((const struct jd_u64_slot *)s)->val != 0;
}

static uint64_t u64_hash(const void *s, uint64_t sd)
{
	return hash_u64(((const struct jd_u64_slot *)s)->key, sd);
}

static const struct slot_ops u64_ops = { sizeof(struct jd_u64_slot), u64_used, u64_hash };

int jd_u64_tab_put(struct jd_u64_tab *t, uint64_t key, uint32_t val)
{
	if (!t->seed)
		t->seed = tab_seed();
	if ((t->used + 1) * 2 > t->cap && grow((void **)&t->slots, &t->cap, &u64_ops, t->seed))
		return -1;
	size_t j = hash_u64(key, t->seed) & (t->cap - 1);
	for (; t->slots[j].val && t->slots[j].key != key; t->probes++)
		j = (j + 1) & (t->cap - 1);
	if (!t->slots[j].val)
		t->used++;
	t->slots[j] = (struct jd_u64_slot){ key, val + 1 };
	return 0;
}

int jd_u64_tab_get(const struct jd_u64_tab *t, uint64_t key, uint32_t *val)
{
	if (!t->cap)
		return 0;
	size_t j = hash_u64(key, t->seed) & (t->cap - 1);
	for (; t->slots[j].val; j = (j + 1) & (t->cap - 1)) {
		if (t->slots[j].key == key) {
			*val = t->slots[j].val - 1;
			return 1;
		}
	}
	return 0;
}

void jd_u64_tab_free(struct jd_u64_tab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
