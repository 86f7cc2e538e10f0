/* strset.h - the one string interner (libbpf's strset idea): equal strings give the same
 * pointer, so users compare pointers; strings live in big chunks until jp_strset_free. Used by
 * report's session and symbols' session. Not thread-safe (one per session). */
#ifndef JITPROF_LIB_STRSET_H
#define JITPROF_LIB_STRSET_H

#include <stddef.h>
#include <stdint.h>

struct jp_strset_chunk;

struct jp_strset_slot {
	uint64_t hash;			/* the string's full hash, beside it: one cache line */
	const char *str;		/* NULL: empty */
};

struct jp_strset {			/* zero-initialized = empty */
	struct jp_strset_chunk *chunks;
	struct jp_strset_slot *slots;	/* open addressing, power-of-two size, <= half full */
	size_t cap, n;
	uint64_t seed;			/* jp_hash_seed, taken when the table is first made */
	size_t probes;			/* occupied slots adds passed over (the flooding test) */
};

/* The interned copy of str; NULL for NULL, or on out of memory. */
const char *jp_strset_add(struct jp_strset *s, const char *str);
void jp_strset_free(struct jp_strset *s);	/* leaves *s empty, usable again */

#endif
