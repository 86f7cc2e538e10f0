/* reader.c - the validating reader: reads a dump (or a companion file) into memory once, checks
 * the header, then frames records one by one. A record that claims more bytes than the file
 * holds is a truncated tail (a writer that crashed or is still writing): everything before it
 * has been delivered and the reader ends cleanly with a warning instead of an error. */
#include "jitdump/jd_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct jd_reader {
	const uint8_t *base;
	size_t len;
	int owned;		/* base is ours to free: 1 malloc'd, 2 mmap'd (size map_len), 3 the
				 * file mapped (map_guard.c, slot map_slot) */
	size_t map_len;
	int map_slot;
	int map_fd;		/* owned == 3: the file, to see whether it shrank */
	int swap;
	int is_ext;
	int failed;		/* sticky: the negative errno of the damage seen */
	int header_only;	/* JD_READER_HEADER: base holds the header's bytes only */
	uint64_t file_size;	/* ... of a file file_size bytes long */
	uint32_t skip_perf;	/* bit id: records passed over undecoded (jd_reader_skip_id) */
	uint32_t skip_ext;	/* bit id - JD_EXT_LOAD_INFO: the same for the companion's */
	uint64_t off;
	char *path;
	struct jd_header hdr;
	struct jd_reader_stats st;
	struct jd_decode_bufs bufs;
	char err[512];
	char warn[256];
};

static int fail(struct jd_reader *r, int rc, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct jd_reader *r, int rc, uint64_t off, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "%s: offset %llu: %s", r->path,
		 (unsigned long long)off, msg);
	r->failed = rc;
	return rc;
}

static int parse_header(struct jd_reader *r)
{
	const uint8_t *p = r->base;
	if (r->len < JD_HEADER_SIZE)
		return fail(r, -EINVAL, 0, "%zu bytes, shorter than the %u-byte jitdump header",
			    r->len, JD_HEADER_SIZE);
	uint32_t magic = jd_get32(p, 0);
	if (magic == JD_MAGIC || magic == JD_EXT_MAGIC) {
		r->swap = 0;
	} else if (magic == JD_MAGIC_SWAPPED || magic == __builtin_bswap32(JD_EXT_MAGIC)) {
		r->swap = 1;
	} else {
		return fail(r, -EINVAL, 0, "bad magic 0x%08x (not a jitdump)", magic);
	}
	int sw = r->swap;
	r->is_ext = jd_get32(p, sw) == JD_EXT_MAGIC;
	r->hdr.magic = jd_get32(p, sw);
	r->hdr.version = jd_get32(p + 4, sw);
	r->hdr.total_size = jd_get32(p + 8, sw);
	r->hdr.elf_mach = jd_get32(p + 12, sw);
	r->hdr.pad1 = jd_get32(p + 16, sw);
	r->hdr.pid = jd_get32(p + 20, sw);
	r->hdr.timestamp = jd_get64(p + 24, sw);
	r->hdr.flags = jd_get64(p + 32, sw);
	if (r->hdr.version == 0)
		return fail(r, -EINVAL, 4, "jitdump version 0");
	if (r->hdr.total_size < JD_HEADER_SIZE)
		return fail(r, -EINVAL, 8, "header total_size %u is below %u", r->hdr.total_size,
			    JD_HEADER_SIZE);
	/* Bytes past the 40 we know are a header extension: skipped, as newer perf does. */
	uint64_t size = r->header_only ? r->file_size : r->len;
	if (r->hdr.total_size > size)
		return fail(r, -EINVAL, 8, "header total_size %u runs past the end of the "
			    "%llu-byte file", r->hdr.total_size, (unsigned long long)size);
	r->off = r->header_only ? r->len : r->hdr.total_size;
	r->st.byte_swapped = sw;
	return 0;
}

/* A failed open leaves no reader behind: its message goes to the caller's err (no state is
 * kept between calls, so any thread may open any file). */
static int open_failed(struct jd_reader *r, int rc, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", r && r->err[0] ? r->err : strerror(-rc));
	jd_reader_close(r);
	return rc;
}

static int open_common(struct jd_reader **out, struct jd_reader *r, const char *name,
		       char *err, size_t errlen)
{
	r->path = strdup(name ? name : "<memory>");
	if (!r->path)
		return open_failed(r, -ENOMEM, err, errlen);
	int rc = parse_header(r);
	if (rc)
		return open_failed(r, rc, err, errlen);
	*out = r;
	return 0;
}

