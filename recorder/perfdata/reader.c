/* reader.c - opens perf.data in file or pipe mode and streams its records in constant memory:
 * a bounded window is refilled by pread (file) or read (pipe), records are copied out only when
 * they must be swapped, realigned or straddle the window. The header, attrs and features are
 * read by header.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <byteswap.h>

#include "lib/grow.h"
#include "lib/nomem.h"
#include "lib/opts.h"
#include "recorder/perfdata/perfdata_int.h"

int pd_set_err(struct pd_reader *r, int err, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	char *head = NULL, *msg = NULL;

	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0 || asprintf(&head, "%s: offset %llu: %s", r->path,
			      (unsigned long long)off, msg) < 0)
		jp_nomem("a perf.data reader's error message");
	free(msg);
	free(r->err);
	r->err = head;
	return err;
}

const char *pd_reader_error(const struct pd_reader *r)
{
	if (!r)
		return "no reader";
	return r->err ? r->err : "no error";
}

static struct pd_block *block_new(size_t cap)
{
	struct pd_block *b = malloc(sizeof(*b) + cap);
	if (b)
		*b = (struct pd_block){ .refs = 1, .cap = cap };
	return b;
}

void pd_block_release(struct pd_block *b)
{
	if (b && !--b->refs)
		free(b);
}

struct pd_block *pd_reader_hold(const struct pd_reader *r, const void *p, size_t len)
{
	if (!r || !r->block)
		return NULL;
	uintptr_t at = (uintptr_t)p, lo = (uintptr_t)r->buf;
	if (at < lo || at - lo > r->buf_len || len > r->buf_len - (at - lo))
		return NULL;
	r->block->refs++;
	return r->block;
}

/* Makes at least `need` unconsumed bytes available in the window. -ENODATA at end of input. */
static int fill(struct pd_reader *r, size_t need)
{
	size_t avail = r->buf_len - r->buf_pos;

	if (avail >= need)
		return 0;
	if (r->block->refs > 1 || need > r->buf_cap) {
		/* the queue keeps events where they are, or the window is too small: a new one
		 * with the bytes not yet consumed */
		size_t cap = need > r->buf_cap ? need : r->buf_cap;
		struct pd_block *nb = block_new(cap);
		if (!nb)
			return -ENOMEM;
		memcpy(nb->data, r->buf + r->buf_pos, avail);
		pd_block_release(r->block);
		r->block = nb;
		r->buf = nb->data;
		r->buf_cap = cap;
		r->buf_off += r->buf_pos;
		r->buf_len = avail;
		r->buf_pos = 0;
	} else if (r->buf_pos) {
		memmove(r->buf, r->buf + r->buf_pos, avail);
		r->buf_off += r->buf_pos;
		r->buf_len = avail;
		r->buf_pos = 0;
	}
	while (r->buf_len < need) {
		size_t room = r->buf_cap - r->buf_len;
		ssize_t k;
		if (r->pipe) {
			if (r->eof)
				return -ENODATA;
			k = read(r->fd, r->buf + r->buf_len, room);
		} else {
			uint64_t at = r->buf_off + r->buf_len;
			if (at >= r->data_end)
				return -ENODATA;
			if (room > r->data_end - at)
				room = (size_t)(r->data_end - at);
			k = pread(r->fd, r->buf + r->buf_len, room, (off_t)at);
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0) {
			r->eof = true;
			return -ENODATA;
		}
		r->buf_len += (size_t)k;
	}
	return 0;
}

/* Consumes n bytes into dst (NULL: discard), through the window; for big payloads. */
static int consume(struct pd_reader *r, void *dst, uint64_t n)
{
	while (n) {
		size_t chunk = r->buf_cap < n ? r->buf_cap : (size_t)n;
		int err = fill(r, chunk);
		if (err)
			return err;
		if (dst) {
			memcpy(dst, r->buf + r->buf_pos, chunk);
			dst = (uint8_t *)dst + chunk;
		}
		r->buf_pos += chunk;
		r->pos += chunk;
		n -= chunk;
	}
	return 0;
}

/* The caller's log, if its options are new enough to carry one. */
static const struct jp_log *opts_log(const struct pd_reader_opts *opts)
{
	if (!opts || jp_opts_sz(opts, sizeof(*opts)) < offsetof(struct pd_reader_opts, log) +
						       sizeof(opts->log))
		return NULL;
	return &opts->log;
}

/* A failed open hands nothing back: the message goes to the log, everything is released. */
static int open_failed(struct pd_reader *r, int err, const struct pd_reader_opts *opts)
{
	jp_logf(opts_log(opts), JP_LOG_ERROR, "%s", r->err);
	pd_reader_close(r);
	return err;
}

