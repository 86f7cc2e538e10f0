/* features.c - the reader's feature sections: raw bytes kept for every present feature (so a
 * rewrite can re-emit unknown ones), and parsers for the ones consumers ask about. Layouts
 * follow perf's code, not the .txt doc (CMDLINE is a string list, NRCPUS avail first). */
#include <errno.h>
#include <stdlib.h>

#include "lib/grow.h"
#include "lib/nomem.h"
#include "recorder/perfdata/perfdata_int.h"

/* A perf_header_string at *off: u32 len (incl. NUL and padding), bytes. */
static int take_string(const uint8_t *p, size_t size, size_t *off, const char **s, size_t *len)
{
	uint32_t l;

	if (size - *off < 4)
		return -EINVAL;
	memcpy(&l, p + *off, 4);
	*off += 4;
	if (l > size - *off || l == 0 || !memchr(p + *off, 0, l))
		return -EINVAL;
	*s = (const char *)p + *off;
	if (len)
		*len = l;
	*off += l;
	return 0;
}

int pd_reader_add_build_id(struct pd_reader *r, const void *rec, size_t size, bool in_feature)
{
	struct pd_event ev;
	struct pd_build_id_ev *b;
	struct perf_event_header h;
	int err;

	(void)in_feature;
	if (size < sizeof(struct pd_build_id_rec))
		return -EINVAL;
	/* Feature entries follow each other at whatever sizes they claim: rec may be unaligned. */
	memcpy(&h, rec, sizeof(h));
	if (h.size > size)
		return -EINVAL;
	/* pd_decode wants the record type; feature entries carry type 0. */
	uint8_t *copy = malloc(size + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, size);
	copy[size] = 0;
	((struct perf_event_header *)copy)->type = PD_RECORD_HEADER_BUILD_ID;
	err = pd_decode(NULL, copy, size, &ev);
	if (err || !ev.u.build_id.filename) {
		free(copy);
		return -EINVAL;
	}
	if (jp_grow(&r->bids, &r->cap_bids, r->nr_bids + 1, sizeof(*r->bids), 16)) {
		free(copy);
		return -ENOMEM;
	}
	b = &r->bids[r->nr_bids];
	*b = ev.u.build_id;
	b->filename = strdup(ev.u.build_id.filename);
	free(copy);
	if (!b->filename)
		return -ENOMEM;
	r->nr_bids++;
	return 0;
}

static void parse_build_ids(struct pd_reader *r, const uint8_t *p, size_t size)
{
	size_t off = 0;

	while (size - off >= sizeof(struct pd_build_id_rec)) {
		uint16_t sz;
		memcpy(&sz, p + off + 6, 2);
		if (sz < sizeof(struct pd_build_id_rec) || sz > size - off)
			return;
		if (pd_reader_add_build_id(r, p + off, sz, true) == -ENOMEM)
			jp_nomem("the recording's build-id table");	/* not one id may be lost */
		off += sz;
	}
}

/* EVENT_DESC: names for the evsels, matched by their first id (or by position). */
static void parse_event_desc(struct pd_reader *r, const uint8_t *p, size_t size)
{
	uint32_t nr, asz;
	size_t off = 8;

	if (size < 8)
		return;
	memcpy(&nr, p, 4);
	memcpy(&asz, p + 4, 4);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		const char *name;
		uint64_t id0 = 0;
		struct pd_evsel *es = NULL;

		if (asz > size - off || size - off - asz < 4)
			return;
		off += asz;
		memcpy(&nids, p + off, 4);
		off += 4;
		if (take_string(p, size, &off, &name, NULL))
			return;
		if (nids > (size - off) / 8)
			return;
		if (nids)
			memcpy(&id0, p + off, 8);
		off += (size_t)nids * 8;
		if (nids)
			es = (struct pd_evsel *)pd_reader_evsel_by_id(r, id0);
		if (!es && i < r->nr_evsels)
			es = r->evsels[i];
		if (es && !es->name && !(es->name = strdup(name)))
			jp_nomem("an event's name");
	}
}

void pd_reader_take_feature(struct pd_reader *r, unsigned feat, void *data, size_t size)
{
	struct pd_feat *f;

	if (feat >= PD_FEAT_MAX) {
		free(data);
		return;
	}
	f = &r->feats[feat];
	free(f->data);
	f->data = data;
	f->size = size;
	f->present = true;
	pd_feat_bit(r->feat_bits, feat, true);
	if (feat == PD_FEAT_BUILD_ID)
		parse_build_ids(r, data, size);
	else if (feat == PD_FEAT_EVENT_DESC)
		parse_event_desc(r, data, size);
}

