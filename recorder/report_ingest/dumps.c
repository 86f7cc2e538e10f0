/* dumps.c - the jitdump beside jitted ELFs (perf inject puts them in the dump's directory),
 * one per (directory, pid), indexed by code_index: on a worker while the recording is
 * replayed (rp_prefetch_dump, at the first jitted mapping of each), or when first asked
 * (rp_dumps_entry). Without --jvm-log the indexes leave the companion's inline stacks out.
 * A dump gone from there (the report runs on another machine) is read from an --archive
 * that carries it (`jitprof archive`, RP_ARCHIVE_DUMPS), by its file name. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "lib/nomem.h"
#include "lib/pool.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"

/* One jitdump per (directory, pid), indexed by code_index. */
struct rp_dump {
	char dir[PATH_MAX];
	uint32_t pid;
	struct jd_index *x;		/* NULL: none there */
	int err;			/* why not (-errno) */
	unsigned flags;			/* JD_INDEX_*: what its index leaves out */
	struct rp_idxmap by_index;	/* code_index -> entry + 1 */
	char *const *alt;		/* where else it may be (the session's dump_dirs) */
	size_t nr_alt;
};

/* What the session's dump indexes leave out. */
static unsigned index_flags(const struct rp_session *s)
{
	return s->dump_inline ? 0 : JD_INDEX_NO_INLINE;
}

static void dump_index_free(struct rp_dump *d)
{
	jd_index_close(d->x);
	rp_idxmap_free(&d->by_index);
}

/* The directory part of a jitted ELF's path: its length, or -1 if too long. */
static long dir_len(const char *path, const char **dir)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 1;
	*dir = slash ? path : ".";
	return dl >= PATH_MAX - 32 ? -1 : (long)dl;
}

static int same_dump(const struct rp_dump *d, const char *dir, size_t dl, uint32_t pid)
{
	return d->pid == pid && strlen(d->dir) == dl && !strncmp(d->dir, dir, dl);
}

#define DUMP_PATH_MAX (PATH_MAX + 32)

/* The path of d's dump: perf's jit-PID.dump in its directory. */
static const char *dump_path(const struct rp_dump *d, char buf[DUMP_PATH_MAX])
{
	snprintf(buf, DUMP_PATH_MAX, "%s/jit-%u.dump", d->dir, d->pid);
	return buf;
}

/* An archive's copy of d's dump, when it is not where inject read it: the first of d->alt
 * holding jit-PID.dump as a regular file (an unpacked archive holds no links). */
static int index_archived(struct rp_dump *d)
{
	char buf[DUMP_PATH_MAX];
	struct stat st;
	int rc = -ENOENT;

	for (size_t i = 0; i < d->nr_alt && rc == -ENOENT; i++) {
		snprintf(buf, sizeof(buf), "%s/jit-%u.dump", d->alt[i], d->pid);
		if (!lstat(buf, &st) && S_ISREG(st.st_mode))
			rc = jd_index_open_flags(&d->x, AT_FDCWD, buf, NULL, d->flags, NULL, 0);
	}
	return rc;
}

/* Indexes d's dump (d->dir and d->pid set). Touches nothing but *d: runs on a worker. */
static void index_dump(struct rp_dump *d)
{
	char buf[DUMP_PATH_MAX];
	if ((d->err = jd_index_open_flags(&d->x, AT_FDCWD, dump_path(d, buf), NULL, d->flags,
					  NULL, 0)) == -ENOENT && d->nr_alt)
		d->err = index_archived(d);
	/* "unread" is said of a dump that is not there, not of one memory did not hold */
	jp_nomem_check(d->err, "a jitdump's index");
	if (d->err < 0) {
		d->x = NULL;
		return;
	}
	/* An array for dense code indexes: a Java start-up's 34k hashed lookups, in random
	 * order through a megabyte, were a third of rp_ingest_loads. */
	size_t n = jd_index_nr_loads(d->x);
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++)
		if (jd_index_load(d->x, i)->load.code_index > max)
			max = jd_index_load(d->x, i)->load.code_index;
	rp_idxmap_init(&d->by_index, max, n);
	for (size_t i = 0; i < n; i++)
		jp_nomem_check(rp_idxmap_put(&d->by_index, jd_index_load(d->x, i)->load.code_index,
					     (uint32_t)i + 1), "a jitdump's index");
}

