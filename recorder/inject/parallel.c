/* parallel.c - a plain parallel-for over pthreads for the embarrassingly parallel parts of
 * inject (build-ids of a whole dump); work is handed out in chunks through one atomic cursor. */
#include "recorder/inject/inject.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define CHUNK 256

struct pf {
	size_t n;
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	atomic_size_t next;
};

static void *pf_worker(void *arg)
{
	struct pf *p = arg;
	for (;;) {
		size_t b = atomic_fetch_add(&p->next, CHUNK);
		if (b >= p->n)
			return NULL;
		size_t e = b + CHUNK < p->n ? b + CHUNK : p->n;
		for (size_t i = b; i < e; i++)
			p->fn(p->ctx, i);
	}
}

int inj_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

void inj_parallel_for(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pf p = { n, fn, ctx, 0 };
	pthread_t th[64];
	int nt = 0;
	if (threads <= 0)
		threads = inj_default_threads();
	if (threads > 64)
		threads = 64;
	/* Small jobs are not worth a thread start. */
	if ((size_t)threads > n / CHUNK + 1)
		threads = (int)(n / CHUNK + 1);
	for (int i = 1; i < threads; i++)
		if (pthread_create(&th[nt], NULL, pf_worker, &p) == 0)
			nt++;
	pf_worker(&p);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
}
