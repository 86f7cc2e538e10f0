/* test_cache_links.c - synth/file.c's build-id cache writes walk the cache without following
 * links (issue 16): a symlinked directory inside the cache pointing elsewhere gets nothing
 * written behind it and a message saying so; a symlink or FIFO at the final file is never
 * followed or opened; the cache root itself is followed, as the user named it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "tests/unit/synth/st.h"

static char *top;
static char cache[PATH_MAX], elsewhere[PATH_MAX];
static struct synth_elf e;

static void setup(void)
{
	struct st_load l;
	char err[256];
	st_load_init(&l, 1);
	cr_assert_eq(synth_build(&l.in, &e, JP_ERRBUF_LOG(err)), 0, "%s", err);
	top = tu_tmpdir("synth-clinks");
	cr_assert(top);
	snprintf(cache, sizeof(cache), "%s/cache", top);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", top);
	cr_assert_eq(mkdir(cache, 0755), 0);
	cr_assert_eq(mkdir(elsewhere, 0755), 0);
}

static void teardown(void)
{
	synth_elf_free(&e);
	tu_rmtree(top);
	free(top);
}

static size_t entries(const char *d)
{
	DIR *dp = opendir(d);
	size_t n = 0;
	for (struct dirent *de; dp && (de = readdir(dp));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (dp)
		closedir(dp);
	return n;
}

static void plant(const char *target, const char *rel)
{
	char p[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/%s", cache, rel);
	cr_assert_eq(symlink(target, p), 0, "%s: %s", p, strerror(errno));
}

Test(cache_links, symlinked_dir_inside_cache, .init = setup, .fini = teardown, .timeout = 20)
{
	char err[512];
	plant(elsewhere, "tmp");	/* ~/.debug/tmp -> elsewhere */
	int rc = synth_cache_add(&e, cache, "/tmp/j/jitted-1-2.so", JP_ERRBUF_LOG(err));
	cr_assert_eq(rc, -ELOOP, "rc %d: %s", rc, err);
	cr_assert_not_null(strstr(err, "symbolic link inside the build-id cache"), "%s", err);
	cr_assert_not_null(strstr(err, "tmp/j/jitted-1-2.so"), "message names the path: %s", err);
	cr_assert_eq(entries(elsewhere), 0, "written through the link");
	/* the same for the .build-id directory itself */
	plant(elsewhere, ".build-id");
	rc = synth_cache_add(&e, cache, "/opt/jitted-1-2.so", JP_ERRBUF_LOG(err));
	cr_assert_eq(rc, -ELOOP, "rc %d: %s", rc, err);
	cr_assert_eq(entries(elsewhere), 0, "a link written through .build-id");
}

Test(cache_links, symlink_at_the_file_not_followed, .init = setup, .fini = teardown,
     .timeout = 20)
{
	char err[512], elf[PATH_MAX], victim[PATH_MAX + 8], dirp[PATH_MAX];
	const char *dso = "/x/jitted-3-4.so";
	snprintf(victim, sizeof(victim), "%s/victim", elsewhere);
	cr_assert_eq(tu_write_file(victim, "keep", 4), 0);
	cr_assert_eq(synth_cache_elf_path(cache, dso, e.build_id, elf, sizeof(elf)), 0);
	snprintf(dirp, sizeof(dirp), "%s", elf);
	*strrchr(dirp, '/') = 0;
	struct tu_result r;
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && ln -s '%s' '%s'", dirp, victim, elf);
	cr_assert_eq(tu_sh(&r, cmd, 10), 0);
	cr_assert_eq(r.status, 0);
	tu_result_free(&r);

	cr_assert_eq(synth_cache_add(&e, cache, dso, JP_ERRBUF_LOG(err)), 0, "%s", err);
	size_t len;
	char *v = tu_read_file(victim, &len);
	cr_assert(v && len == 4 && !memcmp(v, "keep", 4), "the link's target was written");
	free(v);
	struct stat sb;
	cr_assert_eq(lstat(elf, &sb), 0);
	cr_assert(S_ISREG(sb.st_mode), "the cache entry is still a link");
	char *back = tu_read_file(elf, &len);
	cr_assert(back && len == e.size && !memcmp(back, e.data, len));
	free(back);
}

Test(cache_links, fifo_at_the_file_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	char err[512], elf[PATH_MAX], dirp[PATH_MAX];
	const char *dso = "/y/jitted-5-6.so";
	cr_assert_eq(synth_cache_elf_path(cache, dso, e.build_id, elf, sizeof(elf)), 0);
	snprintf(dirp, sizeof(dirp), "%s", elf);
	*strrchr(dirp, '/') = 0;
	struct tu_result r;
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && mkfifo '%s'", dirp, elf);
	cr_assert_eq(tu_sh(&r, cmd, 10), 0);
	cr_assert_eq(r.status, 0);
	tu_result_free(&r);
	int rc = synth_cache_add(&e, cache, dso, JP_ERRBUF_LOG(err));
	cr_assert_lt(rc, 0, "a FIFO accepted as the cache entry");
	cr_assert_not_null(strstr(err, "not a regular file"), "%s", err);
}

/* The root is the user's choice: a root that is itself a link is followed. */
Test(cache_links, root_link_followed, .init = setup, .fini = teardown, .timeout = 20)
{
	char err[512], root[PATH_MAX + 8], elf[PATH_MAX];
	snprintf(root, sizeof(root), "%s/rootlink", top);
	cr_assert_eq(symlink(cache, root), 0);
	cr_assert_eq(synth_cache_add(&e, root, "/z/jitted-7-8.so", JP_ERRBUF_LOG(err)), 0, "%s",
		     err);
	cr_assert_eq(synth_cache_elf_path(cache, "/z/jitted-7-8.so", e.build_id, elf,
					  sizeof(elf)), 0);
	struct stat sb;
	cr_assert_eq(stat(elf, &sb), 0, "%s missing", elf);
	/* and a root that does not exist yet is made */
	snprintf(root, sizeof(root), "%s/new/cache", top);
	cr_assert_eq(synth_cache_add(&e, root, "/z/jitted-7-8.so", JP_ERRBUF_LOG(err)), 0, "%s",
		     err);
}
