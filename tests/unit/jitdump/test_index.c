/* test_index.c - jitdump/index.c: generations per name, DEBUG_INFO/UNWINDING_INFO pairing
 * (perf's rule plus the address check), companion data joined by code_index, unloads by index
 * or by address and time, moves, and perf's agent's dump. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

#define FIXTURE "../shared/fixtures/perf-jvmti/jit-27543.dump"

static struct jd_index *open_index(const char *path)
{
	struct jd_index *x;
	char err[512];
	int rc = jd_index_open(&x, path, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s", err);
	return x;
}

/* The id of the record at byte offset off of a dump or companion (0: none starts there). */
static uint32_t id_at(const char *path, uint64_t off)
{
	struct jd_reader *r;
	struct jd_record rec;
	uint32_t id = 0;
	cr_assert_eq(jd_reader_open(&r, path, jd_err, sizeof(jd_err)), 0);
	while (!id && jd_reader_next(r, &rec) == 1)
		if (rec.offset == off)
			id = rec.id;
	jd_reader_close(r);
	return id;
}

Test(index, generations_lines_unwind_companion)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t code[16] = { 0 }, uw[12] = { 9 };
	struct jd_line l1[] = { { 0x100, 1, 0, "m.c" }, { 0x104, 2, 0, "m.c" } };
	struct jd_line l2[] = { { 0x100, 7, 0, "m.c" } };
	struct jd_inline_method meth[] = { { "m", "m.c" } };
	struct jd_inline_frame fr[] = { { 0, 3, -1 } };
	struct jd_inline_pc pc[] = { { 0x102, 1, fr } };
	struct jd_ext_inline inl = { .nr_methods = 1, .nr_pcs = 1, .methods = meth, .pcs = pc };
	struct jd_ext_load_info info = { .generation = 2, .tier = JD_TIER_C2, .level = 4 };
	uint64_t ci[5];
	struct jd_load_desc d[] = {
		{ .name = "m", .code_addr = 0x100, .code = code, .code_size = 8, .lines = l1,
		  .nr_lines = 2, .timestamp = 100 },
		{ .name = "other", .code_addr = 0x200, .code = code, .code_size = 8,
		  .unwind = uw, .unwind_size = sizeof(uw), .eh_frame_hdr_size = 4,
		  .timestamp = 110 },
		{ .name = "m", .code_addr = 0x100, .code = code, .code_size = 16, .lines = l2,
		  .nr_lines = 1, .info = &info, .inl = &inl, .timestamp = 120 },
		{ .name = "m", .code_addr = 0x300, .code = code, .code_size = 4, .timestamp = 130 },
		{ .name = "other", .code_addr = 0x200, .code = code, .code_size = 8,
		  .timestamp = 140 },
	};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(jd_write_load(w, &d[i], &ci[i]), 0);
	/* By index: the 4th load. By address: at 0x100 and time 125, the 3rd load (the 1st at
	 * 0x100 is older; the unload goes to the latest one loaded before it). */
	struct jd_ext_unload u1 = { .code_addr = 0x300, .code_index = ci[3] };
	struct jd_ext_unload u2 = { .code_addr = 0x100 };
	struct jd_ext_unload u3 = { .code_addr = 0x555 };	/* nothing there */
	cr_assert_eq(jd_write_unload(w, &u1, 150), 0);
	cr_assert_eq(jd_write_unload(w, &u2, 125), 0);
	cr_assert_eq(jd_write_unload(w, &u3, 126), 0);
	struct jd_code_move mv = { .old_code_addr = 0x200, .new_code_addr = 0x900,
				   .code_size = 8, .code_index = ci[4] };
	cr_assert_eq(jd_write_move(w, &mv, 160), 0);
	struct jd_ext_agent_stats st = { .loads = 5, .unloads = 3 };
	cr_assert_eq(jd_write_stats(w, &st), 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);

	struct jd_index *x = open_index(path);
	cr_assert_eq(jd_index_nr_loads(x), 5);
	uint32_t gens[] = { 1, 1, 2, 3, 2 };
	for (size_t i = 0; i < 5; i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);
		cr_assert_eq(e->generation, gens[i], "load %zu", i);
		cr_assert_eq(e->load.code_index, ci[i]);
		cr_assert_eq(e->timestamp, d[i].timestamp);
		cr_assert_eq(e->nr_lines, d[i].nr_lines);
		cr_assert_eq(e->unwind != NULL, d[i].unwind != NULL, "load %zu", i);
		cr_assert_eq(e->info != NULL, i == 2);
		cr_assert_eq(e->inl != NULL, i == 2);
	}
	cr_assert_null(jd_index_load(x, 5));
	const struct jd_load_entry *e = jd_index_load(x, 0);
	cr_assert_eq(e->lines[1].line, 2);
	cr_assert_str_eq(e->lines[1].file, "m.c");
	e = jd_index_load(x, 1);
	cr_assert_eq(e->unwind->unwinding_size, sizeof(uw));
	cr_assert_eq(e->unwind->data[0], 9);
	e = jd_index_load(x, 2);
	cr_assert_eq(e->lines[0].line, 7);
	cr_assert_eq(e->info->generation, 2);
	cr_assert_eq(e->info->tier, JD_TIER_C2);
	cr_assert_eq(e->inl->pcs[0].frames[0].line, 3);
	cr_assert_str_eq(e->inl->methods[0].file, "m.c");
	cr_assert_eq(e->unload_time, 125);
	cr_assert_eq(jd_index_load(x, 0)->unload_time, 0);
	cr_assert_eq(jd_index_load(x, 3)->unload_time, 150);
	cr_assert_eq(jd_index_nr_moves(x), 1);
	cr_assert_eq(jd_index_move(x, 0)->move.new_code_addr, 0x900);
	cr_assert_eq(jd_index_move(x, 0)->timestamp, 160);
	cr_assert_not_null(jd_index_agent_stats(x));
	cr_assert_eq(jd_index_agent_stats(x)->unloads, 3);
	cr_assert_eq(jd_index_counts(x)->ext_unmatched, 1);
	cr_assert(strstr(jd_index_warning(x), "1 companion records name no load"), "%s",
		  jd_index_warning(x));
	cr_assert_eq(jd_index_stats(x)->per_id[JD_CODE_LOAD], 5);
	/* The offsets of the joined records are those of the records of that kind. */
	char ext[4200];
	snprintf(ext, sizeof(ext), "%s.jitprof", path);
	for (size_t i = 0; i < 5; i++) {
		e = jd_index_load(x, i);
		cr_assert_eq(id_at(path, e->offset), JD_CODE_LOAD);
		cr_assert_eq(e->debug_offset != 0, d[i].nr_lines != 0, "load %zu", i);
		if (e->debug_offset)
			cr_assert_eq(id_at(path, e->debug_offset), JD_CODE_DEBUG_INFO);
		cr_assert_eq(e->unwind_offset != 0, d[i].unwind != NULL, "load %zu", i);
		if (e->unwind_offset)
			cr_assert_eq(id_at(path, e->unwind_offset), JD_CODE_UNWINDING_INFO);
		cr_assert_eq(e->info_offset != 0, i == 2);
		cr_assert_eq(e->inl_offset != 0, i == 2);
	}
	e = jd_index_load(x, 2);
	cr_assert_eq(id_at(ext, e->info_offset), JD_EXT_LOAD_INFO);
	cr_assert_eq(id_at(ext, e->inl_offset), JD_EXT_INLINE);
	jd_index_close(x);
	tu_rmtree(dir);
	free(dir);
}