int jd_reader_open_mem(struct jd_reader **out, const void *buf, size_t len, const char *name,
		       char *err, size_t errlen)
{
	*out = NULL;
	struct jd_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return open_failed(NULL, -ENOMEM, err, errlen);
	r->base = buf;
	r->len = len;
	r->map_slot = -1;
	return open_common(out, r, name, err, errlen);
}

/* The copy of a large dump goes into anonymous memory asking for huge pages: faulting a
 * 50 MB copy in 4 KiB pages is 12k page faults. Not the file mapped (see read_fd): this
 * memory is ours whatever happens to the file. */
#define BIG_COPY (4u << 20)

static void *big_alloc(struct jd_reader *r, size_t cap)
{
	if (cap >= BIG_COPY) {
		void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
			madvise(p, cap, MADV_HUGEPAGE);	/* a hint: refused is fine */
#endif
			r->owned = 2;
			r->map_len = cap;
			return p;
		}
	}
	r->owned = 1;
	return malloc(cap ? cap : 1);
}

static void big_free(struct jd_reader *r, void *p)
{
	if (r->owned == 3) {
		jd_map_release(r->map_slot, p, r->map_len);
		close(r->map_fd);
	} else if (r->owned == 2) {
		munmap(p, r->map_len);
	} else {
		free(p);
	}
	r->owned = 0;
}

/* The whole file, copied: a dump another user owns can be truncated while we read it, and a
 * mapping would then fault (SIGBUS); a copy cannot. With JD_READER_MAP_OWN a file only the
 * running user can write is mapped instead (map_guard.c). Regular files only: the open
 * does not block on a FIFO, and a device is never read forever. */
static int read_fd(struct jd_reader *r, int fd, unsigned flags)
{
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return -errno;
	if ((uint64_t)st.st_size >= SIZE_MAX)
		return -EFBIG;
	size_t cap = (size_t)st.st_size, got = 0;
	if (flags & JD_READER_HEADER) {	/* the header alone: a read of 40 bytes */
		r->header_only = 1;
		r->file_size = (uint64_t)st.st_size;
		cap = cap < JD_HEADER_SIZE ? cap : JD_HEADER_SIZE;
	} else if (flags & JD_READER_MAP_OWN) {
		const void *m = jd_map_guarded(fd, &st, &r->map_slot);
		r->map_fd = m ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (m && r->map_fd >= 0) {
			r->base = m;
			r->len = r->map_len = cap;
			r->owned = 3;
			return 0;
		}
		if (m)
			jd_map_release(r->map_slot, m, cap);
	}
	uint8_t *b = big_alloc(r, cap);
	if (!b)
		return -ENOMEM;
	while (got < cap) {	/* bytes appended meanwhile are left for the next reader */
		ssize_t n = pread(fd, b + got, cap - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = -errno;
			big_free(r, b);
			return rc;
		}
		if (n == 0)
			break;	/* it shrank: what is left is a (possibly partial) dump */
		got += (size_t)n;
	}
	r->base = b;
	r->len = got;
	return 0;
}

int jd_reader_open_flags(struct jd_reader **out, int dirfd, const char *name,
			 const char *display, unsigned rflags, char *err, size_t errlen)
{
	*out = NULL;
	struct jd_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return open_failed(NULL, -ENOMEM, err, errlen);
	r->map_slot = -1;
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	if (dirfd != AT_FDCWD)
		flags |= O_NOFOLLOW;
	int fd = openat(dirfd, name, flags);
	int rc = fd < 0 ? -errno : read_fd(r, fd, rflags);
	if (fd >= 0)
		close(fd);
	if (!display)
		display = name;
	if (rc) {
		snprintf(r->err, sizeof(r->err), "%s: %s", display,
			 rc == -EINVAL ? "not a regular file" :
			 rc == -ELOOP && dirfd != AT_FDCWD ? "a symlink, not followed" :
			 strerror(-rc));
		return open_failed(r, rc, err, errlen);
	}
	return open_common(out, r, display, err, errlen);
}

int jd_reader_open_at(struct jd_reader **out, int dirfd, const char *name, const char *display,
		      char *err, size_t errlen)
{
	return jd_reader_open_flags(out, dirfd, name, display, 0, err, errlen);
}

