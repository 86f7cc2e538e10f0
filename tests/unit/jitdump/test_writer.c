/* test_writer.c - jitdump/writer.c, write.c, encode.c: every record type written and read
 * back field by field, the companion file and its versions, units bigger than the buffer, one
 * spelling of tiers. What the writer does with files (crashes, failures, the marker mapping,
 * clocks, where dumps go) is in test_writer_files.c. */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

/* lib/opts.h's rule on the installed ABI: an older caller's smaller struct gets defaults
 * (whatever lies beyond its sz is not read), a newer caller's unknown non-zero bytes are
 * refused with -EINVAL, zero ones accepted. */
Test(writer, opts_size_rule)
{
	char *dir = tu_tmpdir("jd-opts");
	struct jd_writer *w;
	struct jd_writer_opts small;
	memset(&small, 0xff, sizeof(small));	/* garbage clock/buffer/... past sz */
	small.sz = offsetof(struct jd_writer_opts, dir) + sizeof(small.dir);
	small.dir = dir;
	cr_assert_eq(jd_writer_open(&w, &small), 0);
	cr_assert_eq(jd_writer_close(w), 0);

	struct { struct jd_writer_opts o; uint64_t newer; } big;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.dir = dir;
	big.newer = 1;
	w = (struct jd_writer *)&big;
	cr_assert_eq(jd_writer_open(&w, &big.o), -EINVAL);
	cr_assert_null(w);
	big.newer = 0;
	cr_assert_eq(jd_writer_open(&w, &big.o), 0);
	cr_assert_eq(jd_writer_close(w), 0);
	tu_rmtree(dir);
	free(dir);
}

/* sz is required: a program built against an older, smaller struct that left sz 0 had the
 * bytes past its struct read as this version's fields (ASan: a stack-buffer-overflow read).
 * The older struct here is the 1.0 layout up to `clock`, with live stack bytes after it. */
Test(writer, opts_without_size_refused)
{
	char *dir = tu_tmpdir("jd-opts0");
	struct jd_writer *w = (struct jd_writer *)dir;
	struct {
		size_t sz;
		const char *dir;
		enum jd_clock clock;
	} older = { 0, dir, JD_CLOCK_MONOTONIC };
	cr_assert_eq(jd_writer_open(&w, (const struct jd_writer_opts *)&older), -EINVAL);
	cr_assert_null(w);
	older.sz = sizeof(older);	/* the same caller, saying its size: accepted */
	cr_assert_eq(jd_writer_open(&w, (const struct jd_writer_opts *)&older), 0);
	cr_assert_eq(jd_writer_close(w), 0);
	JD_OPTS(jd_writer_opts, o, .dir = dir);
	cr_assert_eq(o.sz, sizeof(struct jd_writer_opts));
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	cr_assert_eq(jd_writer_close(w), 0);
	tu_rmtree(dir);
	free(dir);
}

