/* cmd_profile_attach.c - `jitprof profile -p PID`: libagent.so loaded into a running JVM
 * through its attach listener (recorder/attach/), the process recorded, then the agent stopped
 * again (only when it is ours), so the JVM can be profiled again. The agent writes into the
 * data directory when the JVM is ours and sees it; a JVM of another user (we are root) or in
 * another mount namespace writes into a fresh directory of its own /tmp instead, which root
 * never touches by path: the attach, that directory and the agent's copy are the work of a
 * child running as the JVM's user, and root reads the dumps back beneath a directory fd. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/attach/attach.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_profile.h"
#include "safeio/safeio.h"

/* The listener's wait (20 s) plus the reply's (a big code cache's back-fill: 120 s). */
#define LOAD_TIMEOUT_MS 20000u
#define CHILD_TIMEOUT_MS 150000u
#define STAGE_PREFIX "/tmp/.jitprof-profile-"

/* Where the agent goes and writes, as the JVM sees it (lib, dir) and as we do (ours): the
 * data directory itself, or a fresh directory in its /tmp (staged). */
struct placement {
	char lib[PATH_MAX], dir[PATH_MAX], ours[PATH_MAX];
	int staged;
};

/* What the child that attached says (fixed size: it comes back through a pipe). */
struct load_out {
	struct placement pl;
	int ours;		/* 1: our agent writes our dump; 0: another agent's (dump) */
	int restarted;		/* an earlier profile's agent was stopped first (old) */
	int agent_rc;
	char dump[PATH_MAX + 32], old[PATH_MAX + 32];
	/* the child's error: JP_ERRBUF_LOG (a log cannot cross the pipe), room for a whole
	 * path (o->pl.dir, PATH_MAX) and the words around it */
	char err[PATH_MAX + 1024];
};

struct load_job {
	const struct profile *p;
	const struct att_proc *proc;
	const char *lib;	/* ours, as we see it */
	int libfd;		/* the same, open, for a copy into another mount namespace */
	int staged;		/* decided by root before the child drops to the JVM's ids */
};

/* A dump an earlier `jitprof profile` left running (killed before its stop): in a data
 * directory (*.jitprof/) or a staged one (/tmp/.jitprof-profile-N/). */
static int left_by_profile(const char *dump)
{
	const char *slash = strrchr(dump, '/');
	size_t dn = slash ? (size_t)(slash - dump) : 0;

	return (dn > 8 && !strncmp(slash - 8, ".jitprof", 8)) ||
	       strstr(dump, "/.jitprof-profile-") != NULL;
}

/* As the JVM's user: where the agent goes (a staged directory made, the agent copied into
 * another mount namespace). */
static int place(const struct load_job *j, struct load_out *o)
{
	struct placement *pl = &o->pl;
	const struct att_proc *proc = j->proc;

	pl->staged = j->staged;
	if (!pl->staged) {
		snprintf(pl->lib, sizeof(pl->lib), "%s", j->lib);
		snprintf(pl->dir, sizeof(pl->dir), "%s", j->p->dir);
		snprintf(pl->ours, sizeof(pl->ours), "%s", j->p->dir);
		return 0;
	}
	if (!proc->other_mntns)
		snprintf(pl->lib, sizeof(pl->lib), "%s", j->lib);
	else if (prof_stage_agent(proc->root, j->libfd, pl->lib, sizeof(pl->lib),
				  JP_ERRBUF_LOG(o->err)))
		return -1;
	return prof_stage_dir(proc->root, pl->dir, sizeof(pl->dir), pl->ours, sizeof(pl->ours),
			      JP_ERRBUF_LOG(o->err)) ? -1 : 0;
}

/* As the JVM's user: loads the agent; o->ours 1 when it writes our dump, 0 when another
 * agent's is there (its path in o->dump). 0, or -1 with o->err. */
