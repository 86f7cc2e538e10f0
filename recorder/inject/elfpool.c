/* elfpool.c - writes the ELFs of the generations that matter, on a pool of threads, while the
 * recording is still streaming: each job builds one ELF in memory (synth), places it in perf's
 * build-id cache when asked, and creates it beside the dump as jitted-<pid>-<code_index>.so
 * (through the directory fd the dump was read from, only when that directory is the running
 * user's) in three system calls, comparing and replacing only when the name exists. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/nomem.h"
#include "lib/pool.h"
#include "safeio/safeio.h"
#include "synth/synth.h"

struct job { struct inj_dump *d; uint32_t load; };

struct inj_pool {
	struct jp_pool *pool;	/* the threads and the queue (lib/pool.c) */
	pthread_mutex_t mu;	/* guards st */
	pthread_mutex_t create_mu;	/* one creator at a time: see place() */
	const char *cache_root;
	const char *fallback_root;	/* for dumps in someone else's directory */
	struct inj_pool_stats st;
	char *first_error;	/* the first failure, said by inj_pool_finish (guarded by mu) */
};

/* 1 if name in dirfd is a regular file (not a link) holding exactly these bytes. */
static int same_file(int dirfd, const char *name, const uint8_t *data, size_t size)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int fd = sio_open_beneath(dirfd, name);
	if (fd < 0)
		return 0;
	int same = sio_read_all(fd, size, &buf, &len) == 0 && len == size &&
		   memcmp(buf, data, size) == 0;
	free(buf);
	close(fd);
	return same;
}

/* A fresh file at name in dirfd, named only when whole; a FIFO or link planted there is
 * refused or replaced, never written through. */
