/* test_collect.c - profile_collect_dumps (recorder/cmd/cmd_profile_data.c): the dumps a JVM of
 * another user wrote in its staged directory come into the data directory read beneath the
 * directory fd: a link planted there (to a file of root's) is never followed, a FIFO never
 * opened for a blocking read, a file of another owner refused; copies are 0600. The recording
 * is read only when it is a regular file. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/cmd/cmd_profile.h"
#include "tests/lib/testutil.h"

static char *root, stage[PATH_MAX], data[PATH_MAX];
static struct profile prof;
static int stagefd;

static void put(const char *dir, const char *name, const char *text)
{
	char p[2 * PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	cr_assert_eq(tu_write_file(p, text, strlen(text)), 0, "%s", p);
}

static int present(const char *name)
{
	struct stat st;
	return !fstatat(prof.dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

static void setup(void)
{
	root = tu_tmpdir("collect");
	snprintf(stage, sizeof(stage), "%s/stage", root);
	snprintf(data, sizeof(data), "%s/x.jitprof", root);
	cr_assert_eq(mkdir(stage, 0700), 0);
	cr_assert_eq(mkdir(data, 0700), 0);
	memset(&prof, 0, sizeof(prof));
	snprintf(prof.dir, sizeof(prof.dir), "%s", data);
	prof.dirfd = open(data, O_RDONLY | O_DIRECTORY);
	stagefd = open(stage, O_PATH | O_DIRECTORY);
	cr_assert(prof.dirfd >= 0 && stagefd >= 0);
	profile_signal = 0;
}

static void teardown(void)
{
	close(prof.dirfd);
	close(stagefd);
	tu_rmtree(root);
	free(root);
}

Test(collect, only_regular_files_of_the_jvms_user, .init = setup, .fini = teardown,
     .timeout = 20)
{
	char secret[PATH_MAX + 16], p[2 * PATH_MAX];
	struct stat st;

	snprintf(secret, sizeof(secret), "%s/secret", root);
	cr_assert_eq(tu_write_file(secret, "SECRET", 6), 0);
	cr_assert_eq(chmod(secret, 0600), 0);
	put(stage, "jit-7.dump", "DUMP");
	put(stage, "jit-7.jfr", "FLR");	/* the agent's jfr=on recording */
	put(stage, "notes.txt", "not a dump");
	put(stage, "x.jfr", "not the agent's");
	snprintf(p, sizeof(p), "%s/jit-7.dump.jitprof", stage);
	cr_assert_eq(symlink(secret, p), 0);
	snprintf(p, sizeof(p), "%s/jit-8.dump", stage);
	cr_assert_eq(mkfifo(p, 0600), 0);
	if (geteuid() == 0) {	/* a file of someone else's in her directory */
		put(stage, "jit-9.dump", "OTHER");
		snprintf(p, sizeof(p), "%s/jit-9.dump", stage);
		cr_assert_eq(chown(p, 54321, 54321), 0);
	}
	cr_assert_eq(profile_collect_dumps(&prof, stagefd, geteuid(), stage), 0);
	snprintf(p, sizeof(p), "%s/jit-7.dump", data);
	char *s = tu_read_file(p, NULL);
	cr_assert_not_null(s);
	cr_expect_str_eq(s, "DUMP");
	free(s);
	cr_assert_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
	cr_expect_not(present("jit-7.dump.jitprof"), "the link to root's file was followed");
	cr_expect_not(present("jit-8.dump"), "the FIFO was copied");
	cr_expect_not(present("jit-9.dump"), "another owner's file was copied");
	cr_expect_not(present("notes.txt"));
	cr_expect(present("jit-7.jfr"), "the JVM's Flight Recording was left behind");
	cr_expect_not(present("x.jfr"));
}

/* What the JVM's user put at a name in the data directory cannot be there (it is ours), but
 * a copy never writes through a link: the name is replaced. */
Test(collect, a_link_in_the_data_directory_is_replaced, .init = setup, .fini = teardown)
{
	char victim[PATH_MAX + 16], p[2 * PATH_MAX];

	snprintf(victim, sizeof(victim), "%s/victim", root);
	cr_assert_eq(tu_write_file(victim, "KEEP", 4), 0);
	snprintf(p, sizeof(p), "%s/jit-7.dump", data);
	cr_assert_eq(symlink(victim, p), 0);
	put(stage, "jit-7.dump", "DUMP");
	cr_assert_eq(profile_collect_dumps(&prof, stagefd, geteuid(), stage), 0);
	char *s = tu_read_file(victim, NULL);
	cr_expect_str_eq(s, "KEEP");
	free(s);
	s = tu_read_file(p, NULL);
	cr_expect_str_eq(s, "DUMP");
	free(s);
}

/* A signal (Ctrl-C, SIGTERM) stops the copy: an error, no half file. */
Test(collect, a_signal_stops_it, .init = setup, .fini = teardown)
{
	put(stage, "jit-7.dump", "DUMP");
	profile_signal = 15;
	cr_expect_eq(profile_collect_dumps(&prof, stagefd, geteuid(), stage), 1);
	cr_expect_not(present("jit-7.dump"));
	profile_signal = 0;
}

/* A FIFO where the recording should be is not opened for reading (it would block until
 * someone writes): profile counts nothing and goes on. */
Test(collect, a_fifo_for_the_recording_is_not_read, .init = setup, .fini = teardown,
     .timeout = 10)
{
	char p[2 * PATH_MAX];
	struct counts c = { .nr_logs = 0 };

	snprintf(p, sizeof(p), "%s/perf.data", data);
	cr_assert_eq(mkfifo(p, 0600), 0);
	profile_count(p, "", &c);
	cr_expect_eq(c.samples + c.markers + c.loads, 0);
}
