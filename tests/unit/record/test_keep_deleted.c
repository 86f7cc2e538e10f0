/* test_keep_deleted.c - --keep-deleted's files that cannot be kept (buildid_thread.c): over
 * the size limit, refused by the cache, unreadable through map_files, without a build-id.
 * Each is counted by why and the first named, never dropped without a word. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/record/record_int.h"
#include "tests/lib/testutil.h"

#define LEN 8192

static char *dir, path[4200], cache[4200];
static void *map;

/* A non-ELF file of LEN bytes, mapped by this process and then deleted. */
static void setup(void)
{
	static char bytes[LEN];
	dir = tu_tmpdir("keepnk");
	snprintf(path, sizeof(path), "%s/victim.so", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	cr_assert_eq(mkdir(cache, 0755), 0);
	memset(bytes, 0x5a, sizeof(bytes));
	cr_assert_eq(tu_write_file(path, bytes, sizeof(bytes)), 0);
	int fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	map = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	close(fd);
	cr_assert_eq(unlink(path), 0);
	char mf[128];
	snprintf(mf, sizeof(mf), "/proc/self/map_files/%lx-%lx", (unsigned long)map,
		 (unsigned long)map + LEN);
	fd = open(mf, O_RDONLY);
	if (fd < 0)	/* needs CAP_CHECKPOINT_RESTORE (or CAP_SYS_ADMIN) */
		cr_skip_test("/proc/self/map_files cannot be read here");
	close(fd);
}

static void teardown(void)
{
	munmap(map, LEN);
	tu_rmtree(dir);
	free(dir);
}

TestSuite(record_keep_deleted, .init = setup, .fini = teardown);

/* One request for the mapping [map, map + len) of the deleted file (id NULL: the side thread
 * reads it; else the kernel's), files over keep_max not kept. The files kept. */
static size_t keep(size_t len, const uint8_t *id, uint64_t keep_max, struct rec_not_kept *nk)
{
	char name[4300];
	struct rec_bid_thread *t;
	snprintf(name, sizeof(name), "%s (deleted)", path);
	cr_assert_eq(rec_bid_start(&t, cache), 0);
	rec_bid_set_keep_max(t, keep_max);
	cr_assert_eq(rec_bid_request_map(t, name, getpid(), (uintptr_t)map, (uintptr_t)map + len,
					 id, id ? 20 : 0), 0);
	rec_bid_stop(t);
	cr_assert_eq(rec_bid_error(t), 0);
	size_t kept = rec_bid_kept(t);
	rec_bid_not_kept(t, nk);
	struct rec_bid_result res;
	while (rec_bid_poll(t, &res, 1))
		free(res.path);
	rec_bid_free(t);
	return kept;
}

static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef };

/* keep() keeps nothing: the one file counted under the rec_not_kept field at offset `under`
 * and named first with why. Returns that line (the caller frees it). */
static char *refused(size_t len, const uint8_t *kid, uint64_t keep_max, size_t under,
		     const char *why)
{
	char want[4300];
	struct rec_not_kept nk;
	cr_assert_eq(keep(len, kid, keep_max, &nk), 0);
	cr_assert_eq(*(const uint64_t *)((const char *)&nk + under), 1);
	cr_assert_eq(nk.unreadable + nk.too_big + nk.no_build_id + nk.cache_error, 1);
	snprintf(want, sizeof(want), "%s: %s", path, why);
	cr_assert_not_null(nk.first);
	cr_assert(!strncmp(nk.first, want, strlen(want)), "said \"%s\", not \"%s...\"", nk.first,
		  want);
	return nk.first;
}

Test(record_keep_deleted, within_the_limit_kept)
{
	struct rec_not_kept nk;
	cr_assert_eq(keep(LEN, id, LEN, &nk), 1);
	cr_assert_eq(nk.unreadable + nk.too_big + nk.no_build_id + nk.cache_error, 0);
	cr_assert_null(nk.first);
}

Test(record_keep_deleted, over_the_limit_counted_and_named)
{
	free(refused(LEN, id, LEN - 1, offsetof(struct rec_not_kept, too_big),
		     "8192 bytes, over the limit of 8191"));
}

/* A symlink planted where the cache would make the file's first directory: refused. */
Test(record_keep_deleted, cache_refusal_counted_and_named)
{
	char first[4200], link[8400];
	snprintf(first, sizeof(first), "%s", path + 1);
	*strchr(first, '/') = 0;
	snprintf(link, sizeof(link), "%s/%s", cache, first);
	cr_assert_eq(symlink(dir, link), 0);
	free(refused(LEN, id, REC_KEEP_MAX, offsetof(struct rec_not_kept, cache_error),
		     "not written to the cache"));
}

/* A range map_files has no entry for (the mapping went away). */
Test(record_keep_deleted, unreadable_counted_and_named)
{
	char *first = refused(LEN / 2, id, REC_KEEP_MAX, offsetof(struct rec_not_kept, unreadable),
			      "/proc/");
	cr_assert(strstr(first, "/map_files/"), "%s", first);
	free(first);
}

/* Not an ELF file: no build-id to file it under. */
Test(record_keep_deleted, no_build_id_counted_and_named)
{
	free(refused(LEN, NULL, REC_KEEP_MAX, offsetof(struct rec_not_kept, no_build_id),
		     "no build-id read from it"));
}
