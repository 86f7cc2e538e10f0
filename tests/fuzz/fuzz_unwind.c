/* fuzz_unwind.c - libFuzzer target: the stack unwinder (recorder/unwind/) on hostile samples.
 * The input is a sample's user registers (perf's x86_64 order, mask 0xff0fff: 20 u64s, short
 * inputs zero-filled) then its stack copy; every pc lands in this binary's own file (pc modulo
 * its size), so the walk meets the CFI rows of thousands of real functions, and the copy
 * decides every register and return address.
 * fuzz-srcs: recorder/unwind/ safeio/ lib/hash_seed.c
 * fuzz-libs: -lelf -ldw */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recorder/unwind/unwind.h"

#define NREGS 20

static struct unw_cfi *self;
static uint64_t self_size;

static int find(void *ctx, uint64_t pc, struct unw_module *m)
{
	(void)ctx;
	if (!self || !self_size)
		return -ENOENT;
	m->cfi = self;
	m->file_off = pc % self_size;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	uint64_t regs[NREGS] = { 0 }, pcs[UNW_MAX_FRAMES];
	enum unw_end end;

	if (!ready) {
		struct stat st;
		ready = 1;
		if (!stat("/proc/self/exe", &st) && !unw_cfi_open("/proc/self/exe", &self))
			self_size = (uint64_t)st.st_size;
	}
	size_t rl = size < sizeof(regs) ? size : sizeof(regs);
	memcpy(regs, data, rl);
	struct unw_input in = {
		.regs_abi = 2, .regs_mask = 0xff0fffULL, .regs = regs,
		.stack = size > rl ? data + rl : NULL, .stack_size = size - rl,
	};
	int n = unw_walk(&in, find, NULL, pcs, UNW_MAX_FRAMES, &end);
	if (n < 0 || n > UNW_MAX_FRAMES || (unsigned)end >= UNW_END_NR)
		abort();
	return 0;
}
