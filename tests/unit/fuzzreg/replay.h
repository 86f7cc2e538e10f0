/* replay.h - replays a fuzz target's seed corpus and regression inputs in an ordinary test
 * binary (so `make check`, and `make SANITIZE=1 check` under ASan, run them without clang's
 * libFuzzer). Each test_<target>.c includes tests/fuzz/fuzz_<target>.c with its entry point
 * renamed fuzzreg_<target> and declares FUZZREG_TEST(<target>). */
#ifndef JITPROF_FUZZREG_REPLAY_H
#define JITPROF_FUZZREG_REPLAY_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/lib/testutil.h"

typedef int (*fuzz_entry)(const uint8_t *data, size_t size);

/* Runs every file of dir through fn; returns how many. A crash fails the test by itself. */
static size_t replay_dir(const char *dir, fuzz_entry fn)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		uint8_t *buf = tu_read_file(path, &len);
		cr_assert(buf, "cannot read %s", path);
		cr_log_info("replaying %s (%zu bytes)", path, len);
		fn(buf, len);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void replay_target(const char *target, fuzz_entry fn)
{
	char dir[256];
	snprintf(dir, sizeof(dir), "tests/fuzz/corpus/%s", target);
	size_t seeds = replay_dir(dir, fn);
	snprintf(dir, sizeof(dir), "tests/fuzz/regressions/%s", target);
	size_t regs = replay_dir(dir, fn);
	cr_assert_gt(seeds + regs, 0, "no inputs for %s (run from the repository root)", target);
	/* the empty input and a lone byte are where length checks most often go wrong */
	fn((const uint8_t *)"", 0);
	fn((const uint8_t *)"\xff", 1);
}

#define FUZZREG_TEST(target) \
	Test(fuzzreg, target, .timeout = 60) { replay_target(#target, fuzzreg_##target); }

#endif