int jd_reader_mapped(const struct jd_reader *r)
{
	return r->owned == 3;
}

/* Either sign: a read past the new end faulted (map_guard.c), or the file is shorter now. The
 * second is needed too: where the page cache holds the file in large folios, the pages past a
 * new end that share a folio with the last byte stay mapped and read as zeros, no fault. */
int jd_reader_shrunk(const struct jd_reader *r)
{
	struct stat st;
	return r->owned == 3 && (jd_map_shrunk(r->map_slot) || fstat(r->map_fd, &st) ||
				 (uint64_t)st.st_size < r->map_len);
}

int jd_reader_open(struct jd_reader **out, const char *path, char *err, size_t errlen)
{
	return jd_reader_open_at(out, AT_FDCWD, path, path, err, errlen);
}

void jd_reader_close(struct jd_reader *r)
{
	if (!r)
		return;
	if (r->owned)
		big_free(r, (void *)r->base);
	jd_decode_bufs_free(&r->bufs);
	free(r->path);
	free(r);
}

static void partial_tail(struct jd_reader *r, uint64_t left)
{
	r->st.truncated_bytes = left;
	r->st.truncated_offset = r->off;
	snprintf(r->warn, sizeof(r->warn), "%s: %llu bytes of a partial record at offset %llu",
		 r->path, (unsigned long long)left, (unsigned long long)r->off);
	r->off = r->len;
}

int jd_reader_skip_id(struct jd_reader *r, uint32_t id)
{
	if (id < 32)
		r->skip_perf |= 1u << id;
	else if (id >= JD_EXT_LOAD_INFO && id - JD_EXT_LOAD_INFO < 32)
		r->skip_ext |= 1u << (id - JD_EXT_LOAD_INFO);
	else
		return -EINVAL;
	return 0;
}

static int skip_asked(const struct jd_reader *r, uint32_t id)
{
	if (id < 32)
		return r->skip_perf >> id & 1;
	return id >= JD_EXT_LOAD_INFO && id - JD_EXT_LOAD_INFO < 32 &&
	       (r->skip_ext >> (id - JD_EXT_LOAD_INFO) & 1);
}

int jd_reader_next(struct jd_reader *r, struct jd_record *rec)
{
	for (;;) {
		if (r->failed)
			return r->failed;
		uint64_t left = r->len - r->off;
		if (left == 0)
			return 0;
		if (left < JD_PREFIX_SIZE) {
			partial_tail(r, left);
			return 0;
		}
		const uint8_t *p = r->base + r->off;
		uint32_t id = jd_get32(p, r->swap), size = jd_get32(p + 4, r->swap);
		if (size < JD_PREFIX_SIZE)
			return fail(r, -EINVAL, r->off, "record id %u has total_size %u, below the "
				    "16-byte prefix", id, size);
		if (size > left) {
			partial_tail(r, left);
			return 0;
		}
		if (!jd_id_known(id)) {
			r->st.unknown_skipped++;
			r->off += size;
			continue;
		}
		if (skip_asked(r, id)) {	/* by size, before the record is cleared */
			r->st.passed_over++;
			r->off += size;
			continue;
		}
		memset(rec, 0, sizeof(*rec));
		rec->id = id;
		rec->total_size = size;
		rec->timestamp = jd_get64(p + 8, r->swap);
		rec->offset = r->off;
		char msg[320];
		int rc = jd_decode(rec, p, r->swap, &r->bufs, msg, sizeof(msg));
		if (rc)
			return fail(r, rc, r->off, "%s", msg);
		r->off += rec->total_size;
		r->st.records++;
		if (rec->id < JD_CODE_MAX_PERF)
			r->st.per_id[rec->id]++;
		else
			r->st.ext_records++;
		return 1;
	}
}

const struct jd_header *jd_reader_header(const struct jd_reader *r)
{
	return &r->hdr;
}

const struct jd_reader_stats *jd_reader_stats(const struct jd_reader *r)
{
	return &r->st;
}

const char *jd_reader_error(const struct jd_reader *r)
{
	return r->err;
}

const char *jd_reader_warning(const struct jd_reader *r)
{
	return r->warn;
}

const char *jd_reader_path(const struct jd_reader *r)
{
	return r->path;
}

int jd_reader_is_ext(const struct jd_reader *r)
{
	return r->is_ext;
}

uint64_t jd_reader_size(const struct jd_reader *r)
{
	return r->len;
}
