/* test_recording.c - recorder/record/recording.c and buildid_thread.c pieces that need no perf events:
 * every -k spelling, build-ids read from ELF files, /sys/kernel/notes and the vdso, and the
 * side thread answering requests. */
#include <criterion/criterion.h>
#include <errno.h>
#include <time.h>

#include "recorder/record/record_int.h"

Test(clock, spellings)
{
	cr_assert_eq(rec_parse_clock("mono"), 1);
	cr_assert_eq(rec_parse_clock("monotonic"), 1);
	cr_assert_eq(rec_parse_clock("CLOCK_MONOTONIC"), 1);
	cr_assert_eq(rec_parse_clock("1"), 1);
	cr_assert_eq(rec_parse_clock("raw"), 4);
	cr_assert_eq(rec_parse_clock("boot"), 7);
	cr_assert_eq(rec_parse_clock("realtime"), 0);
	cr_assert_eq(rec_parse_clock("tai"), 11);
	cr_assert_eq(rec_parse_clock("0"), 0);
	cr_assert_eq(rec_parse_clock("sundial"), -EINVAL);
	cr_assert_eq(rec_parse_clock("2"), -EINVAL, "CLOCK_PROCESS_CPUTIME_ID is not NMI-safe");
	cr_assert_eq(rec_parse_clock(""), -EINVAL);
}

Test(buildid, elf_file_kernel_and_vdso)
{
	uint8_t id[PD_BUILD_ID_MAX];
	size_t n;

	cr_assert_eq(rec_read_build_id("/bin/sh", id, &n), 0);
	cr_assert_eq(n, 20);
	cr_assert_eq(rec_read_build_id("/etc/hostname", id, &n) < 0, 1);
	cr_assert_eq(rec_read_build_id("/nonexistent", id, &n), -ENOENT);
	if (rec_kernel_build_id(id, &n) == 0)
		cr_assert_gt(n, 0);
	cr_assert_eq(rec_read_build_id("[vdso]", id, &n), 0);
	cr_assert_gt(n, 0);
}

Test(buildid, side_thread_answers)
{
	struct rec_bid_thread *t;
	struct rec_bid_result res[8];
	uint8_t direct[PD_BUILD_ID_MAX];
	size_t dn, got = 0;

	cr_assert_eq(rec_bid_start(&t, NULL), 0);
	cr_assert_eq(rec_bid_request(t, "/bin/sh", 0), 0);
	cr_assert_eq(rec_bid_request(t, "/nonexistent/x", 0), 0);
	for (int i = 0; i < 2000 && got < 2; i++) {
		got += rec_bid_poll(t, res + got, 8 - got);
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	cr_assert_eq(got, 2);
	cr_assert_eq(rec_read_build_id("/bin/sh", direct, &dn), 0);
	for (size_t i = 0; i < got; i++) {
		if (!strcmp(res[i].path, "/bin/sh")) {
			cr_assert_eq(res[i].size, dn);
			cr_assert_eq(memcmp(res[i].id, direct, dn), 0);
		} else {
			cr_assert_eq(res[i].size, 0);
		}
		free(res[i].path);
	}
	rec_bid_stop(t);
	rec_bid_free(t);
}
