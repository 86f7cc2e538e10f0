/* test_report.c - replays tests/fuzz/fuzz_report.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_report
int fuzzreg_report(const uint8_t *data, size_t size);
#define FUZZ_REPORT_EVERY_OUTPUT 1
#include "tests/fuzz/fuzz_report.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(report)
