/* test_fork.c - jitdump/fork.c: a child that writes gets jit-<childpid>.dump holding only its
 * own records; the parent's file never sees the child's; a child that writes nothing makes no
 * file; forking while other threads write never deadlocks the child. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* The last failed open's message (jd_reader_open* take the caller's buffer). */
static char jd_err[512];

static int write_one(struct jd_writer *w, const char *name, uint64_t addr)
{
	static const uint8_t code[4] = { 0x90, 0x90, 0x90, 0xc3 };
	struct jd_load_desc d = { .name = name, .code_addr = addr, .code = code,
				  .code_size = sizeof(code) };
	return jd_write_load(w, &d, NULL);
}

/* Names of the loads in a dump, joined with ','. */
static void names_in(const char *path, char *out, size_t len, uint32_t *hdr_pid)
{
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open(&r, path, jd_err, sizeof(jd_err)), 0, "%s", jd_err);
	*hdr_pid = jd_reader_header(r)->pid;
	struct jd_record rec;
	out[0] = 0;
	while (jd_reader_next(r, &rec) > 0)
		if (rec.id == JD_CODE_LOAD)
			snprintf(out + strlen(out), len - strlen(out), "%s,", rec.u.load.name);
	jd_reader_close(r);
}

Test(fork, child_gets_its_own_file)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	cr_assert_eq(write_one(w, "parent_before", 0x1000), 0);	/* still buffered */
	pid_t pid = fork();
	if (pid == 0) {
		int rc = write_one(w, "child", 0x2000);
		rc |= jd_writer_close(w);
		_exit(rc ? 1 : 0);
	}
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	cr_assert_eq(write_one(w, "parent_after", 0x3000), 0);
	char parent[4096], child[4096], names[256];
	snprintf(parent, sizeof(parent), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	snprintf(child, sizeof(child), "%s/jit-%d.dump", dir, (int)pid);
	uint32_t hpid;
	names_in(child, names, sizeof(names), &hpid);
	cr_assert_str_eq(names, "child,");
	cr_assert_eq(hpid, (uint32_t)pid);
	names_in(parent, names, sizeof(names), &hpid);
	cr_assert_str_eq(names, "parent_before,parent_after,");
	cr_assert_eq(hpid, (uint32_t)getpid());
	tu_rmtree(dir);
	free(dir);
}

Test(fork, silent_child_makes_no_file)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	cr_assert_eq(write_one(w, "p", 0x1000), 0);
	pid_t pid = fork();
	if (pid == 0) {
		jd_writer_flush(w);
		_exit(jd_writer_close(w) ? 1 : 0);
	}
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char child[4096], names[256];
	snprintf(child, sizeof(child), "%s/jit-%d.dump", dir, (int)pid);
	struct stat sb;
	cr_assert_neq(stat(child, &sb), 0, "silent child created %s", child);
	char parent[4096];
	snprintf(parent, sizeof(parent), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	uint32_t hpid;
	names_in(parent, names, sizeof(names), &hpid);
	cr_assert_str_eq(names, "p,", "the child's close touched the parent's file");
	tu_rmtree(dir);
	free(dir);
}

static volatile int stop;

static void *spinner(void *arg)
{
	struct jd_writer *w = arg;
	for (uint64_t i = 0; !stop; i++)
		if (write_one(w, "busy", 0x10000 + i))
			return (void *)1;
	return NULL;
}

Test(fork, fork_while_threads_write, .timeout = 60)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 1024);
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, spinner, w);
	for (int k = 0; k < 30; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			alarm(10);	/* a lock inherited from a busy thread would hang here */
			int rc = write_one(w, "kid", 0x99);
			_exit(rc || jd_writer_close(w) ? 1 : 0);
		}
		int st;
		waitpid(pid, &st, 0);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d status %d", k, st);
		char child[4096], names[64];
		snprintf(child, sizeof(child), "%s/jit-%d.dump", dir, (int)pid);
		uint32_t hpid;
		names_in(child, names, sizeof(names), &hpid);
		cr_assert_str_eq(names, "kid,");
	}
	stop = 1;
	for (int i = 0; i < 3; i++) {
		void *ret;
		pthread_join(th[i], &ret);
		cr_assert_null(ret);
	}
	char parent[4096];
	snprintf(parent, sizeof(parent), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	struct jd_reader *r;
	cr_assert_eq(jd_reader_open(&r, parent, jd_err, sizeof(jd_err)), 0);
	struct jd_record rec;
	int rc;
	while ((rc = jd_reader_next(r, &rec)) > 0)
		cr_assert(rec.id != JD_CODE_LOAD || !strcmp(rec.u.load.name, "busy"));
	cr_assert_eq(rc, 0);
	cr_assert_eq(jd_reader_stats(r)->truncated_bytes, 0);
	jd_reader_close(r);
	tu_rmtree(dir);
	free(dir);
}
