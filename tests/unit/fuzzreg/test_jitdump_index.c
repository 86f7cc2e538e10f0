/* test_jitdump_index.c - replays tests/fuzz/fuzz_jitdump_index.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_jitdump_index
int fuzzreg_jitdump_index(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_jitdump_index.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(jitdump_index)
