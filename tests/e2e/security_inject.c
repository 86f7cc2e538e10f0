/* security_inject.c - issue 16, findings 1-3 end to end: a recording and dump prepared by
 * another user must not make inject write into a directory the text of the marker path names
 * while symlinks lead elsewhere, nor into any directory that user owns; the build-id cache
 * never shares an inode with a file beside the dump; -o never writes into a FIFO planted at
 * its name. The other user is a bare uid the files are chowned to (root only; without root
 * that part is skipped and says why). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/e2e/inject_util.h"
#include "tests/lib/testutil.h"

#define OTHER_UID 54321u	/* never a real account's: only its files' owner */

static int can_chown(void)
{
	if (geteuid() == 0)
		return 1;
	tu_skip_part("not root: the other-user part needs chown to uid %u", OTHER_UID);
	return 0;
}

static void sh_ok(const char *cmd)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	tu_result_free(&r);
}

/* inject-gen into dumpdir, its marker naming marker_dir/jit-PID.dump. */
static void gen(const char *dumpdir, const char *marker_dir, const char *data)
{
	struct tu_result r;
	char *argv[] = { (char *)tu_build("inject-gen"), "--dir", (char *)dumpdir, "-o",
			 (char *)data, "--loads", "10", "--samples", "200", "--marker-dir",
			 (char *)marker_dir, NULL };
	iu_run(&r, argv, NULL, 120);
	cr_assert_eq(r.status, 0, "inject-gen: %s", r.err);
	tu_result_free(&r);
}

/* -f: the recording is the other user's in some runs (finding 13 is security_report's). */
static void inject(struct tu_result *r, const char *in, const char *out, const char *cache)
{
	char *argv[] = { (char *)tu_build("jitprof"), "inject", "-f", "--jit", "-i", (char *)in, "-o",
			 (char *)out, "--buildid-dir", (char *)cache, NULL };
	iu_run(r, argv, NULL, 120);
}

static size_t count_jitted(const char *dir)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += !strncmp(e->d_name, "jitted-", 7);
	if (d)
		closedir(d);
	return n;
}

/* Finding 1: D/l -> x/a, the marker names D/l/../../v/jit-P.dump. As text that is T/v (the
 * victim's 0700 directory); the kernel opens D/v/jit-P.dump. */
Test(security_inject, marker_path_through_a_symlink_never_writes_where_its_text_points,
     .timeout = 180)
{
	char *t = tu_tmpdir("sec-inj");
	char cmd[20000], d[4200], v[4200], marker[4400], data[4400], out[4400], cache[4400];
	snprintf(d, sizeof(d), "%s/d", t);
	snprintf(v, sizeof(v), "%s/v", t);
	snprintf(marker, sizeof(marker), "%s/l/../../v", d);
	snprintf(data, sizeof(data), "%s/perf.data", d);
	snprintf(out, sizeof(out), "%s/out.data", t);
	snprintf(cache, sizeof(cache), "%s/cache", t);
	snprintf(cmd, sizeof(cmd), "cd '%s' && chmod 755 . && mkdir -m 700 v && mkdir -p d/x/a d/v"
		 " && ln -s x/a d/l", t);
	sh_ok(cmd);
	gen(d, marker, data);
	snprintf(cmd, sizeof(cmd), "mv '%s'/jit-*.dump '%s/v/'", d, d);
	sh_ok(cmd);

	struct tu_result r;
	inject(&r, data, out, cache);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(count_jitted(v), 0, "inject wrote into %s, which only the marker's text "
		     "names", v);
	char real[4400];
	snprintf(real, sizeof(real), "%s/v", d);
	cr_assert_eq(count_jitted(real), 10, "the ELFs belong beside the dump that was read");
	tu_result_free(&r);

	if (can_chown()) {	/* the same, the recording being another user's */
		snprintf(cmd, sizeof(cmd), "rm -f '%s'/v/jitted-* '%s' && chown -R %u '%s'", d, out,
			 OTHER_UID, d);
		sh_ok(cmd);
		inject(&r, data, out, cache);
		cr_assert_eq(r.status, 0, "%s", r.err);
		cr_assert_eq(count_jitted(v), 0);
		cr_assert_eq(count_jitted(real), 0, "inject wrote into a directory of uid %u",
			     OTHER_UID);
		cr_assert(strstr(r.err, "owned by uid") && strstr(r.err, "build-id cache"),
			  "no warning saying why: %s", r.err);
		tu_result_free(&r);
		/* without --cache (off by default) they still go to the cache, not nowhere */
		char cache2[4000];
		snprintf(cache2, sizeof(cache2), "%s/cache2", t);
		char *argv[] = { (char *)tu_build("jitprof"), "inject", "-f", "--jit", "-i", data,
				 "-o", out, NULL };
		unlink(out);
		iu_run(&r, argv, cache2, 120);	/* PERF_BUILDID_DIR=cache2 */
		cr_assert_eq(r.status, 0, "%s", r.err);
		tu_result_free(&r);
		cr_assert_eq(count_jitted(real), 0);
		snprintf(cmd, sizeof(cmd), "find '%s' -type f -name elf | wc -l", cache2);
		cr_assert_eq(tu_sh(&r, cmd, 60), 0);
		cr_assert_eq(atoi(r.out), 10, "ELFs of another user's dump not in the cache: %s",
			     r.out);
		tu_result_free(&r);
	}
	tu_rmtree(t);
	free(t);
}

