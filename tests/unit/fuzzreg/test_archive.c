/* test_archive.c - replays tests/fuzz/fuzz_archive.c's seeds and regression inputs
 * (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_archive
int fuzzreg_archive(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_archive.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(archive)