Test(writer, every_record_round_trips)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t code[37], unwind[20];
	for (size_t i = 0; i < sizeof(code); i++)
		code[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < sizeof(unwind); i++)
		unwind[i] = (uint8_t)(200 - i);
	struct jd_line lines[] = {
		{ 0x7000, 5, 0, "Foo.java" }, { 0x7004, 6, 2, "Foo.java" },
		{ 0x7008, 40, 0, "Bar.java" }, { 0x7010, 7, 0, NULL },
	};
	struct jd_inline_method meth[] = { { "LFoo;run()V", "Foo.java" }, { "LBar;get()I", "" } };
	struct jd_inline_frame fr0[] = { { 1, 40, -1 }, { 0, 6, -1 } }, fr1[] = { { 0, 7, -1 } };
	struct jd_inline_pc pcs[] = { { 0x7008, 2, fr0 }, { 0x7010, 1, fr1 } };
	struct jd_ext_inline inl = { .nr_methods = 2, .nr_pcs = 2, .methods = meth, .pcs = pcs };
	struct jd_ext_load_info info = { .generation = 3, .tier = JD_TIER_C2,
					 .flags = JD_LOAD_OSR, .level = 4 };
	struct jd_load_desc d = {
		.name = "LFoo;run()V", .code_addr = 0x7000, .code = code, .code_size = sizeof(code),
		.timestamp = 1234, .pid = 77, .tid = 78, .lines = lines, .nr_lines = 4,
		.unwind = unwind, .unwind_size = sizeof(unwind), .eh_frame_hdr_size = 8,
		.mapped_size = sizeof(unwind), .info = &info, .inl = &inl,
	};
	uint64_t idx1 = 0, idx2 = 0;
	cr_assert_eq(jd_write_load(w, &d, &idx1), 0);
	struct jd_load_desc d2 = { .name = "stub", .code_addr = 0x9000, .code = code,
				   .code_size = 3 };
	uint64_t before = jdt_clock_ns(CLOCK_MONOTONIC);
	cr_assert_eq(jd_write_load(w, &d2, &idx2), 0);
	uint64_t after = jdt_clock_ns(CLOCK_MONOTONIC);
	cr_assert_eq(idx1, 1);
	cr_assert_eq(idx2, 2);
	struct jd_code_move m = { .vma = 0xa000, .old_code_addr = 0x9000, .new_code_addr = 0xa000,
				  .code_size = 3, .code_index = idx2 };
	cr_assert_eq(jd_write_move(w, &m, 5555), 0);
	struct jd_ext_unload u = { .code_addr = 0xa000, .code_index = idx2 };
	cr_assert_eq(jd_write_unload(w, &u, 6666), 0);
	struct jd_ext_agent_stats st = { 11, 12, 13, 14, 15, 16 };
	cr_assert_eq(jd_write_stats(w, &st), 0);
	char path[4096], ext[4200];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);

	struct jd_reader *r = jdt_open_or_die(path);
	const struct jd_header *h = jd_reader_header(r);
	cr_assert_eq(h->magic, JD_MAGIC);
	cr_assert_eq(h->version, 1);
	cr_assert_eq(h->total_size, 40);
	cr_assert_eq(h->pid, (uint32_t)getpid());
	cr_assert_eq(h->flags, 0);
#ifdef __x86_64__
	cr_assert_eq(h->elf_mach, EM_X86_64);