/* JD_INDEX_NO_INLINE: the companion's inline stacks are passed over undecoded (a report that
 * never reads them), and everything else it joins is there as without the flag. */
Test(index, no_inline_leaves_out_only_the_inline_stacks)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t code[8] = { 0 };
	struct jd_inline_method meth[] = { { "callee", "c.java" } };
	struct jd_inline_frame fr[] = { { 0, 5, -1 } };
	struct jd_inline_pc pc[] = { { 0x104, 1, fr } };
	struct jd_ext_inline inl = { .nr_methods = 1, .nr_pcs = 1, .methods = meth, .pcs = pc };
	struct jd_ext_load_info info = { .generation = 1, .tier = JD_TIER_C1, .level = 3 };
	struct jd_load_desc d[] = {
		{ .name = "m", .code_addr = 0x100, .code = code, .code_size = 8, .info = &info,
		  .inl = &inl, .timestamp = 100 },
		{ .name = "m", .code_addr = 0x200, .code = code, .code_size = 8, .inl = &inl,
		  .timestamp = 110 },
	};
	uint64_t ci[2];
	for (int i = 0; i < 2; i++)
		cr_assert_eq(jd_write_load(w, &d[i], &ci[i]), 0);
	struct jd_ext_unload u = { .code_addr = 0x100, .code_index = ci[0] };
	cr_assert_eq(jd_write_unload(w, &u, 120), 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);

	struct jd_index *full = open_index(path), *x;
	char err[512];
	cr_assert_eq(jd_index_open_flags(&x, AT_FDCWD, path, NULL, JD_INDEX_NO_INLINE, err,
					 sizeof(err)), 0, "%s", err);
	cr_assert_eq(jd_index_nr_loads(x), 2);
	for (size_t i = 0; i < 2; i++) {
		const struct jd_load_entry *a = jd_index_load(full, i), *b = jd_index_load(x, i);
		cr_assert_not_null(a->inl, "load %zu: the full index has its inline stack", i);
		cr_assert_null(b->inl, "load %zu", i);
		cr_assert_eq(b->inl_offset, 0);
		cr_assert_eq(b->generation, a->generation);
		cr_assert_eq(b->info != NULL, a->info != NULL);
		cr_assert_eq(b->unload_time, a->unload_time);
		cr_assert_eq(b->info_offset, a->info_offset);
	}
	cr_assert_eq(jd_index_load(x, 0)->info->tier, JD_TIER_C1);
	cr_assert_eq(jd_index_load(x, 0)->unload_time, 120);
	cr_assert_str_eq(jd_index_warning(x), "");
	jd_index_close(full);
	jd_index_close(x);
	tu_rmtree(dir);
	free(dir);
}

