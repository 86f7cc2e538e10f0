/* writer.c - writes perf.data. File mode: header + ids + attrs up front, records streamed
 * through a buffer, and at close the feature table after the data and the final header.
 * Pipe mode: everything a reader needs comes first (pipe header, HEADER_ATTR, names,
 * HEADER_FEATURE records), then records; build-ids travel as HEADER_BUILD_ID records. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/grow.h"
#include "recorder/perfdata/perfdata_int.h"
#include "recorder/perfdata/writer_int.h"

static int flush(struct pd_writer *w)
{
	size_t done = 0;

	while (done < w->len) {
		ssize_t k = write(w->fd, w->buf + done, w->len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return w->err = -errno;
		done += (size_t)k;
	}
	w->len = 0;
	return 0;
}

/* The buffer starts small and doubles up to BUF_MAX before the first flush: an output of a
 * few KB (most injections of a short run, every fuzzing execution) needs no 256 KiB buffer,
 * which under ASan is a fresh mapping per writer. A failed growth just flushes sooner. */
#define BUF_MIN (16u << 10)
#define BUF_MAX (256u << 10)

static void grow_buf(struct pd_writer *w, size_t need)
{
	size_t cap = w->cap;
	while (cap < need && cap < BUF_MAX)
		cap *= 2;
	if (cap > BUF_MAX)
		cap = BUF_MAX;
	uint8_t *b = realloc(w->buf, cap);
	if (b) {
		w->buf = b;
		w->cap = cap;
	}
}