int pd_reader_open_fd(struct pd_reader **out, int fd, const char *name,
		      const struct pd_reader_opts *opts)
{
	struct pd_reader *r = calloc(1, sizeof(*r));
	uint64_t hdr[2];
	int err;

	*out = NULL;
	if (!JP_OPTS_VALID(opts, struct pd_reader_opts)) {
		free(r);
		close(fd);
		jp_logf(opts_log(opts), JP_LOG_ERROR, "%s: unknown reader options",
			name ? name : "(fd)");
		return -EINVAL;
	}
	if (!r) {
		close(fd);
		jp_logf(opts_log(opts), JP_LOG_ERROR, "%s: %s", name ? name : "(fd)",
			strerror(ENOMEM));
		return -ENOMEM;
	}
	r->fd = fd;
	r->path = strdup(name ? name : "(fd)");
	struct pd_reader_opts o;
	jp_opts_copy(&o, sizeof(o), opts);
	r->buf_cap = o.window ? o.window : 1u << 20;
	struct stat sb;	/* a small file needs no 1 MiB window (the window grows when a record needs) */
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size < r->buf_cap)
		r->buf_cap = (size_t)sb.st_size;
	if (r->buf_cap < 4096)
		r->buf_cap = 4096;
	r->block = block_new(r->buf_cap);
	r->buf = r->block ? r->block->data : NULL;
	r->data_end = UINT64_MAX;
	if (!r->path || !r->buf) {
		jp_logf(opts_log(opts), JP_LOG_ERROR, "%s: %s", name ? name : "(fd)",
			strerror(ENOMEM));
		pd_reader_close(r);
		return -ENOMEM;
	}
	/* Read the first 16 bytes through the window: it works for pipes and files alike. */
	r->pipe = true;
	err = fill(r, 16);
	if (err) {
		err = pd_set_err(r, -EINVAL, 0, "too short for a perf.data header");
		return open_failed(r, err, opts);
	}
	memcpy(hdr, r->buf, 16);
	if (hdr[0] == PD_MAGIC2_SWAPPED) {
		r->swap = true;
		hdr[1] = bswap_64(hdr[1]);
	} else if (hdr[0] != PD_MAGIC2) {
		err = pd_set_err(r, -EINVAL, 0, "not a perf.data file (bad magic)");
		return open_failed(r, err, opts);
	}
	if (hdr[1] == sizeof(struct pd_pipe_header)) {
		r->buf_pos = 16;
		r->pos = 16;
		r->data_offset = 16;
		*out = r;
		return 0;
	}
	r->pipe = false;
	r->eof = false;
	r->buf_len = r->buf_pos = 0;
	err = pd_open_file_mode(r, r->buf);
	if (err) {
		if (!r->err)
			pd_set_err(r, err, 0, "%s", strerror(-err));
		return open_failed(r, err, opts);
	}
	*out = r;
	return 0;
}

int pd_reader_open(struct pd_reader **out, const char *path, const struct pd_reader_opts *opts)
{
	int fd;

	if (!strcmp(path, "-")) {
		fd = dup(0);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		int err = -errno;
		*out = NULL;
		jp_logf(opts_log(opts), JP_LOG_ERROR, "%s: %s", path, strerror(-err));
		return err;
	}
	return pd_reader_open_fd(out, fd, strcmp(path, "-") ? path : "<stdin>", opts);
}

void pd_reader_close(struct pd_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->nr_evsels; i++) {
		free(r->evsels[i]->ids);
		free(r->evsels[i]->name);
		free(r->evsels[i]);
	}
	free(r->evsels);
	free(r->id_index);
	pd_reader_free_features(r);
	pd_zstd_free(r);
	pd_block_release(r->block);	/* freed here unless queued events still hold it */
	free(r->rec);
	free(r->extra);
	free(r->path);
	free(r->err);
	free(r);
}

/* ---- the record stream ---- */

/* Records whose payload follows outside header.size: returns its length. */
static uint64_t extra_size_of(const struct perf_event_header *h, const uint8_t *rec)
{
	uint64_t n = 0;

	if (h->type == PD_RECORD_AUXTRACE && h->size >= 16)
		memcpy(&n, rec + 8, 8);
	else if (h->type == PD_RECORD_HEADER_TRACING_DATA && h->size >= 12) {
		uint32_t s;
		memcpy(&s, rec + 8, 4);
		n = s;
	}
	return n;
}

