/* test_dumpdir.c - agent/dumpdir.c (issue 16 finding 4): which dir= the agent trusts, and the
 * private default with its one warning line naming the file it would have written. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/dumpdir.h"
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

/* The chosen directory for dir; *refused says whether the private default replaced it. */
static const char *choose(const char *dir, int *refused, const char *why)
{
	static char out[4400];
	char warn[9000];
	cr_assert_eq(agent_dump_dir(dir, out, sizeof(out), warn, sizeof(warn)), 0);
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
	snprintf(slash, sizeof(slash), "%s/", sub("lnk", 0));
	char out[4400], warn[9000];
	cr_assert_eq(agent_dump_dir(slash, out, sizeof(out), warn, sizeof(warn)), 0);
	cr_assert(strstr(warn, "symlink"), "a trailing slash followed the link: %s", warn);
	unsetenv("JITDUMPDIR");
	cr_assert_eq(agent_dump_dir(NULL, out, sizeof(out), warn, sizeof(warn)), 0);
	cr_assert_str_eq(out, "");
	setenv("JITDUMPDIR", sub("open", 0), 1);	/* the environment is judged as dir= is */
	cr_assert_eq(agent_dump_dir(NULL, out, sizeof(out), warn, sizeof(warn)), 0);
	cr_assert(strstr(warn, "JITDUMPDIR=") && strstr(warn, "writable by others"), "%s", warn);
	setenv("JITDUMPDIR", sub("own", 0), 1);
	cr_assert_eq(agent_dump_dir(NULL, out, sizeof(out), warn, sizeof(warn)), 0);
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