#endif
	cr_assert_not(jd_reader_is_ext(r));
	struct jd_record rec;
	jdt_next_or_die(r, &rec, JD_CODE_UNWINDING_INFO);
	cr_assert_eq(rec.timestamp, 1234);
	cr_assert_eq(rec.u.unwind.unwinding_size, sizeof(unwind));
	cr_assert_eq(rec.u.unwind.eh_frame_hdr_size, 8);
	cr_assert_eq(rec.u.unwind.mapped_size, sizeof(unwind));
	cr_assert_arr_eq(rec.u.unwind.data, unwind, sizeof(unwind));
	jdt_next_or_die(r, &rec, JD_CODE_DEBUG_INFO);
	cr_assert_eq(rec.u.debug.code_addr, 0x7000);
	cr_assert_eq(rec.u.debug.nr_entry, 4);
	const struct jd_line *e = rec.u.debug.entries;
	const char *want_file[] = { "Foo.java", "Foo.java", "Bar.java", "Bar.java" };
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(e[i].addr, lines[i].addr);
		cr_assert_eq(e[i].line, lines[i].line);
		cr_assert_eq(e[i].discrim, lines[i].discrim);
		cr_assert_str_eq(e[i].file, want_file[i]);
	}
	/* Repeats went to disk in full: perf 6.1 does not know the "\xff" shorthand. */
	cr_assert_eq(rec.total_size, 32 + 4 * 16 + 4 * 9);
	jdt_next_or_die(r, &rec, JD_CODE_LOAD);
	cr_assert_eq(rec.timestamp, 1234);
	cr_assert_eq(rec.u.load.pid, 77);
	cr_assert_eq(rec.u.load.tid, 78);
	cr_assert_eq(rec.u.load.vma, 0x7000);
	cr_assert_eq(rec.u.load.code_addr, 0x7000);
	cr_assert_eq(rec.u.load.code_size, sizeof(code));
	cr_assert_eq(rec.u.load.code_index, 1);
	cr_assert_str_eq(rec.u.load.name, "LFoo;run()V");
	cr_assert_arr_eq(rec.u.load.code, code, sizeof(code));
	jdt_next_or_die(r, &rec, JD_CODE_LOAD);
	cr_assert(rec.timestamp >= before && rec.timestamp <= after);
	cr_assert_eq(rec.u.load.pid, (uint32_t)getpid());
	cr_assert_eq(rec.u.load.tid, (uint32_t)gettid());
	jdt_next_or_die(r, &rec, JD_CODE_MOVE);
	cr_assert_eq(rec.timestamp, 5555);
	cr_assert_eq(rec.u.move.old_code_addr, 0x9000);
	cr_assert_eq(rec.u.move.new_code_addr, 0xa000);
	cr_assert_eq(rec.u.move.vma, 0xa000);
	cr_assert_eq(rec.u.move.code_size, 3);
	cr_assert_eq(rec.u.move.code_index, 2);
	jdt_next_or_die(r, &rec, JD_CODE_CLOSE);
	cr_assert_eq(jd_reader_next(r, &rec), 0);
	cr_assert_eq(jd_reader_stats(r)->records, 6);
	cr_assert_eq(jd_reader_stats(r)->unknown_skipped, 0);
	jd_reader_close(r);

	cr_assert_eq(jd_ext_path(path, ext, sizeof(ext)), 0);
	r = jdt_open_or_die(ext);
	cr_assert(jd_reader_is_ext(r));
	cr_assert_eq(jd_reader_header(r)->magic, JD_EXT_MAGIC);
	jdt_next_or_die(r, &rec, JD_EXT_LOAD_INFO);
	cr_assert_eq(rec.timestamp, 1234);
	cr_assert_eq(rec.u.load_info.code_index, 1);
	cr_assert_eq(rec.u.load_info.code_addr, 0x7000);
	cr_assert_eq(rec.u.load_info.generation, 3);
	cr_assert_eq(rec.u.load_info.tier, JD_TIER_C2);
	cr_assert_eq(rec.u.load_info.flags, JD_LOAD_OSR);
	cr_assert_eq(rec.u.load_info.level, 4);
	jdt_next_or_die(r, &rec, JD_EXT_INLINE);
	const struct jd_ext_inline *in = &rec.u.inl;
	cr_assert_eq(in->code_index, 1);
	cr_assert_eq(in->nr_methods, 2);
	cr_assert_eq(in->nr_pcs, 2);
	cr_assert_str_eq(in->methods[1].name, "LBar;get()I");
	cr_assert_str_eq(in->methods[0].file, "Foo.java");
	cr_assert_eq(in->pcs[0].addr, 0x7008);
	cr_assert_eq(in->pcs[0].depth, 2);
	cr_assert_eq(in->pcs[0].frames[0].method, 1);
	cr_assert_eq(in->pcs[0].frames[0].line, 40);
	cr_assert_eq(in->pcs[0].frames[1].line, 6);
	cr_assert_eq(in->pcs[1].frames[0].line, 7);
	jdt_next_or_die(r, &rec, JD_EXT_UNLOAD);
	cr_assert_eq(rec.timestamp, 6666);
	cr_assert_eq(rec.u.unload.code_addr, 0xa000);
	cr_assert_eq(rec.u.unload.code_index, 2);
	cr_assert_eq(rec.u.unload.pid, (uint32_t)getpid());
	jdt_next_or_die(r, &rec, JD_EXT_AGENT_STATS);
	cr_assert_eq(rec.u.stats.callback_ns, 11);
	cr_assert_eq(rec.u.stats.dropped, 16);
	cr_assert_eq(jd_reader_next(r, &rec), 0);
	jd_reader_close(r);
	tu_rmtree(dir);
	free(dir);
}

