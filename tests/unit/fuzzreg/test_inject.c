/* test_inject.c - replays tests/fuzz/fuzz_inject.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_inject
int fuzzreg_inject(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_inject.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(inject)
