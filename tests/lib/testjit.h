/* testjit.h - a tiny JIT for the tests that need jitted code under perf (jitdump_perf,
 * report_names): three x86-64 loops as bytes, placed in an executable page, run for a while;
 * and the "re-run this binary as the recorded child" hook they share. */
#ifndef JITPROF_TESTJIT_H
#define JITPROF_TESTJIT_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__x86_64__)
#define TU_HAVE_JIT 1
/* uint64_t f(uint64_t n): three different loops that count n down (or up) to zero. */
extern const uint8_t tu_jit_alpha[9], tu_jit_beta[10], tu_jit_gamma[11];
#endif

#define TU_JIT_STRIDE 64	/* code i is at page + i * TU_JIT_STRIDE */

/* n pieces of code copied into a fresh page made read+exec; NULL on failure. */
uint8_t *tu_jit_place(const uint8_t *const *codes, const size_t *sizes, int n);
/* fn(1000000) over and over for ms milliseconds (CLOCK_MONOTONIC). */
void tu_jit_spin(uint64_t (*fn)(uint64_t), uint64_t ms);

/* A constructor that, with environment variable env set, runs fn(its value) and exits with
 * its result: the test binary re-run under `perf record` as the recorded program. */
#define TU_CHILD_MODE(env, fn)                                                              \
	__attribute__((constructor)) static void tu_child_mode(void)                         \
	{                                                                                    \
		const char *v_ = getenv(env);                                                \
		if (v_)                                                                      \
			_exit(fn(v_));                                                       \
	}

#endif