/* Opted in, repeated files go out as "\xff" and come back resolved. */
Test(writer, same_file_shorthand)
{
	char *dir = tu_tmpdir("jd");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir, .same_file_shorthand = 1 };
	struct jd_writer *w;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint8_t code[8] = { 0 };
	struct jd_line lines[] = { { 0x10, 1, 0, "A.java" }, { 0x12, 2, 0, "A.java" },
				   { 0x14, 3, 0, NULL }, { 0x16, 4, 0, "B.java" } };
	struct jd_load_desc d = { .name = "f", .code_addr = 0x10, .code = code, .code_size = 8,
				  .lines = lines, .nr_lines = 4 };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	size_t len;
	char *raw = tu_read_file(path, &len);
	size_t copies = 0;
	for (char *at = raw; (at = memmem(at, len - (size_t)(at - raw), "A.java", 6)); at++)
		copies++;
	cr_assert_eq(copies, 1, "the repeated file name was written %zu times", copies);
	free(raw);
	struct jd_reader *r = jdt_open_or_die(path);
	struct jd_record rec;
	jdt_next_or_die(r, &rec, JD_CODE_DEBUG_INFO);
	cr_assert_eq(rec.total_size, 32 + 4 * 16 + 7 + 2 + 2 + 7);
	const char *want[] = { "A.java", "A.java", "A.java", "B.java" };
	for (int i = 0; i < 4; i++)
		cr_assert_str_eq(rec.u.debug.entries[i].file, want[i]);
	jd_reader_close(r);
	tu_rmtree(dir);
	free(dir);
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

Test(writer, companion_only_when_needed)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t c = 0xc3;
	struct jd_load_desc d = { .name = "f", .code_addr = 1, .code = &c, .code_size = 1 };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	char ext[4200];
	jd_ext_path(jd_writer_path(w), ext, sizeof(ext));
	cr_assert_eq(jd_writer_close(w), 0);
	cr_assert_not(file_exists(ext), "plain loads made a companion file %s", ext);
	tu_rmtree(dir);
	free(dir);

	/* no_ext: companion data is dropped, never a file. */
	dir = tu_tmpdir("jd");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir, .no_ext = 1 };
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	struct jd_ext_load_info info = { .generation = 1 };
	d.info = &info;
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	struct jd_ext_unload u = { .code_addr = 1 };
	cr_assert_eq(jd_write_unload(w, &u, 0), 0);
	jd_ext_path(jd_writer_path(w), ext, sizeof(ext));
	cr_assert_eq(jd_writer_close(w), 0);
	cr_assert_not(file_exists(ext));
	tu_rmtree(dir);
	free(dir);
}

/* LOAD_INFO is versioned by size: 48 bytes without JD_LOAD_IDS (what older agents wrote, and
 * what a caller of the 24-byte struct gets), 56 with compile_id and osr_bci. Both read back;
 * a version-1 record gives -1 for both. The flag on a 48-byte record is damage, refused. */
