/* faults_util.h - what the tests/e2e/faults_*.c binaries share: reading a perf.data to its end
 * with our reader, perf's own verdict on a file, and files compared byte for byte; tools run
 * with a private build-id cache and no debuginfod through inject_util.h's iu_run. Header-only
 * because every e2e .c file is its own binary. */
#ifndef JITPROF_E2E_FAULTS_UTIL_H
#define JITPROF_E2E_FAULTS_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/perfdata/perfdata.h"
#include "tests/e2e/inject_util.h"
#include "tests/lib/testutil.h"

struct fu_counts {
	size_t records, samples, mmap2;
	uint64_t last_offset;	/* offset of the last record delivered */
	int end;		/* the last pd_reader_next: 0 clean end, <0 damage */
	char err[512];
};

/* Opens path and reads it to the end; returns pd_reader_open's result. */
static inline int fu_count(const char *path, struct fu_counts *c)
{
	struct pd_reader *r = NULL;
	struct pd_event ev;
	memset(c, 0, sizeof(*c));
	int rc = pd_reader_open(&r, path, NULL);
	if (rc < 0) {
		snprintf(c->err, sizeof(c->err), "%s", r ? pd_reader_error(r) : strerror(-rc));
		pd_reader_close(r);
		return rc;
	}
	while ((c->end = pd_reader_next(r, &ev)) == 1) {
		c->records++;
		c->samples += ev.type == PERF_RECORD_SAMPLE;
		c->mmap2 += ev.type == PERF_RECORD_MMAP2;
		c->last_offset = ev.offset;
	}
	if (c->end < 0)
		snprintf(c->err, sizeof(c->err), "%s", pd_reader_error(r));
	pd_reader_close(r);
	return 0;
}

/* Our reader takes path to its end without damage. */
static inline void fu_assert_reads_clean(const char *path, struct fu_counts *c)
{
	cr_assert_eq(fu_count(path, c), 0, "%s does not open: %s", path, c->err);
	cr_assert_eq(c->end, 0, "%s is damaged: %s", path, c->err);
}

/* perf script reads the whole file: exit 0 and nothing on stderr about the file being
 * unfinished or a record it could not process. Returns the number of samples it printed. */
static inline size_t fu_perf_reads(const char *path, const char *cache)
{
	struct tu_result r;
	char *argv[] = { "perf", "script", "-i", (char *)path, "-F", "ip", NULL };
	iu_run(&r, argv, cache, 120);
	cr_assert_eq(r.status, 0, "perf script on %s exited %d: %.1500s", path, r.status, r.err);
	cr_assert_null(strstr(r.err, "failed to process"), "perf: %.1500s", r.err);
	cr_assert_null(strstr(r.err, "data size"), "perf: %.1500s", r.err);
	cr_assert_null(strstr(r.err, "unexpected"), "perf: %.1500s", r.err);
	size_t n = tu_count(r.out, "\n");
	tu_result_free(&r);
	return n;
}

/* Files in dir whose name contains needle. */
static inline size_t fu_count_files(const char *dir, const char *needle)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strstr(e->d_name, needle) != NULL;
	closedir(d);
	return n;
}

/* Whether two files hold the same bytes (both must exist). */
static inline int fu_same_bytes(const char *a, const char *b)
{
	size_t na, nb;
	char *pa = tu_read_file(a, &na), *pb = tu_read_file(b, &nb);
	int same = pa && pb && na == nb && !memcmp(pa, pb, na);
	free(pa);
	free(pb);
	return same;
}

static inline int fu_is_symlink(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode);
}

#endif