static void check_cache_is_ours(const char *cache, const char *beside_dir)
{
	char cmd[8400];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "find '%s' -type f -name elf -printf '%%i %%n %%U\\n'; "
		 "echo --; find '%s' -maxdepth 1 -name 'jitted-*' -printf '%%i\\n'", cache,
		 beside_dir);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	char *sep = strstr(r.out, "--\n");
	cr_assert(sep);
	*sep = 0;
	size_t n = 0;
	for (char *l = strtok(r.out, "\n"); l; l = strtok(NULL, "\n"), n++) {
		unsigned long ino, nlink, uid;
		cr_assert_eq(sscanf(l, "%lu %lu %lu", &ino, &nlink, &uid), 3);
		cr_assert_eq(nlink, 1, "a cache entry is a hard link (%s)", l);
		cr_assert_eq(uid, (unsigned long)geteuid(), "a cache entry is another user's file");
		char needle[32];
		snprintf(needle, sizeof(needle), "%lu\n", ino);
		cr_assert_null(strstr(sep + 3, needle), "cache shares an inode with a file beside "
			       "the dump");
	}
	cr_assert_eq(n, 10, "expected 10 cache entries, found %zu", n);
	tu_result_free(&r);
}

/* Finding 2: identical files already beside the dump are never hard-linked into the cache. */
Test(security_inject, cache_never_links_files_beside_the_dump, .timeout = 180)
{
	char *t = tu_tmpdir("sec-cache");
	char cmd[20000], d[4200], data[4400], out[4400], c1[4400], c2[4400];
	snprintf(d, sizeof(d), "%s/d", t);
	snprintf(data, sizeof(data), "%s/perf.data", d);
	snprintf(out, sizeof(out), "%s/out.data", t);
	snprintf(c1, sizeof(c1), "%s/c1", t);
	snprintf(c2, sizeof(c2), "%s/c2", t);
	snprintf(cmd, sizeof(cmd), "mkdir '%s'", d);
	sh_ok(cmd);
	gen(d, d, data);
	struct tu_result r;
	inject(&r, data, out, c1);	/* leaves jitted-*.so beside the dump */
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	cr_assert_eq(count_jitted(d), 10);
	unlink(out);
	inject(&r, data, out, c2);	/* same bytes beside the dump: still copies */
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	check_cache_is_ours(c2, d);

	if (can_chown()) {	/* her files beside her dump, then she rewrites them */
		char c3[4400];
		snprintf(c3, sizeof(c3), "%s/c3", t);
		snprintf(cmd, sizeof(cmd), "chown -R %u '%s' && rm -f '%s' && chmod 755 '%s'",
			 OTHER_UID, d, out, t);
		sh_ok(cmd);
		inject(&r, data, out, c3);
		cr_assert_eq(r.status, 0, "%s", r.err);
		tu_result_free(&r);
		check_cache_is_ours(c3, d);
		/* she rewrites her files, as herself when setpriv can make us her */
		int as_her = tu_have("setpriv");
		if (!as_her)
			fprintf(stderr, "security_inject: no setpriv, uid %u's rewrite done as root\n",
				OTHER_UID);
		snprintf(cmd, sizeof(cmd), "%s sh -c 'for f in %s/jitted-*; do echo HER > \"$f\"; "
			 "done' && grep -l HER '%s'/jitted-* | wc -l && grep -rl HER '%s' | wc -l",
			 as_her ? "setpriv --reuid=54321 --regid=54321 --clear-groups" : "", d, d, c3);
		cr_assert_eq(tu_sh(&r, cmd, 60), 0);
		cr_assert_eq(r.status, 0, "%s", r.err);
		unsigned hers = 0, cached = 1;
		cr_assert_eq(sscanf(r.out, "%u %u", &hers, &cached), 2, "%s", r.out);
		cr_assert_eq(hers, 10, "her rewrite did not happen: %s", r.out);
		cr_assert_eq(cached, 0, "her rewrite reached the cache");
		tu_result_free(&r);
	}
	tu_rmtree(t);
	free(t);
}

