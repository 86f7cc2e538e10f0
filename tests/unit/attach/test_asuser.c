/* test_asuser.c - recorder/attach/asuser.c: the work root does for another user's JVM runs
 * in a child with that user's ids (and none of root's groups), its answer comes back, and a
 * child that she stops, kills or that never answers cannot hang us. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder/attach/attach.h"

struct ids {
	uid_t uid, euid;
	gid_t gid, egid;
	int ngroups;
};

static int ids_fn(void *ctx, void *out)
{
	struct ids *i = out;
	(void)ctx;
	i->uid = getuid();
	i->euid = geteuid();
	i->gid = getgid();
	i->egid = getegid();
	i->ngroups = getgroups(0, NULL);
	return 7;
}

static struct att_proc user_proc(uid_t uid, gid_t gid)
{
	struct att_proc p = { .pid = 1, .nspid = 1, .uid = uid, .gid = gid };
	return p;
}

Test(asuser, runs_with_the_jvms_ids)
{
	struct att_proc p = user_proc(geteuid() ? geteuid() : 54321, geteuid() ? getegid() : 54322);
	struct ids i = { 0 };

	cr_assert_eq(att_need_user(&p), geteuid() == 0);
	cr_assert_eq(att_as_user(&p, ids_fn, NULL, &i, sizeof(i), NULL, 0, 5000, NULL), 7);
	cr_expect_eq(i.uid, p.uid);
	cr_expect_eq(i.euid, p.uid);
	cr_expect_eq(i.gid, p.gid);
	cr_expect_eq(i.egid, p.gid);
	if (geteuid() == 0)
		cr_expect_eq(i.ngroups, 0, "root's groups kept");
}

static int stop_fn(void *ctx, void *out)
{
	(void)ctx;
	(void)out;
	raise(SIGSTOP);		/* as she may do to a process of hers */
	return 0;
}

static int die_fn(void *ctx, void *out)
{
	(void)ctx;
	(void)out;
	_exit(3);
}

static volatile sig_atomic_t flag;

Test(asuser, a_stopped_or_dead_child_cannot_hang_us, .timeout = 20)
{
	struct att_proc p = user_proc(geteuid() ? geteuid() : 54321, geteuid() ? getegid() : 54321);
	int x = 0;

	cr_expect_eq(att_as_user(&p, stop_fn, NULL, &x, sizeof(x), NULL, 0, 300, NULL),
		     -ETIMEDOUT);
	cr_expect_eq(att_as_user(&p, die_fn, NULL, &x, sizeof(x), NULL, 0, 5000, NULL), -EPIPE);
	flag = 2;
	cr_expect_eq(att_as_user(&p, stop_fn, NULL, &x, sizeof(x), NULL, 0, 5000, &flag),
		     -EINTR);
}
