/* hash_seed.c - see hash_seed.h. */
#include "lib/hash_seed.h"

#include <pthread.h>
#include <sys/random.h>
#include <time.h>

static uint64_t seed;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_seed(void)
{
	uint64_t v = 0;
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uintptr_t)&v ^
		    (uint64_t)ts.tv_sec;
	}
	seed = v | 1;
}

uint64_t jp_hash_seed(void)
{
	pthread_once(&once, init_seed);
	return seed;
}
