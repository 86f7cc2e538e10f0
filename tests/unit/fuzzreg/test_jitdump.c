/* test_jitdump.c - replays tests/fuzz/fuzz_jitdump.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_jitdump
int fuzzreg_jitdump(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_jitdump.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(jitdump)
