/* test_concurrency.c - 8 threads writing through one writer with a small buffer: every record
 * reaches the file whole, every DEBUG_INFO sits right before its own CODE_LOAD, code_index is
 * unique, and each thread's loads keep their order. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

#define THREADS 8
#define PER_THREAD 3000

struct job {
	struct jd_writer *w;
	int t;
};

static uint64_t addr_of(int t, int i)
{
	return 0x100000000ull * (uint64_t)(t + 1) + (uint64_t)i * 0x100;
}

/* Code bytes and sizes depend on (thread, i) so a torn or mixed record is detectable. */
static size_t make_code(uint8_t *code, int t, int i)
{
	size_t n = 1 + (size_t)((t * 131 + i * 17) % 200);
	if (i % 500 == 7)
		n = 9000;	/* bigger than the buffer: the direct path */
	for (size_t k = 0; k < n; k++)
		code[k] = (uint8_t)(t * 31 + i + k);
	return n;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	uint8_t code[9000];
	char name[64];
	struct jd_line lines[3];
	for (int i = 0; i < PER_THREAD; i++) {
		size_t n = make_code(code, j->t, i);
		uint64_t a = addr_of(j->t, i);
		snprintf(name, sizeof(name), "t%d_f%d", j->t, i);
		for (int k = 0; k < 3; k++)
			lines[k] = (struct jd_line){ a + (uint64_t)k, i + k + 1, 0, "src.c" };
		struct jd_load_desc d = { .name = name, .code_addr = a, .code = code,
					  .code_size = n, .lines = lines, .nr_lines = i % 4 ? 3 : 0 };
		if (jd_write_load(j->w, &d, NULL))
			return (void *)1;
	}
	return NULL;
}

Test(concurrency, eight_threads_units_stay_whole)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 4096);
	pthread_t th[THREADS];
	struct job jobs[THREADS];
	for (int t = 0; t < THREADS; t++) {
		jobs[t] = (struct job){ w, t };
		pthread_create(&th[t], NULL, worker, &jobs[t]);
	}
	for (int t = 0; t < THREADS; t++) {
		void *ret;
		pthread_join(th[t], &ret);
		cr_assert_null(ret, "thread %d failed to write", t);
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);

	struct jd_reader *r;
	cr_assert_eq(jd_reader_open(&r, path, jd_err, sizeof(jd_err)), 0);
	struct jd_record rec;
	int next_i[THREADS] = { 0 };
	uint8_t *seen = calloc(THREADS * PER_THREAD + 1, 1);
	uint8_t code[9000];
	int pending_debug = 0, rc;
	uint64_t debug_addr = 0, loads = 0;
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		if (rec.id == JD_CODE_DEBUG_INFO) {
			cr_assert_not(pending_debug, "two DEBUG_INFO in a row at %llu",
				      (unsigned long long)rec.offset);
			pending_debug = 1;
			debug_addr = rec.u.debug.code_addr;
			cr_assert_eq(rec.u.debug.nr_entry, 3);
			cr_assert_eq(rec.u.debug.entries[2].addr, debug_addr + 2);
			continue;
		}
		if (rec.id == JD_CODE_CLOSE)
			continue;
		cr_assert_eq(rec.id, JD_CODE_LOAD, "id %u at %llu", rec.id,
			     (unsigned long long)rec.offset);
		int t, i;
		cr_assert_eq(sscanf(rec.u.load.name, "t%d_f%d", &t, &i), 2);
		cr_assert(t >= 0 && t < THREADS);
		cr_assert_eq(i, next_i[t], "thread %d: load %d after %d", t, i, next_i[t] - 1);
		next_i[t]++;
		cr_assert_eq(rec.u.load.code_addr, addr_of(t, i));
		if (i % 4) {
			cr_assert(pending_debug, "load %s lost its DEBUG_INFO", rec.u.load.name);
			cr_assert_eq(debug_addr, rec.u.load.code_addr, "DEBUG_INFO of another load");
		} else {
			cr_assert_not(pending_debug, "load %s got a DEBUG_INFO", rec.u.load.name);
		}
		pending_debug = 0;
		size_t n = make_code(code, t, i);
		cr_assert_eq(rec.u.load.code_size, n);
		cr_assert_eq(memcmp(rec.u.load.code, code, n), 0, "torn code in %s",
			     rec.u.load.name);
		uint64_t ci = rec.u.load.code_index;
		cr_assert(ci >= 1 && ci <= THREADS * PER_THREAD && !seen[ci], "code_index %llu",
			  (unsigned long long)ci);
		seen[ci] = 1;
		loads++;
	}
	cr_assert_eq(rc, 0, "%s", jd_reader_error(r));
	cr_assert_eq(loads, THREADS * PER_THREAD);
	cr_assert_eq(jd_reader_stats(r)->truncated_bytes, 0);
	jd_reader_close(r);
	free(seen);
	tu_rmtree(dir);
	free(dir);
}
