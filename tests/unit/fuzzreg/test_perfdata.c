/* test_perfdata.c - replays tests/fuzz/fuzz_perfdata.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_perfdata
int fuzzreg_perfdata(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_perfdata.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(perfdata)
