/* test_dumpdir.c - agent/dumpdir.c (issue 16 finding 4): which dir= the agent trusts, and the
 * private default with its one warning line naming the file it would have written; issue 34
 * finding 7: the directory opened once, a name swapped after that redirects nothing. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/dumpdir.h"
#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"

static char *t, home[4200];

static void setup(void)
{
	t = tu_tmpdir("agent-dir");
	cr_assert(t);
	snprintf(home, sizeof(home), "%s/home", t);
	cr_assert_eq(mkdir(home, 0700), 0);
	setenv("HOME", home, 1);
}

static void teardown(void)
{
	tu_rmtree(t);
	free(t);
}

static const char *sub(const char *name, mode_t mode)
{
	static char p[4400];
	snprintf(p, sizeof(p), "%s/%s", t, name);
	if (mode) {
		cr_assert_eq(mkdir(p, 0700), 0);
		cr_assert_eq(chmod(p, mode), 0);
	}
	return p;
}

/* agent_dump_dir_open with the fd closed: 0 or its error; out gets the path. */
static int open_dir(const char *dir, char *out, size_t len, char *warn, size_t warnlen)
{
	int fd;
	int rc = agent_dump_dir_open(dir, &fd, out, len, warn, warnlen);
	if (!rc) {
		cr_assert_geq(fd, 0);
		close(fd);
	}
	return rc;
}

/* The chosen directory for dir; *refused says whether the private default replaced it. */
static const char *choose(const char *dir, int *refused, const char *why)
{
	static char out[4400];
	char warn[9000];
	cr_assert_eq(open_dir(dir, out, sizeof(out), warn, sizeof(warn)), 0, "%s", dir);
	*refused = warn[0] != 0;
	if (*refused) {
		char would[4500];
		snprintf(would, sizeof(would), "would have written %s/jit-%d.dump", dir,
			 (int)getpid());
		cr_assert(strstr(warn, would), "%s", warn);
		cr_assert(strstr(warn, why), "%s", warn);
		cr_assert_null(strchr(warn, '\n'));
		char def[4400];
		snprintf(def, sizeof(def), "%s/.debug/jit", home);
		cr_assert_str_eq(out, def);
	} else {
		cr_assert_str_eq(out, dir);
	}
	return out;
}

Test(dumpdir, trusted_and_refused, .init = setup, .fini = teardown)
{
	int refused;
	choose(sub("own", 0700), &refused, "");
	cr_assert_not(refused);
	choose(sub("sticky", 01777), &refused, "");
	cr_assert_not(refused, "a sticky shared directory (/tmp) is fine");
	choose(sub("missing", 0), &refused, "");
	cr_assert_not(refused, "a missing directory is created private by the writer");
	char deep[4500];
	snprintf(deep, sizeof(deep), "%s/a/b", sub("own", 0));
	choose(deep, &refused, "");
	cr_assert_not(refused, "missing below a directory of ours");
	snprintf(deep, sizeof(deep), "%s/a/b", sub("open2", 0777));
	choose(deep, &refused, "writable by others");
	cr_assert(refused, "missing below a directory anybody can rename things in");
	choose(sub("open", 0777), &refused, "writable by others");
	cr_assert(refused);
	cr_assert_eq(symlink("own", sub("lnk", 0)), 0);
	choose(sub("lnk", 0), &refused, "symlink");
	cr_assert(refused);
	char slash[4500];
	snprintf(slash, sizeof(slash), "%s/.", sub("lnk", 0));
	choose(slash, &refused, "symlink");
	cr_assert(refused, "a trailing /. made the link a step on the way");
	snprintf(slash, sizeof(slash), "%s/", sub("lnk", 0));
	char out[4400], warn[9000];
	cr_assert_eq(open_dir(slash, out, sizeof(out), warn, sizeof(warn)), 0);
	cr_assert(strstr(warn, "symlink"), "a trailing slash followed the link: %s", warn);
	unsetenv("JITDUMPDIR");
	cr_assert_eq(open_dir(NULL, out, sizeof(out), warn, sizeof(warn)), 0);
	char def[4400];
	snprintf(def, sizeof(def), "%s/.debug/jit", home);
	cr_assert_str_eq(out, def, "neither dir= nor $JITDUMPDIR: the private default");
	cr_assert_str_eq(warn, "");
	setenv("JITDUMPDIR", sub("open", 0), 1);	/* the environment is judged as dir= is */
	cr_assert_eq(open_dir(NULL, out, sizeof(out), warn, sizeof(warn)), 0);
	cr_assert(strstr(warn, "JITDUMPDIR=") && strstr(warn, "writable by others"), "%s", warn);
	setenv("JITDUMPDIR", sub("own", 0), 1);
	cr_assert_eq(open_dir(NULL, out, sizeof(out), warn, sizeof(warn)), 0);
	cr_assert_str_eq(out, sub("own", 0));
	cr_assert_str_eq(warn, "");
}

