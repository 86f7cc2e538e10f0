/* buildid_thread.c - build-ids for mappings the kernel gave none for: a side thread reads the ELF
 * note (lib/buildid.c) as MMAP2 records arrive, so the recorder's loop never waits on disk
 * and the id can follow the mapping into the stream (pipe mode too). Also the kernel's own
 * id from /sys/kernel/notes. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "lib/grow.h"
#include "recorder/record/record_int.h"
#include "safeio/safeio.h"

/* The id into id/size: 0, -ENOENT, or -ENOMEM (libelf ran out reading the notes). */
static int elf_id(Elf *elf, uint8_t id[PD_BUILD_ID_MAX], size_t *size)
{
	errno = 0;
	int n = jp_elf_build_id(elf, id, PD_BUILD_ID_MAX);
	*size = n > 0 ? (size_t)n : 0;
	return n > 0 ? 0 : errno == ENOMEM ? -ENOMEM : -ENOENT;
}

/* [vdso] is the same kernel image in every process: read our own, from memory. */
static int vdso_build_id(uint8_t id[PD_BUILD_ID_MAX], size_t *size)
{
	size_t len;
	const void *image = jp_vdso_image(&len);
	Elf *elf;
	int rc;

	if (!image)
		return -ENOENT;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, len);
	if (!elf)
		return -ENOEXEC;
	rc = elf_id(elf, id, size);
	elf_end(elf);
	return rc;
}

int rec_read_build_id(const char *path, uint8_t id[PD_BUILD_ID_MAX], size_t *size)
{
	int fd, rc;
	Elf *elf;

	*size = 0;
	if (!strcmp(path, "[vdso]"))
		return vdso_build_id(id, size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	errno = 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		rc = errno == ENOMEM ? -ENOMEM : -ENOEXEC;
		close(fd);
		return rc;
	}
	rc = elf_id(elf, id, size);
	elf_end(elf);
	close(fd);
	return rc;
}

/* /sys/kernel/notes and /sys/module/M/notes/.note.gnu.build-id are raw sequences of ELF notes. */
int rec_notes_build_id(const char *path, uint8_t id[PD_BUILD_ID_MAX], size_t *size)
{
	int n = jp_notes_file_build_id(path, id, PD_BUILD_ID_MAX);
	*size = n > 0 ? (size_t)n : 0;
	return n > 0 ? 0 : n;
}

int rec_kernel_build_id(uint8_t id[PD_BUILD_ID_MAX], size_t *size)
{
	return rec_notes_build_id("/sys/kernel/notes", id, size);
}

struct req {
	char *path;
	pid_t pid;
	uint64_t start, end;		/* the mapping, 0/0: unknown */
	bool keep_only;			/* the kernel gave the id: only keep a deleted file */
	uint8_t id[PD_BUILD_ID_MAX];
	uint8_t id_size;
};

struct rec_bid_thread {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct req *q;
	size_t qn, qcap, qhead;
	struct rec_bid_result *res;
	size_t rn, rcap;
	bool stop;
	const char *keep_root;		/* --keep-deleted: the build-id cache */
	uint64_t keep_max;		/* ... and the largest file kept */
	size_t kept;
	struct rec_not_kept nk;		/* ... and those not kept */
	int err;			/* -ENOMEM: a result could not be posted */
};

static const char deleted_tag[] = " (deleted)";

static bool tagged_deleted(const char *path)
{
	size_t n = strlen(path), t = sizeof(deleted_tag) - 1;
	return n > t && !strcmp(path + n - t, deleted_tag);
}

/* The recorded name without the " (deleted)" /proc/PID/maps appends. */
static void clean_name(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);
	if (tagged_deleted(path))
		n -= sizeof(deleted_tag) - 1;
	snprintf(out, len, "%.*s", (int)n, path);
}

/* 1 if the file the process mapped is no longer at its path (deleted, maybe replaced): its
 * build-id differs from the one read through map_files, or it is gone. 0 if it is there,
 * -ENOMEM when reading its id ran out (no answer: "gone" would keep a file that is not). */
static int file_gone(const struct req *r, const uint8_t *id, size_t id_size)
{
	char name[4200], alt[4300];
	uint8_t got[PD_BUILD_ID_MAX];
	size_t got_size = 0;
	clean_name(r->path, name, sizeof(name));
	if (strcmp(name, r->path))
		return 1;
	int rc = rec_read_build_id(name, got, &got_size);
	if (rc && rc != -ENOMEM && r->pid > 0) {
		snprintf(alt, sizeof(alt), "/proc/%d/root%s", (int)r->pid, name);
		rc = rec_read_build_id(alt, got, &got_size);
	}
	if (rc == -ENOMEM)
		return rc;
	return got_size != id_size || memcmp(got, id, id_size);
}

