/* test_nomem.c - record's out-of-memory paths (tests/lib/failnext.h): every allocation of
 * listing a process's threads and of the build-id thread's request, read and result fails
 * in turn, and those of keeping a deleted mapped file (--keep-deleted); each run gives the
 * whole answer or -ENOMEM, never a thread list cut short, a build-id or a kept file dropped. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/record/record_int.h"
#include "tests/lib/failnext.h"
#include "tests/lib/testutil.h"

#define NR_THREADS 40	/* past the list's first 16 slots: it must grow */

static pthread_barrier_t hold;

static void *parked(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&hold);	/* counted in */
	pthread_barrier_wait(&hold);	/* let go */
	return NULL;
}

Test(record_nomem, thread_list_whole_or_enomem)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	pthread_t th[NR_THREADS];
	cr_assert_eq(pthread_barrier_init(&hold, NULL, NR_THREADS + 1), 0);
	for (int i = 0; i < NR_THREADS; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, parked, NULL), 0);
	pthread_barrier_wait(&hold);
	pid_t *tids;
	size_t want, n;
	cr_assert_eq(rec_list_threads(getpid(), &tids, &want), 0);
	free(tids);
	cr_assert_geq(want, NR_THREADS + 1);
	tu_failnext_arm(0);
	cr_assert_eq(rec_list_threads(getpid(), &tids, &n), 0);
	unsigned long total = tu_failnext_disarm(NULL);
	free(tids);
	for (unsigned long k = 1; k <= total; k++) {
		tu_failnext_arm(k);
		int rc = rec_list_threads(getpid(), &tids, &n);
		tu_failnext_disarm(NULL);
		if (rc) {
			cr_assert_eq(rc, -ENOMEM, "allocation %lu: %d", k, rc);
			cr_assert_null(tids);
		} else {
			cr_assert_eq(n, want, "allocation %lu of %lu failed: %zu threads of %zu, rc 0",
				     k, total, n, want);
			free(tids);
		}
	}
	pthread_barrier_wait(&hold);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&hold);
}

/* One request for this test binary's build-id, on a thread of its own: the result as
 * polled (size 0: none), *err rec_bid_error's, or the request's error. */
static int one_build_id(unsigned long fail, struct rec_bid_result *res, int *err)
{
	struct rec_bid_thread *t;
	cr_assert_eq(rec_bid_start(&t, NULL), 0);
	/* the request's own allocations come first: the worker waits for it */
	tu_failnext_arm(fail);
	int rc = rec_bid_request(t, "/proc/self/exe", getpid());
	rec_bid_stop(t);
	tu_failnext_disarm(NULL);
	memset(res, 0, sizeof(*res));
	size_t got = rec_bid_poll(t, res, 1);
	*err = rec_bid_error(t);
	free(res->path);
	rec_bid_free(t);
	return rc ? rc : got ? 0 : -ENOENT;
}

Test(record_nomem, build_id_result_or_enomem)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	struct rec_bid_result want, res;
	int err;
	cr_assert_eq(one_build_id(0, &want, &err), 0);
	cr_assert_eq(err, 0);
	cr_assert_gt(want.size, 0, "the test binary has a build-id");
	struct rec_bid_thread *t;
	cr_assert_eq(rec_bid_start(&t, NULL), 0);
	tu_failnext_arm(0);
	cr_assert_eq(rec_bid_request(t, "/proc/self/exe", getpid()), 0);
	rec_bid_stop(t);
	unsigned long total = tu_failnext_disarm(NULL);
	rec_bid_free(t);
	for (unsigned long k = 1; k <= total; k++) {
		int rc = one_build_id(k, &res, &err);
		if (rc == -ENOMEM || err == -ENOMEM)
			continue;	/* the recording is not written, and says why */
		cr_assert_eq(rc, 0, "allocation %lu of %lu failed: no result, no error (%d)", k,
			     total, rc);
		cr_assert_eq(res.size, want.size, "allocation %lu of %lu failed: another build-id, "
			     "no error", k, total);
		cr_assert_arr_eq(res.id, want.id, want.size);
	}
}

/* --keep-deleted on a file this process maps and then deletes (the kernel gave its id: only
 * the keeping is asked for): kept, else -ENOMEM from rec_bid_error; the returned count of
 * files kept in *kept. */
static int keep_deleted(const char *cache, const char *path, void *map, size_t len,
			unsigned long fail, size_t *kept)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef };
	char name[4200];
	struct rec_bid_thread *t;
	snprintf(name, sizeof(name), "%s (deleted)", path);
	cr_assert_eq(rec_bid_start(&t, cache), 0);
	tu_failnext_arm(fail);
	int rc = rec_bid_request_map(t, name, getpid(), (uintptr_t)map, (uintptr_t)map + len, id,
				     sizeof(id));
	rec_bid_stop(t);
	tu_failnext_disarm(NULL);
	*kept = rec_bid_kept(t);
	int err = rec_bid_error(t);
	rec_bid_free(t);
	return rc ? rc : err;
}

