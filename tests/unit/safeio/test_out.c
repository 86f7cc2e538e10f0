/* test_out.c - safeio/out.c: outputs appear whole under their name, replace regular files and
 * links (never writing through them), refuse FIFOs and directories, and leave nothing on abort. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio.h"
#include "tests/unit/safeio/siotest.h"

static void setup(void)
{
	sio_fixture_open("sioout");
}

static char *at(const char *name)
{
	static char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static int nr_entries(void)
{
	struct tu_result r;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	cr_assert_eq(tu_sh(&r, cmd, 10), 0);
	int n = atoi(r.out);
	tu_result_free(&r);
	return n;
}

static void write_out(const char *name, const char *text, int expect)
{
	struct sio_out o;
	int rc = sio_out_open(&o, dfd, name, 0644);
	if (rc == 0) {
		cr_assert_eq(write(o.fd, text, strlen(text)), (ssize_t)strlen(text));
		rc = sio_out_commit(&o);
	}
	cr_assert_eq(rc, expect, "%s: %s", name, sio_strerror(rc));
}

Test(out, new_and_replaced, .init = setup, .fini = teardown)
{
	write_out("a", "one", 0);
	char *s = tu_read_file(at("a"), NULL);
	cr_assert_str_eq(s, "one");
	free(s);
	write_out("a", "two", 0);
	s = tu_read_file(at("a"), NULL);
	cr_assert_str_eq(s, "two");
	free(s);
	cr_assert_eq(nr_entries(), 1, "temp files left behind");
}

Test(out, link_at_name_is_replaced_not_followed, .init = setup, .fini = teardown)
{
	cr_assert_eq(tu_write_file(at("victim"), "precious", 8), 0);
	cr_assert_eq(symlink("victim", at("a")), 0);
	write_out("a", "new", 0);
	char *v = tu_read_file(at("victim"), NULL), *a = tu_read_file(at("a"), NULL);
	cr_assert_str_eq(v, "precious");
	cr_assert_str_eq(a, "new");
	struct stat sb;
	cr_assert_eq(lstat(at("a"), &sb), 0);
	cr_assert(S_ISREG(sb.st_mode));
	free(v);
	free(a);
}

Test(out, fifo_and_directory_refused, .init = setup, .fini = teardown, .timeout = 20)
{
	cr_assert_eq(mkfifo(at("p"), 0600), 0);
	cr_assert_eq(mkdir(at("d"), 0700), 0);
	write_out("p", "x", SIO_ENOTREG);
	write_out("d", "x", SIO_ENOTREG);
	struct stat sb;
	cr_assert_eq(lstat(at("p"), &sb), 0);
	cr_assert(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
	cr_assert_eq(nr_entries(), 2, "temp files left behind");
	/* Planted between open and commit: still refused. */
	struct sio_out o;
	cr_assert_eq(sio_out_open(&o, dfd, "late", 0644), 0);
	cr_assert_eq(mkfifo(at("late"), 0600), 0);
	cr_assert_eq(sio_out_commit(&o), SIO_ENOTREG);
	cr_assert_eq(nr_entries(), 3, "temp files left behind");
}

Test(out, abort_leaves_nothing_and_bad_names, .init = setup, .fini = teardown)
{
	struct sio_out o;
	cr_assert_eq(sio_out_open(&o, dfd, "a", 0644), 0);
	cr_assert_eq(write(o.fd, "half", 4), 4);
	sio_out_abort(&o);
	cr_assert_eq(nr_entries(), 0);
	cr_assert_eq(sio_out_open(&o, dfd, "x/y", 0644), -EINVAL);
	cr_assert_eq(sio_out_open(&o, dfd, "..", 0644), -EINVAL);
}

Test(out, by_path, .init = setup, .fini = teardown)
{
	struct sio_out o;
	cr_assert_eq(sio_out_open_path(&o, at("b"), 0644), 0);
	cr_assert_eq(write(o.fd, "bee", 3), 3);
	cr_assert_eq(sio_out_commit(&o), 0);
	char *s = tu_read_file(at("b"), NULL);
	cr_assert_str_eq(s, "bee");
	free(s);
	cr_assert_eq(sio_out_open_path(&o, at("nodir/b"), 0644), -ENOENT);
}
