/* test_agent_options.c - replays tests/fuzz/fuzz_agent_options.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_agent_options
int fuzzreg_agent_options(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_agent_options.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(agent_options)
