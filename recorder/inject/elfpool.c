/* elfpool.c - writes the ELFs of the generations that matter, on a pool of threads, while the
 * recording is still streaming: each job builds one ELF in memory (synth), puts it beside the
 * dump as jitted-<pid>-<code_index>.so unless an identical file is already there, and places
 * it in perf's build-id cache. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/pool.h"
#include "synth/synth.h"

struct job { struct inj_dump *d; uint32_t load; };

struct inj_pool {
	struct jp_pool *pool;	/* the threads and the queue (lib/pool.c) */
	pthread_mutex_t mu;	/* guards st */
	const char *cache_root;
	struct inj_pool_stats st;
};

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
	struct synth_placed pl;
	int bad;

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
	/* Cache first, then the file beside the dump (synth_place says why). */
	bad = synth_place(&elf, path, p->cache_root, &pl, err, sizeof(err)) < 0;
	synth_elf_free(&elf);
	pthread_mutex_lock(&p->mu);
	p->st.written += pl.written;
	p->st.reused += pl.reused;
	p->st.cached += pl.cached;
	p->st.cache_reused += pl.cache_reused;
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

static void run_job(void *ctx, void *job)
{
	do_job(ctx, job);
}

int inj_pool_new(struct inj_pool **out, int threads, const char *cache_root)
{
	struct inj_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	p->cache_root = cache_root;
	/* Writing an ELF waits on the file system (a create, a rename, the cache's mkdirs and
	 * link) far more than it computes, so the pool is wider than the CPU count. */
	if (threads <= 0)
		threads = inj_default_threads() * 4 < 32 ? 32 : inj_default_threads() * 4;
	int rc = jp_pool_new(&p->pool, threads, sizeof(struct job), run_job, p);
	if (rc < 0) {
		pthread_mutex_destroy(&p->mu);
		free(p);
		return rc;
	}
	*out = p;
	return 0;
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

void inj_pool_finish(struct inj_pool *p, struct inj_pool_stats *st)
{
	jp_pool_finish(p->pool);
	if (st)
		*st = p->st;
	pthread_mutex_destroy(&p->mu);
	free(p);
}
