/* dwarf_ahead.c - a DSO's DWARF read on a worker thread while the caller replays the
 * recording. libdw inflates a debug file's compressed sections whole on dwarf_begin_elf
 * (libc's: 10 MB, 50 ms, as long as a whole `--sort dso,sym` report of a Java start-up), and
 * the replay used to wait for that at the first frame in the DSO. Only a separate debug file
 * opened from a descriptor is read ahead: the worker opens its own Elf handle on it, so it
 * shares no libelf state with the main thread, which may be reading the same file's .symtab
 * through its own handle meanwhile. */
#include "recorder/symbols/symbols_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/pool.h"

struct dw_ahead {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;		/* set under mu (read without it by dwarf_ahead_busy): the
				 * fields below are the worker's until then */
	int fd;			/* the DSO's, not ours to close */
	Elf *elf;
	Dwarf *dw;
	struct cu_range *cus;
	size_t n_cus;
	int rc;
	const char *err;	/* libelf's or libdw's static message when dw is NULL */
	int inflate;		/* libdeflate inflates the DWARF (lines_inflate_ready) */
	int cachefd;		/* the build-id cache's root for its inflated DWARF, or -1 */
	struct sym_build_id bid;	/* the DSO's: the cache entry's name */
	struct lines_zbuf zbuf;	/* what it inflated into: dw's until dwarf_end */
	int hold;		/* busy until waited for, done or not (JITPROF_DWARF_AHEAD) */
};

/* JITPROF_DWARF_AHEAD: "0" reads nothing ahead (each DSO's DWARF is read at its first line
 * lookup, as before); "hold" keeps each read-ahead busy until a lookup waits for it, so every
 * frame made meanwhile takes the lines-later path. For troubleshooting, and for the tests
 * that compare the three. */
enum { AHEAD_ON, AHEAD_OFF, AHEAD_HOLD };

static int ahead_mode(void)
{
	const char *v = getenv("JITPROF_DWARF_AHEAD");
	return !v ? AHEAD_ON : !strcmp(v, "0") ? AHEAD_OFF : !strcmp(v, "hold") ? AHEAD_HOLD
										: AHEAD_ON;
}

static void read_job(void *ctx, void *job)
{
	(void)ctx;
	struct dw_ahead *a = *(struct dw_ahead **)job;
	/* Its own handle: private, so its section headers can be edited (lines_skip_unread) */
	a->elf = elf_begin(a->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (a->elf) {
		lines_skip_unread(a->elf);
		if (a->inflate)
			lines_inflate_cached(a->cachefd, &a->bid, a->fd, a->elf, &a->zbuf);
	}
	a->dw = a->elf ? dwarf_begin_elf(a->elf, DWARF_C_READ, NULL) : NULL;
	if (!a->dw) {
		a->err = a->elf ? dwarf_errmsg(-1) : elf_errmsg(-1);
		a->rc = -EINVAL;
	} else if (!lines_cus_load(a->cachefd, &a->bid, &a->zbuf, a->dw, &a->cus, &a->n_cus)) {
		/* the index kept beside the cache's entry, else made and kept there */
		a->rc = lines_index_cus(a->dw, &a->cus, &a->n_cus);
		if (!a->rc)
			lines_cus_save(a->cachefd, &a->bid, &a->zbuf, a->cus, a->n_cus);
	}
	if (a->cachefd >= 0) {
		close(a->cachefd);
		a->cachefd = -1;
	}
	pthread_mutex_lock(&a->mu);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

/* A job for d's separate debug file (what dw_open would read), or NULL when d has none to
 * read this way; *rc -ENOMEM when out of memory. */
static struct dw_ahead *new_job(struct sym_session *s, struct sym_dso *d, int hold, int *rc)
{
	*rc = 0;
	/* What dw_open would do first, in the same order, on this thread. */
	if (sym_dso_find(s, d, NULL) || dso_open(s, d) || lines_has_debug_info(d->elf) ||
	    find_debug_file(s, d) || d->dbg_fd < 0 || !lines_has_debug_info(d->dbg_elf))
		return NULL;
	struct dw_ahead *a = calloc(1, sizeof(*a));
	if (!a) {
		*rc = -ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	a->fd = d->dbg_fd;
	a->hold = hold;
	a->inflate = lines_inflate_ready();	/* loaded here: jp_dynload is for one thread */
	a->cachefd = a->inflate ? lines_zcache_root(s->buildid_dir) : -1;
	a->bid = d->bid;
	return a;
}

static void free_job(struct dw_ahead *a)
{
	if (a->cachefd >= 0)
		close(a->cachefd);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}

int sym_dso_read_dwarf_ahead(struct sym_session *s, struct sym_dso *d)
{
	int mode = ahead_mode(), rc;
	if (d->dw_tried || d->dw_ahead || d->kernel || d->anon || s->o.no_lines ||
	    s->dw_pool_off || mode == AHEAD_OFF)
		return 0;
	struct dw_ahead *a = new_job(s, d, mode == AHEAD_HOLD, &rc);
	if (!a)
		return rc;
	if (!s->dw_pool && jp_pool_new_worker(&s->dw_pool, sizeof(struct dw_ahead *), read_job,
					      NULL)) {
		s->dw_pool_off = 1;	/* no thread: dw_open reads it when asked, as before */
		free_job(a);
		return 0;
	}
	if (jp_pool_push(s->dw_pool, &a)) {
		free_job(a);
		return -ENOMEM;
	}
	d->dw_ahead = a;
	return 0;
}

int dwarf_read_now(struct sym_session *s, struct sym_dso *d)
{
	int rc;
	struct dw_ahead *a = new_job(s, d, 0, &rc);
	if (!a)
		return rc ? rc : 1;
	read_job(NULL, &a);
	d->dw_ahead = a;
	return dwarf_ahead_take(s, d);
}

int dwarf_ahead_busy(const struct sym_dso *d)
{
	return d->dw_ahead &&
	       (d->dw_ahead->hold || !__atomic_load_n(&d->dw_ahead->done, __ATOMIC_ACQUIRE));
}

/* Waits for a's job and takes it off d. */
static struct dw_ahead *wait_job(struct sym_dso *d)
{
	struct dw_ahead *a = d->dw_ahead;
	d->dw_ahead = NULL;
	pthread_mutex_lock(&a->mu);
	while (!a->done)
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	return a;
}

int dwarf_ahead_take(struct sym_session *s, struct sym_dso *d)
{
	struct dw_ahead *a = wait_job(d);
	int rc = a->rc;
	d->dw_tried = 1;
	if (a->dw) {
		d->dw = a->dw;
		d->dw_elf = a->elf;
		d->dw_zbuf = a->zbuf;
		d->cus = a->cus;
		d->n_cus = a->n_cus;
	} else {
		sess_msg(s, JP_LOG_WARN, "%s: unreadable DWARF: %s", d->path ? d->path : d->long_name,
			 a->err ? a->err : "?");
		if (a->elf)
			elf_end(a->elf);
		lines_zbuf_free(&a->zbuf);
	}
	free(a);
	return rc;
}

void dwarf_ahead_drop(struct sym_dso *d)
{
	if (!d->dw_ahead)
		return;
	struct dw_ahead *a = wait_job(d);
	free(a->cus);
	if (a->dw)
		dwarf_end(a->dw);
	if (a->elf)
		elf_end(a->elf);
	lines_zbuf_free(&a->zbuf);
	free(a);
}

void dwarf_ahead_end(struct sym_session *s)
{
	jp_pool_finish(s->dw_pool);
	s->dw_pool = NULL;
}