static int write_beside(int dirfd, const char *name, const struct synth_elf *elf)
{
	struct sio_out o;
	int rc = sio_out_open(&o, dirfd, name, 0644);
	for (size_t done = 0; !rc && done < elf->size;) {
		ssize_t w = write(o.fd, elf->data + done, elf->size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			done += (size_t)w;
	}
	if (!rc && fchmod(o.fd, 0644))	/* whatever the umask: perf and debuginfod read it */
		rc = -errno;
	if (!rc)
		rc = sio_out_commit(&o);	/* closes o either way */
	else if (o.fd >= 0)
		sio_out_abort(&o);
	return rc;
}

/* The cache entry (a copy of its own: synth_cache_add never links), then the file beside the
 * dump through the directory it was read from, only when that directory is ours (issue 16);
 * a dump directory we cannot or must not write to still leaves the cache. */
static int place(struct inj_pool *p, const struct inj_dump *d, const struct synth_elf *elf,
		 const char *path, struct synth_placed *pl, const struct jp_log *log)
{
	const char *root = p->cache_root ? p->cache_root : !d->beside ? p->fallback_root : NULL;
	const char *name = strrchr(path, '/') + 1;	/* inj_load_path: "<dir>/<name>" */
	int rc = 0;
	memset(pl, 0, sizeof(*pl));
	if (root) {
		int c = synth_cache_add(elf, root, path, log);
		rc = c < 0 ? c : 0;
		pl->cached = c == 0;
		pl->cache_reused = c == 1;
	}
	if (!d->beside)
		return rc;	/* someone else's directory: the cache only (warned once) */
	/* The usual case, a fresh name: one openat, one write, one close (O_EXCL: nothing at the
	 * name is ever opened). A name already there is compared, and replaced when it differs. */
	struct iovec v = { .iov_base = (void *)elf->data, .iov_len = elf->size };
	/* Creating a name takes the directory's lock in the kernel, where a second creator
	 * spins while the first holds it: waiting here costs less CPU (measured). */
	pthread_mutex_lock(&p->create_mu);
	int w = sio_create_new(d->dirfd, name, &v, 1, 0644);
	pthread_mutex_unlock(&p->create_mu);
	if (w == -EEXIST) {
		if (same_file(d->dirfd, name, elf->data, elf->size)) {
			pl->reused = 1;
			return rc;
		}
		w = write_beside(d->dirfd, name, elf);
	}
	if (w < 0 && !rc) {	/* the cache's error, when it failed too, is the one said */
		rc = w;
		jp_logf(log, JP_LOG_ERROR, "%s/%s: %s", d->dir, name, sio_strerror(w));
	}
	pl->written = w == 0;
	return rc;
}

static void count(struct inj_pool *p, const struct synth_placed *pl)
{
	pthread_mutex_lock(&p->mu);
	p->st.written += pl->written;
	p->st.reused += pl->reused;
	p->st.cached += pl->cached;
	p->st.cache_reused += pl->cache_reused;
	pthread_mutex_unlock(&p->mu);
}

int inj_pool_place(struct inj_pool *p, const struct inj_dump *d, const struct synth_elf *elf,
		   const char *path, const struct jp_log *log)
{
	struct synth_placed pl;
	int rc = place(p, d, elf, path, &pl, log);
	count(p, &pl);
	return rc;
}

/* A failed ELF is counted; the first failure is kept whole to be said once at the end (one
 * line per ELF would bury the run's summary when a directory is not writable). */
static void fail(struct inj_pool *p, const char *path, unsigned long long offset,
		 const char *why)
{
	pthread_mutex_lock(&p->mu);
	p->st.failed++;
	if (!p->first_error && asprintf(&p->first_error, "%s: code load at offset %llu: %s", path,
					 offset, why) < 0) {
		p->first_error = NULL;
		jp_nomem("keeping an ELF's error");
	}
	pthread_mutex_unlock(&p->mu);
}

/* One job's log: its first error fails the ELF (fail), whole; the rest is not said. */
struct job_log {
	struct inj_pool *p;
	const struct inj_dump *d;
	unsigned long long offset;
	int failed;
};

static void job_log_fn(void *ctx, enum jp_level level, const char *msg)
{
	struct job_log *jl = ctx;
	if (level == JP_LOG_ERROR && !jl->failed++)
		fail(jl->p, jl->d->path, jl->offset, msg);
}

static void do_job(struct inj_pool *p, const struct job *j)
{
	struct job_log jl = { p, j->d, jd_index_load(j->d->x, j->load)->offset, 0 };
	const struct jp_log log = { job_log_fn, &jl };
	struct synth_input in;
	struct synth_elf elf = { 0 };
	char path[4096 + SYNTH_FILE_NAME_MAX + 2];
	struct synth_placed pl;

	inj_load_input(j->d, j->load, &in);
	/* A run's own loads were hashed from this input (in memory, so unchanged since): their
	 * ids are not computed again; ids read from an injected file (--elfs-for) are. */
	int rc = j->d->ids_hashed_here ? synth_build_known(&in, j->d->loads[j->load].build_id,
							   &elf, &log)
				       : synth_build(&in, &elf, &log);
	/* a sampled generation with no ELF for want of memory is no failed ELF: fatal */
	if ((rc = jp_nomem_check(rc, "building a jitted ELF")) < 0)
		;	/* synth said why */
	else if ((rc = inj_load_path(j->d, j->load, path, sizeof(path))) < 0)
		jp_logf(&log, JP_LOG_ERROR, "path too long");
	else if (elf.text_offset != j->d->loads[j->load].text_off ||
		 memcmp(elf.build_id, j->d->loads[j->load].build_id, SYNTH_BUILD_ID_SIZE))
		jp_logf(&log, JP_LOG_ERROR, "its ELF differs from its MMAP2 (pgoff or build-id)");
	else {
		rc = place(p, j->d, &elf, path, &pl, &log);
		count(p, &pl);	/* what it placed, also when the other place failed */
	}
	synth_elf_free(&elf);
	if (!jl.failed && rc < 0)	/* a failure nobody worded */
		jp_logf(&log, JP_LOG_ERROR, "%s", strerror(-rc));
}

static void run_job(void *ctx, void *job)
{
	do_job(ctx, job);
}

int inj_pool_new(struct inj_pool **out, int threads, const char *cache_root)
{
	*out = NULL;	/* the constructor convention: *out is NULL unless it succeeds */
	struct inj_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->create_mu, NULL);
	p->cache_root = cache_root;
	/* Writing an ELF waits on the file system (the cache's mkdirs, copies and links; a
	 * directory block read from disk) far more than it computes, so the pool is wider than
	 * the CPU count; creates beside a dump take create_mu one at a time anyway. */
	if (threads <= 0)
		threads = jp_default_threads() * 4 < 32 ? 32 : jp_default_threads() * 4;
	int rc = jp_pool_new(&p->pool, threads, sizeof(struct job), run_job, p);
	if (rc < 0) {
		pthread_mutex_destroy(&p->mu);
		pthread_mutex_destroy(&p->create_mu);
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void inj_pool_set_fallback_cache(struct inj_pool *p, const char *root)
{
	p->fallback_root = root;
}

int inj_pool_push(struct inj_pool *p, struct inj_dump *d, uint32_t load)
{
	struct job j = { d, load };
	if (!p)
		return 0;	/* --no-elfs: no pool */
	return jp_pool_push(p->pool, &j);
}

void inj_pool_progress(struct inj_pool *p, uint64_t *done, uint64_t *queued)
{
	jp_pool_progress(p->pool, done, queued);
}

void inj_pool_finish(struct inj_pool *p, struct inj_pool_stats *st, const struct jp_log *log,
		     enum jp_level level)
{
	jp_pool_finish(p->pool);
	if (st)
		*st = p->st;
	if (p->st.failed)
		jp_logf(log, level, "%llu ELF(s) could not be written; first: %s",
			(unsigned long long)p->st.failed, p->first_error);
	free(p->first_error);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->create_mu);
	free(p);
}
