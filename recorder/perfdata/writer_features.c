/* writer_features.c - feature payloads for the writer, laid out as perf 6.x writes them
 * (strings padded to 64, CMDLINE as a string list, NRCPUS avail first, CLOCK_DATA tod then
 * clockid time), the build-id table, and their pipe-mode HEADER_FEATURE / type-67 records. */
#include <errno.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/grow.h"
#include "recorder/perfdata/writer_int.h"

#define PD_NAME_ALIGN 64

int pd_writer_emit_feature_record(struct pd_writer *w, unsigned f)
{
	struct perf_event_header h = { PD_RECORD_HEADER_FEATURE, 0, 0 };
	uint64_t id = f;
	size_t n = 16 + w->feats[f].size;
	int err;

	/* Too big for one record, or an id perf 6.1 does not know (it aborts on those). */
	if (n > 0xffff || f >= PD_PERF61_LAST_FEATURE)
		return 0;
	h.size = (uint16_t)n;
	err = pd_writer_emit(w, &h, sizeof(h));
	if (!err)
		err = pd_writer_emit(w, &id, sizeof(id));
	if (!err)
		err = pd_writer_emit(w, w->feats[f].data, w->feats[f].size);
	return err;
}

int pd_writer_set_feature(struct pd_writer *w, unsigned feat, const void *data, size_t size)
{
	struct pd_feat *f;
	void *copy;

	if (feat == 0 || feat >= PD_FEAT_MAX)
		return -EINVAL;
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, size);
	f = &w->feats[feat];
	free(f->data);
	f->data = copy;
	f->size = size;
	f->present = true;
	pd_feat_bit(w->feat_bits, feat, true);
	/* Pipe mode after the start: the feature goes inline, where it is read at once. */
	if (w->pipe && w->started && feat != PD_FEAT_BUILD_ID)
		return pd_writer_emit_feature_record(w, feat);
	return 0;
}

/* Appends a perf_header_string (u32 len incl. NUL, padded to 64) to buf at *off. */
static size_t string_size(const char *s)
{
	return 4 + pd_align(strlen(s) + 1, PD_NAME_ALIGN);
}

static void put_string(uint8_t *buf, size_t *off, const char *s)
{
	uint32_t len = (uint32_t)pd_align(strlen(s) + 1, PD_NAME_ALIGN);

	memcpy(buf + *off, &len, 4);
	memset(buf + *off + 4, 0, len);
	memcpy(buf + *off + 4, s, strlen(s));
	*off += 4 + len;
}

int pd_writer_set_string(struct pd_writer *w, unsigned feat, const char *str)
{
	size_t off = 0, n = string_size(str);
	uint8_t *buf = malloc(n);
	int err;

	if (!buf)
		return -ENOMEM;
	put_string(buf, &off, str);
	err = pd_writer_set_feature(w, feat, buf, n);
	free(buf);
	return err;
}

int pd_writer_set_cmdline(struct pd_writer *w, int argc, const char *const *argv)
{
	size_t n = 4, off = 4;
	uint32_t nr = (uint32_t)argc;
	uint8_t *buf;
	int err;

	for (int i = 0; i < argc; i++)
		n += string_size(argv[i]);
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &nr, 4);
	for (int i = 0; i < argc; i++)
		put_string(buf, &off, argv[i]);
	err = pd_writer_set_feature(w, PD_FEAT_CMDLINE, buf, n);
	free(buf);
	return err;
}

int pd_writer_set_nrcpus(struct pd_writer *w, uint32_t avail, uint32_t online)
{
	uint32_t v[2] = { avail, online };
	return pd_writer_set_feature(w, PD_FEAT_NRCPUS, v, sizeof(v));
}

