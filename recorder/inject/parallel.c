/* parallel.c - inject's names for lib/pool.c's parallel-for (build-ids of a whole dump) and
 * default thread count: one thread pool for the whole tree. */
#include "recorder/inject/inject_int.h"

#include "lib/pool.h"

int inj_default_threads(void)
{
	return jp_default_threads();
}

void inj_parallel_for(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
	jp_parallel_for(n, threads, fn, ctx);
}