/* Finding 3: a FIFO planted at -o's name: refused at once with the name, nothing written. */
Test(security_inject, fifo_at_the_output_name_is_refused_without_blocking, .timeout = 120)
{
	char *t = tu_tmpdir("sec-fifo");
	char data[4400], out[4400], cache[4400];
	snprintf(data, sizeof(data), "%s/perf.data", t);
	snprintf(out, sizeof(out), "%s/out.data", t);
	snprintf(cache, sizeof(cache), "%s/cache", t);
	gen(t, t, data);
	cr_assert_eq(mkfifo(out, 0666), 0);
	struct tu_result r;
	inject(&r, data, out, cache);
	cr_assert_neq(r.status, 0, "inject wrote into a FIFO");
	cr_assert(strstr(r.err, out) && strstr(r.err, "not a regular file"), "%s", r.err);
	tu_result_free(&r);
	struct stat sb;
	cr_assert_eq(lstat(out, &sb), 0);
	cr_assert(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
	tu_rmtree(t);
	free(t);
}

/* Findings 6 and 11 through inject: a marker naming a FIFO (or a link to /dev/zero) costs a
 * warning, not a hang; the dump is read whole before use, so its owner truncating it after
 * inject started cannot fault inject (the reader's unit test truncates after the open). */
Test(security_inject, fifo_or_device_dump_is_a_warning_not_a_hang, .timeout = 120)
{
	char *t = tu_tmpdir("sec-fdump");
	char data[4400], out[4400], cache[4400], cmd[20000];
	snprintf(data, sizeof(data), "%s/perf.data", t);
	snprintf(out, sizeof(out), "%s/out.data", t);
	snprintf(cache, sizeof(cache), "%s/cache", t);
	for (int kind = 0; kind < 2; kind++) {
		gen(t, t, data);
		snprintf(cmd, sizeof(cmd), "cd '%s' && for d in jit-*.dump; do rm \"$d\" && %s; done",
			 t, kind ? "ln -s /dev/zero \"$d\"" : "mkfifo \"$d\"");
		sh_ok(cmd);
		struct tu_result r;
		inject(&r, data, out, cache);	/* no dump readable: inject says so and fails */
		cr_assert(r.status < 128, "inject died of a signal: %d", r.status);
		cr_assert(strstr(r.err, "unusable") && strstr(r.err, kind ? "a symlink, not followed" :
							     "not a regular file"), "%s", r.err);
		tu_result_free(&r);
		snprintf(cmd, sizeof(cmd), "rm -f '%s'/jit-*.dump '%s'", t, out);
		sh_ok(cmd);
	}
	tu_rmtree(t);
	free(t);
}

/* A symlink planted inside the build-id cache (<cache>/<first dir of the dump's path> ->
 * elsewhere): nothing is written through it, inject says why in a warning, and the ELFs
 * still go beside the dump (its directory is ours). */
Test(security_inject, symlink_inside_the_cache_is_not_followed, .timeout = 180)
{
	char *t = tu_tmpdir("sec-clink");
	char cmd[40000], d[4200], data[4400], out[4400], cache[4400], away[4400], first[4200];
	snprintf(d, sizeof(d), "%s/d", t);
	snprintf(data, sizeof(data), "%s/perf.data", d);
	snprintf(out, sizeof(out), "%s/out.data", t);
	snprintf(cache, sizeof(cache), "%s/cache", t);
	snprintf(away, sizeof(away), "%s/away", t);
	/* the cache entry's first directory is the dump path's first component */
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(d + 1, "/"), d + 1);
	snprintf(cmd, sizeof(cmd), "mkdir '%s' '%s' '%s' && ln -s '%s' '%s/%s'", d, cache, away,
		 away, cache, first);
	sh_ok(cmd);
	gen(d, d, data);
	struct tu_result r;
	inject(&r, data, out, cache);
	cr_assert_not_null(strstr(r.err, "symbolic link inside the build-id cache"),
			   "no warning naming the planted link: %s", r.err);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "find '%s' -mindepth 1 | wc -l", away);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(atoi(r.out), 0, "written through the link into %s: %s", away, r.out);
	tu_result_free(&r);
	cr_assert_eq(count_jitted(d), 10, "the ELFs beside the dump are still written");
	tu_rmtree(t);
	free(t);
}
