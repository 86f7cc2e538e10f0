/* test_compressed.c - recorder/perfdata/compressed.c: records zstd-compressed into COMPRESSED
 * records (one frame split over two records, a record straddling them) come out one by one;
 * a stream cut inside them is an error, not a crash; the bytes they expand to are bounded in
 * total and never held at once. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
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

/* path: a perf.data of a few attrs and nrec COMPRESSED records, each one zstd frame of rawn
 * bytes of FINISHED_ROUND records (8 bytes each) squeezed under 64 KiB. */
static void write_bomb(const char *dir, const char *path, size_t rawn, size_t nrec)
{
	char plain[512];
	struct pdt_expect e;
	struct pd_reader *r;
	struct pd_writer *w;
	uint64_t *raw = malloc(rawn);
	cr_assert_not_null(raw);
	for (size_t i = 0; i < rawn / 8; i++) {
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
	pdt_write(plain, 0, 10, &e);
	cr_assert_eq(pd_reader_open(&r, plain, NULL), 0);
	cr_assert_eq(pd_writer_open(&w, path, 0), 0);
	cr_assert_eq(pd_writer_copy_attrs(w, r), 0);
	pd_reader_close(r);
	for (size_t i = 0; i < nrec; i++)
		cr_assert_eq(pd_writer_write(w, rec, h->size), 0);
	cr_assert_eq(pd_writer_close(w), 0);
	free(raw);
	free(rec);
}

/* Issue 16 finding 8: the budget is for all compressed records together, not per record:
 * COMPRESSED records of a few KB each expanding to 64 MiB stop at the budget, named. */
Test(compressed, total_expansion_is_bounded, .timeout = 120)
{
	char *dir = tu_tmpdir("pdzb"), bomb[600];
	size_t rawn = 64u << 20, nrec = (size_t)(PD_ZSTD_BUDGET_BASE / rawn) + 2;
	snprintf(bomb, sizeof(bomb), "%s/bomb.data", dir);
	write_bomb(dir, bomb, rawn, nrec);
	struct pdt_counts c;
	cr_assert_eq(pdt_count(bomb, &c), 0);
	cr_assert_eq(c.end, -EFBIG, "%d: %s", c.end, c.err);
	cr_assert(strstr(c.err, "PD_ZSTD_BUDGET") && strstr(c.err, "bomb.data"), "%s", c.err);
	cr_assert_lt(c.rounds, nrec * (rawn / 8), "everything was expanded");
	tu_rmtree(dir);
	free(dir);
}

/* Issue 34 finding 9: one COMPRESSED record of a few KB expanding to 128 MiB (within the
 * budget) is read in a bounded buffer: the reading child's peak RSS grows by a few MiB, not by
 * what the record expands to (before: the whole 128 MiB, then up to 256 MiB). */
Test(compressed, memory_does_not_follow_expansion, .timeout = 120)
{
	char *dir = tu_tmpdir("pdzm"), bomb[600];
	size_t rawn = 128u << 20;
	snprintf(bomb, sizeof(bomb), "%s/bomb.data", dir);
	write_bomb(dir, bomb, rawn, 1);
	int fd[2];
	cr_assert_eq(pipe(fd), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {	/* its high-water mark starts at the RSS it inherits */
		struct rusage ru0, ru1;
		struct pdt_counts c;
		getrusage(RUSAGE_SELF, &ru0);
		long rc = pdt_count(bomb, &c) ? -1 : c.end ? -2 : (long)c.rounds;
		getrusage(RUSAGE_SELF, &ru1);
		long out[2] = { rc, ru1.ru_maxrss - ru0.ru_maxrss };
		_exit(write(fd[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
	}
	long got[2] = { 0, 0 };
	int st;
	cr_assert_eq(read(fd[0], got, sizeof(got)), (ssize_t)sizeof(got));
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	close(fd[0]);
	close(fd[1]);
	cr_assert_eq(got[0], (long)(rawn / 8), "every record read: %ld", got[0]);
	cr_assert_lt(got[1], 16 << 10, "peak RSS grew by %ld KiB reading a %zu MiB record",
		     got[1], rawn >> 20);
	tu_rmtree(dir);
	free(dir);
}
