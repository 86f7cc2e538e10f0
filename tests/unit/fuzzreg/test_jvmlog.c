/* test_jvmlog.c - replays tests/fuzz/fuzz_jvmlog.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_jvmlog
int fuzzreg_jvmlog(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_jvmlog.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(jvmlog)
