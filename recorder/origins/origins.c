/* origins.c - the INJ_FEAT_ORIGINS section `inject --no-elfs` writes in place of ELF files:
 * its encoder and its validating decoder (readers beside writers), and the dump identities
 * (device, inode, size, mtime, ctime, SHA-1 of the whole file) that let a later reader refuse
 * a dump that changed instead of building wrong ELFs from it: the reader hashes the very
 * bytes it then uses. Layout: docs/inject.md. */
#include "recorder/origins/origins.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/nomem.h"
#include "lib/sha1.h"
#include "recorder/perfdata/perfdata.h"
#include "safeio/safeio.h"

#define HDR_SIZE 32		/* magic[8], version u32, nr_dumps u32, nr_entries u64, 0 u64 */
#define ID_SIZE 64		/* dev, ino, size, mtime, ctime u64, sha1[20], present u32 */
#define ENTRY_SIZE 88		/* build-id[20], dump u32, file_seq u32, flags u32, offset u64,
				 * code_index u64, generation u32, 0 u32, debug, unwind, info and
				 * inline record offsets u64 */

static void id_of_stat(const struct stat *sb, struct inj_file_id *id)
{
	id->dev = (uint64_t)sb->st_dev;
	id->ino = (uint64_t)sb->st_ino;
	id->size = (uint64_t)sb->st_size;
	id->mtime_ns = (uint64_t)sb->st_mtim.tv_sec * 1000000000ull + (uint64_t)sb->st_mtim.tv_nsec;
	id->ctime_ns = (uint64_t)sb->st_ctim.tv_sec * 1000000000ull + (uint64_t)sb->st_ctim.tv_nsec;
	id->present = 1;
}

/* Before reading: what differs between the identity then and now's stat, logged: -ESTALE, or
 * 0. Device, inode and ctime are not refused here: a copy beside the recording (cp -a) or a
 * dump renamed away and back has others, and the SHA-1 of its bytes decides (bytes_differ). */
static int stat_differs(const char *path, const struct inj_file_id *then,
			const struct inj_file_id *now, const struct jp_log *log)
{
	if (!then->present)
		jp_logf(log, JP_LOG_ERROR, "%s appeared since inject", path);
	else if (now->size != then->size)
		jp_logf(log, JP_LOG_ERROR, "%s changed since inject: %llu bytes, %llu then", path,
			(unsigned long long)now->size, (unsigned long long)then->size);
	else if (now->mtime_ns != then->mtime_ns)
		jp_logf(log, JP_LOG_ERROR,
			"%s changed since inject: modified at another time", path);
	else
		return 0;
	return -ESTALE;
}

/* After reading: -ESTALE when the bytes are not the ones inject hashed, logged naming the likely
 * cause (the same size and mtime: a rewrite with its mtime put back, touch -r). */
static int bytes_differ(const char *path, const struct inj_file_id *then,
			const struct inj_file_id *now, const struct jp_log *log)
{
	if (!memcmp(now->sha1, then->sha1, 20))
		return 0;
	if (now->dev != then->dev || now->ino != then->ino)
		jp_logf(log, JP_LOG_ERROR, "%s changed since inject: another file (device or inode "
			"differs) with other bytes", path);
	else if (now->ctime_ns != then->ctime_ns)
		jp_logf(log, JP_LOG_ERROR,
			"%s changed since inject: written again with its mtime put "
			"back (ctime differs, its bytes too)", path);
	else
		jp_logf(log, JP_LOG_ERROR, "%s changed since inject: its bytes differ", path);
	return -ESTALE;
}

/* The SHA-1 of fd's first size bytes, read a MiB at a time: 0, -ESTALE when it ends sooner
 * (it shrank), -errno; -EIO with *why when libcrypto could not be had or failed. SHA1_*, not
 * EVP (lib/sha1.h): they allocate nothing. */
static int sha1_fd(int fd, uint64_t size, uint8_t out[20], const char **why)
{
	enum { CHUNK = 1 << 20 };
	const struct jp_sha1 *sha = jp_sha1(why);
	if (!sha)
		return -EIO;
	uint8_t *b = malloc(CHUNK);
	struct jp_sha1_ctx c;
	int rc = b && sha->init(&c) ? 0 : -ENOMEM;
	for (uint64_t off = 0; !rc && off < size;) {
		ssize_t n = pread(fd, b, size - off < CHUNK ? (size_t)(size - off) : CHUNK,
				  (off_t)off);
		if (n <= 0)
			rc = n < 0 ? -errno : -ESTALE;
		else if (!sha->update(&c, b, (size_t)n))
			rc = -EIO;
		off += n > 0 ? (uint64_t)n : 0;
	}
	if (!rc && !sha->final(out, &c))
		rc = -EIO;
	if (rc == -EIO)
		*why = "libcrypto's SHA-1 failed";
	free(b);
	return rc;
}