/* jd_reader_skip_id: the ids asked are passed over and counted, others still delivered; an
 * id that is neither perf's nor ours is refused. */
Test(index, reader_passes_over_the_ids_asked)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t code[4] = { 0 };
	struct jd_line l[] = { { 0x100, 1, 0, "m.c" } };
	struct jd_load_desc d = { .name = "m", .code_addr = 0x100, .code = code, .code_size = 4,
				  .lines = l, .nr_lines = 1, .timestamp = 100 };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	d.code_addr = 0x200;
	l[0].addr = 0x200;
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open(&r, path, jd_err, sizeof(jd_err)), 0, "%s", jd_err);
	cr_assert_eq(jd_reader_skip_id(r, 0x7777), -EINVAL);
	cr_assert_eq(jd_reader_skip_id(r, JD_CODE_DEBUG_INFO), 0);
	struct jd_record rec;
	int loads = 0, rc;
	while ((rc = jd_reader_next(r, &rec)) == 1) {
		cr_assert_neq(rec.id, JD_CODE_DEBUG_INFO);
		loads += rec.id == JD_CODE_LOAD;
	}
	cr_assert_eq(rc, 0);
	cr_assert_eq(loads, 2);
	cr_assert_eq(jd_reader_stats(r)->passed_over, 2);
	cr_assert_eq(jd_reader_stats(r)->per_id[JD_CODE_DEBUG_INFO], 0);
	jd_reader_close(r);
	tu_rmtree(dir);
	free(dir);
}

