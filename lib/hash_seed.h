/* hash_seed.h - one random value per process for the hash tables whose keys come from a
 * recording (frame addresses, build-ids, names, paths): with a fixed hash, a crafted perf.data
 * could make every key land in one probe sequence and a report take quadratic time. Seeded,
 * the slots cannot be predicted. Nothing printed depends on it: the tables only find entries.
 * jp_hash_bytes is the one seeded hash of bytes for lib/ and the modules above it (jitdump/,
 * libc only, keeps its own copy of the same mix in jitdump/index_tab.c). */
#ifndef JITPROF_LIB_HASH_SEED_H
#define JITPROF_LIB_HASH_SEED_H

#include <stddef.h>
#include <stdint.h>

/* The same odd value for the whole run (getrandom; the clock and addresses if that fails). */
uint64_t jp_hash_seed(void);

/* A wyhash-style mix of len bytes under seed: 16 bytes a step through a 64x64->128-bit
 * multiply folded to 64 bits, the seed in both factors, so neither can be forced to zero and
 * no key can be chosen for a slot without it (the old word hashes were bijections anyone could
 * invert). Every bit of the result depends on every input bit: a table may use its low bits. */
uint64_t jp_hash_bytes(const void *buf, size_t len, uint64_t seed);

#endif