Test(record_nomem, deleted_file_kept_or_enomem)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	char *dir = tu_tmpdir("keepdel"), path[4200], cache[4200];
	snprintf(path, sizeof(path), "%s/victim.so", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	cr_assert_eq(mkdir(cache, 0755), 0);
	static char bytes[8192];
	memset(bytes, 0x5a, sizeof(bytes));
	cr_assert_eq(tu_write_file(path, bytes, sizeof(bytes)), 0);
	int fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	void *map = mmap(NULL, sizeof(bytes), PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	close(fd);
	cr_assert_eq(unlink(path), 0);
	size_t kept;
	cr_assert_eq(keep_deleted(cache, path, map, sizeof(bytes), 0, &kept), 0);
	if (kept != 1) {	/* map_files needs CAP_CHECKPOINT_RESTORE (or CAP_SYS_ADMIN) */
		munmap(map, sizeof(bytes));
		tu_rmtree(dir);
		free(dir);
		cr_skip_test("/proc/self/map_files cannot be read here: nothing is kept");
	}
	tu_failnext_arm(0);
	keep_deleted(cache, path, map, sizeof(bytes), 0, &kept);
	unsigned long total = tu_failnext_disarm(NULL);
	for (unsigned long k = 1; k <= total; k++) {
		int rc = keep_deleted(cache, path, map, sizeof(bytes), k, &kept);
		if (rc) {
			cr_assert_eq(rc, -ENOMEM, "allocation %lu: %d", k, rc);
			continue;	/* the recording is not written, and says why */
		}
		cr_assert_eq(kept, 1, "allocation %lu of %lu failed: the deleted file not kept, "
			     "no error", k, total);
	}
	munmap(map, sizeof(bytes));
	tu_rmtree(dir);
	free(dir);
}

/* A mapping noted (rec_note_mmap) for a DSO not seen before, then a sample in it, with the
 * nth allocation failing: *err -ENOMEM, or the sample finds the DSO and its build-id was
 * asked for. 1 if the nth allocation was reached. */
static int note_then_sample(unsigned long n, int *err, bool *whole)
{
	struct rec_synth_ctx c = { .hits = rec_hits_new() };
	struct pd_mmap m = { .pid = 4242, .start = 0x400000, .len = 0x1000, .is_mmap2 = true,
			     .prot = PROT_READ | PROT_EXEC, .filename = "/nonexistent/lib.so" };
	int fired;
	cr_assert_not_null(c.hits);
	cr_assert_eq(rec_bid_start(&c.bids, NULL), 0);
	tu_failnext_arm(n);
	*err = rec_note_mmap(&c, &m, PERF_RECORD_MISC_USER);
	struct rec_dso *d = *err ? NULL : rec_hits_sample(c.hits, 4242, 0x400010,
							  PERF_RECORD_MISC_USER);
	tu_failnext_disarm(&fired);
	*whole = d && d->hit && d->state == BID_REQUESTED;
	if (!*err && !d && rec_hits_nomem(c.hits))
		*err = -ENOMEM;
	rec_bid_free(c.bids);
	rec_hits_free(c.hits);
	return fired;
}

Test(record_nomem, noted_mapping_whole_or_enomem)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	int err;
	bool whole;
	note_then_sample(0, &err, &whole);
	cr_assert_eq(err, 0);
	cr_assert(whole, "no failure: the sample finds the noted DSO, its build-id asked for");
	for (unsigned long k = 1; note_then_sample(k, &err, &whole); k++) {
		if (err) {
			cr_assert_eq(err, -ENOMEM, "allocation %lu: %d", k, err);
			continue;	/* the recording is not written, and says why */
		}
		cr_assert(whole, "allocation %lu failed: the mapping's DSO lost, no error", k);
	}
}

/* A sample before its mapping is kept as a miss for the end; when the miss cannot be kept,
 * rec_hits_nomem says so (its DSO would never be marked hit). */
Test(record_nomem, unkept_miss_said)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	struct rec_hits *h = rec_hits_new();
	cr_assert_not_null(h);
	tu_failnext_arm(1);
	cr_assert_null(rec_hits_sample(h, 7, 0x1000, PERF_RECORD_MISC_USER));
	int fired;
	tu_failnext_disarm(&fired);
	cr_assert(fired);
	cr_assert(rec_hits_nomem(h));
	rec_hits_free(h);
}

/* This process synthesized from /proc (COMM and executable maps) with the nth allocation
 * failing: -ENOMEM, or every DSO noted (a /proc file that could not be opened for want of
 * memory is not a process that went away). *ndsos: those noted. 1 if the nth was reached. */
static int synth_self(const char *dir, unsigned long n, int *err, size_t *ndsos)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME };
	struct rec_synth_ctx c = { .hits = rec_hits_new() };
	char data[4200];
	int fired;
	snprintf(data, sizeof(data), "%s/s.data", dir);
	cr_assert_not_null(c.hits);
	cr_assert_eq(pd_writer_open(&c.w, data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(c.w, &a, NULL, 0, NULL), 0);
	tu_failnext_arm(n);
	*err = rec_synth_process(&c, getpid(), true);
	tu_failnext_disarm(&fired);
	*ndsos = rec_hits_nr_dsos(c.hits);
	pd_writer_close(c.w);
	rec_hits_free(c.hits);
	return fired;
}

Test(record_nomem, process_synthesis_whole_or_enomem)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	char *dir = tu_tmpdir("synthnomem");
	size_t want, got;
	int err;
	synth_self(dir, 0, &err, &want);
	cr_assert_eq(err, 0);
	cr_assert_gt(want, 2);
	for (unsigned long k = 1; synth_self(dir, k, &err, &got); k++) {
		if (err) {
			cr_assert_eq(err, -ENOMEM, "allocation %lu: %d", k, err);
			continue;
		}
		cr_assert_eq(got, want, "allocation %lu failed: %zu DSOs of %zu, no error", k, got,
			     want);
	}
	tu_rmtree(dir);
	free(dir);
}
