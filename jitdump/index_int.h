/* index_int.h - the index's storage helpers (index_tab.c): a bump arena so a million loads
 * cost a few hundred allocations, and two open-addressing hash tables (name -> load count,
 * u64 key -> load number). */
#ifndef JITPROF_INDEX_INT_H
#define JITPROF_INDEX_INT_H

#include <stddef.h>
#include <stdint.h>

/* Internal to libjitdump: not exported from libjitdump.so. */
#pragma GCC visibility push(hidden)

struct jd_arena {
	struct jd_arena_block *head;
};
void *jd_arena_alloc(struct jd_arena *a, size_t n);	/* 8-aligned, NULL on ENOMEM */
void *jd_arena_dup(struct jd_arena *a, const void *src, size_t n);
void jd_arena_free(struct jd_arena *a);

struct jd_name_slot {
	const char *name;
	uint64_t hash;
	uint32_t count;
};
struct jd_name_tab {
	struct jd_name_slot *slots;
	size_t cap, used;
};
/* Increments name's count and returns the new value (1 for a first load), 0 on ENOMEM. */
uint32_t jd_name_tab_bump(struct jd_name_tab *t, const char *name);
void jd_name_tab_free(struct jd_name_tab *t);

struct jd_u64_slot {
	uint64_t key;
	uint32_t val;		/* stored + 1; 0 marks an empty slot */
};
struct jd_u64_tab {
	struct jd_u64_slot *slots;
	size_t cap, used;
};
int jd_u64_tab_put(struct jd_u64_tab *t, uint64_t key, uint32_t val);	/* replaces */
int jd_u64_tab_get(const struct jd_u64_tab *t, uint64_t key, uint32_t *val); /* 1 found */
void jd_u64_tab_free(struct jd_u64_tab *t);

#pragma GCC visibility pop

#endif
