/* hasher.c - build-ids hashed behind the stream (`inject --no-elfs` on a file). A load's
 * validity and .text offset are judged before its dump's timeline is built (dumps.c); only the
 * SHA-1 of its code and tables is left, and the stream needs it no sooner than it writes the
 * load's MMAP2, in time order. So worker threads hash the queued loads in queue order (a dump's
 * own order, its time order) while the prescan and the stream go on, and the stream waits for
 * one load only when it reaches it, or hashes it itself when no worker has taken it yet: it
 * never waits on work that has not started.
 *
 * Each load's state is one byte in its inj_dfile (id_state), moved with atomics: PENDING to
 * CLAIMED by whoever hashes it (a compare-and-swap: one hasher per load), then DONE or FAILED
 * with release order, after the build-id bytes are written; readers load it with acquire
 * order before reading them. */
#include "lib/grow.h"
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pool.h"

enum { ID_PENDING = 0, ID_CLAIMED, ID_DONE, ID_FAILED };

#define HASHER_MAX_THREADS 16

struct hash_task {
	struct inj_dfile *f;
	uint32_t load;
};

struct inj_hasher {
	pthread_mutex_t mu;
	pthread_cond_t more;		/* tasks queued, or the queue closed */
	struct hash_task *tasks;
	size_t n, cap, next;		/* next: the first task no worker took */
	int closed;			/* no more tasks: idle workers end */
	int stop;			/* a failed run: workers end now */
	int threads, started;
	pthread_t tid[HASHER_MAX_THREADS];
	struct inj_dfile **files;	/* one reference each, so a task never outlives its file */
	size_t nr_files, cap_files;
	struct inj_dfile *failed_f;	/* the first load whose hash failed */
	uint32_t failed_load;
};

int inj_hasher_new(struct inj_hasher **out, int threads)
{
	struct inj_hasher *h = calloc(1, sizeof(*h));
	*out = NULL;
	if (!h)
		return -ENOMEM;
	if (threads <= 0)
		threads = jp_default_threads();
	/* The stream keeps one CPU busy (and hashes what it reaches first): one worker fewer
	 * than the CPUs measured best, and at least one, or nothing would overlap. */
	threads = threads > 1 ? threads - 1 : 1;
	h->threads = threads > HASHER_MAX_THREADS ? HASHER_MAX_THREADS : threads;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->more, NULL);
	*out = h;
	return 0;
}