int pd_reader_store_feature(struct pd_reader *r, unsigned feat, const void *data, size_t size,
			    uint64_t off)
{
	void *copy;

	(void)off;
	if (feat >= PD_FEAT_MAX)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy) {
		free(r->feats[feat].data);
		r->feats[feat].data = NULL;
		r->feats[feat].present = false;
		pd_feat_bit(r->feat_bits, feat, false);
		return -ENOMEM;
	}
	memcpy(copy, data, size);
	pd_reader_take_feature(r, feat, copy, size);
	return 0;
}

void pd_reader_free_features(struct pd_reader *r)
{
	PD_FOR_EACH_FEAT(i, r->feat_bits)
		free(r->feats[i].data);
	for (size_t i = 0; i < r->nr_bids; i++)
		free((char *)r->bids[i].filename);
	free(r->bids);
	free(r->cmdline);
}

bool pd_reader_has_feature(const struct pd_reader *r, unsigned feat)
{
	return feat < PD_FEAT_MAX && r->feats[feat].present;
}

const void *pd_reader_feature(const struct pd_reader *r, unsigned feat, size_t *size)
{
	if (!pd_reader_has_feature(r, feat))
		return NULL;
	if (size)
		*size = r->feats[feat].size;
	return r->feats[feat].data;
}

/* Fixed-size features: present and at least n bytes long. */
static const uint8_t *fixed(const struct pd_reader *r, unsigned feat, size_t n, int *err)
{
	size_t sz;
	const uint8_t *p = pd_reader_feature(r, feat, &sz);

	*err = !p ? -ENOENT : sz < n ? -EINVAL : 0;
	return *err ? NULL : p;
}

int pd_reader_feat_string(const struct pd_reader *r, unsigned feat, const char **str)
{
	size_t sz, off = 0;
	const uint8_t *p = pd_reader_feature(r, feat, &sz);

	if (!p)
		return -ENOENT;
	return take_string(p, sz, &off, str, NULL);
}

int pd_reader_feat_cmdline(const struct pd_reader *r, size_t *argc, const char *const **argv)
{
	struct pd_reader *w = (struct pd_reader *)r;	/* the parse is cached */
	size_t sz, off = 4;
	uint32_t nr;
	const uint8_t *p = pd_reader_feature(r, PD_FEAT_CMDLINE, &sz);

	if (!p)
		return -ENOENT;
	if (!w->cmdline) {
		if (sz < 4)
			return -EINVAL;
		memcpy(&nr, p, 4);
		if (nr > sz / 4)
			return -EINVAL;
		char **v = calloc((size_t)nr + 1, sizeof(char *));
		if (!v)
			return -ENOMEM;
		for (uint32_t i = 0; i < nr; i++) {
			const char *s;
			if (take_string(p, sz, &off, &s, NULL)) {
				free(v);
				return -EINVAL;
			}
			v[i] = (char *)s;
		}
		w->cmdline = v;
		w->cmdline_n = nr;
	}
	*argc = r->cmdline_n;
	*argv = (const char *const *)r->cmdline;
	return 0;
}

int pd_reader_feat_nrcpus(const struct pd_reader *r, uint32_t *avail, uint32_t *online)
{
	int err;
	const uint8_t *p = fixed(r, PD_FEAT_NRCPUS, 8, &err);

	if (p) {
		memcpy(avail, p, 4);
		memcpy(online, p + 4, 4);
	}
	return err;
}

int pd_reader_feat_clockid(const struct pd_reader *r, uint64_t *res_ns)
{
	int err;
	const uint8_t *p = fixed(r, PD_FEAT_CLOCKID, 8, &err);

	if (p)
		memcpy(res_ns, p, 8);
	return err;
}

int pd_reader_feat_clock_data(const struct pd_reader *r, struct pd_clock_data *cd)
{
	int err;
	const uint8_t *p = fixed(r, PD_FEAT_CLOCK_DATA, 24, &err);

	if (p) {
		memcpy(&cd->version, p, 4);
		memcpy(&cd->clockid, p + 4, 4);
		memcpy(&cd->tod_ns, p + 8, 8);
		memcpy(&cd->clockid_ns, p + 16, 8);
	}
	return err;
}

int pd_reader_feat_sample_time(const struct pd_reader *r, uint64_t *first, uint64_t *last)
{
	int err;
	const uint8_t *p = fixed(r, PD_FEAT_SAMPLE_TIME, 16, &err);

	if (p) {
		memcpy(first, p, 8);
		memcpy(last, p + 8, 8);
	}
	return err;
}

size_t pd_reader_nr_build_ids(const struct pd_reader *r)
{
	return r->nr_bids;
}

const struct pd_build_id_ev *pd_reader_build_id(const struct pd_reader *r, size_t idx)
{
	return idx < r->nr_bids ? &r->bids[idx] : NULL;
}
