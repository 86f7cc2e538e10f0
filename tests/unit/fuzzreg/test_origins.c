/* test_origins.c - replays tests/fuzz/fuzz_origins.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_origins
int fuzzreg_origins(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_origins.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(origins)
