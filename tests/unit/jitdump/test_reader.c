/* test_reader.c - jitdump/reader.c and decode.c on files the writer did not make: the other
 * byte order, a header with extra bytes, unknown record ids, perf's own agent's dump, and
 * damage reported with the file and byte offset. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

#define FIXTURE "../shared/fixtures/perf-jvmti/jit-27543.dump"

struct rec_copy {
	uint32_t id;
	uint64_t ts, a, b, c;
	char text[64];
};

/* A digest of every record, comparable across byte orders. */
static size_t digest(const void *buf, size_t len, struct rec_copy *out, size_t max, int *swapped)
{
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "d", jd_err, sizeof(jd_err)), 0, "%s", jd_err);
	*swapped = jd_reader_stats(r)->byte_swapped;
	struct jd_record rec;
	size_t n = 0;
	while (jd_reader_next(r, &rec) > 0 && n < max) {
		struct rec_copy *c = &out[n++];
		memset(c, 0, sizeof(*c));
		c->id = rec.id;
		c->ts = rec.timestamp;
		switch (rec.id) {
		case JD_CODE_LOAD:
			c->a = rec.u.load.code_addr;
			c->b = rec.u.load.code_index;
			c->c = rec.u.load.code[0] | (uint64_t)rec.u.load.pid << 32;
			snprintf(c->text, sizeof(c->text), "%s", rec.u.load.name);
			break;
		case JD_CODE_DEBUG_INFO:
			c->a = rec.u.debug.code_addr;
			c->b = rec.u.debug.nr_entry;
			for (uint64_t i = 0; i < rec.u.debug.nr_entry; i++)
				c->c = c->c * 31 + rec.u.debug.entries[i].addr +
				       (uint64_t)rec.u.debug.entries[i].line * 7 +
				       (uint64_t)rec.u.debug.entries[i].discrim;
			snprintf(c->text, sizeof(c->text), "%s|%s", rec.u.debug.entries[0].file,
				 rec.u.debug.entries[rec.u.debug.nr_entry - 1].file);
			break;
		case JD_CODE_UNWINDING_INFO:
			c->a = rec.u.unwind.unwinding_size;
			c->b = rec.u.unwind.eh_frame_hdr_size;
			c->c = rec.u.unwind.mapped_size;
			break;
		case JD_CODE_MOVE:
			c->a = rec.u.move.old_code_addr;
			c->b = rec.u.move.new_code_addr;
			c->c = rec.u.move.code_index;
			break;
		}
	}
	jd_reader_close(r);
	return n;
}

Test(reader, byte_swapped_dump_reads_the_same)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	uint8_t *sw = malloc(len);
	memcpy(sw, buf, len);
	cr_assert_eq(jdt_swap_file(sw, len), 0);
	cr_assert_neq(memcmp(sw, buf, len), 0);
	struct rec_copy a[32], b[32];
	int sa, sb;
	size_t na = digest(buf, len, a, 32, &sa), nb = digest(sw, len, b, 32, &sb);
	cr_assert_eq(sa, 0);
	cr_assert_eq(sb, 1);
	cr_assert_eq(na, 9, "sample has %zu records", na);	/* 2x(unwind,debug,load)+load+move+close */
	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		cr_assert_eq(a[i].id, b[i].id, "record %zu", i);
		cr_assert_eq(a[i].ts, b[i].ts);
		cr_assert_eq(a[i].a, b[i].a, "record %zu id %u", i, a[i].id);
		cr_assert_eq(a[i].b, b[i].b, "record %zu id %u", i, a[i].id);
		cr_assert_eq(a[i].c, b[i].c, "record %zu id %u", i, a[i].id);
		cr_assert_str_eq(a[i].text, b[i].text);
	}
	cr_assert_str_eq(a[1].text, "a.c|a.c");	/* "\xff" resolved in both orders */
	free(sw);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

