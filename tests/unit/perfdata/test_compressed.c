/* test_compressed.c - recorder/perfdata/compressed.c: records zstd-compressed into COMPRESSED
 * records (one frame split over two records, a record straddling them) come out one by one;
 * a stream cut inside them is an error, not a crash. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tests/lib/testutil.h"
#include "tests/unit/perfdata/pdtest.h"

Test(compressed, records_inside_come_out)
{
	char *dir = tu_tmpdir("pdz"), plain[512], packed[600];
	struct pdt_expect e;
	struct pd_reader *r;
	struct pd_writer *w;
	struct pd_event ev;
	uint8_t *raw = malloc(1 << 20), *z;
	size_t rawn = 0, zn;

	snprintf(plain, sizeof(plain), "%s/plain.data", dir);
	snprintf(packed, sizeof(packed), "%s/packed.data", dir);
	pdt_write(plain, 0, 300, &e);
	/* The plain file's records, back to back, compressed as one zstd frame. */
	cr_assert_eq(pd_reader_open(&r, plain, NULL), 0);
	cr_assert_eq(pd_writer_open(&w, packed, 0), 0);
	cr_assert_eq(pd_writer_copy_attrs(w, r), 0);
	while (pd_reader_next(r, &ev) > 0) {
		memcpy(raw + rawn, ev.raw, ev.size);
		rawn += ev.size;
	}
	z = malloc(ZSTD_compressBound(rawn) + 16);
	zn = ZSTD_compress(z + 16, ZSTD_compressBound(rawn), raw, rawn, 3);
	cr_assert_not(ZSTD_isError(zn));
	/* Two COMPRESSED records: the split falls inside some record of the stream. */
	size_t half = zn / 2, parts[2][2] = { { 0, half }, { half, zn - half } };
	for (int i = 0; i < 2; i++) {
		uint8_t rec[65536];
		struct perf_event_header *h = (void *)rec;
		cr_assert_lt(parts[i][1] + 8, sizeof(rec));
		h->type = PD_RECORD_COMPRESSED;
		h->misc = 0;
		h->size = (uint16_t)(8 + parts[i][1]);
		memcpy(rec + 8, z + 16 + parts[i][0], parts[i][1]);
		cr_assert_eq(pd_writer_write(w, rec, h->size), 0);
	}
	cr_assert_eq(pd_writer_close(w), 0);
	pd_reader_close(r);

	struct pdt_counts c;
	cr_assert_eq(pdt_count(packed, &c), 0);
	cr_assert_eq(c.end, 0, "%s", c.err);
	cr_assert_eq(c.samples, e.samples);
	cr_assert_eq(c.mmap2, e.mmap2);
	cr_assert_eq(c.first_ip, e.first_ip);
	cr_assert_eq(c.last_time, e.last_time);

	/* Cut inside the second COMPRESSED record: clean error, fewer samples. */
	size_t len;
	uint8_t *buf = tu_read_file(packed, &len);
	cr_assert_eq(pd_reader_open(&r, packed, NULL), 0);
	uint64_t cut = pd_reader_data_offset(r) + pd_reader_data_size(r) - 30;
	pd_reader_close(r);
	cr_assert_eq(tu_write_file(plain, buf, cut), 0);
	cr_assert_eq(pdt_count(plain, &c), 0);
	cr_assert_lt(c.end, 0);
	cr_assert_lt(c.samples, e.samples);
	free(buf);
	free(raw);
	free(z);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 16 finding 8: the budget is for all compressed records together, not per record:
 * COMPRESSED records of a few KB each expanding to 64 MiB stop at the budget, named. */
Test(compressed, total_expansion_is_bounded, .timeout = 120)
{
	char *dir = tu_tmpdir("pdzb"), plain[512], bomb[600];
	struct pdt_expect e;
	struct pd_reader *r;
	struct pd_writer *w;
	size_t rawn = 64u << 20;
	uint64_t *raw = malloc(rawn);
	cr_assert_not_null(raw);
	for (size_t i = 0; i < rawn / 8; i++) {	/* FINISHED_ROUND records, back to back */
		struct perf_event_header h = { PD_RECORD_FINISHED_ROUND, 0, 8 };
		memcpy(&raw[i], &h, 8);
	}
	size_t cap = ZSTD_compressBound(rawn);
	uint8_t *rec = malloc(8 + cap);
	size_t zn = ZSTD_compress(rec + 8, cap, raw, rawn, 19);
	cr_assert_not(ZSTD_isError(zn));
	cr_assert_lt(zn + 8, 65536, "%zu compressed bytes do not fit one record", zn);
	struct perf_event_header *h = (void *)rec;
	h->type = PD_RECORD_COMPRESSED;
	h->misc = 0;
	h->size = (uint16_t)(8 + zn);
	snprintf(plain, sizeof(plain), "%s/plain.data", dir);
	snprintf(bomb, sizeof(bomb), "%s/bomb.data", dir);
	pdt_write(plain, 0, 10, &e);
	cr_assert_eq(pd_reader_open(&r, plain, NULL), 0);
	cr_assert_eq(pd_writer_open(&w, bomb, 0), 0);
	cr_assert_eq(pd_writer_copy_attrs(w, r), 0);
	pd_reader_close(r);
	size_t nrec = (size_t)(PD_ZSTD_BUDGET_BASE / rawn) + 2;
	for (size_t i = 0; i < nrec; i++)
		cr_assert_eq(pd_writer_write(w, rec, h->size), 0);
	cr_assert_eq(pd_writer_close(w), 0);
	struct pdt_counts c;
	cr_assert_eq(pdt_count(bomb, &c), 0);
	cr_assert_eq(c.end, -EFBIG, "%d: %s", c.end, c.err);
	cr_assert(strstr(c.err, "PD_ZSTD_BUDGET") && strstr(c.err, "bomb.data"), "%s", c.err);
	cr_assert_lt(c.rounds, nrec * (rawn / 8), "everything was expanded");
	free(raw);
	free(rec);
	tu_rmtree(dir);
	free(dir);
}
