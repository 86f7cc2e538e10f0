/* test_robust.c - the reader (and the index over it) on damaged input: a valid dump and a
 * valid companion file cut at every byte offset, and thousands of random byte flips. Each run
 * must end in a clean error naming an offset or a clean (partial) read: never a crash, which
 * ASan checks when built with SANITIZE=1. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

/* The sample dump, plus a companion file with every kind of companion record. */
static uint8_t *sample_ext(size_t *len, char **dir)
{
	struct jd_writer *w = jdt_writer(dir, 0);
	uint8_t code[6] = { 1, 2, 3, 4, 5, 6 };
	struct jd_inline_method m[] = { { "outer", "O.java" }, { "inner", "I.java" } };
	struct jd_inline_frame f[] = { { 1, 3, -1 }, { 0, 9, -1 } };
	struct jd_inline_pc pc[] = { { 0x10, 2, f }, { 0x12, 1, f + 1 } };
	struct jd_ext_inline in = { .nr_methods = 2, .nr_pcs = 2, .methods = m, .pcs = pc };
	struct jd_ext_load_info info = { .generation = 2, .tier = JD_TIER_C1, .level = 3 };
	struct jd_load_desc d = { .name = "outer", .code_addr = 0x10, .code = code,
				  .code_size = 6, .info = &info, .inl = &in };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	struct jd_ext_unload u = { .code_addr = 0x10 };
	cr_assert_eq(jd_write_unload(w, &u, 0), 0);
	struct jd_ext_agent_stats st = { 1, 2, 3, 4, 5, 6 };
	cr_assert_eq(jd_write_stats(w, &st), 0);
	char ext[4200];
	jd_ext_path(jd_writer_path(w), ext, sizeof(ext));
	cr_assert_eq(jd_writer_close(w), 0);
	uint8_t *buf = tu_read_file(ext, len);
	cr_assert_not_null(buf);
	return buf;
}

/* Offsets where whole records end, from an undamaged read. */
static size_t record_ends(const uint8_t *buf, size_t len, uint64_t *ends, size_t max)
{
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "v", jd_err, sizeof(jd_err)), 0);
	struct jd_record rec;
	size_t n = 0;
	while (jd_reader_next(r, &rec) > 0 && n < max)
		ends[n++] = rec.offset + rec.total_size;
	jd_reader_close(r);
	return n;
}

/* Reads the first cut bytes: exactly the records that end by cut, then a clean end that
 * reports the partial rest (a header-less cut is a clean error). */
static void check_cut(const uint8_t *buf, size_t cut, const uint64_t *ends, size_t nrec)
{
	/* A heap copy of exactly cut bytes: ASan catches any read past it. */
	uint8_t *exact = malloc(cut ? cut : 1);
	memcpy(exact, buf, cut);
	struct jd_reader *r;
	int rc = jd_reader_open_mem(&r, exact, cut, "cut", jd_err, sizeof(jd_err));
	if (cut < 40) {
		cr_assert_eq(rc, -EINVAL, "cut %zu", cut);
		free(exact);
		return;
	}
	cr_assert_eq(rc, 0, "cut %zu: %s", cut, jd_err);
	struct jd_record rec;
	size_t got = 0;
	while ((rc = jd_reader_next(r, &rec)) > 0)
		got++;
	cr_assert_eq(rc, 0, "cut %zu: %s", cut, jd_reader_error(r));
	size_t whole = 0;
	while (whole < nrec && ends[whole] <= cut)
		whole++;
	cr_assert_eq(got, whole, "cut %zu: %zu records, expected %zu", cut, got, whole);
	uint64_t last = whole ? ends[whole - 1] : 40;
	cr_assert_eq(jd_reader_stats(r)->truncated_bytes, cut - last, "cut %zu", cut);
	if (cut > last)
		cr_assert(strstr(jd_reader_warning(r), "bytes of a partial record at offset"),
			  "cut %zu: '%s'", cut, jd_reader_warning(r));
	jd_reader_close(r);
	free(exact);
}

static void truncate_everywhere(const uint8_t *buf, size_t len)
{
	uint64_t ends[64];
	size_t nrec = record_ends(buf, len, ends, 64);
	cr_assert_gt(nrec, 3);
	for (size_t cut = 0; cut <= len; cut++)
		check_cut(buf, cut, ends, nrec);
}

Test(robust, dump_truncated_at_every_offset)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	truncate_everywhere(buf, len);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

