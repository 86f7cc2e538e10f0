/* test_unwind.c - replays tests/fuzz/fuzz_unwind.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_unwind
int fuzzreg_unwind(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_unwind.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(unwind)
