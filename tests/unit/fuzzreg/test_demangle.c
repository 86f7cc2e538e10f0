/* test_demangle.c - replays tests/fuzz/fuzz_demangle.c's seeds and regression inputs
 * (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_demangle
int fuzzreg_demangle(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_demangle.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(demangle)