/* ---- dumps indexed while the recording is replayed ----
 * Indexing a Java start-up's dump (tens of MB, every load) was a third of a call-graph
 * report after the replay; it needs nothing the replay makes, so the first mmap of a
 * jitted ELF from each (directory, pid) starts it on one worker thread, and
 * rp_ingest_loads takes the result (a dump under RP_PREFETCH_MIN_BYTES is indexed at once,
 * in the caller). Without a thread it is done there as before. */
#define RP_PREFETCH_MIN_BYTES (1 << 20)
struct rp_prefetch {
	struct jp_pool *pool;	/* started by the first dump of RP_PREFETCH_MIN_BYTES or more */
	struct rp_dump **v;	/* each allocated alone: the worker fills it in place */
	size_t n, cap;
	int off;		/* no worker could start: each dump is indexed in the caller */
};

static void prefetch_job(void *ctx, void *job)
{
	(void)ctx;
	index_dump(*(struct rp_dump **)job);
}

/* d indexed in the caller and listed. */
static void index_here(struct rp_prefetch *pf, struct rp_dump *d)
{
	index_dump(d);
	pf->v[pf->n++] = d;
}

int rp_prefetch_dump(struct rp_session *s, const char *path, uint32_t pid)
{
	struct rp_prefetch *pf = s->prefetch;
	const char *dir;
	long dl = dir_len(path, &dir);
	if (dl < 0)
		return 0;
	for (size_t i = pf ? pf->n : 0; i-- > 0;)	/* the latest first: usually the one */
		if (same_dump(pf->v[i], dir, (size_t)dl, pid))
			return 0;
	if (!pf && !(pf = s->prefetch = calloc(1, sizeof(*pf))))
		return -ENOMEM;
	struct rp_dump *d;
	if (jp_grow(&pf->v, &pf->cap, pf->n + 1, sizeof(*pf->v), 4) || !(d = calloc(1, sizeof(*d))))
		return -ENOMEM;
	memcpy(d->dir, dir, (size_t)dl);
	d->pid = pid;
	d->flags = index_flags(s);
	d->alt = s->dump_dirs;
	d->nr_alt = s->nr_dump_dirs;
	/* A small dump is indexed here and now: starting and joining a thread costs more than
	 * indexing it (and most of a fuzzing execution of report). So is every dump once no
	 * worker could start. */
	char buf[DUMP_PATH_MAX];
	struct stat st;
	if (pf->off || stat(dump_path(d, buf), &st) || st.st_size < RP_PREFETCH_MIN_BYTES)
		return index_here(pf, d), 0;
	int rc = pf->pool ? 0 : jp_pool_new_worker(&pf->pool, sizeof(struct rp_dump *),
						   prefetch_job, NULL);
	if (rc && rc != -ENOMEM) {	/* no thread: the work is the caller's */
		pf->pool = NULL;
		pf->off = 1;
		return index_here(pf, d), 0;
	}
	if (rc || (rc = jp_pool_push(pf->pool, &d))) {
		free(d);
		return rc;
	}
	pf->v[pf->n++] = d;
	return 0;
}

/* Waits for the worker; the indexed dumps move to d. 0, or -ENOMEM (d left empty). */
int rp_dumps_take(struct rp_session *s, struct rp_dumps *d)
{
	struct rp_prefetch *pf = s->prefetch;
	*d = (struct rp_dumps){ .flags = index_flags(s), .alt = s->dump_dirs,
				.nr_alt = s->nr_dump_dirs };
	if (!pf)
		return 0;
	jp_pool_finish(pf->pool);
	pf->pool = NULL;
	d->v = pf->n ? malloc(pf->n * sizeof(*d->v)) : NULL;
	for (size_t i = 0; i < pf->n; i++) {
		if (d->v)
			d->v[i] = *pf->v[i];
		else
			dump_index_free(pf->v[i]);
		free(pf->v[i]);
	}
	int rc = pf->n && !d->v ? -ENOMEM : 0;
	d->n = d->cap = d->v ? pf->n : 0;
	free(pf->v);
	free(pf);
	s->prefetch = NULL;
	return rc;
}

void rp_prefetch_end(struct rp_session *s)
{
	struct rp_dumps d;
	(void)rp_dumps_take(s, &d);	/* only freed */
	rp_dumps_free(&d);
}