Test(robust, companion_truncated_at_every_offset)
{
	char *dir;
	size_t len;
	uint8_t *buf = sample_ext(&len, &dir);
	truncate_everywhere(buf, len);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Reads a damaged copy to the end; returns records read. Damage must be reported cleanly. */
static size_t read_damaged(const uint8_t *buf, size_t len)
{
	uint8_t *exact = malloc(len);
	memcpy(exact, buf, len);
	struct jd_reader *r;
	size_t n = 0;
	int rc = jd_reader_open_mem(&r, exact, len, "flip", jd_err, sizeof(jd_err));
	if (rc) {
		cr_assert_eq(rc, -EINVAL);
		cr_assert(strstr(jd_err, "flip: offset "), "%s",
			  jd_err);
		free(exact);
		return 0;
	}
	struct jd_record rec;
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		n++;
		/* Touch everything the record points at, so ASan sees any bad pointer. */
		volatile uint64_t sink = 0;
		if (rec.id == JD_CODE_LOAD) {
			sink += strlen(rec.u.load.name);
			for (uint64_t i = 0; i < rec.u.load.code_size; i++)
				sink += rec.u.load.code[i];
		} else if (rec.id == JD_CODE_DEBUG_INFO) {
			for (uint64_t i = 0; i < rec.u.debug.nr_entry; i++)
				sink += strlen(rec.u.debug.entries[i].file);
		} else if (rec.id == JD_CODE_UNWINDING_INFO) {
			for (uint64_t i = 0; i < rec.u.unwind.unwinding_size; i++)
				sink += rec.u.unwind.data[i];
		} else if (rec.id == JD_EXT_INLINE) {
			for (uint32_t i = 0; i < rec.u.inl.nr_methods; i++)
				sink += strlen(rec.u.inl.methods[i].name) +
					strlen(rec.u.inl.methods[i].file);
			for (uint32_t i = 0; i < rec.u.inl.nr_pcs; i++)
				for (uint32_t k = 0; k < rec.u.inl.pcs[i].depth; k++)
					sink += rec.u.inl.methods[rec.u.inl.pcs[i].frames[k].method]
							.name[0];
		}
		(void)sink;
	}
	if (rc < 0)
		cr_assert(strstr(jd_reader_error(r), "flip: offset "), "%s", jd_reader_error(r));
	else
		cr_assert_eq(rc, 0);
	jd_reader_close(r);
	free(exact);
	return n;
}

static void flip_many(const uint8_t *buf, size_t len, int rounds)
{
	uint8_t *copy = malloc(len);
	size_t damaged_reads = 0;
	for (int k = 0; k < rounds; k++) {
		memcpy(copy, buf, len);
		int flips = 1 + (int)(next_rand() % 4);
		for (int i = 0; i < flips; i++) {
			size_t at = next_rand() % len;
			/* A whole byte or a single bit. */
			copy[at] ^= (uint8_t)(next_rand() % 2 ? 0xff : 1u << (next_rand() % 8));
		}
		damaged_reads += read_damaged(copy, len) > 0;
	}
	cr_assert_gt(damaged_reads, 0);
	free(copy);
}

/* The sample dump and a companion file, made once per test. */
struct pair {
	char *dir, *edir;
	uint8_t *dump, *ext;
	size_t len, elen;
};

static void pair_make(struct pair *p)
{
	p->dump = jdt_sample_dump(&p->len, &p->dir);
	p->ext = sample_ext(&p->elen, &p->edir);
}

static void pair_free(struct pair *p)
{
	free(p->dump);
	free(p->ext);
	tu_rmtree(p->dir);
	tu_rmtree(p->edir);
	free(p->dir);
	free(p->edir);
}

Test(robust, random_byte_flips)
{
	struct pair p;
	pair_make(&p);
	flip_many(p.dump, p.len, 20000);
	flip_many(p.ext, p.elen, 20000);
	pair_free(&p);
}

/* The index over damaged dump + companion pairs: salvage or a clean error, never a crash. */
Test(robust, index_over_damaged_files)
{
	struct pair p;
	pair_make(&p);
	size_t len = p.len, elen = p.elen;
	const uint8_t *buf = p.dump, *ext = p.ext;
	char path[4096], epath[4200];
	snprintf(path, sizeof(path), "%s/jit-1.dump", p.dir);
	jd_ext_path(path, epath, sizeof(epath));
	uint8_t *a = malloc(len), *b = malloc(elen);
	for (int k = 0; k < 300; k++) {
		memcpy(a, buf, len);
		memcpy(b, ext, elen);
		a[next_rand() % len] ^= (uint8_t)next_rand();
		b[next_rand() % elen] ^= (uint8_t)next_rand();
		size_t alen = k % 3 ? len : next_rand() % len;
		cr_assert_eq(tu_write_file(path, a, alen), 0);
		cr_assert_eq(tu_write_file(epath, b, elen - (k % 5 ? 0 : next_rand() % elen)), 0);
		struct jd_index *x;
		char err[512];
		int rc = jd_index_open(&x, path, err, sizeof(err));
		if (rc) {
			cr_assert(strstr(err, "jit-1.dump"), "%s", err);
			continue;
		}
		for (size_t i = 0; i < jd_index_nr_loads(x); i++) {
			const struct jd_load_entry *e = jd_index_load(x, i);
			cr_assert_geq(e->generation, 1);
			for (size_t l = 0; l < e->nr_lines; l++)
				cr_assert_not_null(e->lines[l].file);
		}
		jd_index_close(x);
	}
	free(a);
	free(b);
	pair_free(&p);
}

#define FIXTURE "../shared/fixtures/perf-jvmti/jit-27543.dump"

/* perf's agent's dump: cut around every record boundary, and flipped at random. */
Test(robust, perf_agent_fixture_damaged)
{
	size_t len;
	uint8_t *buf = tu_read_file(FIXTURE, &len);
	if (!buf)
		cr_skip_test("fixture %s absent (needs shared/ beside the clone)", FIXTURE);
	static uint64_t ends[600];
	size_t nrec = record_ends(buf, len, ends, 600);
	cr_assert_eq(nrec, 528);
	const int64_t around[] = { -17, -1, 0, 1, 16 };
	for (size_t i = 0; i < nrec; i += 3) {
		for (size_t k = 0; k < sizeof(around) / sizeof(around[0]); k++) {
			size_t cut = (size_t)((int64_t)ends[i] + around[k]);
			if (cut <= len)
				check_cut(buf, cut, ends, nrec);
		}
	}
	flip_many(buf, len, 1500);
	free(buf);
}
