/* test_hits.c - recorder/record/hits.c: a sample marks the DSO whose map covers it, in its own
 * process, through FORK in its parent's, and late (a map drained after its samples); an exec
 * forgets the old image. */
#include <criterion/criterion.h>

#include "recorder/record/record_int.h"

Test(hits, own_maps_parent_and_late_maps)
{
	struct rec_hits *h = rec_hits_new();
	struct rec_dso *libc = rec_hits_dso(h, "/lib/libc.so.6", PERF_RECORD_MISC_USER);
	struct rec_dso *app = rec_hits_dso(h, "/bin/app", PERF_RECORD_MISC_USER);
	struct rec_dso *late = rec_hits_dso(h, "/lib/late.so", PERF_RECORD_MISC_USER);
	struct rec_dso *kern = rec_hits_dso(h, "[kernel.kallsyms]", PERF_RECORD_MISC_KERNEL);

	cr_assert_eq(rec_hits_dso(h, "/bin/app", PERF_RECORD_MISC_USER), app, "one per name");
	rec_hits_mmap(h, 10, 0x400000, 0x1000, app);
	rec_hits_mmap(h, 10, 0x7f0000000000, 0x200000, libc);
	rec_hits_mmap(h, UINT32_MAX, 0xffffffff81000000ULL, 0x1000000, kern);
	rec_hits_fork(h, 11, 10);

	rec_hits_sample(h, 11, 0x7f0000000100, PERF_RECORD_MISC_USER);	/* via the parent */
	cr_assert(libc->hit);
	cr_assert_not(app->hit);
	rec_hits_sample(h, 10, 0xffffffff81000010ULL, PERF_RECORD_MISC_KERNEL);
	cr_assert(kern->hit);
	rec_hits_sample(h, 10, 0x7f5000000000, PERF_RECORD_MISC_USER);	/* not mapped yet */
	cr_assert_not(late->hit);
	rec_hits_mmap(h, 10, 0x7f5000000000, 0x1000, late);
	rec_hits_finish(h);
	cr_assert(late->hit, "retried at the end");
	rec_hits_sample(h, 10, 0x400fff, PERF_RECORD_MISC_USER);
	cr_assert(app->hit);
	cr_assert_eq(rec_hits_nr_dsos(h), 4);
	rec_hits_free(h);
}

Test(hits, exec_forgets_old_maps_and_many_processes)
{
	struct rec_hits *h = rec_hits_new();
	struct rec_dso *old = rec_hits_dso(h, "/bin/old", PERF_RECORD_MISC_USER);
	struct rec_dso *d = rec_hits_dso(h, "/bin/many", PERF_RECORD_MISC_USER);

	rec_hits_mmap(h, 5, 0x1000, 0x1000, old);
	rec_hits_exec(h, 5);
	rec_hits_sample(h, 5, 0x1800, PERF_RECORD_MISC_USER);
	rec_hits_finish(h);
	cr_assert_not(old->hit);
	/* Enough processes to make the pid table grow several times. */
	for (uint32_t pid = 100; pid < 20100; pid++)
		cr_assert_eq(rec_hits_mmap(h, pid, 0x10000 * (pid % 7 + 1), 0x1000, d), 0);
	rec_hits_sample(h, 20099, 0x10000 * (20099 % 7 + 1) + 8, PERF_RECORD_MISC_USER);
	cr_assert(d->hit);
	rec_hits_free(h);
}

/* The pid table is seeded: 20,000 pids that are multiples of 65536 (one slot for every table
 * size under the old unseeded multiplier) cost no more probes than as many random pids. */
static size_t pid_probes(int crafted)
{
	struct rec_hits *h = rec_hits_new();
	struct rec_dso *d = rec_hits_dso(h, "/bin/many", PERF_RECORD_MISC_USER);
	uint32_t x = 7;
	for (uint32_t i = 1; i <= 20000; i++) {
		x = x * 1664525u + 1013904223u;
		cr_assert_eq(rec_hits_mmap(h, crafted ? i << 16 : x >> 1, 0x10000, 0x1000, d), 0);
	}
	size_t n = rec_hits_probes(h);
	rec_hits_free(h);
	return n;
}

Test(hits, crafted_pids_do_not_flood)
{
	size_t c = pid_probes(1), r = pid_probes(0);
	cr_assert_leq(c, 2 * r + 64, "crafted pids: %zu probes, random ones: %zu", c, r);
}