static int same_times(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* path opened without blocking (a regular file only), checked against then (NULL: nothing to
 * compare) and the owner rule (unless INJ_ID_FORCE), hashed: read whole into *buf when buf
 * is not NULL (the bytes the caller then uses), else a MiB at a time; its identity in *now,
 * the file unchanged while read. 0, -ENOENT (no such file, nothing logged), or -errno logged,
 * naming path and the reason, never a byte of the file. */
static int take(const char *path, const struct inj_file_id *then, unsigned flags, uint8_t **buf,
		size_t *len, struct inj_file_id *now, const struct jp_log *log)
{
	struct stat sb, after;
	char why[128];
	const char *sha_why = NULL;	/* set when the SHA-1 could not be had */
	int rc = 0, fd = sio_open_regular(path);
	if (buf) {
		*buf = NULL;
		*len = 0;
	}
	memset(now, 0, sizeof(*now));
	if (fd == -ENOENT)
		return fd;
	if (fd < 0) {
		jp_logf(log, JP_LOG_ERROR, "%s: %s", path, sio_strerror(fd));
		return fd;
	}
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		jp_logf(log, JP_LOG_ERROR, "%s: %s", path, strerror(-rc));
		goto out;
	}
	id_of_stat(&sb, now);
	if (then && (rc = stat_differs(path, then, now, log)) < 0)
		goto out;
	if (!(flags & INJ_ID_FORCE) && (rc = sio_owner_check(&sb, geteuid(), why, sizeof(why)))) {
		jp_logf(log, JP_LOG_ERROR, "%s: %s (-f reads it anyway)", path, why);
		goto out;
	}
	if (!buf) {
		rc = sha1_fd(fd, (uint64_t)sb.st_size, now->sha1, &sha_why);
	} else if ((rc = sio_read_all(fd, INJ_ID_READ_MAX, buf, len)) == 0) {
		if (*len != (uint64_t)sb.st_size)
			rc = -ESTALE;
		else
			rc = jp_sha1_buf(*buf, *len, now->sha1, &sha_why);
	}
	if (!rc && (fstat(fd, &after) < 0 || !same_times(&sb, &after)))
		rc = -ESTALE;
	jp_nomem_check(rc, "reading a jitdump to check it");	/* not a changed file */
	if (rc == -ESTALE)
		jp_logf(log, JP_LOG_ERROR, "%s changed while it was read", path);
	else if (rc < 0 && sha_why)
		jp_logf(log, JP_LOG_ERROR, "%s: SHA-1: %s", path, sha_why);
	else if (rc < 0)
		jp_logf(log, JP_LOG_ERROR,
			"%s: %s", path, rc == -EFBIG ? "larger than the 2 GiB read to "
			"check it (INJ_ID_READ_MAX)" : strerror(-rc));
out:
	if (rc < 0 && buf) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	close(fd);
	return rc;
}

int inj_file_id_get(const char *path, struct inj_file_id *id, const struct jp_log *log)
{
	int rc = take(path, NULL, INJ_ID_FORCE, NULL, NULL, id, log);
	return rc == -ENOENT ? 0 : rc;
}

int inj_file_id_read(const char *path, const struct inj_file_id *id, unsigned flags,
		     uint8_t **buf, size_t *len, const struct jp_log *log)
{
	struct inj_file_id now;
	int rc = take(path, id, flags, buf, len, &now, log);
	if (rc == -ENOENT) {
		if (!id->present)
			return 0;
		jp_logf(log, JP_LOG_ERROR, "%s is gone since inject", path);
		return -ESTALE;
	}
	if (rc == 0 && (rc = bytes_differ(path, id, &now, log)) < 0 && buf) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return rc;
}

int inj_file_id_check(const char *path, const struct inj_file_id *id, unsigned flags,
		      const struct jp_log *log)
{
	return inj_file_id_read(path, id, flags, NULL, NULL, log);
}

/* Little-endian on every host: the section may be read on another machine. */
static uint8_t *put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + 8;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + 4;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);	/* one load, not a loop gcc leaves byte by byte */
	return le64toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t *put_id(uint8_t *p, const struct inj_file_id *id)
{
	p = put64(p, id->dev);
	p = put64(p, id->ino);
	p = put64(p, id->size);
	p = put64(p, id->mtime_ns);
	p = put64(p, id->ctime_ns);
	memcpy(p, id->sha1, 20);
	return put32(p + 20, (uint32_t)id->present);
}

static void get_id(const uint8_t *p, struct inj_file_id *id)
{
	id->dev = get64(p);
	id->ino = get64(p + 8);
	id->size = get64(p + 16);
	id->mtime_ns = get64(p + 24);
	id->ctime_ns = get64(p + 32);
	memcpy(id->sha1, p + 40, 20);
	id->present = get32(p + 60) != 0;
}