/* perf pairs a DEBUG_INFO with the next load blindly; we refuse one naming another address. */
Test(index, mismatched_debug_info_not_attached)
{
	char *dir;
	size_t len;
	uint8_t *buf = jdt_sample_dump(&len, &dir);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_mem(&r, buf, len, "s", jd_err, sizeof(jd_err)), 0);
	struct jd_record rec;
	uint64_t at = 0;
	while (jd_reader_next(r, &rec) > 0 && !at)
		if (rec.id == JD_CODE_DEBUG_INFO)
			at = rec.offset;
	jd_reader_close(r);
	uint64_t wrong = 0xdead;
	memcpy(buf + at + 16, &wrong, 8);
	char path[4096];
	snprintf(path, sizeof(path), "%s/jit-5.dump", dir);
	cr_assert_eq(tu_write_file(path, buf, len), 0);
	struct jd_index *x = open_index(path);
	cr_assert_eq(jd_index_nr_loads(x), 3);
	cr_assert_eq(jd_index_load(x, 0)->nr_lines, 0);
	cr_assert_null(jd_index_load(x, 0)->lines);
	cr_assert_not_null(jd_index_load(x, 0)->unwind);
	cr_assert_eq(jd_index_load(x, 2)->nr_lines, 4);
	cr_assert_eq(jd_index_counts(x)->debug_mismatched, 1);
	cr_assert(strstr(jd_index_warning(x), "not matching"), "%s", jd_index_warning(x));
	jd_index_close(x);
	/* A truncated dump is salvaged: the records before the cut are indexed. */
	cr_assert_eq(tu_write_file(path, buf, len - 20), 0);
	x = open_index(path);
	cr_assert_eq(jd_index_nr_loads(x), 3);
	cr_assert_eq(jd_index_nr_moves(x), 0);
	cr_assert(strstr(jd_index_warning(x), "bytes of a partial record at offset"), "%s",
		  jd_index_warning(x));
	jd_index_close(x);
	/* Nothing usable: an error naming the file. */
	cr_assert_eq(tu_write_file(path, buf, 10), 0);
	char err[512];
	cr_assert_lt(jd_index_open(&x, path, err, sizeof(err)), 0);
	cr_assert(strstr(err, "jit-5.dump"), "%s", err);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

Test(index, perf_agent_fixture)
{
	size_t len;
	void *buf = tu_read_file(FIXTURE, &len);
	if (!buf)
		cr_skip_test("fixture %s absent (needs shared/ beside the clone)", FIXTURE);
	free(buf);
	struct jd_index *x = open_index(FIXTURE);
	cr_assert_eq(jd_index_nr_loads(x), 460);
	uint64_t lines = 0, with_lines = 0;
	uint32_t fold_max = 0;
	for (size_t i = 0; i < jd_index_nr_loads(x); i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);
		lines += e->nr_lines;
		with_lines += e->nr_lines > 0;
		if (!strcmp(e->load.name, "LFixture;fold([LFixture$Op;I)J") &&
		    e->generation > fold_max)
			fold_max = e->generation;
		cr_assert_null(e->info);
	}
	cr_assert_eq(lines, 1298);
	cr_assert_eq(with_lines, 67);
	cr_assert_eq(fold_max, 8, "Fixture.fold is compiled 8 times");
	cr_assert_str_eq(jd_index_warning(x), "");
	jd_index_close(x);
}

#include <sys/resource.h>


#if defined(__SANITIZE_ADDRESS__)
#define JDT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JDT_ASAN 1
#endif
#endif

static long maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A million loads in one dump: every generation right, lines where written, and (outside
 * sanitizer builds, whose allocator inflates everything) a bounded footprint per load. */
