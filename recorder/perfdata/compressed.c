/* compressed.c - PERF_RECORD_COMPRESSED (perf record -z): the zstd frames inside decompress to
 * an ordinary record stream, which the reader then delivers record by record. libzstd is loaded
 * with dlopen the first time such a record appears, so the library stays libc-only to link
 * (its other users need no -lzstd) and costs nothing for uncompressed files. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>

#include "recorder/perfdata/perfdata_int.h"

struct pd_zstd {
	void *dl;
	ZSTD_DStream *ds;
	ZSTD_DStream *(*create)(void);
	size_t (*free_ds)(ZSTD_DStream *);
	size_t (*decompress)(ZSTD_DStream *, ZSTD_outBuffer *, ZSTD_inBuffer *);
	unsigned (*is_error)(size_t);
	const char *(*error_name)(size_t);
};

static int load(struct pd_reader *r, uint64_t off)
{
	struct pd_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return -ENOMEM;
	z->dl = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (z->dl) {
		*(void **)&z->create = dlsym(z->dl, "ZSTD_createDStream");
		*(void **)&z->free_ds = dlsym(z->dl, "ZSTD_freeDStream");
		*(void **)&z->decompress = dlsym(z->dl, "ZSTD_decompressStream");
		*(void **)&z->is_error = dlsym(z->dl, "ZSTD_isError");
		*(void **)&z->error_name = dlsym(z->dl, "ZSTD_getErrorName");
	}
	if (!z->dl || !z->create || !z->free_ds || !z->decompress || !z->is_error ||
	    !z->error_name || !(z->ds = z->create())) {
		if (z->dl)
			dlclose(z->dl);
		free(z);
		return pd_set_err(r, -ENOTSUP, off, "compressed records (perf record -z) need "
				  "libzstd.so.1, which could not be loaded");
	}
	r->zstd = z;
	return 0;
}

void pd_zstd_free(struct pd_reader *r)
{
	struct pd_zstd *z = r->zstd;

	if (!z)
		return;
	z->free_ds(z->ds);
	dlclose(z->dl);
	free(z);
	free(r->dbuf);
}

int pd_decompress(struct pd_reader *r, const void *data, size_t n, uint64_t off)
{
	ZSTD_inBuffer in = { data, n, 0 };
	int err;

	if (!r->zstd && (err = load(r, off)))
		return err;
	r->dsrc_total += n;
	/* Keep the unconsumed tail (a record may span two COMPRESSED records). */
	if (r->dpos) {
		memmove(r->dbuf, r->dbuf + r->dpos, r->dlen - r->dpos);
		r->dlen -= r->dpos;
		r->dpos = 0;
	}
	while (in.pos < in.size) {
		if (r->dcap - r->dlen < 65536) {
			size_t cap = r->dcap ? 2 * r->dcap : 1u << 20;
			uint8_t *b;
			if (cap > (256u << 20))
				return pd_set_err(r, -EFBIG, off, "compressed data expands beyond 256 MiB");
			b = realloc(r->dbuf, cap);
			if (!b)
				return -ENOMEM;
			r->dbuf = b;
			r->dcap = cap;
		}
		ZSTD_outBuffer out = { r->dbuf + r->dlen, r->dcap - r->dlen, 0 };
		size_t ret = r->zstd->decompress(r->zstd->ds, &out, &in);
		if (r->zstd->is_error(ret))
			return pd_set_err(r, -EINVAL, off, "zstd: %s", r->zstd->error_name(ret));
		r->dlen += out.pos;
		r->dtotal += out.pos;
		if (r->dtotal > PD_ZSTD_BUDGET_BASE + PD_ZSTD_BUDGET_RATIO * r->dsrc_total)
			return pd_set_err(r, -EFBIG, off, "compressed records expand to more than "
					  "%llu MiB plus %u times their %llu compressed bytes in "
					  "total (PD_ZSTD_BUDGET): a decompression bomb",
					  PD_ZSTD_BUDGET_BASE >> 20, PD_ZSTD_BUDGET_RATIO,
					  (unsigned long long)r->dsrc_total);
		if (!out.pos && !ret)
			break;
	}
	r->nr_compressed++;
	return 0;
}