Test(writer, load_info_versions)
{
	char *dir, ext[4200];
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t c = 0xc3, *buf;
	struct jd_ext_load_info v1 = { .generation = 1, .tier = JD_TIER_C1, .level = 3,
				       .compile_id = 99, .osr_bci = 98 };
	struct jd_ext_load_info v2 = { .generation = 2, .tier = JD_TIER_C2, .level = 4,
				       .flags = JD_LOAD_IDS | JD_LOAD_OSR, .compile_id = 4711,
				       .osr_bci = 23 };
	struct jd_load_desc d = { .name = "f", .code_addr = 1, .code = &c, .code_size = 1,
				  .info = &v1 };
	struct jd_record rec;
	struct jd_reader *r;
	size_t len;

	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	d.info = &v2;
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	jd_ext_path(jd_writer_path(w), ext, sizeof(ext));
	cr_assert_eq(jd_writer_close(w), 0);
	r = jdt_open_or_die(ext);
	jdt_next_or_die(r, &rec, JD_EXT_LOAD_INFO);
	cr_assert_eq(rec.total_size, 48);
	cr_assert_eq(rec.u.load_info.level, 3);
	cr_assert_eq(rec.u.load_info.compile_id, -1, "ids without JD_LOAD_IDS must not be written");
	cr_assert_eq(rec.u.load_info.osr_bci, -1);
	jdt_next_or_die(r, &rec, JD_EXT_LOAD_INFO);
	cr_assert_eq(rec.total_size, 56);
	cr_assert_eq(rec.u.load_info.generation, 2);
	cr_assert_eq(rec.u.load_info.compile_id, 4711);
	cr_assert_eq(rec.u.load_info.osr_bci, 23);
	cr_assert_eq(rec.u.load_info.flags, JD_LOAD_IDS | JD_LOAD_OSR);
	jd_reader_close(r);

	/* The flag set in the 48-byte record: refused with its offset. */
	buf = tu_read_file(ext, &len);
	cr_assert_not_null(buf);
	uint32_t flags = JD_LOAD_IDS;
	memcpy(buf + 40 + 16 + 24, &flags, 4);
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "damaged.jitprof", jd_err, sizeof(jd_err)), 0);
	cr_assert_lt(jd_reader_next(r, &rec), 0);
	cr_assert(strstr(jd_reader_error(r), "no room"), "%s", jd_reader_error(r));
	cr_assert(strstr(jd_reader_error(r), "damaged.jitprof"), "%s", jd_reader_error(r));
	jd_reader_close(r);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* INLINE is versioned by size too: version 1 (no JD_INLINE_BCI, what older agents wrote and
 * what a caller leaving bci 0 gets) reads back with bci -1; version 2 appends one i32 bci per
 * frame after the strings, so an older reader, which stops at the strings, still reads the
 * rest. A tail of any other length is damage, refused with the file's name. */
