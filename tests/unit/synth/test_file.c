/* test_file.c - synth/file.c: whole-or-nothing files and perf's build-id cache layout. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "tests/lib/testutil.h"
#include "tests/unit/synth/st.h"

static void built(struct synth_elf *e, uint32_t generation)
{
	struct st_load l;
	st_load_init(&l, 1);
	l.in.generation = generation;
	char err[256];
	cr_assert_eq(synth_build(&l.in, e, JP_ERRBUF_LOG(err)), 0, "%s", err);
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

Test(file, write_is_whole_and_0644)
{
	char *dir = tu_tmpdir("synth-file");
	struct synth_elf e;
	built(&e, 1);
	char path[PATH_MAX], err[256];
	snprintf(path, sizeof(path), "%s/jitted-1-1.so", dir);
	mode_t old = umask(077);
	cr_assert_eq(synth_write_file(&e, path, JP_ERRBUF_LOG(err)), 0, "%s", err);
	umask(old);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644);
	size_t len;
	void *back = tu_read_file(path, &len);
	cr_assert_eq(len, e.size);
	cr_assert(!memcmp(back, e.data, len));
	free(back);
	cr_assert_eq(entries(dir), 1, "no temp file left");
	/* Overwrites atomically; a missing directory is an error naming the temp path. */
	cr_assert_eq(synth_write_file(&e, path, JP_ERRBUF_LOG(err)), 0, "%s", err);
	snprintf(path, sizeof(path), "%s/nodir/x.so", dir);
	cr_assert_eq(synth_write_file(&e, path, JP_ERRBUF_LOG(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "nodir/x.so.tmp."), "%s", err);
	synth_elf_free(&e);
	tu_rmtree(dir);
	free(dir);
}

