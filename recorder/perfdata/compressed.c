/* compressed.c - PERF_RECORD_COMPRESSED (perf record -z): the zstd frames inside decompress to
 * an ordinary record stream, which the reader then delivers record by record. libzstd is loaded
 * with dlopen the first time such a record appears, so the library stays libc-only to link
 * (its other users need no -lzstd) and costs nothing for uncompressed files.
 * Streamed: a COMPRESSED record's payload (under 64 KiB) is kept and inflated DBUF_CAP bytes at
 * a time as the records inside are taken, so memory does not depend on what a record expands
 * to (a 134 KB bomb held a whole 256 MiB record before, issue 34 finding 9). */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "recorder/perfdata/perfdata_int.h"

/* Records are under 64 KiB (a u16 size): a buffer of four always holds a whole one. */
#define DBUF_CAP (256u << 10)

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
	free(r->zin);
}

int pd_decompress(struct pd_reader *r, const void *data, size_t n, uint64_t off)
{
	int err;

	if (!r->zstd && (err = load(r, off)))
		return err;
	if (!r->dbuf) {
		if (!(r->dbuf = malloc(DBUF_CAP)))
			return -ENOMEM;
		r->dcap = DBUF_CAP;
	}
	/* The reader takes the next file record only once the last one's input is used up. */
	if (n > r->zin_cap) {
		uint8_t *b = realloc(r->zin, n);
		if (!b)
			return -ENOMEM;
		r->zin = b;
		r->zin_cap = n;
	}
	if (n)	/* an empty payload: zin may be unallocated yet */
		memcpy(r->zin, data, n);
	r->zin_len = n;
	r->zin_pos = 0;
	r->dsrc_total += n;
	r->nr_compressed++;
	return 0;
}

int pd_decompress_more(struct pd_reader *r)
{
	if (!r->zstd || (r->zin_pos == r->zin_len && !r->zfull))
		return 0;
	/* Keep the unconsumed tail (a record may span two COMPRESSED records). */
	if (r->dpos) {
		memmove(r->dbuf, r->dbuf + r->dpos, r->dlen - r->dpos);
		r->dlen -= r->dpos;
		r->dpos = 0;
	}
	size_t before = r->dlen;
	while (r->dlen < r->dcap && (r->zin_pos < r->zin_len || r->zfull)) {
		ZSTD_inBuffer in = { r->zin, r->zin_len, r->zin_pos };
		ZSTD_outBuffer out = { r->dbuf + r->dlen, r->dcap - r->dlen, 0 };
		size_t ret = r->zstd->decompress(r->zstd->ds, &out, &in);
		if (r->zstd->is_error(ret))
			return pd_set_err(r, -EINVAL, r->dsrc_off, "zstd: %s",
					  r->zstd->error_name(ret));
		int progress = out.pos || in.pos != r->zin_pos;
		r->zin_pos = in.pos;
		r->dlen += out.pos;
		r->dtotal += out.pos;
		r->zfull = out.pos == out.size;	/* zstd may hold more for the next call */
		if (r->dtotal > PD_ZSTD_BUDGET_BASE + PD_ZSTD_BUDGET_RATIO * r->dsrc_total)
			return pd_set_err(r, -EFBIG, r->dsrc_off, "compressed records expand to "
					  "more than %llu MiB plus %u times their %llu compressed "
					  "bytes in total (PD_ZSTD_BUDGET): a decompression bomb",
					  PD_ZSTD_BUDGET_BASE >> 20, PD_ZSTD_BUDGET_RATIO,
					  (unsigned long long)r->dsrc_total);
		if (!progress)
			break;
	}
	return r->dlen > before;
}
