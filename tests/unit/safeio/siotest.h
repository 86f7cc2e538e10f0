/* siotest.h - the safeio unit tests' fixture: a fresh directory and a descriptor of it. */
#ifndef JITPROF_SIOTEST_H
#define JITPROF_SIOTEST_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static char *dir;
static int dfd;

static inline void sio_fixture_open(const char *tag)
{
	dir = tu_tmpdir(tag);
	cr_assert(dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dfd, 0);
}

static inline void teardown(void)
{
	close(dfd);
	tu_rmtree(dir);
	free(dir);
}

#endif
