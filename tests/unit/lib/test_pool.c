/* test_pool.c - lib/pool.c, the one thread pool: every job queued (more than the ring holds at
 * first) runs exactly once with its own bytes, progress counts them, and parallel-for covers
 * each index once for empty, small and large ranges. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/pool.h"

enum { N = 5000 };

struct job { size_t idx; uint64_t tag; };
static atomic_int runs[N];

static void run(void *ctx, void *arg)
{
	const struct job *j = arg;
	cr_assert_eq(ctx, (void *)runs);
	cr_assert_eq(j->tag, j->idx * 7 + 1, "a job's bytes arrive as pushed");
	atomic_fetch_add(&runs[j->idx], 1);
}

Test(pool, every_job_once_through_growth)
{
	struct jp_pool *p;
	uint64_t done, queued;
	for (size_t i = 0; i < N; i++)
		atomic_store(&runs[i], 0);
	cr_assert_eq(jp_pool_new(&p, 4, sizeof(struct job), run, runs), 0);
	for (size_t i = 0; i < N; i++) {
		struct job j = { i, i * 7 + 1 };
		cr_assert_eq(jp_pool_push(p, &j), 0);
	}
	jp_pool_progress(p, &done, &queued);
	cr_assert_eq(queued, N);
	cr_assert_leq(done, N);
	jp_pool_finish(p);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(atomic_load(&runs[i]), 1, "job %zu ran %d times", i,
			     atomic_load(&runs[i]));
}

/* threads == 1: no thread; each job has run when its push returns, on the caller's thread. */
static pthread_t ran_on;

static void run_here(void *ctx, void *arg)
{
	run(ctx, arg);
	ran_on = pthread_self();
}

Test(pool, one_thread_runs_jobs_in_the_caller)
{
	struct jp_pool *p;
	uint64_t done, queued;
	for (size_t i = 0; i < 10; i++)
		atomic_store(&runs[i], 0);
	cr_assert_eq(jp_pool_new(&p, 1, sizeof(struct job), run_here, runs), 0);
	for (size_t i = 0; i < 10; i++) {
		struct job j = { i, i * 7 + 1 };
		ran_on = 0;
		cr_assert_eq(jp_pool_push(p, &j), 0);
		cr_assert_eq(atomic_load(&runs[i]), 1, "job %zu not run by its push", i);
		cr_assert(pthread_equal(ran_on, pthread_self()), "job %zu ran on another thread", i);
	}
	jp_pool_progress(p, &done, &queued);
	cr_assert_eq(done, 10);
	cr_assert_eq(queued, 10);
	jp_pool_finish(p);
}

/* jp_pool_new_worker: one thread, not the caller's; every job runs once, in order. */
static pthread_t worker_of[10];
static atomic_int order_next;
static atomic_int order_bad;

static void run_elsewhere(void *ctx, void *arg)
{
	struct job *j = arg;
	run(ctx, arg);
	worker_of[j->idx] = pthread_self();
	if (atomic_fetch_add(&order_next, 1) != (int)j->idx)
		atomic_store(&order_bad, 1);
}

Test(pool, worker_runs_jobs_beside_the_caller)
{
	struct jp_pool *p;
	for (size_t i = 0; i < 10; i++)
		atomic_store(&runs[i], 0);
	atomic_store(&order_next, 0);
	atomic_store(&order_bad, 0);
	cr_assert_eq(jp_pool_new_worker(&p, sizeof(struct job), run_elsewhere, runs), 0);
	for (size_t i = 0; i < 10; i++) {
		struct job j = { i, i * 7 + 1 };
		cr_assert_eq(jp_pool_push(p, &j), 0);
	}
	jp_pool_finish(p);
	for (size_t i = 0; i < 10; i++) {
		cr_assert_eq(atomic_load(&runs[i]), 1, "job %zu ran %d times", i,
			     atomic_load(&runs[i]));
		cr_assert(!pthread_equal(worker_of[i], pthread_self()), "job %zu ran in the caller",
			  i);
		cr_assert(pthread_equal(worker_of[i], worker_of[0]), "job %zu on a second thread", i);
	}
	cr_assert_eq(atomic_load(&order_bad), 0, "jobs ran out of order");
}

/* The worker beside the caller runs below it (nice + 5, capped at 19); a pool's workers for
 * parallel work run at the caller's priority. */
static atomic_int nice_seen;

static void note_nice(void *ctx, void *arg)
{
	(void)ctx;
	(void)arg;
	errno = 0;
	int n = getpriority(PRIO_PROCESS, (id_t)gettid());
	atomic_store(&nice_seen, errno ? 1000 : n);
}

static void *try_lower(void *arg)
{
	errno = 0;
	int n = getpriority(PRIO_PROCESS, (id_t)gettid());
	*(int *)arg = !errno && setpriority(PRIO_PROCESS, (id_t)gettid(), n + 1) == 0;
	return NULL;
}

Test(pool, worker_beside_the_caller_runs_below_it)
{
	errno = 0;
	int mine = getpriority(PRIO_PROCESS, (id_t)gettid());
	cr_assert_eq(errno, 0);
	int can = 0;	/* a sandbox may refuse the call: then there is nothing to check */
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, try_lower, &can), 0);
	pthread_join(t, NULL);
	if (!can || mine >= 19)
		cr_skip_test("a thread cannot lower its own priority here (nice %d)", mine);
	struct jp_pool *p;
	char unused = 0;
	cr_assert_eq(jp_pool_new_worker(&p, 1, note_nice, NULL), 0);
	cr_assert_eq(jp_pool_push(p, &unused), 0);
	jp_pool_finish(p);
	int want = mine + 5 > 19 ? 19 : mine + 5;
	cr_assert_eq(atomic_load(&nice_seen), want, "worker nice %d, caller %d",
		     atomic_load(&nice_seen), mine);
	cr_assert_eq(jp_pool_new(&p, 2, 1, note_nice, NULL), 0);
	cr_assert_eq(jp_pool_push(p, &unused), 0);
	jp_pool_finish(p);
	cr_assert_eq(atomic_load(&nice_seen), mine, "a parallel pool's worker at nice %d, not %d",
		     atomic_load(&nice_seen), mine);
	errno = 0;
	cr_assert_eq(getpriority(PRIO_PROCESS, (id_t)gettid()), mine, "the caller's own changed");
}

static atomic_int seen[100000];

static void mark(void *ctx, size_t i)
{
	(void)ctx;
	atomic_fetch_add(&seen[i], 1);
}

Test(pool, parallel_for_covers_each_index_once)
{
	static const size_t sizes[] = { 0, 1, 255, 257, 100000 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (size_t i = 0; i < 100000; i++)
			atomic_store(&seen[i], 0);
		jp_parallel_for(sizes[k], 0, mark, NULL);
		for (size_t i = 0; i < 100000; i++)
			cr_assert_eq(atomic_load(&seen[i]), i < sizes[k] ? 1 : 0, "n %zu, index %zu",
				     sizes[k], i);
	}
	cr_assert_geq(jp_default_threads(), 1);
	cr_assert_leq(jp_default_threads(), 16);
}