Test(dumpdir, another_users_directory, .init = setup, .fini = teardown)
{
	if (geteuid() != 0) {
		fprintf(stderr, "dumpdir: not root, cannot give a directory to another uid\n");
		return;
	}
	const char *d = sub("hers", 0755);
	cr_assert_eq(chown(d, 54321, 54321), 0);
	int refused;
	choose(d, &refused, "owned by uid 54321");
	cr_assert(refused);
}

/* A symlink on the way in a directory only we may change is followed (/var/run -> /run); one
 * where others may plant it (a sticky or open directory) is not. */
Test(dumpdir, symlinks_on_the_way, .init = setup, .fini = teardown)
{
	int refused;
	char via[4500];
	sub("own", 0700);
	cr_assert_eq(symlink("own", sub("mine", 0)), 0);
	snprintf(via, sizeof(via), "%s/d", sub("mine", 0));
	choose(via, &refused, "");
	cr_assert_not(refused, "a link of ours, in a directory of ours");
	sub("sticky", 01777);
	snprintf(via, sizeof(via), "%s/sticky/l", t);
	cr_assert_eq(symlink("../own", via), 0);
	snprintf(via, sizeof(via), "%s/sticky/l/d", t);
	choose(via, &refused, "a symlink at");
	cr_assert(refused, "a link in a shared directory is anybody's");
}

/* What the writer leaves at rel under t: 1 if a dump (jit-PID.dump) is there. */
static int has_dump(const char *rel)
{
	char p[4600];
	struct stat sb;
	snprintf(p, sizeof(p), "%s/%s/jit-%d.dump", t, rel, (int)getpid());
	return !lstat(p, &sb) && S_ISREG(sb.st_mode);
}

/* Issue 34 finding 7: she swaps the checked directory's name for a symlink to a directory of
 * root's between the agent's check and the writer's create (here deterministically: after
 * agent_dump_dir_open, before jd_writer_open_at). The dump still lands in the directory that
 * was checked, nothing in the link's target; the same for one the agent had to create. */
Test(dumpdir, swap_after_the_check_redirects_nothing, .init = setup, .fini = teardown)
{
	static const char *const cases[] = { "d", "new" };
	sub("target", 0700);
	sub("d", 0700);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[4500], moved[4600], path[4400], warn[9000];
		int fd;
		snprintf(dir, sizeof(dir), "%s/%s", t, cases[i]);
		cr_assert_eq(agent_dump_dir_open(dir, &fd, path, sizeof(path), warn, sizeof(warn)),
			     0);
		cr_assert_str_eq(warn, "");
		snprintf(moved, sizeof(moved), "%s.checked", dir);
		cr_assert_eq(rename(dir, moved), 0);
		cr_assert_eq(symlink("target", dir), 0);
		struct jd_writer *w;
		struct jd_writer_opts o = { .sz = sizeof(o), .dir = "/nonexistent" };
		cr_assert_eq(jd_writer_open_at(&w, fd, path, &o), 0);
		close(fd);
		struct jd_ext_unload u = { .code_index = 1 };
		cr_assert_eq(jd_write_unload(w, &u, 0), 0);	/* the companion, made later */
		cr_assert_eq(jd_writer_close(w), 0);
		char rel[64];
		snprintf(rel, sizeof(rel), "%s.checked", cases[i]);
		cr_assert(has_dump(rel), "%s: no dump in the directory that was checked", dir);
		cr_assert_not(has_dump("target"), "%s: the swapped symlink redirected the dump",
			      dir);
		char ext[4700];
		snprintf(ext, sizeof(ext), "%s/jit-%d.dump.jitprof", moved, (int)getpid());
		cr_assert_eq(access(ext, F_OK), 0, "the companion beside the dump: %s", ext);
	}
}