int pd_writer_set_clock(struct pd_writer *w, int clockid, uint64_t res_ns, uint64_t tod_ns,
			uint64_t clockid_ns)
{
	uint8_t cd[24];
	uint32_t ver = 1, id = (uint32_t)clockid;
	int err = pd_writer_set_feature(w, PD_FEAT_CLOCKID, &res_ns, sizeof(res_ns));

	memcpy(cd, &ver, 4);
	memcpy(cd + 4, &id, 4);
	memcpy(cd + 8, &tod_ns, 8);
	memcpy(cd + 16, &clockid_ns, 8);
	return err ? err : pd_writer_set_feature(w, PD_FEAT_CLOCK_DATA, cd, sizeof(cd));
}

int pd_writer_set_sample_time(struct pd_writer *w, uint64_t first, uint64_t last)
{
	uint64_t v[2] = { first, last };
	return pd_writer_set_feature(w, PD_FEAT_SAMPLE_TIME, v, sizeof(v));
}

int pd_writer_set_host_features(struct pd_writer *w)
{
	struct utsname u;
	long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	if (uname(&u))
		return -errno;
	err = pd_writer_set_string(w, PD_FEAT_HOSTNAME, u.nodename);
	if (!err)
		err = pd_writer_set_string(w, PD_FEAT_OSRELEASE, u.release);
	if (!err)
		err = pd_writer_set_string(w, PD_FEAT_VERSION, "jitprof");
	if (!err)
		err = pd_writer_set_string(w, PD_FEAT_ARCH, u.machine);
	if (!err)
		err = pd_writer_set_nrcpus(w, (uint32_t)(conf > 0 ? conf : 1),
					   (uint32_t)(onln > 0 ? onln : 1));
	return err;
}

/* One HEADER_BUILD_ID entry; pad: 64 in the file table (as perf), 8 for a pipe record. */
static size_t build_id_entry(const struct pd_wbuild_id *b, size_t pad, uint8_t *out)
{
	size_t fl = strlen(b->filename) + 1, n = sizeof(struct pd_build_id_rec) + pd_align(fl, pad);
	struct pd_build_id_rec rec = { 0 };

	if (!out)
		return n;
	rec.header.type = pad == 8 ? PD_RECORD_HEADER_BUILD_ID : 0;
	rec.header.misc = b->cpumode | PD_MISC_BUILD_ID_SIZE;
	rec.header.size = (uint16_t)n;
	rec.pid = b->pid;
	memcpy(rec.data, b->id, b->size);
	rec.size = b->size;
	memset(out, 0, n);
	memcpy(out, &rec, sizeof(rec));
	memcpy(out + sizeof(rec), b->filename, fl);
	return n;
}

/* (pid, filename) -> the entry's index, seeded (lib/hindex.h): filenames come from the
 * recording. An inject of 20k sampled generations adds 20k entries: a linear search made that
 * quadratic. */
struct bid_key {
	int32_t pid;
	const char *filename;
};

static uint64_t bid_hash(int32_t pid, const char *filename)
{
	return jp_hindex_hash(filename, strlen(filename)) ^ (uint32_t)pid;
}

static int bid_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct bid_key *k = key;
	const struct pd_wbuild_id *b = &((const struct pd_writer *)ctx)->bids[idx];
	return b->pid == k->pid && !strcmp(b->filename, k->filename);
}

int pd_writer_add_build_id(struct pd_writer *w, int32_t pid, uint16_t cpumode,
			   const uint8_t *id, size_t id_size, const char *filename)
{
	struct pd_wbuild_id nb = { .pid = pid, .cpumode = cpumode & PERF_RECORD_MISC_CPUMODE_MASK };

	if (strlen(filename) > 4000 || !id_size)
		return -EINVAL;
	nb.size = (uint8_t)(id_size < PD_BUILD_ID_MAX ? id_size : PD_BUILD_ID_MAX);
	memcpy(nb.id, id, nb.size);
	nb.filename = (char *)filename;
	if (w->pipe) {
		uint8_t rec[4096 + 64];
		size_t n = build_id_entry(&nb, 8, rec);
		int err = pd_writer_start(w);
		return err ? err : pd_writer_emit(w, rec, n);
	}
	if (w->nr_bids >= UINT32_MAX - 1)
		return -EOVERFLOW;
	const struct bid_key key = { pid, filename };
	uint64_t h = bid_hash(pid, filename);
	int64_t at = jp_hindex_find(&w->bid_index, h, &key, bid_eq, w);
	if (at >= 0) {
		struct pd_wbuild_id *b = &w->bids[at];
		char *keep = b->filename;
		*b = nb;
		b->filename = keep;
		return 0;
	}
	if (JP_GROW_FOR(w->bids, w->cap_bids, w->nr_bids))
		return -ENOMEM;
	nb.filename = strdup(filename);
	if (!nb.filename)
		return -ENOMEM;
	if (jp_hindex_add(&w->bid_index, h, w->nr_bids)) {
		free(nb.filename);
		return -ENOMEM;
	}
	w->bids[w->nr_bids++] = nb;
	return 0;
}

