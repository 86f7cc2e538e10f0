/* test_attach.c - recorder/attach/: /proc facts about a process, the refusals, a mapped
 * jitdump found, and the load request as bytes on the socket against a fake listener. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "recorder/attach/attach.h"
#include "tests/lib/testutil.h"

Test(attach, reply_parsing)
{
	int res, rc;

	cr_assert_eq(att_parse_reply("0\nreturn code: 0\n", &res, &rc), 0);
	cr_assert_eq(res, 0);
	cr_assert_eq(rc, 0);
	cr_assert_eq(att_parse_reply("0\nreturn code: -1\n", &res, &rc), 0);
	cr_assert_eq(rc, -1);
	cr_assert_eq(att_parse_reply("100\nAgent_OnAttach missing\n", &res, &rc), 0);
	cr_assert_eq(res, 100);
	cr_assert_eq(rc, -1);
	cr_assert_eq(att_parse_reply("", &res, &rc), -EPROTO);
	cr_assert_eq(att_parse_reply("hello\n", &res, &rc), -EPROTO);
}

Test(attach, this_process_is_no_jvm)
{
	struct att_proc p;
	char err[512];

	cr_assert_eq(att_proc_read(getpid(), &p, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(p.uid, geteuid());
	cr_assert_eq(p.gid, getegid());
	cr_assert_eq(p.is_jvm, 0);
	cr_assert_eq(p.other_mntns, 0);
	cr_assert_eq(att_check(&p, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "is not a Java VM (no libjvm.so in its mappings)"), "%s", err);
}

Test(attach, refusals)
{
	struct att_proc p = { .pid = 42, .uid = geteuid(), .is_jvm = 1 };
	char err[512];

	cr_assert_eq(att_check(&p, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "does not handle SIGQUIT"), "%s", err);
	p.catches_quit = 1;
	cr_assert_eq(att_check(&p, JP_ERRBUF_LOG(err)), 0);
	p.attach_disabled = 1;
	cr_assert_eq(att_check(&p, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "was started with -XX:+DisableAttachMechanism"), "%s", err);
	p.attach_disabled = 0;
	p.uid = geteuid() + 1;
	if (geteuid() == 0) {
		cr_assert_eq(att_check(&p, JP_ERRBUF_LOG(err)), 0, "root may attach to anyone");
	} else {
		cr_assert_eq(att_check(&p, JP_ERRBUF_LOG(err)), -EPERM);
		cr_assert(strstr(err, "not to you"), "%s", err);
	}
	cr_assert_eq(att_proc_read(0, &p, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert_eq(att_proc_read(0x7ffffff0, &p, JP_ERRBUF_LOG(err)), -ESRCH);
	cr_assert(strstr(err, "no process"), "%s", err);
}

Test(attach, finds_a_mapped_jitdump)
{
	char *dir = tu_tmpdir("attach");
	char path[4096], other[4096], found[4096], err[256];
	struct att_proc p;

	cr_assert_eq(att_proc_read(getpid(), &p, JP_ERRBUF_LOG(err)), 0);
	snprintf(other, sizeof(other), "%s/jit-77.dump.jitprof", dir);
	snprintf(path, sizeof(path), "%s/jit-77.dump", dir);
	cr_assert_eq(tu_write_file(other, "x", 1), 0);
	cr_assert_eq(tu_write_file(path, "x", 1), 0);
	int fo = open(other, O_RDONLY), fd = open(path, O_RDONLY);
	void *mo = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fo, 0);
	cr_assert_neq(mo, MAP_FAILED);
	cr_assert_eq(att_find_dump(&p, found, sizeof(found)), -ENOENT, "a companion is no marker");
	void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	cr_assert_neq(m, MAP_FAILED);
	cr_assert_eq(att_find_dump(&p, found, sizeof(found)), 0);
	cr_assert_str_eq(found, path);
	munmap(m, 4096);
	munmap(mo, 4096);
	close(fd);
	close(fo);
	tu_rmtree(dir);
	free(dir);
}

/* A listener at /tmp/.java_pid<nspid> that records one request and answers like HotSpot. */
struct fake {
	int lfd;
	char req[512];
	size_t len;
	const char *reply;
};

static void *serve(void *arg)
{
	struct fake *f = arg;
	int c = accept(f->lfd, NULL, NULL);
	ssize_t n;

	/* Five NUL-terminated strings make one request. */
	while (c >= 0 && f->len < sizeof(f->req) &&
	       (n = read(c, f->req + f->len, sizeof(f->req) - f->len)) > 0) {
		f->len += (size_t)n;
		size_t nuls = 0;
		for (size_t i = 0; i < f->len; i++)
			nuls += !f->req[i];
		if (nuls >= 5)
			break;
	}
	if (c >= 0) {
		if (write(c, f->reply, strlen(f->reply)) < 0)
			f->len = 0;
		close(c);
	}
	return NULL;
}

static void load_against(const char *reply, int want_rc, int want_agent_rc, const char *want_err)
{
	struct att_proc p = { .pid = getpid(), .nspid = 0x7fff0000 + (getpid() & 0xffff) };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct fake f = { .reply = reply };
	char err[1024] = "";
	pthread_t t;
	int arc = 99;

	snprintf(p.root, sizeof(p.root), "/proc/%d/root", (int)getpid());
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/.java_pid%d", (int)p.nspid);
	unlink(sa.sun_path);
	f.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(bind(f.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(f.lfd, 1), 0);
	pthread_create(&t, NULL, serve, &f);
	int rc = att_load_agent(&p, "/x/libagent.so", "dir=/d", 1000, &arc, JP_ERRBUF_LOG(err));
	pthread_join(t, NULL);
	close(f.lfd);
	unlink(sa.sun_path);
	static const char want[] = "1\0load\0/x/libagent.so\0true\0dir=/d";
	cr_assert_eq(f.len, sizeof(want));
	cr_assert_eq(memcmp(f.req, want, sizeof(want)), 0, "request bytes differ");
	cr_assert_eq(rc, want_rc, "%s", err);
	if (!rc)
		cr_assert_eq(arc, want_agent_rc);
	else
		cr_assert(strstr(err, want_err), "%s", err);
}

Test(attach, load_request_on_the_socket)
{
	load_against("0\nreturn code: 0\n", 0, 0, NULL);
	load_against("0\nreturn code: 1\n", 0, 1, NULL);
	load_against("100\nCould not find agent library\n", -EIO,
		     0, "refused to load /x/libagent.so: 100 Could not find agent library");
	load_against("", -EPROTO, 0, "sent no valid reply");
}
