/* test_methods.c - the method table (JD_EXT_METHOD, JD_EXT_VM in the companion): written,
 * read back by the index and looked up by method pointer and time; damaged records refused
 * with what is wrong, never half-read. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

static struct jd_index *index_of(struct jd_writer *w)
{
	char path[4200], err[512];
	struct jd_index *x;
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	return x;
}

Test(methods, table_by_pointer_and_time)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	struct jd_method_line l1[] = { { 0, 10 }, { 4, 11 }, { 9, 13 } };
	struct jd_ext_method a = { .method = 0x7000, .code_addr = 0x9000, .code_size = 12,
				   .nr_lines = 3, .lines = l1, .name = "LA;a()V", .file = "A.java" };
	struct jd_ext_method b = { .method = 0x6000, .code_addr = 0x9100, .code_size = 3,
				   .name = "LB;b(I)I", .file = "" };
	/* The same Method* reused by another method after an unload, at time 500. */
	struct jd_ext_method c = { .method = 0x7000, .code_addr = 0x9200, .code_size = 5,
				   .name = "LC;c()V", .file = "C.java" };
	struct jd_ext_vm vm = { .kind = JD_VM_HOTSPOT_X86_64, .flags = JD_VM_PRESERVE_FP,
				.version = 25, .method_slot = -3, .bcp_slot = -8 };
	uint8_t code[4] = { 0 };
	struct jd_load_desc d = { .name = "Interpreter", .code_addr = 0x100, .code = code,
				  .code_size = 4, .timestamp = 50 };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	cr_assert_eq(jd_write_method(w, &a, 100), 0);
	cr_assert_eq(jd_write_method(w, &b, 110), 0);
	cr_assert_eq(jd_write_method(w, &c, 500), 0);
	cr_assert_eq(jd_write_vm(w, &vm), 0);
	struct jd_ext_method bad = { .method = 1, .nr_lines = 2 };
	cr_assert_eq(jd_write_method(w, &bad, 0), -EINVAL);

	struct jd_index *x = index_of(w);
	cr_assert_eq(jd_index_nr_methods(x), 3);
	const struct jd_ext_method *m = jd_index_method(x, 0x7000, 200);
	cr_assert_not_null(m);
	cr_assert_str_eq(m->name, "LA;a()V");
	cr_assert_str_eq(m->file, "A.java");
	cr_assert_eq(m->code_addr, 0x9000);
	cr_assert_eq(m->code_size, 12);
	cr_assert_eq(m->nr_lines, 3);
	cr_assert_eq(m->lines[2].bci, 9);
	cr_assert_eq(m->lines[2].line, 13);
	cr_assert_str_eq(jd_index_method(x, 0x7000, 600)->name, "LC;c()V");
	cr_assert_str_eq(jd_index_method(x, 0x7000, 10)->name, "LA;a()V");	/* before both */
	cr_assert_str_eq(jd_index_method(x, 0x6000, 0)->name, "LB;b(I)I");
	cr_assert_null(jd_index_method(x, 0x6008, 200));
	cr_assert_null(jd_index_method(x, 0, 200));
	const struct jd_ext_vm *v = jd_index_vm(x);
	cr_assert_not_null(v);
	cr_assert_eq(v->kind, JD_VM_HOTSPOT_X86_64);
	cr_assert_eq(v->flags, JD_VM_PRESERVE_FP);
	cr_assert_eq(v->version, 25);
	cr_assert_eq(v->method_slot, -3);
	cr_assert_eq(v->bcp_slot, -8);
	jd_index_close(x);
	tu_rmtree(dir);
	free(dir);
}

/* A companion of one METHOD record, its bytes changed by mutate; the reader's verdict. */
static int read_mutated(void (*mutate)(uint8_t *rec, size_t len), char *err, size_t errlen)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	struct jd_method_line l[] = { { 0, 1 }, { 2, 2 } };
	struct jd_ext_method a = { .method = 0x10, .code_addr = 0x20, .code_size = 4,
				   .nr_lines = 2, .lines = l, .name = "LA;a()V", .file = "A" };
	cr_assert_eq(jd_write_method(w, &a, 1), 0);
	char path[4300];
	snprintf(path, sizeof(path), "%s.jitprof", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	size_t len;
	uint8_t *buf = tu_read_file(path, &len);
	cr_assert_not_null(buf);
	uint32_t hsize;
	memcpy(&hsize, buf + 8, 4);
	mutate(buf + hsize, len - hsize);
	struct jdt_counts c;
	int rc = jdt_count_mem(buf, len, &c, err, errlen);
	free(buf);
	tu_rmtree(dir);
	free(dir);
	return rc;
}

static void many_lines(uint8_t *rec, size_t len)
{
	(void)len;
	uint32_t n = 0x10000000;
	memcpy(rec + 36, &n, 4);
}

static void lines_backwards(uint8_t *rec, size_t len)
{
	(void)len;
	uint32_t bci = 7;
	memcpy(rec + 40, &bci, 4);	/* the first line now starts after the second */
}

static void unterminated(uint8_t *rec, size_t len)
{
	rec[len - 1] = 'x';	/* the file name's NUL */
}

Test(methods, damaged_records_are_refused_with_what)
{
	char err[512];
	cr_assert_lt(read_mutated(many_lines, err, sizeof(err)), 0);
	cr_assert(strstr(err, "METHOD line count"), "%s", err);
	cr_assert_lt(read_mutated(lines_backwards, err, sizeof(err)), 0);
	cr_assert(strstr(err, "starts at bci"), "%s", err);
	cr_assert_lt(read_mutated(unterminated, err, sizeof(err)), 0);
	cr_assert(strstr(err, "NUL-terminated"), "%s", err);
}