Test(reader, header_extension_is_skipped)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	size_t extra = 24;
	uint8_t *big = malloc(len + extra);
	memcpy(big, buf, 40);
	memset(big + 40, 0xee, extra);
	memcpy(big + 40 + extra, buf + 40, len - 40);
	uint32_t hs = 40 + (uint32_t)extra;
	memcpy(big + 8, &hs, 4);
	struct jdt_counts c0, c1;
	char err[512];
	cr_assert_eq(jdt_count_mem(buf, len, &c0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(jdt_count_mem(big, len + extra, &c1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c1.records, c0.records);
	cr_assert_eq(c1.per_id[JD_CODE_LOAD], 3);
	cr_assert_eq(c1.lines, c0.lines);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, big, len + extra, "x", jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(jd_reader_header(r)->total_size, hs);
	jd_reader_close(r);
	/* A header claiming more than the file is damage at offset 8. */
	hs = (uint32_t)(len + extra + 1);
	memcpy(big + 8, &hs, 4);
	cr_assert_eq(jd_reader_open_mem(&r, big, len + extra, "x.dump", jd_err, sizeof(jd_err)), -EINVAL);
	cr_assert_null(r);
	cr_assert(strstr(jd_err, "x.dump: offset 8:"), "%s",
		  jd_err);
	free(big);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

static size_t put_rec(uint8_t *p, uint32_t id, uint32_t size)
{
	uint64_t ts = 42;
	memcpy(p, &id, 4);
	memcpy(p + 4, &size, 4);
	memcpy(p + 8, &ts, 8);
	memset(p + 16, 0xab, size - 16);
	return size;
}

Test(reader, unknown_ids_skipped_and_counted)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	uint8_t *big = malloc(len + 200);
	memcpy(big, buf, 40);
	size_t off = 40;
	off += put_rec(big + off, 100, 24);		/* what perf 6.1 warns about */
	off += put_rec(big + off, 5, 16);
	off += put_rec(big + off, 0x10009, 60);		/* a future jitprof id */
	memcpy(big + off, buf + 40, len - 40);
	off += len - 40;
	off += put_rec(big + off, 0xffffffffu, 33);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, big, off, "u", jd_err, sizeof(jd_err)), 0);
	struct jd_record rec;
	uint64_t n = 0;
	int rc;
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		cr_assert(rec.id < JD_CODE_MAX_PERF, "unknown id %u delivered", rec.id);
		n++;
	}
	cr_assert_eq(rc, 0, "%s", jd_reader_error(r));
	cr_assert_eq(n, 9);
	cr_assert_eq(jd_reader_stats(r)->unknown_skipped, 4);
	cr_assert_eq(jd_reader_stats(r)->per_id[JD_CODE_LOAD], 3);
	jd_reader_close(r);
	free(big);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

Test(reader, partial_tail_is_salvaged)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	/* Drop the CLOSE (16 bytes) and 10 bytes of the MOVE before it. */
	size_t cut = len - 16 - 10;
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, buf, cut, "t.dump", jd_err, sizeof(jd_err)), 0);
	struct jd_record rec;
	int n = 0, rc;
	while ((rc = jd_reader_next(r, &rec)) > 0)
		n++;
	cr_assert_eq(rc, 0);
	cr_assert_eq(n, 7);
	char want[128];
	snprintf(want, sizeof(want), "t.dump: 54 bytes of a partial record at offset %zu",
		 cut - 54);
	cr_assert_str_eq(jd_reader_warning(r), want);
	cr_assert_eq(jd_reader_stats(r)->truncated_bytes, 54);
	cr_assert_eq(jd_reader_stats(r)->truncated_offset, cut - 54);
	cr_assert_str_eq(jd_reader_error(r), "");
	jd_reader_close(r);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* Each reader keeps its own damage message, a failed open says why in the caller's buffer
 * and leaves nothing to close, and a NULL buffer is allowed: no global or per-thread error. */