static int build_event_desc(struct pd_writer *w)
{
	size_t n = 8, off = 8;
	uint32_t nr = (uint32_t)w->nr_attrs, asz = PD_ATTR_SIZE_FILE;
	uint8_t *buf;
	int err;

	for (size_t i = 0; i < w->nr_attrs; i++) {
		if (!w->attrs[i].name)
			return 0;	/* perf names unnamed attrs itself */
		n += asz + 4 + string_size(w->attrs[i].name) + 8 * w->attrs[i].nr_ids;
	}
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &nr, 4);
	memcpy(buf + 4, &asz, 4);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		uint32_t nids = (uint32_t)w->attrs[i].nr_ids;
		memcpy(buf + off, &w->attrs[i].attr, asz);
		off += asz;
		memcpy(buf + off, &nids, 4);
		off += 4;
		put_string(buf, &off, w->attrs[i].name);
		if (nids)	/* an attr without ids has ids NULL: no memcpy from NULL */
			memcpy(buf + off, w->attrs[i].ids, 8 * nids);
		off += 8 * nids;
	}
	err = pd_writer_set_feature(w, PD_FEAT_EVENT_DESC, buf, n);
	free(buf);
	return err;
}

int pd_writer_build_features(struct pd_writer *w)
{
	size_t n = 0, off = 0;
	uint8_t *buf;
	int err = 0;

	if (!w->feats[PD_FEAT_EVENT_DESC].present && (err = build_event_desc(w)))
		return err;
	if (!w->nr_bids)
		return 0;
	for (size_t i = 0; i < w->nr_bids; i++)
		n += build_id_entry(&w->bids[i], PD_NAME_ALIGN, NULL);
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < w->nr_bids; i++)
		off += build_id_entry(&w->bids[i], PD_NAME_ALIGN, buf + off);
	err = pd_writer_set_feature(w, PD_FEAT_BUILD_ID, buf, n);
	free(buf);
	return err;
}

int pd_writer_copy_features(struct pd_writer *w, const struct pd_reader *r)
{
	int err = 0;

	PD_FOR_EACH_FEAT(f, r->feat_bits) {
		if (err)
			break;
		size_t sz;
		const void *p = pd_reader_feature(r, f, &sz);
		/* COMPRESSED describes records the reader has already unpacked. */
		if (!p || f == 0 || f == PD_FEAT_BUILD_ID || f == PD_FEAT_EVENT_DESC ||
		    f == PD_FEAT_COMPRESSED)
			continue;
		err = pd_writer_set_feature(w, f, p, sz);
	}
	for (size_t i = 0; i < pd_reader_nr_build_ids(r) && !err; i++) {
		const struct pd_build_id_ev *b = pd_reader_build_id(r, i);
		err = pd_writer_add_build_id(w, b->pid, b->cpumode, b->build_id, b->size,
					     b->filename);
	}
	return err;
}

void pd_writer_free_features(struct pd_writer *w)
{
	PD_FOR_EACH_FEAT(f, w->feat_bits)
		free(w->feats[f].data);
	for (size_t i = 0; i < w->nr_bids; i++)
		free(w->bids[i].filename);
	free(w->bids);
	jp_hindex_free(&w->bid_index);
}
