/* jdt.c - see jdt.h. */
#include "tests/unit/jitdump/jdt.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

uint64_t jdt_clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct jd_reader *jdt_open_or_die(const char *path)
{
	struct jd_reader *r = NULL;
	int rc = jd_reader_open(&r, path, jd_err, sizeof(jd_err));
	cr_assert_eq(rc, 0, "open %s: %s", path, jd_err);
	return r;
}

void jdt_next_or_die(struct jd_reader *r, struct jd_record *rec, uint32_t id)
{
	int rc = jd_reader_next(r, rec);
	cr_assert_eq(rc, 1, "expected record id %u, got rc %d (%s)", id, rc, jd_reader_error(r));
	cr_assert_eq(rec->id, id, "expected id %u at offset %llu, got %u", id,
		     (unsigned long long)rec->offset, rec->id);
}

struct jd_writer *jdt_writer(char **dir, size_t buffer_size)
{
	*dir = tu_tmpdir("jd");
	cr_assert_not_null(*dir);
	struct jd_writer_opts o = { .size = sizeof(o), .dir = *dir, .buffer_size = buffer_size };
	struct jd_writer *w = NULL;
	int rc = jd_writer_open(&w, &o);
	cr_assert_eq(rc, 0, "jd_writer_open: %s", strerror(-rc));
	return w;
}

int jdt_count_mem(const void *buf, size_t len, struct jdt_counts *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	struct jd_reader *r;
	int rc = jd_reader_open_mem(&r, buf, len, "mem", jd_err, sizeof(jd_err));
	if (rc) {
		snprintf(err, errlen, "%s", jd_err);
		return rc;
	}
	struct jd_record rec;
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		c->records++;
		if (rec.id < JD_CODE_MAX_PERF)
			c->per_id[rec.id]++;
		else
			c->ext++;
		if (rec.id == JD_CODE_DEBUG_INFO)
			c->lines += rec.u.debug.nr_entry;
	}
	snprintf(err, errlen, "%s", rc < 0 ? jd_reader_error(r) : jd_reader_warning(r));
	jd_reader_close(r);
	return rc;
}

static void sw32(uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static void sw64(uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

/* Field layout after the 16-byte prefix: a string of '4' (u32) and '8' (u64). */
static const char *layout(uint32_t id)
{
	switch (id) {
	case 0: return "448888";	/* LOAD */
	case 1: return "4488888";	/* MOVE */
	case 2: return "88";		/* DEBUG_INFO fixed part; entries below */
	case 3: return "";
	case 4: return "888";
	case 0x10000: return "884444";
	case 0x10001: return "8844";	/* pcs below */
	case 0x10002: return "8844";
	case 0x10003: return "888888";
	}
	return NULL;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

int jdt_swap_file(uint8_t *buf, size_t len)
{
	uint32_t hsize = get32(buf + 8);
	for (int i = 0; i < 24; i += 4)
		sw32(buf + i);
	sw64(buf + 24);
	sw64(buf + 32);
	size_t off = hsize;
	while (off + 16 <= len) {
		uint8_t *p = buf + off;
		uint32_t id = get32(p), total = get32(p + 4);
		const char *l = layout(id);
		if (id == 0x10000 && total >= 56)
			l = "88444444";	/* LOAD_INFO version 2: + compile_id, osr_bci */
		if (!l)
			return -1;
		size_t f = 16;
		uint64_t n = 0;
		if (id == 2)
			n = get64(p + 24);
		if (id == 0x10001)
			n = get32(p + 36);
		for (; *l; l++) {
			if (*l == '4')
				sw32(p + f), f += 4;
			else
				sw64(p + f), f += 8;
		}
		for (uint64_t i = 0; i < n; i++) {
			if (id == 2) {	/* u64 addr, i32 line, i32 discrim, name */
				sw64(p + f);
				sw32(p + f + 8);
				sw32(p + f + 12);
				f += 16 + strlen((char *)p + f + 16) + 1;
			} else {	/* u64 addr, u32 depth, depth x (u32, i32) */
				uint32_t depth = get32(p + f + 8);
				sw64(p + f);
				sw32(p + f + 8);
				f += 12;
				for (uint32_t k = 0; k < 2 * depth; k++, f += 4)
					sw32(p + f);
			}
		}
		sw32(p);
		sw32(p + 4);
		sw64(p + 8);
		off += total;
	}
	return 0;
}

static const uint8_t code_a[] = { 0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x5d, 0xc3 };
static const uint8_t code_b[] = { 0x31, 0xc0, 0xff, 0xc0, 0xc3 };
static const uint8_t unwind_blob[24] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

void *jdt_sample_dump(size_t *len, char **dir)
{
	/* With the "\xff" shorthand, so readers of the sample meet it. */
	*dir = tu_tmpdir("jd");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = *dir, .same_file_shorthand = 1 };
	struct jd_writer *w;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	struct jd_line lines[] = {
		{ 0x1000, 10, 0, "a.c" }, { 0x1002, 11, 0, "a.c" }, { 0x1004, 3, 1, "b.h" },
		{ 0x1006, 12, 0, "a.c" },
	};
	struct jd_load_desc d = {
		.name = "fa", .code_addr = 0x1000, .code = code_a, .code_size = sizeof(code_a),
		.lines = lines, .nr_lines = 4, .unwind = unwind_blob,
		.unwind_size = sizeof(unwind_blob), .eh_frame_hdr_size = 8,
		.mapped_size = sizeof(unwind_blob),
	};
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	struct jd_load_desc d2 = { .name = "fb", .code_addr = 0x2000, .code = code_b,
				   .code_size = sizeof(code_b) };
	cr_assert_eq(jd_write_load(w, &d2, NULL), 0);
	d.code_addr = 0x3000;
	for (size_t i = 0; i < 4; i++)
		lines[i].addr += 0x2000;
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	struct jd_code_move m = { .vma = 0x4000, .old_code_addr = 0x2000,
				  .new_code_addr = 0x4000, .code_size = sizeof(code_b),
				  .code_index = 2 };
	cr_assert_eq(jd_write_move(w, &m, 0), 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	void *buf = tu_read_file(path, len);
	cr_assert_not_null(buf);
	return buf;
}