Test(writer, inline_versions)
{
	char *dir, ext[4200];
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t c = 0xc3, *buf;
	struct jd_inline_method meth[] = { { "LFoo;run()V", "Foo.java" }, { "LBar;get()I", "" } };
	struct jd_inline_frame fr0[] = { { 1, 40, 3 }, { 0, 6, 17 } }, fr1[] = { { 0, 7, 0 } };
	struct jd_inline_pc pcs[] = { { 1, 2, fr0 }, { 2, 1, fr1 } };
	struct jd_ext_inline inl = { .nr_methods = 2, .nr_pcs = 2, .methods = meth, .pcs = pcs };
	struct jd_load_desc d = { .name = "f", .code_addr = 1, .code = &c, .code_size = 1,
				  .inl = &inl };
	struct jd_record rec;
	struct jd_reader *r;
	size_t len;

	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	inl.flags = JD_INLINE_BCI;
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	jd_ext_path(jd_writer_path(w), ext, sizeof(ext));
	cr_assert_eq(jd_writer_close(w), 0);
	r = jdt_open_or_die(ext);
	jdt_next_or_die(r, &rec, JD_EXT_INLINE);
	uint32_t v1size = rec.total_size;
	cr_assert_eq(rec.u.inl.flags, 0);
	cr_assert_eq(rec.u.inl.pcs[0].frames[1].line, 6);
	cr_assert_eq(rec.u.inl.pcs[0].frames[1].bci, -1, "bcis without JD_INLINE_BCI are unknown");
	cr_assert_eq(rec.u.inl.pcs[1].frames[0].bci, -1);
	jdt_next_or_die(r, &rec, JD_EXT_INLINE);
	cr_assert_eq(rec.total_size, v1size + 3 * 4, "one i32 per frame: %u", rec.total_size);
	cr_assert_eq(rec.u.inl.flags, JD_INLINE_BCI);
	cr_assert_eq(rec.u.inl.pcs[0].frames[0].bci, 3);
	cr_assert_eq(rec.u.inl.pcs[0].frames[1].bci, 17);
	cr_assert_eq(rec.u.inl.pcs[0].frames[1].line, 6);
	cr_assert_eq(rec.u.inl.pcs[1].frames[0].bci, 0);
	cr_assert_str_eq(rec.u.inl.methods[1].name, "LBar;get()I");
	uint64_t v2off = rec.offset;
	jd_reader_close(r);

	/* The version-2 record cut by 4 bytes (its size says so): two of three bcis. */
	buf = tu_read_file(ext, &len);
	cr_assert(buf && len >= v2off + rec.total_size);
	uint32_t cut = rec.total_size - 4;
	memcpy(buf + v2off + 4, &cut, 4);
	cr_assert_eq(jd_reader_open_mem(&r, buf, v2off + cut, "damaged.jitprof", jd_err, sizeof(jd_err)), 0);
	cr_assert_eq(jd_reader_next(r, &rec), 1);
	cr_assert_lt(jd_reader_next(r, &rec), 0);
	cr_assert(strstr(jd_reader_error(r), "bci per frame"), "%s", jd_reader_error(r));
	cr_assert(strstr(jd_reader_error(r), "damaged.jitprof"), "%s", jd_reader_error(r));
	jd_reader_close(r);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* A unit far bigger than the buffer goes out whole and in order, between buffered ones. */
Test(writer, unit_bigger_than_buffer)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 256);
	size_t big = 300000, nl = 2000;
	uint8_t *code = malloc(big);
	struct jd_line *lines = calloc(nl, sizeof(*lines));
	for (size_t i = 0; i < big; i++)
		code[i] = (uint8_t)(i ^ (i >> 8));
	for (size_t i = 0; i < nl; i++)
		lines[i] = (struct jd_line){ 0x100000 + i * 16, (int32_t)i + 1, 0,
					     i % 3 ? "x.c" : "a-rather-long-file-name.c" };
	uint8_t small[4] = { 1, 2, 3, 4 };
	for (int k = 0; k < 3; k++) {
		struct jd_load_desc s = { .name = "small", .code_addr = 0x10 + k, .code = small,
					  .code_size = 4 };
		cr_assert_eq(jd_write_load(w, &s, NULL), 0);
		struct jd_load_desc d = { .name = "big", .code_addr = 0x100000, .code = code,
					  .code_size = big, .lines = lines, .nr_lines = nl };
		cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	struct jd_reader *r = jdt_open_or_die(path);
	struct jd_record rec;
	for (int k = 0; k < 3; k++) {
		jdt_next_or_die(r, &rec, JD_CODE_LOAD);
		cr_assert_eq(rec.u.load.code_addr, 0x10u + k);
		jdt_next_or_die(r, &rec, JD_CODE_DEBUG_INFO);
		cr_assert_eq(rec.u.debug.nr_entry, nl);
		cr_assert_eq(rec.u.debug.entries[nl - 1].line, (int32_t)nl);
		cr_assert_str_eq(rec.u.debug.entries[nl - 1].file, "x.c");
		cr_assert_str_eq(rec.u.debug.entries[nl - 2].file, "a-rather-long-file-name.c");
		jdt_next_or_die(r, &rec, JD_CODE_LOAD);
		cr_assert_eq(rec.u.load.code_size, big);
		cr_assert_eq(memcmp(rec.u.load.code, code, big), 0);
	}
	jdt_next_or_die(r, &rec, JD_CODE_CLOSE);
	jd_reader_close(r);
	free(code);
	free(lines);
	tu_rmtree(dir);
	free(dir);
}

/* One spelling of tiers for every view (report's table and `jitprof jitdump` alike). */
Test(writer, tier_names)
{
	cr_assert_str_eq(jd_tier_name(JD_TIER_UNKNOWN), "unknown");
	cr_assert_str_eq(jd_tier_name(JD_TIER_INTERPRETER), "interp");
	cr_assert_str_eq(jd_tier_name(JD_TIER_C1), "C1");
	cr_assert_str_eq(jd_tier_name(JD_TIER_C2), "C2");
	cr_assert_str_eq(jd_tier_name(JD_TIER_STUB), "stub");
	cr_assert_str_eq(jd_tier_name(JD_TIER_OTHER), "other");
	cr_assert_str_eq(jd_tier_name(JD_TIER_OTHER + 1), "?");
}

