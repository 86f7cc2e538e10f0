/* elfpool.c - writes the ELFs of the generations that matter, on a pool of threads, while the
 * recording is still streaming: each job builds one ELF in memory (synth), puts it beside the
 * dump as jitted-<pid>-<code_index>.so unless an identical file is already there, and places
 * it in perf's build-id cache. */
#include "recorder/inject/inject.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synth/synth.h"

struct job { struct inj_dump *d; uint32_t load; };

struct inj_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *q;
	size_t head, tail, cap;	/* ring */
	int done;
	const char *cache_root;
	pthread_t th[64];
	int nt;
	uint64_t finished, queued;	/* jobs done, jobs ever queued */
	struct inj_pool_stats st;
};

/* 1 if path holds exactly these bytes. */
static int same_file(const char *path, const uint8_t *data, size_t size)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	int same = 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == size) {
		uint8_t *buf = malloc(size ? size : 1);
		size_t got = 0;
		while (buf && got < size) {
			ssize_t n = read(fd, buf + got, size - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		same = buf && got == size && memcmp(buf, data, size) == 0;
		free(buf);
	}
	close(fd);
	return same;
}

static void fail(struct inj_pool *p, const char *msg)
{
	pthread_mutex_lock(&p->mu);
	p->st.failed++;
	if (!p->st.first_error[0])
		snprintf(p->st.first_error, sizeof(p->st.first_error), "%s", msg);
	pthread_mutex_unlock(&p->mu);
}

static void do_job(struct inj_pool *p, const struct job *j)
{
	const struct jd_load_entry *e = jd_index_load(j->d->x, j->load);
	struct synth_input in;
	struct synth_elf elf = { 0 };
	char err[384] = "", path[4096 + SYNTH_FILE_NAME_MAX + 2];
	int written = 0, reused = 0, cached = 0, cache_reused = 0, bad = 0;

	inj_load_input(j->d, j->load, &in);
	if (synth_build(&in, &elf, err, sizeof(err)) < 0)
		goto failed;
	if (inj_load_path(j->d, j->load, path, sizeof(path)) < 0) {
		snprintf(err, sizeof(err), "path too long");
		goto failed;
	}
	if (elf.text_offset != j->d->loads[j->load].text_off ||
	    memcmp(elf.build_id, j->d->loads[j->load].build_id, SYNTH_BUILD_ID_SIZE)) {
		snprintf(err, sizeof(err), "its ELF differs from its MMAP2 (pgoff or build-id)");
		goto failed;
	}
	/* The cache entry goes first, as a copy of its own: placed after the file beside the
	 * dump, synth_cache_add would hard-link that file, and `perf inject --jit` rewrites
	 * jitted-PID-N.so in place (O_TRUNC), which would turn our cache entry into perf's ELF.
	 * A dump directory we cannot write to (read-only media) still leaves the cache. */
	if (p->cache_root) {
		int rc = synth_cache_add(&elf, p->cache_root, path, err, sizeof(err));
		bad = rc < 0;
		cached = rc == 0;
		cache_reused = rc == 1;
	}
	if (same_file(path, elf.data, elf.size)) {
		reused = 1;
	} else {
		char werr[384];
		if (synth_write_file(&elf, path, werr, sizeof(werr)) < 0) {
			if (!bad)
				memcpy(err, werr, sizeof(err));
			bad = 1;
		} else {
			written = 1;
		}
	}
	synth_elf_free(&elf);
	pthread_mutex_lock(&p->mu);
	p->st.written += written;
	p->st.reused += reused;
	p->st.cached += cached;
	p->st.cache_reused += cache_reused;
	pthread_mutex_unlock(&p->mu);
	if (!bad)
		return;
failed:
	synth_elf_free(&elf);
	{
		char msg[512];
		snprintf(msg, sizeof(msg), "%s: code load at offset %llu: %.300s", j->d->path,
			 (unsigned long long)e->offset, err);
		fail(p, msg);
	}
}

static void *worker(void *arg)
{
	struct inj_pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->head == p->tail && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->head == p->tail) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		struct job j = p->q[p->head++ % p->cap];
		pthread_mutex_unlock(&p->mu);
		do_job(p, &j);
		pthread_mutex_lock(&p->mu);
		p->finished++;
		pthread_mutex_unlock(&p->mu);
	}
}

int inj_pool_new(struct inj_pool **out, int threads, const char *cache_root)
{
	struct inj_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->cache_root = cache_root;
	p->cap = 4096;
	p->q = malloc(p->cap * sizeof(*p->q));
	if (!p->q) {
		free(p);
		return -ENOMEM;
	}
	/* Writing an ELF waits on the file system (a create, a rename, the cache's mkdirs and
	 * link) far more than it computes, so the pool is wider than the CPU count. */
	if (threads <= 0)
		threads = inj_default_threads() * 4 < 32 ? 32 : inj_default_threads() * 4;
	for (int i = 0; i < threads && i < 64; i++)
		if (pthread_create(&p->th[p->nt], NULL, worker, p) == 0)
			p->nt++;
	if (!p->nt) {
		free(p->q);
		free(p);
		return -EAGAIN;
	}
	*out = p;
	return 0;
}

/* The ring grows in place: copy the live part to a larger array, in order. */
static int grow(struct inj_pool *p)
{
	size_t n = p->tail - p->head, nc = p->cap * 2;
	struct job *nq = malloc(nc * sizeof(*nq));
	if (!nq)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		nq[i] = p->q[(p->head + i) % p->cap];
	free(p->q);
	p->q = nq;
	p->cap = nc;
	p->head = 0;
	p->tail = n;
	return 0;
}

int inj_pool_push(struct inj_pool *p, struct inj_dump *d, uint32_t load)
{
	if (!p)
		return 0;
	pthread_mutex_lock(&p->mu);
	if (p->tail - p->head == p->cap && grow(p) < 0) {
		pthread_mutex_unlock(&p->mu);
		return -ENOMEM;
	}
	p->q[p->tail++ % p->cap] = (struct job){ d, load };
	p->queued++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

void inj_pool_progress(struct inj_pool *p, uint64_t *done, uint64_t *queued)
{
	pthread_mutex_lock(&p->mu);
	*done = p->finished;
	*queued = p->queued;
	pthread_mutex_unlock(&p->mu);
}

void inj_pool_finish(struct inj_pool *p, struct inj_pool_stats *st)
{
	pthread_mutex_lock(&p->mu);
	p->done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nt; i++)
		pthread_join(p->th[i], NULL);
	if (st)
		*st = p->st;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->q);
	free(p);
}