int pd_writer_emit(struct pd_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return w->err;
	if (w->len + n > w->cap && w->cap < BUF_MAX)
		grow_buf(w, n > BUF_MAX - w->len ? BUF_MAX : w->len + n);
	if (w->len + n > w->cap && flush(w))
		return w->err;
	if (n >= w->cap) {
		const uint8_t *b = p;
		while (n) {
			ssize_t k = write(w->fd, b, n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return w->err = -errno;
			b += k;
			n -= (size_t)k;
			w->bytes += (uint64_t)k;
		}
		return 0;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	w->bytes += n;
	return 0;
}

int pd_writer_open_fd(struct pd_writer **out, int fd, const char *name, unsigned flags)
{
	struct pd_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->pipe = flags & PD_WRITER_PIPE;
	w->name = strdup(name ? name : "(fd)");
	w->cap = BUF_MIN;
	w->buf = malloc(w->cap);
	if (!w->name || !w->buf) {
		free(w->name);
		free(w->buf);
		free(w);
		return -ENOMEM;
	}
	if (!w->pipe && lseek(fd, 0, SEEK_SET) < 0) {
		int err = -errno;
		free(w->name);
		free(w->buf);
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int pd_writer_open(struct pd_writer **out, const char *path, unsigned flags)
{
	int fd, err;

	*out = NULL;
	if (!strcmp(path, "-")) {
		fd = dup(1);
		flags |= PD_WRITER_PIPE;
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -errno;
	err = pd_writer_open_fd(out, fd, path, flags);
	if (err)
		close(fd);
	else
		(*out)->own_fd = true;
	return err;
}

int pd_writer_add_attr(struct pd_writer *w, const struct perf_event_attr *attr,
		       const uint64_t *ids, size_t nr_ids, const char *name)
{
	struct pd_wattr *a;

	if (w->started)
		return -EBUSY;
	if (JP_GROW_FOR(w->attrs, w->cap_attrs, w->nr_attrs))
		return -ENOMEM;
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, sizeof(a->attr) < PD_ATTR_SIZE_FILE ? sizeof(a->attr) :
	       PD_ATTR_SIZE_FILE);
	a->attr.size = PD_ATTR_SIZE_FILE;
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!a->ids)
			return -ENOMEM;
		memcpy(a->ids, ids, nr_ids * sizeof(uint64_t));
	}
	a->nr_ids = nr_ids;
	a->name = name ? strdup(name) : NULL;
	if (name && !a->name) {
		free(a->ids);
		return -ENOMEM;
	}
	return (int)w->nr_attrs++;
}

int pd_writer_copy_attrs(struct pd_writer *w, const struct pd_reader *r)
{
	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct pd_evsel *es = pd_reader_evsel(r, i);
		int err = pd_writer_add_attr(w, &es->attr, es->ids, es->nr_ids, es->name);
		if (err < 0)
			return err;
	}
	return 0;
}

const struct perf_event_attr *pd_writer_attr(const struct pd_writer *w, size_t idx)
{
	return idx < w->nr_attrs ? &w->attrs[idx].attr : NULL;
}

int pd_writer_set_attr(struct pd_writer *w, size_t idx, const struct perf_event_attr *attr)
{
	if (idx >= w->nr_attrs)
		return -ENOENT;
	if (w->started)
		return -EBUSY;
	struct perf_event_attr *a = &w->attrs[idx].attr;
	memcpy(a, attr, sizeof(*a) < PD_ATTR_SIZE_FILE ? sizeof(*a) : PD_ATTR_SIZE_FILE);
	a->size = PD_ATTR_SIZE_FILE;
	return 0;
}

uint64_t pd_writer_bytes(const struct pd_writer *w)
{
	return w->bytes;
}

/* EVENT_UPDATE(NAME): how pipe mode carries event names. */
static int emit_event_name(struct pd_writer *w, const struct pd_wattr *a)
{
	uint8_t rec[8 + 16 + 256] = { 0 };
	struct perf_event_header *h = (void *)rec;
	uint64_t type = 2;
	size_t l;

	if (!a->name || !a->nr_ids)
		return 0;
	l = strnlen(a->name, 255);
	h->type = PD_RECORD_EVENT_UPDATE;
	h->size = (uint16_t)(24 + pd_align(l + 1, 8));
	memcpy(rec + 8, &type, 8);
	memcpy(rec + 16, &a->ids[0], 8);
	memcpy(rec + 24, a->name, l);
	return pd_writer_emit(w, rec, h->size);
}

static int start_pipe(struct pd_writer *w)
{
	struct pd_pipe_header ph = { PD_MAGIC2, sizeof(ph) };
	int err = pd_writer_emit(w, &ph, sizeof(ph));

	for (size_t i = 0; i < w->nr_attrs && !err; i++) {
		const struct pd_wattr *a = &w->attrs[i];
		struct perf_event_header h = { PD_RECORD_HEADER_ATTR, 0, 0 };
		size_t sz = 8 + PD_ATTR_SIZE_FILE + 8 * a->nr_ids;
		if (sz > 0xffff)
			return w->err = -E2BIG;
		h.size = (uint16_t)sz;
		err = pd_writer_emit(w, &h, sizeof(h));
		if (!err)
			err = pd_writer_emit(w, &a->attr, PD_ATTR_SIZE_FILE);
		if (!err && a->nr_ids)
			err = pd_writer_emit(w, a->ids, 8 * a->nr_ids);
	}
	PD_FOR_EACH_FEAT(f, w->feat_bits)
		if (!err && f != PD_FEAT_BUILD_ID)
			err = pd_writer_emit_feature_record(w, f);
	for (size_t i = 0; i < w->nr_attrs && !err; i++)
		err = emit_event_name(w, &w->attrs[i]);
	return err;
}

/* File mode: header placeholder, the id arrays, then the attrs; data follows. */
static int start_file(struct pd_writer *w)
{
	struct pd_file_header h = { 0 };
	uint64_t off = sizeof(h);
	int err;

	h.magic = PD_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = PD_ATTR_SIZE_FILE + 16;
	err = pd_writer_emit(w, &h, sizeof(h));
	for (size_t i = 0; i < w->nr_attrs && !err; i++)
		err = pd_writer_emit(w, w->attrs[i].ids, 8 * w->attrs[i].nr_ids);
	w->attrs_offset = w->bytes;
	for (size_t i = 0; i < w->nr_attrs && !err; i++) {
		struct pd_file_section ids = { off, 8 * w->attrs[i].nr_ids };
		off += ids.size;
		err = pd_writer_emit(w, &w->attrs[i].attr, PD_ATTR_SIZE_FILE);
		if (!err)
			err = pd_writer_emit(w, &ids, sizeof(ids));
	}
	w->data_offset = w->bytes;
	return err;
}

int pd_writer_start(struct pd_writer *w)
{
	if (w->started)
		return w->err;
	w->started = true;
	if (!w->nr_attrs)
		return w->err = -EINVAL;
	return w->pipe ? start_pipe(w) : start_file(w);
}

int pd_writer_write(struct pd_writer *w, const void *rec, size_t size)
{
	int err = pd_writer_start(w);
	return err ? err : pd_writer_emit(w, rec, size);
}

int pd_writer_write_event(struct pd_writer *w, const struct pd_event *ev)
{
	int err = pd_writer_write(w, ev->raw, ev->size);

	if (!err && ev->extra_size) {
		if (!ev->extra)
			return w->err = -EFBIG;	/* payload was skipped by the reader */
		err = pd_writer_emit(w, ev->extra, (size_t)ev->extra_size);
	}
	return err;
}

int pd_writer_finished_round(struct pd_writer *w)
{
	struct perf_event_header h = { PD_RECORD_FINISHED_ROUND, 0, sizeof(h) };
	return pd_writer_write(w, &h, sizeof(h));
}

/* Record builders: fixed part + string padded to 8 + the sid of attr 0. */
static int emit_built(struct pd_writer *w, uint32_t type, uint16_t misc, const void *fixed,
		      size_t fixed_len, const char *str, const struct pd_sid *sid)
{
	uint8_t rec[65536];
	struct perf_event_header *h = (void *)rec;
	size_t sl = str ? strlen(str) + 1 : 0, padded = pd_align(sl, 8), n;

	if (!w->nr_attrs)
		return -EINVAL;
	n = 8 + fixed_len + padded;
	if (n + pd_sid_size(&w->attrs[0].attr) > sizeof(rec) - 8)
		return -ENAMETOOLONG;
	memcpy(rec + 8, fixed, fixed_len);
	memset(rec + 8 + fixed_len, 0, padded);
	if (sl)
		memcpy(rec + 8 + fixed_len, str, sl);
	n += pd_sid_write(&w->attrs[0].attr, sid, rec + n);
	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)n;
	return pd_writer_write(w, rec, n);
}

