/* test_paths.c - jitdump/paths.c: perf's marker-name rule and the companion name. */
#include <criterion/criterion.h>
#include <errno.h>

#include "jitdump/jitdump.h"

Test(paths, marker_names)
{
	uint32_t pid = 0;
	cr_assert(jd_is_marker_name("/a/b/jit-1234.dump", &pid));
	cr_assert_eq(pid, 1234);
	cr_assert(jd_is_marker_name("jit-7.dump", NULL));
	const char *no[] = { "/a/jit-.dump", "/a/jit-12.dump.jitprof", "/a/xjit-12.dump",
			     "/a/jit-12a.dump", "/a/jit-12.dum", "/a/jit-99999999999.dump",
			     "/jit-12.dump/", "" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_assert_not(jd_is_marker_name(no[i], &pid), "%s accepted", no[i]);
}

Test(paths, companion_name)
{
	char buf[64];
	cr_assert_eq(jd_ext_path("/t/jit-9.dump", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/t/jit-9.dump.jitprof");
	cr_assert_eq(jd_ext_path("/t/jit-9.dump", buf, 21), -ENAMETOOLONG);
	cr_assert_eq(jd_ext_path("/t/jit-9.dump", buf, 22), 0);
}

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

/* A symlink or a hard link planted where the dump (or its companion) will be created is not
 * written through: the name gets a new file of its own, and the file the link led to keeps its
 * bytes (issue 8, security). */
Test(paths, planted_links_are_not_written_through)
{
	char *dir = tu_tmpdir("jdlink");
	char victim[512], dump[512], ext[512];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	cr_assert_eq(tu_write_file(victim, "keep", 4), 0);
	for (int which = 0; which < 4; which++) {
		snprintf(dump, sizeof(dump), "%s/jit-%d.dump", dir, (int)getpid());
		cr_assert_eq(jd_ext_path(dump, ext, sizeof(ext)), 0);
		unlink(dump);
		unlink(ext);
		const char *at = which & 1 ? ext : dump;
		cr_assert_eq(which < 2 ? symlink(victim, at) : link(victim, at), 0);
		JD_OPTS(jd_writer_opts, o, .dir = dir, .clock = JD_CLOCK_MONOTONIC);
		struct jd_writer *w = NULL;
		int rc = jd_writer_open(&w, &o);
		if (rc == 0) {	/* the companion is opened with the first companion record */
			struct jd_ext_unload u = { 0 };
			rc = jd_write_unload(w, &u, 0);
			jd_writer_close(w);
		}
		cr_assert_eq(rc, 0, "%s over a planted link: %d", which & 1 ? "companion" : "dump",
			     rc);
		struct stat sb;
		cr_assert_eq(lstat(at, &sb), 0);
		cr_assert(S_ISREG(sb.st_mode) && sb.st_nlink == 1, "%s is still the planted link", at);
		cr_assert_eq(sb.st_mode & 0022, 0, "mode %o", sb.st_mode & 0777);
		size_t n;
		char *b = tu_read_file(victim, &n);
		cr_assert(b && n == 4 && !memcmp(b, "keep", 4), "the planted link's target was written");
		free(b);
	}
	tu_rmtree(dir);
	free(dir);
}
