/* test_jfr.c - replays tests/fuzz/fuzz_jfr.c's seeds and regression inputs
 * (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_jfr
int fuzzreg_jfr(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_jfr.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(jfr)