/* A deleted file not kept: counted under *count (one of t->nk's), the first one named with
 * why. 0, or -ENOMEM when that could not be held (the recording then fails: a file it was
 * asked to keep would be missing without a word). Only the worker writes nk.first. */
static int not_kept(struct rec_bid_thread *t, const struct req *r, uint64_t *count,
		    const char *fmt, ...)
{
	char name[4200], *why = NULL, *first = NULL;
	va_list ap;

	pthread_mutex_lock(&t->mu);
	++*count;
	pthread_mutex_unlock(&t->mu);
	if (t->nk.first)
		return 0;
	va_start(ap, fmt);
	int n = vasprintf(&why, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	clean_name(r->path, name, sizeof(name));
	if (asprintf(&first, "%s: %s", name, why) < 0) {
		free(why);
		return -ENOMEM;
	}
	free(why);
	pthread_mutex_lock(&t->mu);
	t->nk.first = first;
	pthread_mutex_unlock(&t->mu);
	return 0;
}

/* --keep-deleted: the mapped file's bytes, read through map_files, into the cache. 0 (kept,
 * or counted in t->nk with why not), or -ENOMEM: the recording then fails as for a lost
 * build-id, rather than lack a file it was asked to keep without a word. */
static int keep_file(struct rec_bid_thread *t, const struct req *r, const char *mf,
		     const uint8_t *id, size_t id_size)
{
	char name[4200];
	struct stat st;
	void *buf = NULL;
	int rc, fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return not_kept(t, r, &t->nk.unreadable, "%s: %s", mf, strerror(errno));
	const char *bad = fstat(fd, &st) ? strerror(errno) : !S_ISREG(st.st_mode) ?
			  "not a regular file" : st.st_size <= 0 ? "empty" : NULL;
	if (bad) {
		rc = not_kept(t, r, &t->nk.unreadable, "%s: %s", mf, bad);
		goto out;
	}
	if ((uint64_t)st.st_size > t->keep_max) {
		rc = not_kept(t, r, &t->nk.too_big, "%llu bytes, over the limit of %llu",
			      (unsigned long long)st.st_size, (unsigned long long)t->keep_max);
		goto out;
	}
	size_t len = (size_t)st.st_size, got = 0;
	ssize_t n = 1;
	if (!(buf = malloc(len))) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < len && (n = pread(fd, (char *)buf + got, len - got, (off_t)got)) > 0)
		got += (size_t)n;
	if (got < len) {
		rc = not_kept(t, r, &t->nk.unreadable, "%s: read %zu of %zu bytes (%s)", mf, got,
			      len, n < 0 ? strerror(errno) : "end of file");
		goto out;
	}
	clean_name(r->path, name, sizeof(name));
	rc = rec_cache_save(t->keep_root, name, id, id_size, "elf", buf, len);
	if (!rc)
		__atomic_add_fetch(&t->kept, 1, __ATOMIC_RELAXED);
	else if (rc != -ENOMEM)
		rc = not_kept(t, r, &t->nk.cache_error, "not written to the cache %s: %s",
			      t->keep_root, sio_strerror(rc));
out:
	free(buf);
	close(fd);
	return rc;
}

/* A file the maps call deleted whose build-id could not be read (rc): the cache files by
 * build-id, so it cannot be kept. Said as unreadable when map_files cannot be opened. */
static int no_id(struct rec_bid_thread *t, const struct req *r, const char *mf, int rc)
{
	int fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return not_kept(t, r, &t->nk.unreadable, "%s: %s", mf, strerror(errno));
	close(fd);
	return not_kept(t, r, &t->nk.no_build_id, "no build-id read from it (%s)",
			rc == -ENOENT ? "no note" : strerror(-rc));
}

/* One request: the id from the path (or the process's root), else through map_files; and
 * with --keep-deleted a file that is gone is kept. 1 if a result is to be posted; *nomem
 * set when a read ran out of memory (no id would read as "none"). */
static int serve(struct rec_bid_thread *t, struct req *r, struct rec_bid_result *res,
		 int *nomem)
{
	char alt[4200], mf[128] = "";
	int rc = 0;
	if (r->pid > 0 && r->end > r->start)
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)r->pid,
			 r->start, r->end);
	if (r->keep_only) {
		memcpy(res->id, r->id, r->id_size);
		res->size = r->id_size;
	} else if ((rc = rec_read_build_id(r->path, res->id, &res->size)) && rc != -ENOMEM &&
		   r->pid > 0) {
		/* The mapping may live in another mount namespace. */
		snprintf(alt, sizeof(alt), "/proc/%d/root%s", (int)r->pid, r->path);
		if ((rc = rec_read_build_id(alt, res->id, &res->size)) && rc != -ENOMEM && mf[0])
			rc = rec_read_build_id(mf, res->id, &res->size);	/* deleted */
	}
	if (rc == -ENOMEM) {
		*nomem = 1;
		return 1;
	}
	if (t->keep_root && mf[0]) {
		int gone = res->size ? file_gone(r, res->id, res->size) : 0;
		if (gone > 0)
			gone = keep_file(t, r, mf, res->id, res->size);
		else if (!res->size && tagged_deleted(r->path))
			gone = no_id(t, r, mf, rc);
		if (gone == -ENOMEM)
			*nomem = 1;
	}
	return !r->keep_only;
}

