/* test_synth.c - replays tests/fuzz/fuzz_synth.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_synth
int fuzzreg_synth(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_synth.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(synth)