/* A dump: two identities, the path's length (NUL included, padded to 8) and the path. */
static size_t path_room(const char *path)
{
	return (strlen(path) + 1 + 7) & ~(size_t)7;
}

int inj_origins_encode(const struct inj_origins *o, void **buf, size_t *size)
{
	size_t n = HDR_SIZE + o->n * ENTRY_SIZE;
	for (size_t k = 0; k < o->nr_dumps; k++)
		n += 2 * ID_SIZE + 8 + path_room(o->dumps[k].path);
	uint8_t *b = calloc(1, n), *p = b;
	if (!b)
		return -ENOMEM;
	memcpy(p, INJ_ORIGINS_MAGIC, 8);
	p = put32(p + 8, INJ_ORIGINS_VERSION);
	p = put32(p, (uint32_t)o->nr_dumps);
	p = put64(p, o->n);
	p = put64(p, 0);
	for (size_t k = 0; k < o->nr_dumps; k++) {
		size_t room = path_room(o->dumps[k].path);
		p = put_id(p, &o->dumps[k].dump);
		p = put_id(p, &o->dumps[k].comp);
		p = put64(p, room);
		memcpy(p, o->dumps[k].path, strlen(o->dumps[k].path));
		p += room;
	}
	for (size_t i = 0; i < o->n; i++) {
		const struct inj_origin *e = &o->v[i];
		memcpy(p, e->build_id, 20);
		p = put32(p + 20, e->dump);
		p = put32(p, e->file_seq);
		p = put32(p, e->flags);
		p = put64(p, e->offset);
		p = put64(p, e->code_index);
		p = put32(p, e->generation);
		p = put32(p, 0);
		p = put64(p, e->debug_offset);
		p = put64(p, e->unwind_offset);
		p = put64(p, e->info_offset);
		p = put64(p, e->inl_offset);
	}
	*buf = b;
	*size = n;
	return 0;
}

#define NEED(want, what) do { \
	if ((size_t)(end - p) < (size_t)(want)) { \
		jp_logf(log, JP_LOG_ERROR, "origins section: %s at byte %zu cut off", what, \
			(size_t)(p - (const uint8_t *)buf)); \
			goto bad; \
			} } while (0)
			
			int inj_origins_decode(struct inj_origins *o, const void *buf, size_t size,
			const struct jp_log *log)
			{
			const uint8_t *p = buf, *end = p + size;
	memset(o, 0, sizeof(*o));
	NEED(HDR_SIZE, "header");
	if (memcmp(p, INJ_ORIGINS_MAGIC, 8)) {
		jp_logf(log, JP_LOG_ERROR, "origins section: not magic %s", INJ_ORIGINS_MAGIC);
		goto bad;
	}
	if (get32(p + 8) != INJ_ORIGINS_VERSION) {	/* 1 identified a dump too weakly */
		jp_logf(log, JP_LOG_ERROR,
			"origins section: version %u, not %u: run jitprof inject "
			"--no-elfs again on the recording", get32(p + 8), INJ_ORIGINS_VERSION);
		goto bad;
	}
	uint32_t nd = get32(p + 12);
	uint64_t ne = get64(p + 16);
	p += HDR_SIZE;
	/* Every dump takes at least 2 * ID_SIZE + 16 bytes, every entry ENTRY_SIZE. */
	if (nd > size / (2 * ID_SIZE + 16) || ne > size / ENTRY_SIZE) {
		jp_logf(log, JP_LOG_ERROR,
			"origins section: %u dumps, %llu entries do not fit in %zu "
			"bytes", nd, (unsigned long long)ne, size);
		goto bad;
	}
	o->dumps = calloc(nd + 1, sizeof(*o->dumps));
	o->v = calloc(ne + 1, sizeof(*o->v));
	if (!o->dumps || !o->v)
		jp_nomem("decoding the origins section");	/* not a damaged section */
	for (uint32_t k = 0; k < nd; k++) {
		NEED(2 * ID_SIZE + 8, "dump identity");
		get_id(p, &o->dumps[k].dump);
		get_id(p + ID_SIZE, &o->dumps[k].comp);
		uint64_t room = get64(p + 2 * ID_SIZE);
		p += 2 * ID_SIZE + 8;
		NEED(room, "dump path");
		if (!room || !memchr(p, 0, room) || p[0] != '/') {
			jp_logf(log, JP_LOG_ERROR,
				"origins section: dump path at byte %zu is not an "
				"absolute NUL-terminated path", (size_t)(p - (const uint8_t *)buf));
			goto bad;
		}
		if (!(o->dumps[k].path = strdup((const char *)p)))
			jp_nomem("decoding the origins section");
		o->nr_dumps++;
		p += room;
	}
	for (uint64_t i = 0; i < ne; i++) {
		struct inj_origin *e = &o->v[i];
		NEED(ENTRY_SIZE, "entry");
		memcpy(e->build_id, p, 20);
		e->dump = get32(p + 20);
		e->file_seq = get32(p + 24);
		e->flags = get32(p + 28);
		e->offset = get64(p + 32);
		e->code_index = get64(p + 40);
		e->generation = get32(p + 48);
		e->debug_offset = get64(p + 56);
		e->unwind_offset = get64(p + 64);
		e->info_offset = get64(p + 72);
		e->inl_offset = get64(p + 80);
		if (e->dump >= nd) {
			jp_logf(log, JP_LOG_ERROR,
				"origins section: entry at byte %zu names dump %u of %u",
				(size_t)(p - (const uint8_t *)buf), e->dump, nd);
			goto bad;
		}
		p += ENTRY_SIZE;
		o->n++;
	}
	return 0;
bad:
	inj_origins_free(o);
	return -EINVAL;
}