static int load(const struct load_job *j, struct load_out *o)
{
	const struct att_proc *proc = j->proc;
	char opts[PATH_MAX + 48];
	struct stat st;

	/* -e alloc|lock: their agent options; --jvm-log on a running JVM: its compiles and
	 * traps in a Flight Recording (the log itself can only be started with the JVM) */
	snprintf(opts, sizeof(opts), "dir=%s%s%s", o->pl.dir, j->p->agent_opts,
		 j->p->jvm_log ? ",jfr=on" : "");
	snprintf(o->dump, sizeof(o->dump), "%s/jit-%d.dump", o->pl.ours, (int)proc->nspid);
	if (att_load_agent(proc, o->pl.lib, opts, LOAD_TIMEOUT_MS, &o->agent_rc,
			   JP_ERRBUF_LOG(o->err)))
		return -1;
	if (!lstat(o->dump, &st) && S_ISREG(st.st_mode)) {
		o->ours = 1;
		return 0;
	}
	if (att_find_dump(proc, o->dump, sizeof(o->dump))) {
		snprintf(o->err, sizeof(o->err), "libagent.so was loaded into Java VM %d (return "
			 "code %d) but wrote no %s/jit-%d.dump: the reason is on the JVM's "
			 "stderr",
			 (int)proc->pid, o->agent_rc, o->pl.dir, (int)proc->nspid);
		return -1;
	}
	o->ours = 0;
	return 0;
}

static int attach_fn(void *ctx, void *out)
{
	const struct load_job *j = ctx;
	struct load_out *o = out;
	int arc;

	if (place(j, o) || load(j, o))
		return 1;
	if (!o->ours && left_by_profile(o->dump)) {
		o->restarted = 1;
		snprintf(o->old, sizeof(o->old), "%s", o->dump);
		if (att_load_agent(j->proc, o->pl.lib, "stop", LOAD_TIMEOUT_MS, &arc,
				   JP_ERRBUF_LOG(o->err)) || load(j, o))
			return 1;
	}
	return 0;
}

static int stop_fn(void *ctx, void *out)
{
	const struct load_job *j = ctx;
	struct load_out *o = out;
	int arc;

	return att_load_agent(j->proc, o->pl.lib, "stop", LOAD_TIMEOUT_MS, &arc,
			      JP_ERRBUF_LOG(o->err)) ? 1 : 0;
}

