/* header.c - what perf.data says before its records: the file header (both byte orders), the
 * attrs with their id arrays, the id -> evsel index, and the feature table after the data.
 * Every offset and size read here is checked against the file's real size first. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <byteswap.h>

#include "lib/grow.h"
#include "recorder/perfdata/perfdata_int.h"

/* Reads exactly n bytes at off (file mode), -ENODATA if the file ends first. */
static int pread_full(struct pd_reader *r, void *dst, size_t n, uint64_t off)
{
	uint8_t *p = dst;

	while (n) {
		ssize_t k = pread(r->fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENODATA;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* ---- evsels and the id index ---- */

static int id_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int rebuild_id_index(struct pd_reader *r)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < r->nr_evsels; i++)
		n += r->evsels[i]->nr_ids;
	uint64_t *idx = calloc(n ? n : 1, 2 * sizeof(uint64_t));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_evsels; i++)
		for (size_t j = 0; j < r->evsels[i]->nr_ids; j++) {
			idx[2 * k] = r->evsels[i]->ids[j];
			idx[2 * k + 1] = i;
			k++;
		}
	if (n > 1)
		qsort(idx, n, 2 * sizeof(uint64_t), id_cmp);
	free(r->id_index);
	r->id_index = idx;
	r->nr_index = n;
	r->index_dirty = false;
	return 0;
}

const struct pd_evsel *pd_reader_evsel_by_id(const struct pd_reader *r, uint64_t id)
{
	/* Built once at the first lookup after attrs were added, not once per attr: a file of
	 * many attrs sharing one large id area made that quadratic (issue 16, finding 7). The
	 * index is a cache; rebuilding it does not change what the reader says. */
	if (r->index_dirty && rebuild_id_index((struct pd_reader *)r) < 0)
		return NULL;
	size_t lo = 0, hi = r->nr_index;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v = r->id_index[2 * mid];
		if (v == id)
			return r->evsels[r->id_index[2 * mid + 1]];
		if (v < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int pd_reader_add_evsel(struct pd_reader *r, const void *attr, size_t attr_size,
			const uint64_t *ids, size_t nr_ids, uint64_t off)
{
	struct pd_evsel *es;
	uint64_t st0, st;

	if (attr_size < 64)
		return pd_set_err(r, -EINVAL, off, "attr of %zu bytes (minimum 64)", attr_size);
	if (r->nr_evsels >= PD_MAX_ATTRS)
		return pd_set_err(r, -E2BIG, off, "more than %u attrs (PD_MAX_ATTRS)",
				  PD_MAX_ATTRS);
	if (nr_ids > PD_MAX_IDS - r->nr_ids_total)
		return pd_set_err(r, -E2BIG, off, "more than %u sample ids in all attrs "
				  "(PD_MAX_IDS)", PD_MAX_IDS);
	if (JP_GROW_FOR(r->evsels, r->cap_evsels, r->nr_evsels) ||
	    !(es = calloc(1, sizeof(*es))))
		return -ENOMEM;
	/* owned by the array once nr_evsels counts it; freed below if not */
	r->evsels[r->nr_evsels] = es;
	memcpy(&es->attr, attr, attr_size < sizeof(es->attr) ? attr_size : sizeof(es->attr));
	es->attr_size = (uint32_t)attr_size;
	es->attr.size = sizeof(es->attr);
	es->idx = (int)r->nr_evsels;
	if (nr_ids) {
		es->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!es->ids) {
			free(es);
			return -ENOMEM;
		}
		memcpy(es->ids, ids, nr_ids * sizeof(uint64_t));
		es->nr_ids = nr_ids;
	}
	/* perf refuses files whose attrs disagree on the trailer: so do we. A refused attr is
	 * not kept: a writer copying our evsels (inject) must never get an inconsistent set. */
	st0 = r->evsels[0]->attr.sample_type & PD_SID_TYPES;
	st = es->attr.sample_type & PD_SID_TYPES;
	if (r->nr_evsels > 0 && (st != st0 || es->attr.sample_id_all !=
				 r->evsels[0]->attr.sample_id_all)) {
		free(es->ids);
		free(es);
		return pd_set_err(r, -EINVAL, off, "attrs with non matching sample_type/sample_id_all");
	}
	r->nr_evsels++;
	r->nr_ids_total += nr_ids;
	r->id_hdr_size = pd_sid_size(&r->evsels[0]->attr);
	r->index_dirty = true;
	return 0;
}

size_t pd_reader_nr_evsels(const struct pd_reader *r) { return r->nr_evsels; }
size_t pd_reader_id_hdr_size(const struct pd_reader *r) { return r->id_hdr_size; }
bool pd_reader_is_pipe(const struct pd_reader *r) { return r->pipe; }
bool pd_reader_needs_swap(const struct pd_reader *r) { return r->swap; }
const char *pd_reader_path(const struct pd_reader *r) { return r->path; }
uint64_t pd_reader_data_offset(const struct pd_reader *r) { return r->data_offset; }
uint64_t pd_reader_data_size(const struct pd_reader *r)
{
	return r->pipe ? 0 : r->data_end - r->data_offset;
}

const struct pd_evsel *pd_reader_evsel(const struct pd_reader *r, size_t idx)
{
	return idx < r->nr_evsels ? r->evsels[idx] : NULL;
}

/* ---- file mode header ---- */

static void swap_header(struct pd_file_header *h)
{
	uint64_t *w = (uint64_t *)h;
	for (size_t i = 0; i < sizeof(*h) / 8; i++)
		w[i] = bswap_64(w[i]);
}

static int read_attrs(struct pd_reader *r, const struct pd_file_header *h, uint64_t fsize)
{
	uint64_t n;
	uint8_t *ent;
	int err = 0;

	if (h->attr_size < 64 + 16 || h->attr_size > 4096)
		return pd_set_err(r, -EINVAL, 16, "attr_size %llu not supported",
				  (unsigned long long)h->attr_size);
	if (!pd_fits(h->attrs.offset, h->attrs.size, fsize))
		return pd_set_err(r, -EINVAL, 24, "attrs section beyond the end of the file");
	n = h->attrs.size / h->attr_size;
	ent = malloc(h->attr_size);
	if (!ent)
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !err; i++) {
		uint64_t off = h->attrs.offset + i * h->attr_size;
		size_t asz = (size_t)h->attr_size - 16;
		struct pd_file_section ids;
		uint64_t *idv = NULL;

		err = pread_full(r, ent, (size_t)h->attr_size, off);
		if (err) {
			err = pd_set_err(r, -EINVAL, off, "attr %llu truncated", (unsigned long long)i);
			break;
		}
		if (r->swap) {
			pd_swap_attr(ent, asz);
			for (int k = 0; k < 2; k++) {
				uint64_t *v = (uint64_t *)(ent + asz) + k;
				*v = bswap_64(*v);
			}
		}
		memcpy(&ids, ent + asz, sizeof(ids));
		if (!pd_fits(ids.offset, ids.size, fsize) || ids.size % 8) {
			err = pd_set_err(r, -EINVAL, off + asz, "ids of attr %llu out of range",
					 (unsigned long long)i);
			break;
		}
		if (ids.size) {
			idv = malloc(ids.size);
			if (!idv) {
				err = -ENOMEM;
				break;
			}
			err = pread_full(r, idv, ids.size, ids.offset);
			if (r->swap)
				for (uint64_t k = 0; k < ids.size / 8; k++)
					idv[k] = bswap_64(idv[k]);
		}
		if (!err)
			err = pd_reader_add_evsel(r, ent, asz, idv, ids.size / 8, off);
		free(idv);
	}
	free(ent);
	return err;
}