Test(reader, errors_belong_to_their_reader)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	uint8_t *bad = malloc(len);
	cr_assert_not_null(bad);
	memcpy(bad, buf, len);
	uint64_t huge = 1000;	/* the first UNWINDING_INFO's eh_frame_hdr_size */
	memcpy(bad + 40 + 24, &huge, 8);
	struct jd_reader *a, *b, *c = (struct jd_reader *)1;
	struct jd_record rec;
	cr_assert_eq(jd_reader_open_mem(&a, bad, len, "a.dump", NULL, 0), 0);
	cr_assert_eq(jd_reader_open_mem(&b, buf, len, "b.dump", NULL, 0), 0);
	cr_assert_eq(jd_reader_next(a, &rec), -EINVAL);
	char err[256] = "untouched";
	cr_assert_eq(jd_reader_open_mem(&c, buf, 10, "c.dump", err, sizeof(err)), -EINVAL);
	cr_assert_null(c, "a failed open leaves *out NULL");
	cr_assert(strstr(err, "c.dump: offset 0"), "%s", err);
	cr_assert_eq(jd_reader_open_mem(&c, buf, 10, "c.dump", NULL, 0), -EINVAL);
	cr_assert(strstr(jd_reader_error(a), "a.dump: offset 40"), "%s", jd_reader_error(a));
	cr_assert_str_eq(jd_reader_error(b), "", "b read nothing bad: %s", jd_reader_error(b));
	while (jd_reader_next(b, &rec) > 0)
		;
	cr_assert_str_eq(jd_reader_error(b), "");
	jd_reader_close(a);
	jd_reader_close(b);
	free(bad);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

