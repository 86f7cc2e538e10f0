/* fork.c - a forked child gets its own dump. pthread_atfork holds every writer's lock across
 * fork() so the child never inherits a lock taken by a thread that no longer exists; the
 * child's switch to jit-<childpid>.dump then happens lazily, on its first record (a child that
 * JITs nothing creates no file). The parent's buffered records stay the parent's: the child
 * discards its copy of the buffer and closes its copies of the parent's descriptors. */
#include "jitdump/jd_int.h"
#include "jitdump/writer_int.h"

#include <unistd.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct jd_writer *registry;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

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

static void install(void)
{
	pthread_atfork(prepare, release, release);
}

void jd_fork_register(struct jd_writer *w)
{
	pthread_once(&atfork_once, install);
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
	if (w->pid == getpid())
		return 0;
	/* First record in a forked child: the buffers hold the parent's unflushed records. */
	w->dump.len = 0;
	w->ext.len = 0;
	jd_writer_drop_files(w);
	int rc = jd_writer_open_files(w);
	if (rc) {
		jd_writer_drop_files(w);
		w->err = rc;
	}
	return rc;
}
