/* test_stage.c - recorder/profile/stage.c with a directory standing in for /proc/PID/root:
 * the agent copy (kept when unchanged, replaced by rename when not), the staged dump
 * directory (fresh, 0700), and only a profile's own files cleared (names, not link targets);
 * node's dump and V8 log moved out of the working directory by pid. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/profile/profile.h"
#include "tests/lib/testutil.h"

static char *root, tmpdir[PATH_MAX];

static void setup(void)
{
	root = tu_tmpdir("stage");
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", root);
	cr_assert_eq(mkdir(tmpdir, 0777), 0);
}

static void teardown(void)
{
	tu_rmtree(root);
	free(root);
}

static ino_t inode(const char *p)
{
	struct stat st;
	cr_assert_eq(stat(p, &st), 0, "%s", p);
	return st.st_ino;
}

/* prof_stage_agent from a fresh fd on lib (as profile opens it once per run). */
static int stage_agent(const char *lib, char *target, size_t len, const struct jp_log *log)
{
	int fd = open(lib, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "%s", lib);
	int rc = prof_stage_agent(root, fd, target, len, log);
	close(fd);
	return rc;
}

Test(stage, agent_copy_kept_or_replaced, .init = setup, .fini = teardown)
{
	char lib[PATH_MAX + 8], target[256], ours[PATH_MAX + 300], err[512];

	snprintf(lib, sizeof(lib), "%s/lib.so", root);
	cr_assert_eq(tu_write_file(lib, "AGENT-1", 7), 0);
	cr_assert_eq(stage_agent(lib, target, sizeof(target), JP_ERRBUF_LOG(err)), 0, "%s", err);
	snprintf(ours, sizeof(ours), "%s%s", root, target);
	cr_assert(!strncmp(target, "/tmp/.jitprof-libagent-", 23), "%s", target);
	char *s = tu_read_file(ours, NULL);
	cr_assert_str_eq(s, "AGENT-1");
	free(s);
	ino_t first = inode(ours);
	cr_assert_eq(stage_agent(lib, target, sizeof(target), JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(inode(ours), first, "an unchanged copy is kept (the JVM may have it mapped)");
	cr_assert_eq(tu_write_file(lib, "AGENT-2", 7), 0);
	cr_assert_eq(stage_agent(lib, target, sizeof(target), JP_ERRBUF_LOG(err)), 0);
	s = tu_read_file(ours, NULL);
	cr_assert_str_eq(s, "AGENT-2");
	free(s);
	cr_assert_neq(inode(ours), first, "a changed copy is a new file, not rewritten in place");
}

/* Each profile gets a directory of its own, 0700, made fresh (never one found there). */
Test(stage, dump_directory_fresh_and_private, .init = setup, .fini = teardown)
{
	char t1[256], o1[PATH_MAX + 300], t2[256], o2[PATH_MAX + 300], p[2 * PATH_MAX], err[512];
	struct stat st;

	cr_assert_eq(prof_stage_dir(root, t1, sizeof(t1), o1, sizeof(o1), JP_ERRBUF_LOG(err)), 0,
		     "%s", err);
	cr_assert(!strncmp(t1, "/tmp/.jitprof-profile-", 22), "%s", t1);
	snprintf(p, sizeof(p), "%s%s", root, t1);
	cr_assert_str_eq(o1, p);
	cr_assert_eq(lstat(o1, &st), 0);
	cr_expect(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700, "mode %o", st.st_mode);
	cr_assert_eq(prof_stage_dir(root, t2, sizeof(t2), o2, sizeof(o2), JP_ERRBUF_LOG(err)), 0);
	cr_expect_str_neq(t1, t2);
}

Test(stage, clear_removes_only_a_profiles_files, .init = setup, .fini = teardown)
{
	const char *gone[] = { "jit-1.dump", "jit-1.dump.jitprof", "jitted-1-2.so", "perf.data",
			       "perf.jit.data", "jvm-pid42.log", "isolate-0xab-7-v8.log" };
	const char *kept[] = { "notes.txt", "perf.data.old", "jitprof.so", "jvm-pid42.log.old",
			       "jvm.log" };
	char p[2 * PATH_MAX];

	for (size_t i = 0; i < 7; i++) {
		snprintf(p, sizeof(p), "%s/%s", root, gone[i]);
		cr_assert_eq(tu_write_file(p, "x", 1), 0);
	}
	for (size_t i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "%s/%s", root, kept[i]);
		cr_assert_eq(tu_write_file(p, "x", 1), 0);
	}
	int fd = open(root, O_PATH | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	/* a link of such a name is removed, not what it points to */
	char outside[PATH_MAX + 16];
	snprintf(outside, sizeof(outside), "%s/tmp/victim", root);
	cr_assert_eq(tu_write_file(outside, "v", 1), 0);
	snprintf(p, sizeof(p), "%s/jit-9.dump", root);
	cr_assert_eq(symlink(outside, p), 0);
	prof_clear_dir(fd);
	close(fd);
	cr_expect_neq(faccessat(AT_FDCWD, p, F_OK, AT_SYMLINK_NOFOLLOW), 0, "the link stays");
	cr_expect_eq(access(outside, F_OK), 0, "the link's target was removed");
	for (size_t i = 0; i < 7; i++) {
		snprintf(p, sizeof(p), "%s/%s", root, gone[i]);
		cr_expect_neq(access(p, F_OK), 0, "%s left", gone[i]);
	}
	for (size_t i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "%s/%s", root, kept[i]);
		cr_expect_eq(access(p, F_OK), 0, "%s removed", kept[i]);
	}
}

Test(stage, node_file_names)
{
	cr_assert_eq(prof_node_file_pid("jit-4242.dump"), 4242);
	cr_assert_eq(prof_node_file_pid("isolate-0x2d1a8d00-7813-v8.log"), 7813);
	const char *not[] = { "jit-.dump", "jit-0.dump", "jit-12.dump.jitprof", "jit-12.dumpx",
			      "isolate-0x-12-v8.log", "isolate-2d1a-12-v8.log",
			      "isolate-0x2d1a-12-v8.log.1", "isolate-0x2d1a--12-v8.log",
			      "jit-99999999999.dump", "v8.log", "" };
	for (size_t i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		cr_expect_eq(prof_node_file_pid(not[i]), 0, "'%s'", not[i]);
}

/* Only the files of the pids asked for, only regular files, renamed; the count is dumps. */
Test(stage, node_files_moved_by_pid, .init = setup, .fini = teardown)
{
	const char *names[] = { "jit-10.dump", "isolate-0xab-10-v8.log", "jit-11.dump",
				"isolate-0xcd-11-v8.log", "jit-12.dump", "app.js" };
	char from[PATH_MAX + 8], to[PATH_MAX + 8], p[2 * PATH_MAX], q[2 * PATH_MAX];
	snprintf(from, sizeof(from), "%s/cwd", root);
	snprintf(to, sizeof(to), "%s/cwd/x.jitprof", root);
	cr_assert_eq(mkdir(from, 0755), 0);
	cr_assert_eq(mkdir(to, 0755), 0);
	for (size_t i = 0; i < 6; i++) {
		snprintf(p, sizeof(p), "%s/%s", from, names[i]);
		cr_assert_eq(tu_write_file(p, "x", 1), 0);
	}
	/* pid 12's "dump" is a symbolic link: never followed or moved */
	snprintf(p, sizeof(p), "%s/jit-12.dump", from);
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(symlink("app.js", p), 0);
	/* another user's file of such a name (root can make one): left alone */
	char other[2 * PATH_MAX];
	snprintf(other, sizeof(other), "%s/isolate-0xee-10-v8.log", from);
	int as_root = geteuid() == 0;
	if (as_root) {
		cr_assert_eq(tu_write_file(other, "x", 1), 0);
		cr_assert_eq(chown(other, 65534, 65534), 0);
	}
	pid_t pids[] = { 10, 12 };
	cr_assert_eq(prof_move_node_files(from, to, pids, 2), 1);
	if (as_root)
		cr_expect_eq(access(other, F_OK), 0, "another user's file was moved");
	const char *moved[] = { "jit-10.dump", "isolate-0xab-10-v8.log" };
	const char *stayed[] = { "jit-11.dump", "isolate-0xcd-11-v8.log", "jit-12.dump", "app.js" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", to, moved[i]);
		snprintf(q, sizeof(q), "%s/%s", from, moved[i]);
		cr_expect_eq(access(p, F_OK), 0, "%s not moved", moved[i]);
		cr_expect_neq(access(q, F_OK), 0, "%s left", moved[i]);
	}
	for (size_t i = 0; i < 4; i++) {
		snprintf(q, sizeof(q), "%s/%s", from, stayed[i]);
		cr_expect_eq(faccessat(AT_FDCWD, q, F_OK, AT_SYMLINK_NOFOLLOW), 0, "%s moved",
			     stayed[i]);
	}
	/* and back, as profile does when not every dump could move */
	cr_assert_eq(prof_move_node_files(to, from, pids, 2), 1);
	snprintf(q, sizeof(q), "%s/jit-10.dump", from);
	cr_expect_eq(access(q, F_OK), 0);
}