Test(reader, damage_names_file_and_offset)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	struct jd_reader *r;
	/* First record is the UNWINDING_INFO at 40; its eh_frame_hdr_size is at 40+24. */
	uint64_t huge = 1000;
	memcpy(buf + 40 + 24, &huge, 8);
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "bad.dump", jd_err, sizeof(jd_err)), 0);
	struct jd_record rec;
	cr_assert_eq(jd_reader_next(r, &rec), -EINVAL);
	cr_assert(strstr(jd_reader_error(r), "bad.dump: offset 40: UNWINDING_INFO"), "%s",
		  jd_reader_error(r));
	cr_assert_eq(jd_reader_next(r, &rec), -EINVAL, "errors are sticky");
	jd_reader_close(r);
	/* total_size below the prefix */
	uint32_t small = 8;
	memcpy(buf + 44, &small, 4);
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "bad.dump", jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(jd_reader_next(r, &rec), -EINVAL);
	cr_assert(strstr(jd_reader_error(r), "offset 40"), "%s", jd_reader_error(r));
	jd_reader_close(r);
	memcpy(buf, "ELF!", 4);
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "bad.dump", jd_err, sizeof(jd_err)), -EINVAL);
	cr_assert(strstr(jd_err, "bad magic"));
	cr_assert_eq(jd_reader_open_mem(&r, buf, 20, "short.dump", jd_err, sizeof(jd_err)), -EINVAL);
	cr_assert(strstr(jd_err, "short.dump: offset 0"));
	cr_assert_eq(jd_reader_open(&r, "/nonexistent/jit-1.dump", jd_err, sizeof(jd_err)), -ENOENT);
	cr_assert(strstr(jd_err, "/nonexistent/jit-1.dump"));
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* Decode checks that only a hand-made record can trip. */
Test(reader, hostile_lengths)
{
	uint8_t f[40 + 120] = { 0 };
	uint32_t v[] = { JD_MAGIC, 1, 40 };
	memcpy(f, v, sizeof(v));
	struct jd_record rec;
	struct jd_reader *r;
	/* CODE_LOAD whose code_size leaves no room for a name. */
	put_rec(f + 40, JD_CODE_LOAD, 60);
	uint64_t cs = 3;	/* leaves one byte, 0xab, for the name */
	memcpy(f + 40 + 40, &cs, 8);
	cr_assert_eq(jd_reader_open_mem(&r, f, 100, "h", jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(jd_reader_next(r, &rec), -EINVAL, "name overlapping code accepted");
	cr_assert(strstr(jd_reader_error(r), "NUL-terminated"), "%s", jd_reader_error(r));
	jd_reader_close(r);
	cs = UINT64_MAX - 10;
	memcpy(f + 40 + 40, &cs, 8);
	cr_assert_eq(jd_reader_open_mem(&r, f, 100, "h", jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(jd_reader_next(r, &rec), -EINVAL, "wrapping code_size accepted");
	jd_reader_close(r);
	/* DEBUG_INFO claiming 2^60 entries. */
	put_rec(f + 40, JD_CODE_DEBUG_INFO, 80);
	uint64_t ne = 1ull << 60;
	memcpy(f + 40 + 24, &ne, 8);
	cr_assert_eq(jd_reader_open_mem(&r, f, 120, "h", jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(jd_reader_next(r, &rec), -EINVAL);
	cr_assert(strstr(jd_reader_error(r), "nr_entry"), "%s", jd_reader_error(r));
	jd_reader_close(r);
	/* One entry whose name has no NUL inside the record. */
	ne = 1;
	memcpy(f + 40 + 24, &ne, 8);
	cr_assert_eq(jd_reader_open_mem(&r, f, 120, "h", jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(jd_reader_next(r, &rec), -EINVAL);
	jd_reader_close(r);
}

Test(reader, perf_agent_fixture)
{
	size_t len;
	void *buf = tu_read_file(FIXTURE, &len);
	if (!buf)
		cr_skip_test("fixture %s absent (needs shared/ beside the clone)", FIXTURE);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open(&r, FIXTURE, jd_err, sizeof(jd_err)), 0, "%s", jd_err);
	cr_assert_eq(jd_reader_header(r)->pid, 27543);
	struct jd_record rec;
	uint64_t lines = 0, named = 0, index_prev = 0;
	int rc, ordered = 1;
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		if (rec.id == JD_CODE_DEBUG_INFO) {
			lines += rec.u.debug.nr_entry;
			for (uint64_t i = 0; i < rec.u.debug.nr_entry; i++)
				named += strstr(rec.u.debug.entries[i].file, ".java") != NULL;
		}
		if (rec.id == JD_CODE_LOAD) {
			ordered &= rec.u.load.code_index > index_prev;
			index_prev = rec.u.load.code_index;
		}
	}
	cr_assert_eq(rc, 0, "%s", jd_reader_error(r));
	const struct jd_reader_stats *st = jd_reader_stats(r);
	cr_assert_eq(st->per_id[JD_CODE_LOAD], 460);
	cr_assert_eq(st->per_id[JD_CODE_DEBUG_INFO], 67);
	cr_assert_eq(st->per_id[JD_CODE_CLOSE], 1);
	cr_assert_eq(st->per_id[JD_CODE_UNWINDING_INFO], 0);
	cr_assert_eq(lines, 1298);
	cr_assert_eq(named, 1298);
	/* perf's agent takes code_index in one lock and writes the load in another: the file
	 * order is not the index order, so nothing may assume it. */
	cr_assert_not(ordered, "fixture changed: code_index now in file order");
	cr_assert_eq(st->truncated_bytes, 0);
	cr_assert_eq(jd_reader_size(r), len);
	jd_reader_close(r);
	free(buf);
}

/* Companion records in the other byte order: every field, the inline tables included. */
Test(reader, byte_swapped_companion)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t code[4] = { 0 };
	struct jd_inline_method m[] = { { "outer", "O.java" }, { "inner", "I.java" } };
	struct jd_inline_frame f[] = { { 1, 300, -1 }, { 0, -1, -1 } };
	struct jd_inline_pc pc[] = { { 0x10, 2, f }, { 0x12, 1, f + 1 } };
	struct jd_ext_inline in = { .nr_methods = 2, .nr_pcs = 2, .methods = m, .pcs = pc };
	struct jd_ext_load_info info = { .generation = 7, .tier = JD_TIER_C1,
					 .flags = 3 | JD_LOAD_IDS, .level = -1,
					 .compile_id = 0x0a0b0c, .osr_bci = 0x1234 };
	struct jd_load_desc d = { .name = "outer", .code_addr = 0x10, .code = code, .code_size = 4,
				  .info = &info, .inl = &in };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	struct jd_ext_unload u = { .code_addr = 0x10, .code_index = 1, .pid = 0x01020304 };
	cr_assert_eq(jd_write_unload(w, &u, 0x1122334455667788ull), 0);
	struct jd_ext_agent_stats st = { 1ull << 40, 2, 3, 4, 5, 6 };
	cr_assert_eq(jd_write_stats(w, &st), 0);
	char ext[4200];
	jd_ext_path(jd_writer_path(w), ext, sizeof(ext));
	cr_assert_eq(jd_writer_close(w), 0);
	size_t len;
	uint8_t *buf = tu_read_file(ext, &len);
	cr_assert_eq(jdt_swap_file(buf, len), 0);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "sw.jitprof", jd_err, sizeof(jd_err)), 0, "%s", jd_err);
	cr_assert(jd_reader_is_ext(r));
	cr_assert_eq(jd_reader_stats(r)->byte_swapped, 1);
	struct jd_record rec;
	cr_assert_eq(jd_reader_next(r, &rec), 1);
	cr_assert_eq(rec.id, JD_EXT_LOAD_INFO);
	cr_assert_eq(rec.u.load_info.generation, 7);
	cr_assert_eq(rec.u.load_info.level, -1);
	cr_assert_eq(rec.u.load_info.flags, 3 | JD_LOAD_IDS);
	cr_assert_eq(rec.u.load_info.compile_id, 0x0a0b0c);
	cr_assert_eq(rec.u.load_info.osr_bci, 0x1234);
	cr_assert_eq(jd_reader_next(r, &rec), 1);
	cr_assert_eq(rec.id, JD_EXT_INLINE);
	cr_assert_eq(rec.u.inl.nr_pcs, 2);
	cr_assert_eq(rec.u.inl.pcs[0].addr, 0x10);
	cr_assert_eq(rec.u.inl.pcs[0].depth, 2);
	cr_assert_eq(rec.u.inl.pcs[0].frames[0].method, 1);
	cr_assert_eq(rec.u.inl.pcs[0].frames[0].line, 300);
	cr_assert_eq(rec.u.inl.pcs[1].frames[0].line, -1);
	cr_assert_str_eq(rec.u.inl.methods[1].file, "I.java");
	cr_assert_eq(jd_reader_next(r, &rec), 1);
	cr_assert_eq(rec.id, JD_EXT_UNLOAD);
	cr_assert_eq(rec.timestamp, 0x1122334455667788ull);
	cr_assert_eq(rec.u.unload.pid, 0x01020304);
	cr_assert_eq(rec.u.unload.code_index, 1);
	cr_assert_eq(jd_reader_next(r, &rec), 1);
	cr_assert_eq(rec.id, JD_EXT_AGENT_STATS);
	cr_assert_eq(rec.u.stats.callback_ns, 1ull << 40);
	cr_assert_eq(rec.u.stats.dropped, 6);
	cr_assert_eq(jd_reader_next(r, &rec), 0);
	jd_reader_close(r);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 16 (findings 6 and 11): another user's dump is copied, not mapped, so truncating it
 * after the open cannot fault the reader; FIFOs and devices are refused without blocking;
 * jd_reader_open_at does not follow a link planted at the name. */
Test(reader, untrusted_files, .timeout = 20)
{
	char *dir = NULL, p[4096];
	size_t len;
	void *buf = jdt_sample_dump(&len, &dir);
	snprintf(p, sizeof(p), "%s/jit-7.dump", dir);
	cr_assert_eq(tu_write_file(p, buf, len), 0);
	struct jd_reader *r;
	struct jd_record rec;
	cr_assert_eq(jd_reader_open(&r, p, jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(truncate(p, 0), 0);
	uint64_t n = 0;
	int rc;
	while ((rc = jd_reader_next(r, &rec)) > 0)
		n++;
	cr_assert_eq(rc, 0, "%s", jd_reader_error(r));
	struct jdt_counts c;
	char err[256];
	cr_assert_eq(jdt_count_mem(buf, len, &c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n, c.records, "records lost after the file shrank");
	jd_reader_close(r);

	snprintf(p, sizeof(p), "%s/jit-8.dump", dir);
	cr_assert_eq(mkfifo(p, 0600), 0);
	cr_assert_eq(jd_reader_open(&r, p, jd_err, sizeof(jd_err)), -EINVAL);
	cr_assert(strstr(jd_err, "not a regular file"), "%s", jd_err);
	cr_assert_eq(jd_reader_open(&r, "/dev/zero", jd_err, sizeof(jd_err)), -EINVAL);

	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(p, sizeof(p), "%s/jit-9.dump", dir);
	cr_assert_eq(symlink("jit-7.dump", p), 0);
	cr_assert_eq(jd_reader_open_at(&r, dfd, "jit-9.dump", p, jd_err, sizeof(jd_err)), -ELOOP);
	cr_assert(strstr(jd_err, p), "%s", jd_err);
	close(dfd);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* A DEBUG_INFO entry that spells out the entry before's file name again (our agent and perf's
 * write every entry's in full) comes back with that entry's very string, so a reader that
 * checks each string once (synth) checks a run of rows once; a different name, even one seen
 * earlier, is its own. */
Test(reader, a_repeated_file_name_is_the_entry_befores_string)
{
	char *dir = tu_tmpdir("jdrepeat");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w = NULL;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	static const uint8_t code[32] = { 0xc3 };
	const struct jd_line rows[] = { { 0x1000, 1, 0, "A.java" }, { 0x1004, 2, 0, "A.java" },
					{ 0x1008, 3, 0, "B.java" }, { 0x100c, 4, 0, "B.java" },
					{ 0x1010, 5, 0, "A.java" } };
	struct jd_load_desc ld = { .name = "Lx;f()V", .code_addr = 0x1000, .code = code,
				   .code_size = sizeof(code), .lines = rows, .nr_lines = 5 };
	uint64_t ci;
	cr_assert_eq(jd_write_load(w, &ld, &ci), 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	struct jd_reader *r = NULL;
	cr_assert_eq(jd_reader_open(&r, path, jd_err, sizeof(jd_err)), 0, "%s", jd_err);
	struct jd_record rec;
	int seen = 0;
	while (jd_reader_next(r, &rec) > 0) {
		if (rec.id != JD_CODE_DEBUG_INFO)
			continue;
		const struct jd_line *e = rec.u.debug.entries;
		cr_assert_eq(rec.u.debug.nr_entry, 5);
		for (int i = 0; i < 5; i++)
			cr_assert_str_eq(e[i].file, rows[i].file, "entry %d", i);
		cr_assert_eq(e[1].file, e[0].file, "a repeat is the entry before's string");
		cr_assert_eq(e[3].file, e[2].file);
		cr_assert_neq(e[2].file, e[1].file);
		cr_assert_neq(e[4].file, e[3].file);
		seen = 1;
	}
	cr_assert(seen, "no DEBUG_INFO read");
	jd_reader_close(r);
	tu_rmtree(dir);
	free(dir);
}