/* Hashes load i of f unless someone else has claimed it. */
static void hash_unclaimed(struct inj_hasher *h, struct inj_dfile *f, uint32_t i)
{
	uint8_t want = ID_PENDING;
	if (!__atomic_compare_exchange_n(&f->id_state[i], &want, ID_CLAIMED, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	int rc = inj_dfile_hash_load(f, i);
	if (rc < 0) {
		pthread_mutex_lock(&h->mu);
		if (!h->failed_f) {
			h->failed_f = f;
			h->failed_load = i;
		}
		pthread_mutex_unlock(&h->mu);
	}
	__atomic_store_n(&f->id_state[i], rc < 0 ? ID_FAILED : ID_DONE, __ATOMIC_RELEASE);
}

/* Up to max next tasks into t, waiting for one while the queue is open (wait set); how many
 * (0: none left). */
static size_t take(struct inj_hasher *h, struct hash_task *t, size_t max, int wait)
{
	pthread_mutex_lock(&h->mu);
	while (wait && h->next == h->n && !h->closed && !h->stop)
		pthread_cond_wait(&h->more, &h->mu);
	size_t got = 0;
	while (got < max && h->next < h->n && !h->stop)
		t[got++] = h->tasks[h->next++];
	pthread_mutex_unlock(&h->mu);
	return got;
}

/* A few loads per lock: the lock per load was a tenth of a Java start-up's stream. */
#define WORKER_BATCH 16

static void *worker(void *arg)
{
	struct inj_hasher *h = arg;
	struct hash_task t[WORKER_BATCH];
	for (size_t n; (n = take(h, t, WORKER_BATCH, 1));)
		for (size_t k = 0; k < n; k++)
			hash_unclaimed(h, t[k].f, t[k].load);
	return NULL;
}

static int keep_file(struct inj_hasher *h, struct inj_dfile *f)
{
	for (size_t i = 0; i < h->nr_files; i++)
		if (h->files[i] == f)
			return 0;
	if (JP_GROW_FOR(h->files, h->cap_files, h->nr_files))
		return -ENOMEM;
	if (!f->id_state && !(f->id_state = calloc(jd_index_nr_loads(f->x) + 1, 1)))
		return -ENOMEM;
	f->refs++;
	h->files[h->nr_files++] = f;
	return 0;
}

int inj_hasher_queue(struct inj_hasher *h, struct inj_dfile *f, const uint32_t *idx, size_t n)
{
	int rc = 0;
	pthread_mutex_lock(&h->mu);
	if ((rc = keep_file(h, f)) == 0 &&
	    jp_grow(&h->tasks, &h->cap, h->n + n, sizeof(*h->tasks), 1024))
		rc = -ENOMEM;
	for (size_t k = 0; rc == 0 && k < n; k++)
		h->tasks[h->n++] = (struct hash_task){ f, idx[k] };
	if (rc == 0 && n)
		pthread_cond_broadcast(&h->more);
	pthread_mutex_unlock(&h->mu);
	/* The workers start with the first work, so they overlap the rest of the prescan
	 * too (the timeline, the next dump's index). A thread that cannot start leaves its
	 * share to the stream's waits and to inj_hasher_finish. */
	while (rc == 0 && n && h->started < h->threads &&
	       pthread_create(&h->tid[h->started], NULL, worker, h) == 0)
		h->started++;
	return rc;
}

static void close_queue(struct inj_hasher *h)
{
	pthread_mutex_lock(&h->mu);
	h->closed = 1;
	pthread_cond_broadcast(&h->more);
	pthread_mutex_unlock(&h->mu);
}

const uint8_t *inj_hasher_id(struct inj_hasher *h, struct inj_dfile *f, uint32_t i)
{
	if (!f->id_state)	/* hashed before the timeline, as without a hasher */
		return f->loads[i].build_id;
	uint8_t v = __atomic_load_n(&f->id_state[i], __ATOMIC_ACQUIRE);
	if (v == ID_PENDING) {	/* hashed here, or claimed by a worker in between */
		hash_unclaimed(h, f, i);
		v = __atomic_load_n(&f->id_state[i], __ATOMIC_ACQUIRE);
	}
	/* A worker has it: the wait hashes loads further on meanwhile (needed as much, and
	 * the CPU would idle otherwise), or spins when none are left untaken. */
	for (struct hash_task t; v == ID_CLAIMED;) {
		if (take(h, &t, 1, 0))
			hash_unclaimed(h, t.f, t.load);
		else
			sched_yield();
		v = __atomic_load_n(&f->id_state[i], __ATOMIC_ACQUIRE);
	}
	return v == ID_DONE ? f->loads[i].build_id : NULL;
}

int inj_hasher_finish(struct inj_hasher *h, const struct jp_log *log)
{
	struct hash_task t;
	close_queue(h);
	while (take(h, &t, 1, 0))	/* the caller helps instead of waiting */
		hash_unclaimed(h, t.f, t.load);
	for (int i = 0; i < h->started; i++)
		pthread_join(h->tid[i], NULL);
	h->started = 0;
	if (!h->failed_f)
		return 0;
	return inj_dfile_hash_error(h->failed_f, h->failed_load, NULL, log);
}

void inj_hasher_free(struct inj_hasher *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	h->closed = 1;
	pthread_cond_broadcast(&h->more);
	pthread_mutex_unlock(&h->mu);
	for (int i = 0; i < h->started; i++)
		pthread_join(h->tid[i], NULL);
	for (size_t i = 0; i < h->nr_files; i++)
		inj_dfile_put(h->files[i]);
	free(h->files);
	free(h->tasks);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->more);
	free(h);
}
