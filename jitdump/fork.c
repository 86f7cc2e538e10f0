/* fork.c - a forked child gets its own dump. pthread_atfork holds every writer's lock across
 * fork() so the child never inherits a lock taken by a thread that no longer exists; the
 * child's switch to jit-<childpid>.dump then happens lazily, on its first record (a child that
 * JITs nothing creates no file). The parent's buffered records stay the parent's: the child
 * discards its copy of the buffer and closes its copies of the parent's descriptors.
 * The child handler also bumps a fork generation, which spares the hot path a getpid() and a
 * gettid() system call per record (a raw clone() that skips atfork handlers is not seen). */
#include "jitdump/jd_int.h"
#include "jitdump/writer_int.h"

#include <unistd.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct jd_writer *registry;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static volatile unsigned fork_gen;
static __thread pid_t cached_tid;
static __thread unsigned cached_tid_gen;
static pid_t cached_pid;
static unsigned cached_pid_gen;

pid_t jd_self_tid(void)
{
	if (!cached_tid || cached_tid_gen != fork_gen) {
		cached_tid = gettid();
		cached_tid_gen = fork_gen;
	}
	return cached_tid;
}

/* Racy by design: two threads may both refresh it, with the same value. */
pid_t jd_self_pid(void)
{
	unsigned g = fork_gen;
	if (!cached_pid || cached_pid_gen != g) {
		cached_pid = getpid();
		cached_pid_gen = g;
	}
	return cached_pid;
}

static void prepare(void)
{
	pthread_mutex_lock(&registry_lock);
	for (struct jd_writer *w = registry; w; w = w->next)
		pthread_mutex_lock(&w->lock);
}

static void release(void)
{
	for (struct jd_writer *w = registry; w; w = w->next)
		pthread_mutex_unlock(&w->lock);
	pthread_mutex_unlock(&registry_lock);
}

static void in_child(void)
{
	fork_gen++;
	release();
}

static void install(void)
{
	pthread_atfork(prepare, release, in_child);
}

void jd_fork_register(struct jd_writer *w)
{
	pthread_once(&atfork_once, install);
	w->fork_gen = fork_gen;
	pthread_mutex_lock(&registry_lock);
	w->next = registry;
	registry = w;
	pthread_mutex_unlock(&registry_lock);
}

void jd_fork_unregister(struct jd_writer *w)
{
	pthread_mutex_lock(&registry_lock);
	for (struct jd_writer **pp = &registry; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
}

int jd_writer_enter(struct jd_writer *w)
{
	pthread_mutex_lock(&w->lock);
	if (w->err)
		return w->err;
	if (w->fork_gen == fork_gen || w->pid == getpid()) {
		w->fork_gen = fork_gen;
		return 0;
	}
	/* First record in a forked child: the buffers hold the parent's unflushed records. */
	w->dump.len = 0;
	w->ext.len = 0;
	jd_writer_drop_files(w);
	int rc = jd_writer_open_files(w);
	w->fork_gen = fork_gen;
	if (rc) {
		jd_writer_drop_files(w);
		w->err = rc;
	}
	return rc;
}
