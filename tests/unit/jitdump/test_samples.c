/* test_samples.c - the runtime's own samples (JD_EXT_SAMPLE: an allocation or a lock wait
 * with its Java stack) and the names of their frames' method ids (JD_EXT_JMETHOD): written,
 * read back field by field; damaged records refused with what is wrong, never read past. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* The companion of w, closed, read whole (*len bytes, malloc'd); *dir to remove. */
static uint8_t *companion_of(struct jd_writer *w, size_t *len)
{
	char path[4300];
	snprintf(path, sizeof(path), "%s.jitprof", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	uint8_t *buf = tu_read_file(path, len);
	cr_assert_not_null(buf);
	return buf;
}

static const struct jd_java_frame frames[] = {
	{ .method = 0x7f0000001000ull, .bci = 4, .line = 12 },
	{ .method = 0x7f0000002000ull, .bci = -1, .line = 0 },
	{ .method = 0x7f0000003000ull, .bci = 77, .line = 40 },
};

Test(samples, written_and_read_back)
{
	char *dir, err[512];
	struct jd_writer *w = jdt_writer(&dir, 0);
	struct jd_ext_jmethod jm = { .method = 0x7f0000001000ull, .name = "LA;make()V",
				     .file = "A.java" };
	struct jd_ext_sample a = { .kind = JD_SAMPLE_ALLOC, .tid = 4242, .weight = 524288,
				   .size = 24, .nr_frames = 3, .frames = frames,
				   .klass = "Ljava/lang/String;" };
	struct jd_ext_sample l = { .kind = JD_SAMPLE_LOCK, .tid = 7, .weight = 1500000,
				   .nr_frames = 1, .frames = frames, .klass = "LLocks$Box;" };
	cr_assert_eq(jd_write_jmethod(w, &jm, 100), 0);
	cr_assert_eq(jd_write_sample(w, &a, 101), 0);
	cr_assert_eq(jd_write_sample(w, &l, 102), 0);
	struct jd_ext_sample bad = { .kind = JD_SAMPLE_ALLOC, .nr_frames = 2 };
	cr_assert_eq(jd_write_sample(w, &bad, 0), -EINVAL);
	struct jd_ext_jmethod noname = { .method = 1 };
	cr_assert_eq(jd_write_jmethod(w, &noname, 0), -EINVAL);

	size_t len;
	uint8_t *buf = companion_of(w, &len);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "c", err, sizeof(err)), 0, "%s", err);
	struct jd_record rec;
	jdt_next_or_die(r, &rec, JD_EXT_JMETHOD);
	cr_assert_eq(rec.timestamp, 100);
	cr_assert_eq(rec.u.jmethod.method, 0x7f0000001000ull);
	cr_assert_str_eq(rec.u.jmethod.name, "LA;make()V");
	cr_assert_str_eq(rec.u.jmethod.file, "A.java");
	jdt_next_or_die(r, &rec, JD_EXT_SAMPLE);
	const struct jd_ext_sample *s = &rec.u.sample;
	cr_assert_eq(rec.timestamp, 101);
	cr_assert_eq(s->kind, JD_SAMPLE_ALLOC);
	cr_assert_eq(s->tid, 4242);
	cr_assert_eq(s->weight, 524288);
	cr_assert_eq(s->size, 24);
	cr_assert_eq(s->nr_frames, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(s->frames[i].method, frames[i].method);
		cr_assert_eq(s->frames[i].bci, frames[i].bci);
		cr_assert_eq(s->frames[i].line, frames[i].line);
	}
	cr_assert_str_eq(s->klass, "Ljava/lang/String;");
	jdt_next_or_die(r, &rec, JD_EXT_SAMPLE);
	cr_assert_eq(rec.u.sample.kind, JD_SAMPLE_LOCK);
	cr_assert_eq(rec.u.sample.weight, 1500000);
	cr_assert_eq(rec.u.sample.nr_frames, 1);
	cr_assert_str_eq(rec.u.sample.klass, "LLocks$Box;");
	jd_reader_close(r);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* A companion of one SAMPLE (then one JMETHOD) record, the first one's bytes changed by
 * mutate; the reader's verdict. */
static int read_mutated(void (*mutate)(uint8_t *rec, size_t len), char *err, size_t errlen)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	struct jd_ext_sample a = { .kind = JD_SAMPLE_ALLOC, .tid = 1, .weight = 8, .size = 8,
				   .nr_frames = 2, .frames = frames, .klass = "LX;" };
	struct jd_ext_jmethod jm = { .method = 9, .name = "LA;a()V", .file = "A" };
	cr_assert_eq(jd_write_sample(w, &a, 1), 0);
	cr_assert_eq(jd_write_jmethod(w, &jm, 2), 0);
	size_t len;
	uint8_t *buf = companion_of(w, &len);
	uint32_t hsize, rsize;
	memcpy(&hsize, buf + 8, 4);
	memcpy(&rsize, buf + hsize + 4, 4);
	mutate(buf + hsize, rsize);
	struct jdt_counts c;
	int rc = jdt_count_mem(buf, len, &c, err, errlen);
	free(buf);
	tu_rmtree(dir);
	free(dir);
	return rc;
}

