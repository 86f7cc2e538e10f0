/* clock.c - the writer's timestamp sources. MONOTONIC matches `perf record -k mono`; ARCH is
 * the raw TSC that perf converts with the recording's TIME_CONV data (x86-64 only). */
#include "jitdump/jd_int.h"

#include <errno.h>
#include <time.h>

int jd_clock_check(enum jd_clock c)
{
	switch (c) {
	case JD_CLOCK_MONOTONIC:
	case JD_CLOCK_MONOTONIC_RAW:
		return 0;
	case JD_CLOCK_ARCH:
#if defined(__x86_64__) || defined(__i386__)
		return 0;
#else
		return -ENOTSUP;
#endif
	}
	return -EINVAL;
}

uint64_t jd_clock_read(enum jd_clock c)
{
	if (c == JD_CLOCK_ARCH) {
#if defined(__x86_64__) || defined(__i386__)
		uint32_t lo, hi;
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
#else
		return 0;
#endif
	}
	struct timespec ts;
	clock_gettime(c == JD_CLOCK_MONOTONIC_RAW ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