Test(file, cache_paths)
{
	uint8_t id[20];
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(0xa0 + i);
	char buf[PATH_MAX];
	cr_assert_eq(synth_cache_elf_path("/c", "/tmp/j/jitted-1-2.so", id, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/c/tmp/j/jitted-1-2.so/a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3/elf");
	cr_assert_eq(synth_cache_link_path("/c", id, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/c/.build-id/a0/a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
	static const char *bad[] = { "rel/x.so", "/a/../x.so", "/a/./x.so", "/a//x.so", "/a/",
				     "/..", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(synth_cache_elf_path("/c", bad[i], id, buf, sizeof(buf)), -EINVAL,
			     "%s accepted", bad[i]);
	cr_assert_eq(synth_cache_elf_path("/c", "/x", id, buf, 20), -ENAMETOOLONG);
}

Test(file, default_root)
{
	char buf[PATH_MAX];
	setenv("PERF_BUILDID_DIR", "/pb", 1);
	cr_assert_eq(synth_cache_default_root(buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/pb");
	unsetenv("PERF_BUILDID_DIR");
	setenv("HOME", "/home/u", 1);
	cr_assert_eq(synth_cache_default_root(buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/home/u/.debug");
	unsetenv("HOME");
	cr_assert_eq(synth_cache_default_root(buf, sizeof(buf)), -ENOENT);
}

Test(file, cache_add_layout_and_skip)
{
	char *root = tu_tmpdir("synth-cache");
	struct synth_elf e, g2;
	built(&e, 1);
	built(&g2, 2);
	char err[256], elf[PATH_MAX], link[PATH_MAX], target[PATH_MAX], hex[41];
	const char *dso = "/tmp/jitdir/jitted-77-3.so";
	cr_assert_eq(synth_cache_add(&e, root, dso, JP_ERRBUF_LOG(err)), 0, "%s", err);
	synth_cache_elf_path(root, dso, e.build_id, elf, sizeof(elf));
	synth_cache_link_path(root, e.build_id, link, sizeof(link));
	synth_build_id_hex(e.build_id, hex);
	size_t len;
	void *back = tu_read_file(elf, &len);
	cr_assert_not_null(back);
	cr_assert(len == e.size && !memcmp(back, e.data, len));
	free(back);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	cr_assert_gt(n, 0);
	target[n] = 0;
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "../..%s/%s", dso, hex);
	cr_assert_str_eq(target, want);
	/* perf opens <link>/elf: the relative link must resolve to the file. */
	char via[PATH_MAX + 8];
	snprintf(via, sizeof(via), "%s/elf", link);
	back = tu_read_file(via, &len);
	cr_assert(back && len == e.size);
	free(back);

	struct stat st1, st2;
	stat(elf, &st1);
	cr_assert_eq(synth_cache_add(&e, root, dso, JP_ERRBUF_LOG(err)), 1, "identical: skipped");
	stat(elf, &st2);
	cr_assert_eq(st1.st_ino, st2.st_ino, "not rewritten");
	/* Same path, another generation: a second build-id directory beside the first. */
	cr_assert_eq(synth_cache_add(&g2, root, dso, JP_ERRBUF_LOG(err)), 0, "%s", err);
	char dsodir[PATH_MAX];
	snprintf(dsodir, sizeof(dsodir), "%s%s", root, dso);
	cr_assert_eq(entries(dsodir), 2);
	cr_assert_eq(synth_cache_add(&e, root, "../x", JP_ERRBUF_LOG(err)), -EINVAL);
	synth_elf_free(&e);
	synth_elf_free(&g2);
	tu_rmtree(root);
	free(root);
}

/* When the DSO path already holds the ELF, the cache entry is a hard link to it. */
/* Issue 16 finding 2: the cache never hard-links the DSO's file (its owner could rewrite the
 * entry later); the entry is a copy of the same bytes. */
Test(file, cache_copies_never_links_the_dso_file)
{
	char *root = tu_tmpdir("synth-link");
	struct synth_elf e;
	built(&e, 1);
	char dso[PATH_MAX], elf[PATH_MAX], err[256], cache[PATH_MAX];
	snprintf(dso, sizeof(dso), "%s/jitted-5-6.so", root);
	snprintf(cache, sizeof(cache), "%s/cache", root);
	cr_assert_eq(synth_write_file(&e, dso, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(synth_cache_add(&e, cache, dso, JP_ERRBUF_LOG(err)), 0, "%s", err);
	synth_cache_elf_path(cache, dso, e.build_id, elf, sizeof(elf));
	struct stat a, b;
	cr_assert_eq(stat(dso, &a), 0);
	cr_assert_eq(stat(elf, &b), 0);
	cr_assert_neq(a.st_ino, b.st_ino, "a link to the DSO file, not a copy");
	cr_assert_eq(a.st_nlink, 1);
	size_t la, lb;
	char *ca = tu_read_file(dso, &la), *cb = tu_read_file(elf, &lb);
	cr_assert(la == lb && !memcmp(ca, cb, la), "the copy differs");
	free(ca);
	free(cb);
	synth_elf_free(&e);
	tu_rmtree(root);
	free(root);
}

/* A stale .build-id link (pointing elsewhere) is replaced, not followed. */
Test(file, cache_replaces_a_stale_link)
{
	char *root = tu_tmpdir("synth-stale");
	struct synth_elf e;
	built(&e, 3);
	char lnk[PATH_MAX], dir[PATH_MAX + 16], err[256], target[PATH_MAX];
	synth_cache_link_path(root, e.build_id, lnk, sizeof(lnk));
	snprintf(dir, sizeof(dir), "%s", lnk);
	*strrchr(dir, '/') = 0;
	struct tu_result r;
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && ln -s /etc/passwd %s", dir, lnk);
	cr_assert_eq(tu_sh(&r, cmd, 10), 0);
	cr_assert_eq(r.status, 0);
	tu_result_free(&r);
	cr_assert_eq(synth_cache_add(&e, root, "/x/jitted-1-1.so", JP_ERRBUF_LOG(err)), 0, "%s", err);
	ssize_t n = readlink(lnk, target, sizeof(target) - 1);
	cr_assert_gt(n, 0);
	target[n] = 0;
	cr_assert_not_null(strstr(target, "../../x/jitted-1-1.so/"), "%s", target);
	synth_elf_free(&e);
	tu_rmtree(root);
	free(root);
}

/* synth_place, the one build -> cache -> write order: a new ELF's cache entry is a copy of its
 * own (an in-place rewrite of the file beside the dump, as perf inject --jit does, leaves the
 * cache alone), the second placement reuses both, and a directory that cannot take the file
 * still leaves the cache entry and says why. */
Test(file, place_caches_first_as_a_copy)
{
	char *root = tu_tmpdir("synth-place");
	struct synth_elf e;
	struct synth_placed pl;
	built(&e, 1);
	char dso[PATH_MAX], elf[PATH_MAX], err[256] = "", cache[PATH_MAX];
	snprintf(dso, sizeof(dso), "%s/jitted-5-6.so", root);
	snprintf(cache, sizeof(cache), "%s/cache", root);
	cr_assert_eq(synth_place(&e, dso, cache, &pl, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert(pl.cached && pl.written && !pl.reused && !pl.cache_reused);
	synth_cache_elf_path(cache, dso, e.build_id, elf, sizeof(elf));
	struct stat a, b;
	cr_assert_eq(stat(dso, &a), 0);
	cr_assert_eq(stat(elf, &b), 0);
	cr_assert_neq(a.st_ino, b.st_ino, "the cache entry must not share the dump's file");

	cr_assert_eq(synth_place(&e, dso, cache, &pl, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert(pl.reused && pl.cache_reused && !pl.written && !pl.cached);

	/* A regular file where the dump directory should be: the file cannot be written. */
	char notdir[PATH_MAX], in_it[PATH_MAX + 32];
	snprintf(notdir, sizeof(notdir), "%s/notdir", root);
	snprintf(in_it, sizeof(in_it), "%s/jitted-5-7.so", notdir);
	cr_assert_eq(tu_write_file(notdir, "x", 1), 0);
	struct synth_elf e2;
	built(&e2, 2);
	err[0] = 0;
	cr_assert_lt(synth_place(&e2, in_it, cache, &pl, JP_ERRBUF_LOG(err)), 0);
	cr_assert(pl.cached && !pl.written);
	cr_assert_not_null(strstr(err, in_it), "%s", err);
	synth_elf_free(&e);
	synth_elf_free(&e2);
	tu_rmtree(root);
	free(root);
}
