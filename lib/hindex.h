/* hindex.h - the one hash table for keyed data (libbpf's hashmap.h idea, smaller): an
 * open-addressing index over the owner's own array of items. A slot holds an item's index + 1
 * and the item's full hash; the keys stay in the owner's items and a callback compares them,
 * so one table serves names, (pid, path) pairs and build-ids alike. Keys come from recordings
 * and dumps: hash them with jp_hindex_hash (seeded per process, lib/hash_seed.h), or a crafted
 * file puts every key in one probe run. Zero-initialized = empty. Not thread-safe. */
#ifndef JITPROF_LIB_HINDEX_H
#define JITPROF_LIB_HINDEX_H

#include <stddef.h>
#include <stdint.h>

struct jp_hindex_slot {
	uint64_t hash;
	uint32_t item;		/* 0: empty, else the item's index + 1 */
};

struct jp_hindex {
	struct jp_hindex_slot *slot;	/* power-of-two size, at most half full */
	size_t cap, n;
	size_t probes;			/* occupied slots passed over (the flooding tests) */
};

/* 1 when the owner's item idx has the key being looked for. */
typedef int (*jp_hindex_eq_fn)(const void *key, uint32_t idx, const void *ctx);

/* The seeded hash of len bytes (the same value for the whole run). */
uint64_t jp_hindex_hash(const void *key, size_t len);

/* The index of the item under hash whose key eq accepts, or -1. */
int64_t jp_hindex_find(struct jp_hindex *x, uint64_t hash, const void *key, jp_hindex_eq_fn eq,
		       const void *ctx);

/* Adds item idx (its key absent: the caller looked) under hash. 0, or -ENOMEM / -EOVERFLOW
 * (idx past UINT32_MAX - 1) with the index unchanged. */
int jp_hindex_add(struct jp_hindex *x, uint64_t hash, size_t idx);

void jp_hindex_free(struct jp_hindex *x);	/* leaves *x empty, usable again */

#endif
