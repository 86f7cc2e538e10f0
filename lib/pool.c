/* pool.c - see pool.h. One mutex and condition guard a ring of job slots; the ring doubles
 * in place when full, so a producer never waits for the workers. */
#include "lib/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX_THREADS 64
#define CHUNK 256	/* indexes per parallel-for job */

struct jp_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *q;		/* cap slots of job_size bytes */
	size_t job_size, head, tail, cap;
	int closing;
	uint64_t finished, queued;
	void (*fn)(void *ctx, void *job);
	void *ctx;
	pthread_t th[MAX_THREADS];
	int nt;
	int inline_jobs;	/* threads == 1: jobs run in jp_pool_push, no thread */
	int background;		/* jp_pool_new_worker's: below the caller's priority */
};

/* A worker beside the caller (jp_pool_new_worker) runs at a lower priority than it: on two
 * CPUs, report's dump index and DWARF read ahead beside the replay made three busy threads,
 * and the replay, which everything waits for, lost a third of a CPU to work that had time to
 * spare (flame graph and HTML of a Java start-up: median -8%). */
#define BACKGROUND_NICE 5

static void *worker(void *arg)
{
	struct jp_pool *p = arg;
	unsigned char *job = malloc(p->job_size);
	if (p->background) {	/* per thread on Linux; refused (no such call): left as it is */
		id_t tid = (id_t)gettid();
		errno = 0;
		int nice = getpriority(PRIO_PROCESS, tid);
		if (!errno)
			(void)setpriority(PRIO_PROCESS, tid, nice + BACKGROUND_NICE);
	}

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->head == p->tail && !p->closing)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->head == p->tail || !job)
			break;
		memcpy(job, p->q + (p->head++ % p->cap) * p->job_size, p->job_size);
		pthread_mutex_unlock(&p->mu);
		p->fn(p->ctx, job);
		pthread_mutex_lock(&p->mu);
		p->finished++;
	}
	pthread_mutex_unlock(&p->mu);
	free(job);
	return NULL;
}

int jp_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

static int pool_new(struct jp_pool **out, int threads, int one_inline, size_t job_size,
		    void (*fn)(void *ctx, void *job), void *ctx)
{
	struct jp_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->job_size = job_size ? job_size : 1;
	p->fn = fn;
	p->background = threads == 1 && !one_inline;
	p->ctx = ctx;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (threads <= 0)
		threads = jp_default_threads();
	/* One worker would only hand each job across a thread and back: a thread start, a
	 * join and two wakeups per pool, which was most of a fuzzing execution of inject. Such
	 * a pool has no queue either. (jp_pool_new_worker asks for a real thread.) */
	if (threads == 1 && one_inline) {
		p->inline_jobs = 1;
		*out = p;
		return 0;
	}
	p->cap = 1024;
	if (!(p->q = malloc(p->cap * p->job_size))) {
		jp_pool_finish(p);
		return -ENOMEM;
	}
	for (int i = 0; i < threads && i < MAX_THREADS; i++)
		if (pthread_create(&p->th[p->nt], NULL, worker, p) == 0)
			p->nt++;
	if (!p->nt) {
		jp_pool_finish(p);
		return -EAGAIN;
	}
	*out = p;
	return 0;
}

int jp_pool_new(struct jp_pool **out, int threads, size_t job_size,
		void (*fn)(void *ctx, void *job), void *ctx)
{
	return pool_new(out, threads, 1, job_size, fn, ctx);
}

int jp_pool_new_worker(struct jp_pool **out, size_t job_size, void (*fn)(void *ctx, void *job),
		       void *ctx)
{
	return pool_new(out, 1, 0, job_size, fn, ctx);
}

/* Copies the live part of the ring, in order, into one twice as large. */
static int grow(struct jp_pool *p)
{
	size_t n = p->tail - p->head, nc = p->cap * 2;
	unsigned char *nq = malloc(nc * p->job_size);

	if (!nq)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		memcpy(nq + i * p->job_size, p->q + ((p->head + i) % p->cap) * p->job_size,
		       p->job_size);
	free(p->q);
	p->q = nq;
	p->cap = nc;
	p->head = 0;
	p->tail = n;
	return 0;
}

int jp_pool_push(struct jp_pool *p, const void *job)
{
	if (p->inline_jobs) {
		unsigned char copy[256];
		void *j = p->job_size <= sizeof(copy) ? copy : malloc(p->job_size);
		if (!j)
			return -ENOMEM;
		memcpy(j, job, p->job_size);	/* the job gets a copy, as from the queue */
		pthread_mutex_lock(&p->mu);
		p->queued++;
		pthread_mutex_unlock(&p->mu);
		p->fn(p->ctx, j);
		pthread_mutex_lock(&p->mu);
		p->finished++;
		pthread_mutex_unlock(&p->mu);
		if (j != copy)
			free(j);
		return 0;
	}
	pthread_mutex_lock(&p->mu);
	if (p->tail - p->head == p->cap && grow(p) < 0) {
		pthread_mutex_unlock(&p->mu);
		return -ENOMEM;
	}
	memcpy(p->q + (p->tail++ % p->cap) * p->job_size, job, p->job_size);
	p->queued++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

void jp_pool_progress(struct jp_pool *p, uint64_t *done, uint64_t *queued)
{
	pthread_mutex_lock(&p->mu);
	*done = p->finished;
	*queued = p->queued;
	pthread_mutex_unlock(&p->mu);
}

void jp_pool_finish(struct jp_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->closing = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nt; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->q);
	free(p);
}

struct range_job { size_t begin, end; };
struct range_ctx { void (*fn)(void *ctx, size_t i); void *ctx; };

static void run_range(void *ctx, void *job)
{
	const struct range_ctx *rc = ctx;
	const struct range_job *j = job;
	for (size_t i = j->begin; i < j->end; i++)
		rc->fn(rc->ctx, i);
}

void jp_parallel_for(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct range_ctx rc = { fn, ctx };
	struct jp_pool *p = NULL;

	if (threads <= 0)
		threads = jp_default_threads();
	/* Small jobs are not worth a thread start. */
	if ((size_t)threads > n / CHUNK + 1)
		threads = (int)(n / CHUNK + 1);
	if (threads > 1 && jp_pool_new(&p, threads, sizeof(struct range_job), run_range, &rc))
		p = NULL;
	for (size_t b = 0; b < n; b += CHUNK) {
		struct range_job j = { b, b + CHUNK < n ? b + CHUNK : n };
		if (!p || jp_pool_push(p, &j))
			run_range(&rc, &j);	/* no pool (or no memory): here */
	}
	jp_pool_finish(p);
}