static void huge_count(uint8_t *rec, size_t len)
{
	(void)len;
	uint32_t n = 0xffffffffu;
	memcpy(rec + 40, &n, 4);
}

static void one_frame_too_many(uint8_t *rec, size_t len)
{
	(void)len;
	uint32_t n = 3;	/* 2 frames and "LX;\0" fit; a third would eat the class name */
	memcpy(rec + 40, &n, 4);
}

static void class_unterminated(uint8_t *rec, size_t len)
{
	memset(rec + 48 + 2 * 16, 'x', len - 48 - 2 * 16);
}

static void truncated(uint8_t *rec, size_t len)
{
	(void)len;
	uint32_t n = 40;	/* shorter than the fixed part */
	memcpy(rec + 4, &n, 4);
}

static void garbage_ids(uint8_t *rec, size_t len)
{
	(void)len;
	memset(rec + 48, 0xff, 8);	/* a method id nothing names: still a sample */
	uint32_t kind = 99;
	memcpy(rec + 16, &kind, 4);
}

Test(samples, damaged_records_are_refused_with_what)
{
	char err[512];
	cr_assert_lt(read_mutated(huge_count, err, sizeof(err)), 0);
	cr_assert(strstr(err, "SAMPLE frame count 4294967295 cannot fit"), "%s", err);
	cr_assert(strstr(err, "offset"), "names the offset: %s", err);
	cr_assert_lt(read_mutated(one_frame_too_many, err, sizeof(err)), 0);
	cr_assert(strstr(err, "SAMPLE frame count 3"), "%s", err);
	cr_assert_lt(read_mutated(class_unterminated, err, sizeof(err)), 0);
	cr_assert(strstr(err, "SAMPLE class name is not NUL-terminated"), "%s", err);
	cr_assert_lt(read_mutated(truncated, err, sizeof(err)), 0);
	cr_assert(strstr(err, "SAMPLE record of 40 bytes"), "%s", err);
	/* Garbage the format cannot see (an unknown kind, a method id never named) is data:
	 * delivered as read, for the consumer to leave out. */
	cr_assert_eq(read_mutated(garbage_ids, err, sizeof(err)), 0, "%s", err);
}

/* The companion's header says whether it holds a sample (JD_EXT_FLAG_SAMPLES, set in place
 * before the first is written), and a reader asked for the header alone reads only it: its
 * flags, the clock's flag kept beside, and no record. */
Test(samples, the_header_says_whether_there_are_any)
{
	char *dir, err[512], path[4300];
	struct jd_reader *r;
	struct jd_record rec;
	struct jd_writer *w = jdt_writer(&dir, 0);
	struct jd_ext_jmethod jm = { .method = 0x7f0000001000ull, .name = "LA;make()V",
				     .file = "A.java" };
	cr_assert_eq(jd_write_jmethod(w, &jm, 100), 0);
	snprintf(path, sizeof(path), "%s.jitprof", jd_writer_path(w));
	cr_assert_eq(jd_writer_flush(w), 0);
	cr_assert_eq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_HEADER, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert_eq(jd_reader_header(r)->flags & JD_EXT_FLAG_SAMPLES, 0, "no sample yet");
	cr_assert_eq(jd_reader_next(r, &rec), 0, "the header alone: no record");
	jd_reader_close(r);

	struct jd_ext_sample a = { .kind = JD_SAMPLE_ALLOC, .tid = 1, .weight = 4096,
				   .nr_frames = 1, .frames = frames, .klass = "[J" };
	cr_assert_eq(jd_write_sample(w, &a, 101), 0);
	cr_assert_eq(jd_write_sample(w, &a, 102), 0);
	cr_assert_eq(jd_writer_flush(w), 0);
	cr_assert_eq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_HEADER, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert_neq(jd_reader_header(r)->flags & JD_EXT_FLAG_SAMPLES, 0);
	cr_assert_eq(jd_reader_header(r)->magic, JD_EXT_MAGIC);
	jd_reader_close(r);
	/* The whole file reads as before: the flag changed no record. */
	size_t len;
	uint8_t *buf = companion_of(w, &len);
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "c", err, sizeof(err)), 0, "%s", err);
	cr_assert_neq(jd_reader_header(r)->flags & JD_EXT_FLAG_SAMPLES, 0);
	jdt_next_or_die(r, &rec, JD_EXT_JMETHOD);
	jdt_next_or_die(r, &rec, JD_EXT_SAMPLE);
	jdt_next_or_die(r, &rec, JD_EXT_SAMPLE);
	cr_assert_eq(jd_reader_next(r, &rec), 0);
	jd_reader_close(r);
	free(buf);
	/* A file shorter than a header is refused, header alone or not. */
	snprintf(path, sizeof(path), "%s/short", dir);
	cr_assert_eq(tu_write_file(path, "JPX1", 4), 0);
	cr_assert_neq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_HEADER, err,
					   sizeof(err)), 0);
	cr_assert(strstr(err, "shorter than the 40-byte"), "%s", err);
	tu_rmtree(dir);
	free(dir);
}