/* Pipe mode (and type-67 in either mode): side data that the reader itself must track. */
static int track(struct pd_reader *r, struct pd_event *ev, uint64_t off)
{
	const uint8_t *rec = ev->raw;

	switch (ev->type) {
	case PD_RECORD_HEADER_ATTR: {
		uint32_t asz;
		if (ev->size < 8 + 64)
			return pd_set_err(r, -EINVAL, off, "HEADER_ATTR too short");
		memcpy(&asz, rec + 8 + 4, 4);
		if (!asz)
			asz = 64;
		/* ids follow at &attr + attr.size (perf >= 6.6; older perf wrote attr.size equal
		 * to its own sizeof, so both agree for the files it made). */
		if (asz < 64 || asz > (uint32_t)ev->size - 8u)
			return pd_set_err(r, -EINVAL, off, "HEADER_ATTR attr.size %u", asz);
		size_t nids = ((size_t)ev->size - 8 - asz) / 8;
		uint64_t *ids = malloc((nids ? nids : 1) * 8);
		if (!ids)
			return -ENOMEM;
		memcpy(ids, rec + 8 + asz, nids * 8);
		int err = pd_reader_add_evsel(r, rec + 8, asz, ids, nids, off);
		free(ids);
		return err;
	}
	case PD_RECORD_HEADER_FEATURE:
		/* A payload-less feature record is the end-of-features marker. */
		if (ev->u.feature.feat_id < PD_FEAT_MAX && ev->u.feature.size)
			return pd_reader_store_feature(r, (unsigned)ev->u.feature.feat_id,
						       ev->u.feature.data, ev->u.feature.size, off);
		return 0;
	case PD_RECORD_HEADER_BUILD_ID:
		return pd_reader_add_build_id(r, rec, ev->size, false);
	case PD_RECORD_EVENT_UPDATE: {
		uint64_t type, id;
		if (ev->size < 24)
			return 0;
		memcpy(&type, rec + 8, 8);
		memcpy(&id, rec + 16, 8);
		struct pd_evsel *es = (struct pd_evsel *)pd_reader_evsel_by_id(r, id);
		if (type == 2 /* NAME */ && es && !es->name)
			es->name = strndup((const char *)rec + 24, ev->size - 24u);
		return 0;
	}
	default:
		return 0;
	}
}

/* Decodes the host-order record at rec and updates the reader's side tables. */
static int finish(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint16_t size,
		  uint64_t off)
{
	const struct perf_event_header *h = (const void *)rec;
	if (r->skip_samples && h->type == PERF_RECORD_SAMPLE) {
		/* read past, as the pass asked: what a reader of the header knows, no more */
		memset(&ev->u, 0, sizeof(ev->u));
		memset(&ev->sid, 0, sizeof(ev->sid));
		ev->has_sid = false;
		ev->evsel = NULL;
		ev->type = h->type;
		ev->misc = h->misc;
		ev->size = h->size;
		ev->raw = rec;
		ev->offset = off;
		return 1;
	}
	int err = pd_decode(r, rec, size, ev);

	ev->offset = off;
	if (err)
		return pd_set_err(r, err, off, "malformed record of type %u (%u bytes)", ev->type,
				  size);
	err = track(r, ev, off);
	return err ? err : 1;
}

/* The next whole record from decompressed COMPRESSED payloads, inflating more of the kept
 * payload as needed: 1, or 0 if none is whole. */
static int next_decompressed(struct pd_reader *r, struct pd_event *ev)
{
	struct perf_event_header h;
	int err;

	for (;;) {
		size_t left = r->dlen - r->dpos;
		if (left >= sizeof(h)) {
			memcpy(&h, r->dbuf + r->dpos, sizeof(h));
			if (r->swap)
				h.size = bswap_16(h.size);
			if (h.size < sizeof(h))
				return pd_set_err(r, -EINVAL, r->dsrc_off,
						  "bad record inside compressed data");
			if (left >= h.size)
				break;
		}
		if ((err = pd_decompress_more(r)) <= 0)
			return err;
	}
	if ((err = jp_grow(&r->rec, &r->rec_cap, h.size, 1, 4096)))
		return err;
	memcpy(r->rec, r->dbuf + r->dpos, h.size);
	r->dpos += h.size;
	if (r->swap) {
		struct perf_event_header *hp = (void *)r->rec;
		hp->type = bswap_32(hp->type);
		hp->misc = bswap_16(hp->misc);
		hp->size = h.size;
		pd_swap_record(r, r->rec, h.size);
	}
	memset(ev, 0, sizeof(*ev));
	return finish(r, ev, r->rec, h.size, r->dsrc_off);
}

