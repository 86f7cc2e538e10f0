/* hash_seed.c - see hash_seed.h. */
#include "lib/hash_seed.h"

#include <pthread.h>
#include <string.h>
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

static uint64_t mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* Up to 8 bytes into one word, nothing read past p + n. */
static uint64_t rd_tail(const unsigned char *p, size_t n)
{
	uint64_t w = 0;
	memcpy(&w, p, n);
	return w;
}

uint64_t jp_hash_bytes(const void *buf, size_t len, uint64_t seed)
{
	const uint64_t k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
	const unsigned char *p = buf;
	uint64_t h = mum(seed ^ 0xa0761d6478bd642full, len ^ k1), a, b;
	size_t n = len;
	for (; n > 16; n -= 16, p += 16)
		h = mum(rd64(p) ^ seed ^ k1, rd64(p + 8) ^ h);
	if (n > 8) {
		a = rd64(p);
		b = rd_tail(p + 8, n - 8);
	} else {
		a = rd_tail(p, n);
		b = 0;
	}
	return mum(k2 ^ len, mum(a ^ seed ^ k1, b ^ h ^ k2));
}
