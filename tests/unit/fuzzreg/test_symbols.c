/* test_symbols.c - replays tests/fuzz/fuzz_symbols.c's seeds and regression inputs (replay.h). */
#include <stddef.h>
#include <stdint.h>

#define LLVMFuzzerTestOneInput fuzzreg_symbols
int fuzzreg_symbols(const uint8_t *data, size_t size);
#include "tests/fuzz/fuzz_symbols.c"
#include "tests/unit/fuzzreg/replay.h"

FUZZREG_TEST(symbols)

/* Under ASan: the libdw-internal leak tests/fuzz/lsan.supp explains is not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libdw.so\n";
}