int pd_reader_unfinished(const struct pd_reader *r)
{
	return r->unfinished;
}

void pd_reader_log_header(const struct pd_reader *r, const char *name, const struct jp_log *log)
{
	if (r->unfinished)
		jp_logf(log, JP_LOG_WARN, "%s: the header's data size is 0: perf record did not "
			"finish it (killed, or the disk full?); the events are read up to the end of "
			"the file, and it holds no build-ids", name);
	if (r->feats_dropped)
		jp_logf(log, JP_LOG_WARN, "%s: %u header feature section(s) cut off or outside the "
			"file are left out", name, r->feats_dropped);
}

unsigned pd_reader_nr_features_dropped(const struct pd_reader *r)
{
	return r->feats_dropped;
}

uint64_t pd_reader_nr_compressed(const struct pd_reader *r)
{
	return r->nr_compressed;
}

int pd_reader_next(struct pd_reader *r, struct pd_event *ev)
{
	struct perf_event_header h;
	const uint8_t *rec;
	uint64_t off, extra;
	int err;

again:
	if (r->zstd && (err = next_decompressed(r, ev)))
		return err;
	off = r->pos;
	if (!r->pipe && r->pos >= r->data_end)
		goto end;
	err = fill(r, sizeof(h));
	if (err == -ENODATA) {
		if (r->buf_len == r->buf_pos) {
			if (r->pipe)
				goto end;
			return pd_set_err(r, -EINVAL, off, "data section ends early (file truncated?)");
		}
		return pd_set_err(r, -EINVAL, off, "truncated record header");
	}
	if (err)
		return pd_set_err(r, err, off, "read: %s", strerror(-err));
	memcpy(&h, r->buf + r->buf_pos, sizeof(h));
	if (r->swap) {
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
	}
	if (h.size < sizeof(h))
		return pd_set_err(r, -EINVAL, off, "record size %u < 8 (type %u)", h.size, h.type);
	if (!r->pipe && h.size > r->data_end - off)
		return pd_set_err(r, -EINVAL, off, "record of %u bytes runs past the data section",
				  h.size);
	err = fill(r, h.size);
	if (err)
		return pd_set_err(r, err == -ENODATA ? -EINVAL : err, off,
				  "truncated record (type %u, %u bytes)", h.type, h.size);
	rec = r->buf + r->buf_pos;
	/* Copy when the bytes must change or are misaligned for u64 access. */
	if (r->swap || ((uintptr_t)rec & 7)) {
		if ((err = jp_grow(&r->rec, &r->rec_cap, h.size, 1, 4096)))
			return err;
		memcpy(r->rec, rec, h.size);
		memcpy(r->rec, &h, sizeof(h));
		if (r->swap)
			pd_swap_record(r, r->rec, h.size);
		rec = r->rec;
	}
	r->buf_pos += h.size;
	r->pos += h.size;

	/* The rest of *ev is decode()'s (or finish()'s for a skipped sample) to set: zeroing it
	 * all here too was a third of the decoding of a sample-dense recording. */
	ev->extra = NULL;
	ev->extra_size = 0;
	extra = extra_size_of(&h, rec);
	if (extra) {
		bool keep = extra <= PD_EXTRA_MAX;
		if (keep && (err = jp_grow(&r->extra, &r->extra_cap, (size_t)extra, 1, 4096)))
			return err;
		if (!r->pipe && extra > r->data_end - r->pos)
			return pd_set_err(r, -EINVAL, off, "payload of %llu bytes runs past the data",
					  (unsigned long long)extra);
		/* The record bytes may move while the payload streams in: keep a copy. */
		if (rec != r->rec) {
			if ((err = jp_grow(&r->rec, &r->rec_cap, h.size, 1, 4096)))
				return err;
			memcpy(r->rec, rec, h.size);
			rec = r->rec;
		}
		err = consume(r, keep ? r->extra : NULL, extra);
		if (err)
			return pd_set_err(r, -EINVAL, off, "truncated payload of type %u", h.type);
		ev->extra = keep ? r->extra : NULL;
		ev->extra_size = extra;
	}
	if (h.type == PD_RECORD_COMPRESSED) {
		/* Not delivered itself: its records are, one by one, as if never compressed. */
		r->dsrc_off = off;
		if ((err = pd_decompress(r, rec + 8, h.size - 8u, off)))
			return err;
		goto again;
	}
	return finish(r, ev, rec, h.size, off);
end:
	if (r->dpos < r->dlen)
		return pd_set_err(r, -EINVAL, r->dsrc_off, "compressed data ends inside a record");
	return 0;
}