Test(index, a_million_loads, .timeout = 120)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 1 << 20);
	const size_t n = 1000000, names = 1000;
	uint8_t code = 0xc3;
	char name[32];
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "method_%zu", i % names);
		struct jd_line l[] = { { 0x1000 + i, (int32_t)(i % 100), 0, "f.c" },
				       { 0x1000 + i, 1, 0, NULL } };
		struct jd_load_desc d = { .name = name, .code_addr = 0x1000 + i, .code = &code,
					  .code_size = 1, .lines = l, .nr_lines = i % 4 ? 0 : 2,
					  .timestamp = i + 1 };
		cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	long before = maxrss_kb();
	struct jd_index *x = open_index(path);
	long after = maxrss_kb();
	cr_assert_eq(jd_index_nr_loads(x), n);
	for (size_t i = 0; i < n; i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);
		if (e->generation != i / names + 1 || e->nr_lines != (i % 4 ? 0u : 2u))
			cr_assert_fail("load %zu: generation %u lines %zu", i, e->generation,
				       e->nr_lines);
		if (e->nr_lines && e->lines[0].line != (int32_t)(i % 100))
			cr_assert_fail("load %zu: wrong line table", i);
	}
#ifndef JDT_ASAN
	cr_log_info("index: %ld bytes per load", (after - before) * 1024 / (long)n);
	/* 168-byte entries + line tables + the ~70-byte records mapped: well under 400 B/load. */
	cr_assert_lt((after - before) * 1024 / (long)n, 400, "%ld KB for %zu loads",
		     after - before, n);
#else
	(void)before;
	(void)after;
#endif
	jd_index_close(x);
	tu_rmtree(dir);
	free(dir);
}

/* The companion is read beside the dump (index_ext.c) yet joins and warns as if read after
 * it: the dump's partial tail is warned about before the companion's damage, the companion's
 * records before its damage are joined, and a companion that cannot be read is a warning of
 * its own after the dump's. */
Test(index, companion_read_meanwhile_warns_after_the_dump)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	uint8_t code[16] = { 0 };
	uint64_t ci[3];
	struct jd_ext_load_info info = { .generation = 5, .tier = JD_TIER_C1, .level = 3 };
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof(name), "m%d", i);
		struct jd_load_desc d = { .name = name, .code_addr = 0x100u * (i + 1), .code = code,
					  .code_size = 8, .timestamp = 100u + i, .info = &info };
		cr_assert_eq(jd_write_load(w, &d, &ci[i]), 0);
	}
	char path[4096], ext[4200];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	snprintf(ext, sizeof(ext), "%s.jitprof", path);
	/* the dump: a partial record at its end; the companion: damage after its records */
	FILE *f = fopen(path, "a");
	cr_assert_not_null(f);
	fputs("\x01\x00\x00\x00\xff", f);
	fclose(f);
	f = fopen(ext, "a");
	cr_assert_not_null(f);
	static const uint8_t bad[16] = { 0x03, 0x00, 0x01, 0x00, 8 };	/* total_size 8 < 16 */
	fwrite(bad, 1, sizeof(bad), f);
	fclose(f);
	struct jd_index *x = open_index(path);
	const char *warn = jd_index_warning(x), *partial = strstr(warn, "partial record"),
		   *damage = strstr(warn, "records before it kept");
	cr_assert(partial && damage && partial < damage, "%s", warn);
	cr_assert(strstr(damage - 200 > warn ? damage - 200 : warn, ".jitprof"), "%s", warn);
	for (int i = 0; i < 3; i++) {
		const struct jd_load_entry *e = jd_index_load(x, (size_t)i);
		cr_assert_not_null(e->info, "load %d joined its companion record", i);
		cr_assert_eq(e->info->generation, 5);
	}
	jd_index_close(x);

	/* a companion that is no regular file: warned about, after the dump's warning */
	cr_assert_eq(unlink(ext), 0);
	cr_assert_eq(mkfifo(ext, 0600), 0);
	x = open_index(path);
	warn = jd_index_warning(x);
	partial = strstr(warn, "partial record");
	const char *fifo = strstr(warn, "not a regular file");
	cr_assert(partial && fifo && partial < fifo, "%s", warn);
	cr_assert_null(jd_index_load(x, 0)->info);
	jd_index_close(x);
	tu_rmtree(dir);
	free(dir);
}