int pd_writer_mmap2(struct pd_writer *w, const struct pd_mmap2_args *a, const struct pd_sid *sid)
{
	struct pd_mmap2_rec m = { 0 };
	uint16_t misc = a->cpumode;

	m.pid = a->pid;
	m.tid = a->tid;
	m.start = a->start;
	m.len = a->len;
	m.pgoff = a->pgoff;
	if (a->build_id) {
		misc |= PD_MISC_MMAP_BUILD_ID;
		m.build_id_size = (uint8_t)(a->build_id_size < 20 ? a->build_id_size : 20);
		memcpy(m.build_id, a->build_id, m.build_id_size);
	} else {
		m.maj = a->maj;
		m.min = a->min;
		m.ino = a->ino;
		m.ino_generation = a->ino_generation;
	}
	m.prot = a->prot;
	m.flags = a->flags;
	return emit_built(w, PERF_RECORD_MMAP2, misc, (uint8_t *)&m + 8, sizeof(m) - 8,
			  a->filename, sid);
}

int pd_writer_comm(struct pd_writer *w, uint32_t pid, uint32_t tid, const char *comm, bool exec,
		   const struct pd_sid *sid)
{
	uint32_t fixed[2] = { pid, tid };
	char name[16];

	snprintf(name, sizeof(name), "%s", comm);	/* the kernel's TASK_COMM_LEN */
	return emit_built(w, PERF_RECORD_COMM, exec ? PD_MISC_COMM_EXEC : 0, fixed, sizeof(fixed),
			  name, sid);
}

int pd_writer_fork(struct pd_writer *w, uint32_t type, const struct pd_task *t, bool fork_exec,
		   const struct pd_sid *sid)
{
	uint8_t fixed[24];

	memcpy(fixed, &t->pid, 4);
	memcpy(fixed + 4, &t->ppid, 4);
	memcpy(fixed + 8, &t->tid, 4);
	memcpy(fixed + 12, &t->ptid, 4);
	memcpy(fixed + 16, &t->time, 8);
	return emit_built(w, type, fork_exec ? PD_MISC_FORK_EXEC : 0, fixed, sizeof(fixed), NULL,
			  sid);
}

/* File mode: the feature table at the end of the data, payloads after it, then the header. */
static int finish_file(struct pd_writer *w)
{
	struct pd_file_header h = { 0 };
	struct pd_file_section sec[PD_FEAT_MAX];
	unsigned nr = 0;
	uint64_t data_end, off;
	int err = 0;

	/* data.size 0 tells perf (and our reader) that the recording was never finalized: both
	 * then read records up to the end of the file, feature table included. An empty data
	 * section therefore gets one FINISHED_ROUND, which every reader skips. */
	if (w->bytes == w->data_offset)
		err = pd_writer_finished_round(w);
	data_end = w->bytes;
	if (!err)
		err = pd_writer_build_features(w);
	if (err)
		return err;
	PD_FOR_EACH_FEAT(f, w->feat_bits)
		nr++;
	off = data_end + nr * sizeof(struct pd_file_section);
	nr = 0;
	PD_FOR_EACH_FEAT(f, w->feat_bits) {
		sec[nr].offset = off;
		sec[nr].size = w->feats[f].size;
		off += w->feats[f].size;
		h.features[f / 64] |= 1ULL << (f % 64);
		nr++;
	}
	err = pd_writer_emit(w, sec, nr * sizeof(sec[0]));
	PD_FOR_EACH_FEAT(f, w->feat_bits)
		if (!err)
			err = pd_writer_emit(w, w->feats[f].data, w->feats[f].size);
	if (!err)
		err = flush(w);
	if (err)
		return err;
	h.magic = PD_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = PD_ATTR_SIZE_FILE + 16;
	h.attrs.offset = w->attrs_offset;
	h.attrs.size = w->nr_attrs * h.attr_size;
	h.data.offset = w->data_offset;
	h.data.size = data_end - w->data_offset;
	if (pwrite(w->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return w->err = errno ? -errno : -EIO;
	return 0;
}

int pd_writer_close(struct pd_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = pd_writer_start(w);
	if (!err)
		err = w->pipe ? flush(w) : finish_file(w);
	if (w->own_fd && close(w->fd) && !err)
		err = -errno;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	pd_writer_free_features(w);
	free(w->buf);
	free(w->name);
	free(w);
	return err;
}