void inj_origins_free(struct inj_origins *o)
{
	for (size_t k = 0; k < o->nr_dumps; k++)
		free(o->dumps[k].path);
	free(o->dumps);
	free(o->v);
	memset(o, 0, sizeof(*o));
}

uint32_t inj_load_at_offset(const struct jd_index *x, uint64_t off)
{
	size_t lo = 0, hi = jd_index_nr_loads(x);
	while (lo < hi) {	/* entries are in file order */
		size_t mid = lo + (hi - lo) / 2;
		uint64_t o = jd_index_load(x, mid)->offset;
		if (o == off)
			return (uint32_t)mid;
		if (o < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return INJ_NONE;
}

char *inj_input_dir(const char *input)
{
	if (!input || !strcmp(input, "-"))
		return NULL;
	const char *slash = strrchr(input, '/');
	return slash ? strndup(input, (size_t)(slash - input + (slash == input))) : strdup(".");
}

char *inj_origin_dump_path(const struct inj_origins *o, size_t k, const char *input_dir)
{
	const char *path = o->dumps[k].path, *base = strrchr(path, '/');
	struct stat st;
	char *moved = NULL;
	if (input_dir && base && jd_is_marker_name(base + 1, NULL) == 1 &&
	    stat(path, &st) < 0 && errno == ENOENT) {
		if (asprintf(&moved, "%s%s", input_dir, base) < 0)
			return NULL;	/* not the recorded path, which is gone */
		if (strcmp(moved, path) && stat(moved, &st) == 0 && S_ISREG(st.st_mode))
			return moved;
		free(moved);
	}
	return strdup(path);
}

int inj_origins_open_dump(const struct inj_origins *o, size_t k, const char *path,
			  unsigned flags, struct jd_index **x, const struct jp_log *log)
{
	const struct inj_origin_dump *d = &o->dumps[k];
	char comp[4096 + 16];
	int rc;
	*x = NULL;
	if ((rc = jd_ext_path(path, comp, sizeof(comp))) < 0) {
		jp_logf(log, JP_LOG_ERROR, "%s: path too long", path);
		return rc;
	}
	/* The index reads the files again: what it reads is vouched for by the build-id the
	 * ELF writer pool checks each ELF against. */
	if ((rc = inj_file_id_check(path, &d->dump, flags, log)) < 0 ||
	    (rc = inj_file_id_check(comp, &d->comp, flags, log)) < 0)
		return rc;
	char msg[512] = "";	/* libjitdump keeps its buffer by design (below lib/log.h) */
	rc = jp_nomem_check(jd_index_open(x, path, msg, sizeof(msg)), "indexing a jitdump");
	if (rc < 0)
		jp_logf(log, JP_LOG_ERROR, "%s: %s", path, msg[0] ? msg : strerror(-rc));
	return rc;
}

/* Reads the origins section of a perf.data file. */
int inj_origins_read(const struct pd_reader *r, const char *input, struct inj_origins *o,
		     const struct jp_log *log)
{
	size_t size = 0;
	const void *raw = pd_reader_feature(r, INJ_FEAT_ORIGINS, &size);
	struct jp_held why = { 0 };	/* decode's own words, named by input here */
	memset(o, 0, sizeof(*o));
	if (!raw)
		return -ENOENT;
	int rc = inj_origins_decode(o, raw, size, &(struct jp_log){ jp_log_hold, &why });
	if (why.nomem)
		jp_nomem("an error message");
	if (rc < 0)
		jp_logf(log, JP_LOG_ERROR, "%s: %s", input, why.msg ? why.msg : strerror(-rc));
	free(why.msg);
	return rc;
}