/* Up to n bytes at off (file mode): how many were read before the end of the file or an
 * error. */
static size_t pread_upto(struct pd_reader *r, void *dst, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(r->fd, (uint8_t *)dst + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

/* The table is read in one pread and each section straight into the buffer the reader keeps:
 * a recording has a few dozen features, and each used to cost two preads and a copy. */
static int read_feature_table(struct pd_reader *r, const struct pd_file_header *h,
			      uint64_t fsize)
{
	struct pd_file_section tab[PD_FEAT_MAX];
	unsigned nr = 0, i = 0;

	for (unsigned k = 0; k < 4; k++)
		nr += (unsigned)__builtin_popcountll(h->features[k]);
	/* A cut-off table loses features, not the data before it. */
	size_t have = pread_upto(r, tab, nr * sizeof(tab[0]), r->data_end) / sizeof(tab[0]);

	PD_FOR_EACH_FEAT(f, h->features) {
		void *buf;
		int err;

		if (i == have) {
			r->feats_dropped += nr - i;
			return 0;
		}
		struct pd_file_section sec = tab[i++];
		if (r->swap) {
			sec.offset = bswap_64(sec.offset);
			sec.size = bswap_64(sec.size);
		}
		/* A bad section spoils only its own feature, as in perf. */
		if (!pd_fits(sec.offset, sec.size, fsize) || sec.size > (256u << 20)) {
			r->feats_dropped++;
			continue;
		}
		buf = malloc(sec.size ? sec.size : 1);
		if (!buf)
			return -ENOMEM;
		err = pread_full(r, buf, sec.size, sec.offset);
		if (err) {
			free(buf);
			continue;
		}
		if (r->swap)
			pd_swap_feature(f, buf, sec.size);
		pd_reader_take_feature(r, f, buf, sec.size);
	}
	return 0;
}

int pd_open_file_mode(struct pd_reader *r, const uint8_t *first16)
{
	struct pd_file_header h;
	struct stat st;
	int err;

	if (fstat(r->fd, &st))
		return pd_set_err(r, -errno, 0, "stat: %s", strerror(errno));
	memcpy(&h, first16, 16);
	if (pread_full(r, (uint8_t *)&h + 16, sizeof(h) - 16, 16))
		return pd_set_err(r, -EINVAL, 16, "file header truncated");
	if (r->swap)
		swap_header(&h);
	if (h.size != sizeof(h) && h.size != 72)
		return pd_set_err(r, -EINVAL, 8, "header size %llu (expected 104)",
				  (unsigned long long)h.size);
	if (h.size == 72)
		memset(h.features, 0, sizeof(h.features));
	err = read_attrs(r, &h, (uint64_t)st.st_size);
	if (err)
		return err;
	if (h.data.offset > (uint64_t)st.st_size)
		return pd_set_err(r, -EINVAL, 40, "data section starts beyond the end of the file");
	r->data_offset = h.data.offset;
	/* data.size 0: recording never finalized; read what is there (perf warns the same). */
	r->data_end = h.data.size ? h.data.offset + h.data.size : (uint64_t)st.st_size;
	r->unfinished = !h.data.size;
	if (r->data_end < r->data_offset)
		return pd_set_err(r, -EINVAL, 48, "data size overflows");
	if (h.data.size && (err = read_feature_table(r, &h, (uint64_t)st.st_size)))
		return err;
	r->buf_off = r->pos = r->data_offset;
	return 0;
}
