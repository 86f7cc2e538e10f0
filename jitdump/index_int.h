/* index_int.h - the index's storage helpers (index_tab.c): a bump arena so a million loads
 * cost a few hundred allocations, and two open-addressing hash tables (name -> load count,
 * u64 key -> load number). */
#ifndef JITPROF_INDEX_INT_H
#define JITPROF_INDEX_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "jitdump/jitdump.h"

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
	uint64_t seed;		/* the per-process hash seed, taken at the first use */
	size_t probes;		/* occupied slots passed over (the flooding test) */
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
	uint64_t seed;		/* as jd_name_tab's */
	size_t probes;		/* slots of other keys passed over by puts */
};
int jd_u64_tab_put(struct jd_u64_tab *t, uint64_t key, uint32_t val);	/* replaces */
int jd_u64_tab_get(const struct jd_u64_tab *t, uint64_t key, uint32_t *val); /* 1 found */
void jd_u64_tab_free(struct jd_u64_tab *t);

/* One companion record as the index joins it (index_ext.c), its parts in jd_ext_read's
 * arena. */
struct jd_ext_rec {
	uint32_t id;
	uint64_t offset, timestamp;
	union {
		const struct jd_ext_load_info *info;
		const struct jd_ext_inline *inl;
		struct jd_ext_unload unload;
		const struct jd_ext_agent_stats *stats;
		const struct jd_ext_method *method;
		const struct jd_ext_vm *vm;
	} u;
};

/* The method table (index_methods.c): slots sorted by (method, time, file order) once the
 * companion is joined. */
struct jd_method_slot {
	uint64_t method, time;
	size_t seq;
	const struct jd_ext_method *m;
};
struct jd_method_tab {
	struct jd_method_slot *v;
	size_t n, cap;
};
const struct jd_ext_method *jd_method_copy(struct jd_arena *a, const struct jd_ext_method *m);
int jd_method_tab_add(struct jd_method_tab *t, const struct jd_ext_method *m, uint64_t time);
void jd_method_tab_finish(struct jd_method_tab *t);
const struct jd_ext_method *jd_method_tab_find(const struct jd_method_tab *t, uint64_t method,
					       uint64_t time);
void jd_method_tab_free(struct jd_method_tab *t);

/* A companion file read on a thread of its own (index_ext.c). In: where it is and how to
 * read it. Out, after jd_ext_read_wait: the reader (NULL when the open failed, why says
 * why), the kept records in file order, rc -ENOMEM when reading stopped for memory, damaged
 * when the reader stopped at damage (its error says where). */
struct jd_ext_read {
	int dirfd;
	const char *name, *display;
	unsigned reader_flags;
	int no_inline;
	struct jd_reader *r;
	struct jd_arena arena;
	struct jd_ext_rec *v;
	size_t n, cap;
	int rc, damaged;
	char why[512];
	pthread_t thread;
	int threaded;
};
void jd_ext_read_start(struct jd_ext_read *e);	/* on a thread, or here if none starts */
void jd_ext_read_wait(struct jd_ext_read *e);

#pragma GCC visibility pop

#endif
