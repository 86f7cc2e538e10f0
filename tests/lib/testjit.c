/* testjit.c - see testjit.h. */
#include "tests/lib/testjit.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__x86_64__)
const uint8_t tu_jit_alpha[9] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
const uint8_t tu_jit_beta[10] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xe8, 0x01, 0x75, 0xfa, 0xc3 };
const uint8_t tu_jit_gamma[11] = { 0x31, 0xc0, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xf8, 0x75, 0xf8,
				   0xc3 };
#endif

uint8_t *tu_jit_place(const uint8_t *const *codes, const size_t *sizes, int n)
{
	uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	if (mem == MAP_FAILED || n * TU_JIT_STRIDE > 4096)
		return NULL;
	for (int i = 0; i < n; i++)
		memcpy(mem + TU_JIT_STRIDE * i, codes[i], sizes[i]);
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC)) {
		munmap(mem, 4096);
		return NULL;
	}
	return mem;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void tu_jit_spin(uint64_t (*fn)(uint64_t), uint64_t ms)
{
	volatile uint64_t sink = 0;
	for (uint64_t t0 = now_ms(); now_ms() - t0 < ms;)
		sink += fn(1000000);
	(void)sink;
}
