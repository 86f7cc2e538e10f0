/* hash_seed.h - one random value per process for the hash tables whose keys come from a
 * recording (frame addresses, build-ids): with a fixed hash, a crafted perf.data could make
 * every key land in one probe sequence and a report take quadratic time. Seeded, the slots
 * cannot be predicted. Nothing printed depends on it: the tables only find entries. */
#ifndef JITPROF_LIB_HASH_SEED_H
#define JITPROF_LIB_HASH_SEED_H

#include <stdint.h>

/* The same odd value for the whole run (getrandom; the clock and addresses if that fails). */
uint64_t jp_hash_seed(void);

#endif
