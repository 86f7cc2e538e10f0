/* pool.h - the one thread pool: workers take fixed-size jobs (copied in) from a FIFO that grows
 * as needed and run fn(ctx, job) on each; the caller can watch progress and waits for the end.
 * jp_parallel_for runs an index range on it. inject's ELF writers, its build-id pass and
 * `jitprof synth` use it. */
#ifndef JITPROF_LIB_POOL_H
#define JITPROF_LIB_POOL_H

#include <stddef.h>
#include <stdint.h>

struct jp_pool;

/* threads <= 0: jp_default_threads(); at most 64 start. threads == 1 starts none: each job
 * runs in the caller, inside jp_pool_push. 0, -ENOMEM, or -EAGAIN when no thread could start
 * (*out NULL then: the caller runs the work itself). */
int jp_pool_new(struct jp_pool **out, int threads, size_t job_size,
		void (*fn)(void *ctx, void *job), void *ctx);
/* One thread that runs the jobs beside the caller (work that overlaps the caller's own, where
 * jp_pool_new's threads == 1 would run it in the caller), at a lower priority (nice + 5) than
 * the caller, which waits for the result. Returns as jp_pool_new. */
int jp_pool_new_worker(struct jp_pool **out, size_t job_size, void (*fn)(void *ctx, void *job),
		       void *ctx);
/* Queues a copy of job_size bytes at job. 0 or -ENOMEM. */
int jp_pool_push(struct jp_pool *p, const void *job);
/* Jobs finished so far and jobs ever queued. */
void jp_pool_progress(struct jp_pool *p, uint64_t *done, uint64_t *queued);
/* Runs every queued job to the end, stops the threads, frees p. NULL is a no-op. */
void jp_pool_finish(struct jp_pool *p);

/* Online CPUs, at most 16. */
int jp_default_threads(void);
/* fn(ctx, i) for every i in [0, n), on up to threads threads (<= 0: the default); small
 * ranges run on the calling thread alone. Returns when all are done. */
void jp_parallel_for(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
