/* writer.c - the thread-safe buffered jitdump writer. One mutex per writer guards its buffer,
 * its code_index counter and both files (dump and lazily created companion), so the records of
 * one load reach the file as one unit, its companion records no later than its dump unit. Output goes through write(2)/writev(2) only: whatever
 * was flushed is in the file even if the process dies right after. Fork: see fork.c. */
#include "jitdump/jd_int.h"
#include "jitdump/writer_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define DEFAULT_BUFFER (64u * 1024u)
#define MIN_BUFFER 128u

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t k = writev(fd, iov, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		size_t done = (size_t)k;
		while (n > 0 && done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
	return 0;
}

/* Sticky: after a failed write the file has a hole or a torn record, so later records would
 * be misframed; refuse them and say why. */
static int set_err(struct jd_writer *w, int rc)
{
	if (rc && !w->err)
		w->err = rc;
	return rc;
}

static int sink_write(struct jd_writer *w, struct jd_sink *s, const void *extra, size_t n,
		      const void *tail, size_t tail_len)
{
	/* The companion's buffered records first: a reader following the files while we run
	 * (inject on a live pipe) must find a load's companion records once its CODE_LOAD is in
	 * the dump, or it builds that generation without them (another ELF, another build-id
	 * than after the run). write.c buffers a load's companion records before its dump unit. */
	if (s == &w->dump && w->ext.fd >= 0 && w->ext.len) {
		int rc = sink_write(w, &w->ext, NULL, 0, NULL, 0);
		if (rc)
			return rc;
	}
	struct iovec iov[3];
	int k = 0;
	if (s->len)
		iov[k++] = (struct iovec){ s->buf, s->len };
	if (n)
		iov[k++] = (struct iovec){ (void *)extra, n };
	if (tail_len)
		iov[k++] = (struct iovec){ (void *)tail, tail_len };
	s->len = 0;
	return set_err(w, write_all(s->fd, iov, k));
}

int jd_sink_flush(struct jd_writer *w, struct jd_sink *s)
{
	if (s->fd < 0 || !s->len)
		return 0;
	return sink_write(w, s, NULL, 0, NULL, 0);
}

/* Room for n head bytes: in the buffer when they fit (flushing it first if needed), else in
 * a scratch block; jd_sink_commit() then appends the tail (code bytes, never copied when the
 * unit is bigger than the buffer). */
uint8_t *jd_sink_claim(struct jd_writer *w, struct jd_sink *s, size_t n)
{
	if (s->cap - s->len >= n)
		return s->buf + s->len;
	if (jd_sink_flush(w, s))
		return NULL;
	if (n <= s->cap)
		return s->buf;
	if (n > w->scratch_cap) {
		uint8_t *p = realloc(w->scratch, n);
		if (!p) {
			set_err(w, -ENOMEM);
			return NULL;
		}
		w->scratch = p;
		w->scratch_cap = n;
	}
	return w->scratch;
}

int jd_sink_commit(struct jd_writer *w, struct jd_sink *s, const uint8_t *head, size_t n,
		   const void *tail, size_t tail_len)
{
	if (head == w->scratch)
		return sink_write(w, s, head, n, tail, tail_len);
	s->len += n;
	if (s->cap - s->len >= tail_len) {
		if (tail_len)
			memcpy(s->buf + s->len, tail, tail_len);
		s->len += tail_len;
		return 0;
	}
	return sink_write(w, s, NULL, 0, tail, tail_len);
}

int jd_sink_open(struct jd_writer *w, struct jd_sink *s, const char *name, uint32_t magic)
{
	if (!s->buf) {
		s->buf = malloc(w->bufsize);
		if (!s->buf)
			return -ENOMEM;
		s->cap = w->bufsize;
	}
	s->len = 0;
	/* The dump directory may be shared (/tmp, $JITDUMPDIR): a symlink or hard link planted
	 * under our name must not make us truncate and write the file it leads to. A stale file
	 * of an earlier process with our pid is replaced by a new one, never truncated. Names
	 * are taken beneath the directory's fd: a path swapped after the open leads nowhere. */
	if (unlinkat(w->filefd, name, 0) && errno != ENOENT)
		return -errno;
	s->fd = openat(w->filefd, name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (s->fd < 0)
		return -errno;
	uint8_t h[JD_HEADER_SIZE];
	uint64_t flags = w->clock == JD_CLOCK_ARCH ? JD_FLAGS_ARCH_TIMESTAMP : 0;
	if (s == &w->ext)
		w->ext_hdr_flags = 0;
	size_t n = jd_enc_header(h, magic, w->elf_mach, (uint32_t)w->pid,
				 jd_clock_read(w->clock), flags);
	struct iovec iov = { h, n };
	return write_all(s->fd, &iov, 1);
}

static void sink_close(struct jd_sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->len = 0;
}

/* A directory of random name "jit-<pid>.XXXXXX" made 0700 beneath w->dirfd: its fd, or -errno
 * (mkdtemp, but beneath a directory fd). */
static int mkdtemp_at(struct jd_writer *w, char *name, size_t len)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		int n = snprintf(name, len, "jit-%d.", (int)w->pid);
		if (n < 0 || (size_t)n + sizeof(r) >= len)
			return -ENAMETOOLONG;
		for (size_t i = 0; i < sizeof(r); i++)
			name[n + i] = set[r[i] % (sizeof(set) - 1)];
		name[n + sizeof(r)] = 0;
		if (!mkdirat(w->dirfd, name, 0700)) {
			int fd = openat(w->dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			return fd >= 0 ? fd : -errno;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* The plain name is taken by a file we may not replace (another user's, in a shared sticky
 * directory, perhaps planted to stop us): the dump goes into a fresh private directory of
 * random name beside it, "jit-<pid>.XXXXXX/jit-<pid>.dump", so perf's marker rule (the file
 * name) still holds. Returns first_rc when that fails too. */
static int open_private(struct jd_writer *w, const char *name, int first_rc)
{
	char sub[64];
	int fd = mkdtemp_at(w, sub, sizeof(sub));
	if (fd < 0)
		return first_rc;
	w->filefd = fd;
	int n = snprintf(w->path, sizeof(w->path), "%s/%s/%s", w->dir, sub, name);
	if (n < 0 || (size_t)n >= sizeof(w->path))
		return -ENAMETOOLONG;
	return jd_sink_open(w, &w->dump, name, JD_MAGIC);
}

/* The dump of the current pid, its header and the PROT_EXEC marker page perf records. */
int jd_writer_open_files(struct jd_writer *w)
{
	char name[32];
	w->pid = getpid();
	if (w->filefd != w->dirfd)	/* a parent's private subdirectory */
		close(w->filefd);
	w->filefd = w->dirfd;
	snprintf(name, sizeof(name), "jit-%d.dump", (int)w->pid);
	int n = snprintf(w->path, sizeof(w->path), "%s/%s", w->dir, name);
	if (n < 0 || (size_t)n >= sizeof(w->path))
		return -ENAMETOOLONG;
	int rc = jd_sink_open(w, &w->dump, name, JD_MAGIC);
	if (rc == -EEXIST || rc == -EPERM || rc == -EISDIR || rc == -ENOTEMPTY)
		rc = open_private(w, name, rc);
	if (rc)
		return rc;
	/* MAP_PRIVATE needs a readable fd (WebKit's write-only fd made this fail). */
	w->marker_len = (size_t)sysconf(_SC_PAGESIZE);
	w->marker = mmap(NULL, w->marker_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, w->dump.fd, 0);
	if (w->marker == MAP_FAILED) {
		w->marker = NULL;
		return -errno;
	}
	return 0;
}

/* Drops the files without writing (used in a forked child for its parent's files, and on
 * open failure). */
void jd_writer_drop_files(struct jd_writer *w)
{
	if (w->marker)
		munmap(w->marker, w->marker_len);
	w->marker = NULL;
	sink_close(&w->dump);
	sink_close(&w->ext);
}

/* The writer of opts (the options as taken in *taken), its files not yet open: 0 or -errno. */
static int writer_new(struct jd_writer **out, const struct jd_writer_opts *opts,
		      struct jd_writer_opts *taken)
{
	struct jd_writer_opts o;
	*out = NULL;
	if (jd_opts_take(&o, sizeof(o), opts))
		return -EINVAL;
	*taken = o;
	int rc = jd_clock_check(o.clock);
	if (rc)
		return rc;
	struct jd_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->dump.fd = w->ext.fd = w->dirfd = w->filefd = -1;
	w->clock = o.clock;
	w->no_ext = o.no_ext;
	w->shorthand = o.same_file_shorthand;
	w->elf_mach = o.elf_mach ? o.elf_mach : jd_self_elf_mach();
	w->bufsize = o.buffer_size ? o.buffer_size : DEFAULT_BUFFER;
	if (w->bufsize < MIN_BUFFER)
		w->bufsize = MIN_BUFFER;
	pthread_mutex_init(&w->lock, NULL);
	*out = w;
	return 0;
}

/* Opens w's files in w->dirfd (unless rc, the error of getting that fd), or frees w. */
static int writer_start(struct jd_writer **out, struct jd_writer *w, int rc)
{
	if (!rc)
		rc = jd_writer_open_files(w);
	if (rc) {
		jd_writer_drop_files(w);
		jd_writer_free(w);
		return rc;
	}
	jd_fork_register(w);
	*out = w;
	return 0;
}

int jd_writer_open(struct jd_writer **out, const struct jd_writer_opts *opts)
{
	struct jd_writer_opts o;
	struct jd_writer *w;
	*out = NULL;
	int rc = writer_new(&w, opts, &o);
	if (rc)
		return rc;
	rc = jd_dump_dir(o.dir, w->dir, sizeof(w->dir));
	if (!rc && (w->dirfd = open(w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		rc = -errno;
	return writer_start(out, w, rc);
}

int jd_writer_open_at(struct jd_writer **out, int dirfd, const char *dir_name,
		      const struct jd_writer_opts *opts)
{
	struct jd_writer_opts o;
	struct jd_writer *w;
	*out = NULL;
	if (dirfd < 0 || !dir_name)
		return -EINVAL;
	int rc = writer_new(&w, opts, &o);
	if (rc)
		return rc;
	int n = snprintf(w->dir, sizeof(w->dir), "%s", dir_name);
	if (n < 0 || (size_t)n >= sizeof(w->dir))
		rc = -ENAMETOOLONG;
	else if ((w->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
		rc = -errno;
	return writer_start(out, w, rc);
}

void jd_writer_free(struct jd_writer *w)
{
	if (w->filefd >= 0 && w->filefd != w->dirfd)
		close(w->filefd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	pthread_mutex_destroy(&w->lock);
	free(w->dump.buf);
	free(w->ext.buf);
	free(w->scratch);
	free(w);
}

int jd_writer_close(struct jd_writer *w)
{
	if (!w)
		return 0;
	jd_fork_unregister(w);
	pthread_mutex_lock(&w->lock);
	int rc = 0;
	if (w->pid == getpid() && w->dump.fd >= 0) {
		uint8_t *p = w->err ? NULL : jd_sink_claim(w, &w->dump, JD_CLOSE_SIZE);
		if (p) {
			jd_enc_close(p, jd_clock_read(w->clock));
			jd_sink_commit(w, &w->dump, p, JD_CLOSE_SIZE, NULL, 0);
		}
		jd_sink_flush(w, &w->dump);
		jd_sink_flush(w, &w->ext);
		rc = w->err;
	}
	/* In a child that never wrote, these are the parent's files: closed, not touched. */
	jd_writer_drop_files(w);
	pthread_mutex_unlock(&w->lock);
	jd_writer_free(w);
	return rc;
}

int jd_writer_flush(struct jd_writer *w)
{
	if (!w)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	int rc = w->err;
	/* A child's inherited buffer holds its parent's records: nothing of its own to flush. */
	if (!rc && w->pid == getpid()) {
		rc = jd_sink_flush(w, &w->dump);
		if (!rc)
			rc = jd_sink_flush(w, &w->ext);
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

const char *jd_writer_path(const struct jd_writer *w)
{
	return w->path;
}

uint64_t jd_writer_now(const struct jd_writer *w)
{
	return jd_clock_read(w->clock);
}