void rp_dumps_free(struct rp_dumps *d)
{
	for (size_t i = 0; i < d->n; i++)
		dump_index_free(&d->v[i]);
	free(d->v);
	*d = (struct rp_dumps){ 0 };
}

/* The dump of a jitted ELF's path in process pid, indexed now if no worker did. */
static struct rp_dump *dump_for(struct rp_dumps *ds, const char *path, uint32_t pid)
{
	const char *dir;
	long dl = dir_len(path, &dir);
	if (dl < 0)
		return NULL;
	for (size_t i = 0; i < ds->n; i++)
		if (same_dump(&ds->v[i], dir, (size_t)dl, pid))
			return &ds->v[i];
	if (JP_GROW_FOR(ds->v, ds->cap, ds->n))
		jp_nomem("the list of a recording's jitdumps");	/* NULL would read "none" */
	struct rp_dump *d = &ds->v[ds->n++];
	memset(d, 0, sizeof(*d));
	memcpy(d->dir, dir, (size_t)dl);
	d->pid = pid;
	d->flags = ds->flags;
	d->alt = ds->alt;
	d->nr_alt = ds->nr_alt;
	index_dump(d);
	return d;
}

const struct jd_load_entry *rp_dumps_entry(struct rp_dumps *ds, const char *path, uint32_t pid)
{
	uint64_t code_index = 0;
	if (!rp_is_jitted_name(path, NULL, &code_index))
		return NULL;
	struct rp_dump *d = dump_for(ds, path, pid);
	uint32_t v = d && d->x ? rp_idxmap_get(&d->by_index, code_index) : 0;
	return v ? jd_index_load(d->x, v - 1) : NULL;
}

void rp_dumps_warn_unread(const struct rp_dumps *ds, const struct jp_log *log)
{
	/* Once per dump, instead of the file warnings of each ELF inject did not write. */
	for (size_t i = 0; i < ds->n; i++) {
		char buf[DUMP_PATH_MAX];
		if (!ds->v[i].x)
			jp_logf(log, JP_LOG_WARN, "%s: %s: the generations no sample landed in "
				"(inject wrote ELFs for the sampled ones) stay unnamed",
				dump_path(&ds->v[i], buf), strerror(-ds->v[i].err));
	}
}

int rp_dumps_set_dirs(struct rp_session *s, struct sym_session *ss)
{
	const char *root;
	struct stat st;

	for (size_t i = 0; (root = sym_session_source_root(ss, i)); i++) {
		char *dir;
		if (asprintf(&dir, "%s/" RP_ARCHIVE_DUMPS, root) < 0)
			return -ENOMEM;
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode)) {
			free(dir);
			continue;
		}
		if (JP_GROW_FOR(s->dump_dirs, s->cap_dump_dirs, s->nr_dump_dirs)) {
			free(dir);
			return -ENOMEM;
		}
		s->dump_dirs[s->nr_dump_dirs++] = dir;
	}
	return 0;
}

/* During the replay, for the unwinder (unwound.c): the index of the dump holding the load of
 * a jitted ELF's path in process pid, and that load's entry; the worker waited for (once:
 * a stack copy needs the dump now, not after the replay). */
int rp_prefetch_index(struct rp_session *s, const char *path, uint32_t pid,
		      const struct jd_index **x, const struct jd_load_entry **entry)
{
	uint64_t code_index = 0;
	const char *dir;
	long dl = dir_len(path, &dir);

	*x = NULL;
	*entry = NULL;
	if (dl < 0 || !rp_is_jitted_name(path, NULL, &code_index))
		return 0;
	int rc = rp_prefetch_dump(s, path, pid);
	struct rp_prefetch *pf = s->prefetch;
	if (rc)
		return rc;
	if (pf->pool) {
		jp_pool_finish(pf->pool);
		pf->pool = NULL;
	}
	for (size_t i = pf->n; i-- > 0;) {
		struct rp_dump *d = pf->v[i];
		if (!same_dump(d, dir, (size_t)dl, pid))
			continue;
		uint32_t v = d->x ? rp_idxmap_get(&d->by_index, code_index) : 0;
		*entry = v ? jd_index_load(d->x, v - 1) : NULL;
		*x = d->x;
		return 0;
	}
	return 0;	/* not reached: rp_prefetch_dump listed it */
}
