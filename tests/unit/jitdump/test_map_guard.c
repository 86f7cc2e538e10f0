/* JD_READER_MAP_OWN: a large dump of the running user is mapped, not copied; one that shrinks
 * under the mapping reads as zeros (never SIGBUS) and says so; another user's, or one others may
 * write, is copied as before; a SIGBUS outside the mappings still reaches the handler that was
 * there before. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

#define CODE (64u << 10)
#define LOADS 80	/* 5 MiB of code: pages enough to cut the file across several */

static char err[512];

/* A dump of LOADS loads of CODE bytes each (byte k of load i is i + k), closed. */
static char *big_dump(char **dir)
{
	struct jd_writer *w = jdt_writer(dir, 0);
	uint8_t *code = malloc(CODE);
	cr_assert_not_null(code);
	for (int i = 0; i < LOADS; i++) {
		for (unsigned k = 0; k < CODE; k++)
			code[k] = (uint8_t)(i + k);
		char name[32];
		snprintf(name, sizeof(name), "load%d", i);
		struct jd_load_desc d = { .name = name, .code_addr = 0x10000000ull + i * CODE,
					  .code = code, .code_size = CODE };
		cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	}
	free(code);
	char *path = strdup(jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	return path;
}

/* Reads every record; returns the loads whose code is what big_dump wrote. */
static int intact_loads(struct jd_reader *r, int *loads)
{
	struct jd_record rec;
	int rc, good = 0;
	*loads = 0;
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		if (rec.id != JD_CODE_LOAD)
			continue;
		int i = (*loads)++;
		const uint8_t *c = rec.u.load.code;
		int ok = rec.u.load.code_size == CODE;
		for (unsigned k = 0; ok && k < CODE; k++)
			ok = c[k] == (uint8_t)(i + k);
		good += ok;
	}
	return good;
}

Test(map_guard, own_dump_is_mapped_and_reads_the_same)
{
	char *dir, *path = big_dump(&dir);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_MAP_OWN, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert(jd_reader_mapped(r), "a dump of ours is mapped");
	int loads, good = intact_loads(r, &loads);
	cr_assert_eq(loads, LOADS);
	cr_assert_eq(good, LOADS);
	cr_assert_not(jd_reader_shrunk(r));
	jd_reader_close(r);

	cr_assert_eq(jd_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(jd_reader_mapped(r), "without the flag the file is copied");
	jd_reader_close(r);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

Test(map_guard, a_dump_cut_short_under_the_mapping_reads_zeros_and_says_so)
{
	char *dir, *path = big_dump(&dir);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_MAP_OWN, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert(jd_reader_mapped(r));
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size / 2), 0);
	int loads, good = intact_loads(r, &loads);	/* SIGBUS here would crash the test */
	cr_assert(jd_reader_shrunk(r), "the reader says the file shrank (%d of %d loads intact)",
		  good, loads);
	cr_assert_lt(good, LOADS, "what lay past the new end is not the code written");
	cr_assert_gt(good, 0, "what lay before it is");
	jd_reader_close(r);

	/* The same through the index: jd_index_shrunk is what inject asks. */
	cr_assert_eq(truncate(path, 0), 0);
	free(path);
	tu_rmtree(dir);
	free(dir);
	path = big_dump(&dir);
	struct jd_index *x;
	cr_assert_eq(jd_index_open_flags(&x, AT_FDCWD, path, NULL, JD_INDEX_MAP_OWN, err,
					 sizeof(err)), 0, "%s", err);
	cr_assert_not(jd_index_shrunk(x));
	const struct jd_load_entry *e = jd_index_load(x, LOADS - 1);
	cr_assert_not_null(e);
	cr_assert_eq(truncate(path, 4096), 0);
	/* Past the first page-cache folio this read faults (SIGBUS): without the handler the
	 * test crashes. */
	volatile uint8_t sum = 0;
	for (unsigned k = 0; k < CODE; k++)
		sum += ((const uint8_t *)e->load.code)[k];
	(void)sum;
	cr_assert(jd_index_shrunk(x));
	jd_index_close(x);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

Test(map_guard, a_dump_others_may_write_is_copied)
{
	char *dir, *path = big_dump(&dir);
	struct jd_reader *r;
	cr_assert_eq(chmod(path, 0664), 0);
	cr_assert_eq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_MAP_OWN, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert_not(jd_reader_mapped(r), "group-writable: copied");
	jd_reader_close(r);
	if (geteuid() == 0) {
		cr_assert_eq(chmod(path, 0644), 0);
		cr_assert_eq(chown(path, 65534, 65534), 0);
		cr_assert_eq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_MAP_OWN,
						  err, sizeof(err)), 0, "%s", err);
		cr_assert_not(jd_reader_mapped(r), "another user's: copied");
		cr_assert_eq(truncate(path, 0), 0);
		int loads, good = intact_loads(r, &loads);
		cr_assert_eq(good, LOADS, "the copy keeps every load");
		jd_reader_close(r);
	} else {
		tu_skip_part("not root: the other-owner case needs chown");
	}
	free(path);
	tu_rmtree(dir);
	free(dir);
}

static volatile sig_atomic_t theirs;
static sigjmp_buf back;

static void their_handler(int sig)
{
	(void)sig;
	theirs = 1;
	siglongjmp(back, 1);
}

/* A program's own SIGBUS handler, installed before the first mapping, still gets the faults
 * that are not in a dump's mapping. */
Test(map_guard, faults_elsewhere_reach_the_handler_before)
{
	struct sigaction sa = { .sa_handler = their_handler };
	sigemptyset(&sa.sa_mask);
	struct sigaction old;
	cr_assert_eq(sigaction(SIGBUS, &sa, &old), 0);
	char *dir, *path = big_dump(&dir);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open_flags(&r, AT_FDCWD, path, NULL, JD_READER_MAP_OWN, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert(jd_reader_mapped(r));

	/* A mapping of our own past its file's end: reading it is a SIGBUS of nobody's dump. */
	char other[4096];
	snprintf(other, sizeof(other), "%s/other", dir);
	int fd = open(other, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 4096), 0);
	long ps = sysconf(_SC_PAGESIZE);
	volatile uint8_t *m = mmap(NULL, 2 * ps, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq((void *)m, MAP_FAILED);
	if (!sigsetjmp(back, 1))
		(void)m[ps];
	cr_assert(theirs, "their handler ran");
	munmap((void *)m, 2 * ps);
	close(fd);
	jd_reader_close(r);
	sigaction(SIGBUS, &old, NULL);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