/* As the JVM's user: the staged directory emptied of what a profile writes, and removed. */
static int unstage_fn(void *ctx, void *out)
{
	struct load_out *o = out;
	int fd = open(o->pl.ours, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	(void)ctx;
	if (fd >= 0) {
		prof_clear_dir(fd);
		close(fd);
	}
	if (!rmdir(o->pl.ours))
		return 0;
	snprintf(o->err, sizeof(o->err), "%s", strerror(errno));
	return 1;
}

/* Runs fn as the JVM's user (fn returns 0, or 1 with its message in o->err; negative codes
 * are the child's own failures, which o->err then words). */
static int as_user(struct profile *p, const struct att_proc *proc, int (*fn)(void *, void *),
		   struct load_job *j, struct load_out *o, const char *what)
{
	int keep[1] = { j->libfd };
	int rc = att_as_user(proc, fn, j, o, sizeof(*o), keep, 1, CHILD_TIMEOUT_MS,
			     &profile_signal);

	if (rc == -ETIMEDOUT || rc == -EINTR || rc == -EPIPE || rc == -EPERM)
		snprintf(o->err, sizeof(o->err), "%s Java VM %d as its user (uid %u): %s", what,
			 (int)p->pid, (unsigned)proc->uid,
			 rc == -ETIMEDOUT ? "no answer in time" : rc == -EINTR ? "interrupted"
			 : rc == -EPERM ? "cannot take its ids" : "the process died");
	return rc;
}

/* The staged directory, opened by root beneath the JVM's root without following anything,
 * and only if it is the JVM's user's: what the child made, and what the dumps are read
 * beneath. The fd also keeps another mount namespace's /tmp reachable after the JVM exits. */
static int open_stage(const struct att_proc *proc, const struct placement *pl)
{
	const char *name = pl->dir + strlen(STAGE_PREFIX);
	int rootfd, fd;
	struct stat st;

	if (strncmp(pl->dir, STAGE_PREFIX, strlen(STAGE_PREFIX)) || strchr(name, '/') ||
	    strstr(name, ".."))
		return cli_error("Java VM %d: the staged directory %s is not one of ours",
				 (int)proc->pid, pl->dir), -EINVAL;
	if ((rootfd = open(proc->root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return cli_error("%s: %s", proc->root, strerror(errno)), -errno;
	fd = sio_opendir_beneath(rootfd, pl->dir + 1);
	close(rootfd);
	if (fd < 0)
		return cli_error("%s: %s", pl->ours, fd == -ELOOP ? "a symbolic link on the way: "
				 "refused" : strerror(-fd)), fd;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != proc->uid) {
		close(fd);
		return cli_error("%s is not the directory uid %u just made: refused", pl->ours,
				 (unsigned)proc->uid), -EPERM;
	}
	return fd;
}

static int load_into(struct profile *p, const struct att_proc *proc, struct load_job *j,
		     struct load_out *o)
{
	if (!att_need_user(proc) && !proc->other_mntns && strchr(p->dir, ','))
		return cli_error("%s holds a comma, which splits the agent's options: choose "
				 "another -o", p->dir);
	/* A stale socket of another user in our own /tmp is root's to remove (HotSpot cannot
	 * replace it); in another mount namespace the JVM's user has the only say. */
	if (att_need_user(proc) && !proc->other_mntns &&
	    att_clear_stale_socket(proc, JP_ERRBUF_LOG(o->err)))
		return cli_error_msg("", o->err);
	if (as_user(p, proc, attach_fn, j, o, "attaching to")) {
		if (o->pl.staged && o->pl.ours[0])
			as_user(p, proc, unstage_fn, j, o, "cleaning up after");
		return cli_error("%s", o->err);
	}
	if (o->restarted)
		cli_warn("Java VM %d still runs the agent of an earlier jitprof profile that did "
			 "not end (writing %s): stopped, and started again here", (int)p->pid,
			 o->old);
	return 0;
}

/* -p PID: agent in, record, agent stopped (only when it is ours), the staged dumps read back. */
int profile_attach(struct profile *p)
{
	char lib[PATH_MAX];
	struct load_out o;
	struct att_proc proc;
	int rc, stagefd = -1;

	struct cli_log log = { 0 };
	if (cli_log_done(&log, att_proc_read(p->pid, &proc, &CLI_LOG(&log))) ||
	    cli_log_done(&log, att_check(&proc, &CLI_LOG(&log))))
		return 1;
	profile_pick_call_graph(p);
	if (cli_log_done(&log, prof_find_agent(p->exe, lib, sizeof(lib), &CLI_LOG(&log))))
		return 1;
	struct load_job j = { p, &proc, lib, open(lib, O_RDONLY | O_CLOEXEC),
			      att_need_user(&proc) || proc.other_mntns };
	if (j.libfd < 0)
		return cli_error("%s: %s", lib, strerror(errno));
	memset(&o, 0, sizeof(o));
	rc = load_into(p, &proc, &j, &o);
	if (!rc && o.ours && o.pl.staged && (stagefd = open_stage(&proc, &o.pl)) < 0)
		rc = 1;
	if (rc) {
		if (o.ours)
			as_user(p, &proc, stop_fn, &j, &o, "stopping the agent in");
		if (o.ours && o.pl.staged)
			as_user(p, &proc, unstage_fn, &j, &o, "cleaning up after");
		close(j.libfd);
		return 1;
	}
	if (!o.ours && o.pl.staged)	/* made for nothing: the other agent writes elsewhere */
		as_user(p, &proc, unstage_fn, &j, &o, "cleaning up after");
	if (!o.ours) {
		cli_info("Java VM %d already has a JIT agent writing %s: using that dump (it "
			 "keeps running after this profile)", (int)p->pid, o.dump);
		/* Read where we see it (another namespace's path is not ours). */
		if (proc.other_mntns)
			snprintf(p->jit_dir, sizeof(p->jit_dir), "%.*s",
				 (int)(strrchr(o.dump, '/') - o.dump), o.dump);
	} else {
		cli_info("libagent.so loaded into Java VM %d, writing %s", (int)p->pid, o.dump);
	}
	rc = profile_record(p, NULL);
	if (o.ours && as_user(p, &proc, stop_fn, &j, &o, "stopping the agent in") &&
	    !(kill(p->pid, 0) && errno == ESRCH))
		cli_warn("could not stop the agent in Java VM %d: %s", (int)p->pid, o.err);
	if (stagefd >= 0) {
		if (profile_collect_dumps(p, stagefd, proc.uid, o.pl.ours))
			rc = 1;
		else
			snprintf(p->jit_dir, sizeof(p->jit_dir), "%s", p->dir);
		close(stagefd);
		if (as_user(p, &proc, unstage_fn, &j, &o, "cleaning up after") &&
		    !(kill(p->pid, 0) && errno == ESRCH))
			cli_warn("%s left in place: %s", o.pl.ours, o.err);
	}
	close(j.libfd);
	if (o.ours && p->jvm_log)
		profile_pick_jvm_jfr(p, (int)proc.nspid);
	return rc;
}