static void *worker(void *arg)
{
	struct rec_bid_thread *t = arg;

	pthread_mutex_lock(&t->mu);
	for (;;) {
		while (t->qhead == t->qn && !t->stop)
			pthread_cond_wait(&t->cv, &t->mu);
		if (t->qhead == t->qn)
			break;
		struct req r = t->q[t->qhead++];
		pthread_mutex_unlock(&t->mu);

		struct rec_bid_result res = { .path = r.path };
		int nomem = 0, post = serve(t, &r, &res, &nomem);
		pthread_mutex_lock(&t->mu);
		if (nomem)
			t->err = -ENOMEM;
		if (!post) {
			free(res.path);
			continue;
		}
		if (jp_grow(&t->res, &t->rcap, t->rn + 1, sizeof(*t->res), 64)) {
			free(res.path);
			t->err = -ENOMEM;	/* the recording would lack its build-id */
			continue;
		}
		t->res[t->rn++] = res;
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

int rec_bid_start(struct rec_bid_thread **out, const char *keep_root)
{
	struct rec_bid_thread *t = calloc(1, sizeof(*t));
	int err;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->keep_root = keep_root;
	t->keep_max = REC_KEEP_MAX;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	elf_version(EV_CURRENT);
	err = pthread_create(&t->th, NULL, worker, t);
	if (err) {
		free(t);
		return -err;
	}
	*out = t;
	return 0;
}

size_t rec_bid_kept(struct rec_bid_thread *t)
{
	return __atomic_load_n(&t->kept, __ATOMIC_RELAXED);
}

void rec_bid_set_keep_max(struct rec_bid_thread *t, uint64_t max)
{
	t->keep_max = max;
}

void rec_bid_not_kept(struct rec_bid_thread *t, struct rec_not_kept *out)
{
	pthread_mutex_lock(&t->mu);
	*out = t->nk;
	t->nk.first = NULL;
	pthread_mutex_unlock(&t->mu);
}

int rec_bid_request(struct rec_bid_thread *t, const char *path, pid_t pid)
{
	return rec_bid_request_map(t, path, pid, 0, 0, NULL, 0);
}

int rec_bid_request_map(struct rec_bid_thread *t, const char *path, pid_t pid, uint64_t start,
			uint64_t end, const uint8_t *id, size_t id_size)
{
	char *p = strdup(path);
	int err = 0;
	struct req rq = { p, pid, start, end, id != NULL, { 0 }, 0 };

	if (!p)
		return -ENOMEM;
	if (id) {
		rq.id_size = (uint8_t)(id_size < PD_BUILD_ID_MAX ? id_size : PD_BUILD_ID_MAX);
		memcpy(rq.id, id, rq.id_size);
	}
	pthread_mutex_lock(&t->mu);
	if (t->qn == t->qcap && t->qhead) {
		/* Compact consumed entries before growing. */
		memmove(t->q, t->q + t->qhead, (t->qn - t->qhead) * sizeof(*t->q));
		t->qn -= t->qhead;
		t->qhead = 0;
	}
	if (jp_grow(&t->q, &t->qcap, t->qn + 1, sizeof(*t->q), 64))
		err = -ENOMEM;
	if (!err) {
		t->q[t->qn++] = rq;
		pthread_cond_signal(&t->cv);
	} else {
		free(p);
	}
	pthread_mutex_unlock(&t->mu);
	return err;
}

int rec_bid_error(struct rec_bid_thread *t)
{
	pthread_mutex_lock(&t->mu);
	int err = t->err;
	pthread_mutex_unlock(&t->mu);
	return err;
}

size_t rec_bid_poll(struct rec_bid_thread *t, struct rec_bid_result *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&t->mu);
	n = t->rn < max ? t->rn : max;
	if (n) {
		memcpy(out, t->res, n * sizeof(*out));
		memmove(t->res, t->res + n, (t->rn - n) * sizeof(*out));
		t->rn -= n;
	}
	pthread_mutex_unlock(&t->mu);
	return n;
}

void rec_bid_stop(struct rec_bid_thread *t)
{
	if (!t || t->stop)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);
}

void rec_bid_free(struct rec_bid_thread *t)
{
	if (!t)
		return;
	rec_bid_stop(t);
	for (size_t i = t->qhead; i < t->qn; i++)
		free(t->q[i].path);
	for (size_t i = 0; i < t->rn; i++)
		free(t->res[i].path);
	free(t->q);
	free(t->res);
	free(t->nk.first);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	free(t);
}
