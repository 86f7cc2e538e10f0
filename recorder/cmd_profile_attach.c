/* cmd_profile_attach.c - `jitprof profile -p PID`: libagent.so loaded into a running JVM
 * through its attach listener (recorder/attach/), staged into the JVM's own /tmp when it lives
 * in another mount namespace, the process recorded, then the agent stopped again (only when
 * it is ours), so the JVM can be profiled again. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/attach/attach.h"
#include "recorder/cli.h"
#include "recorder/cmd_profile.h"

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Where the agent goes and writes, as the JVM sees it (lib, dir) and as we do (ours): the
 * data directory itself, or for a JVM in another mount namespace copies in its /tmp. */
struct placement {
	char lib[PATH_MAX], dir[PATH_MAX], ours[PATH_MAX];
	int staged;
};

static int place(struct profile *p, const struct att_proc *proc, struct placement *pl)
{
	char lib[PATH_MAX], err[PATH_MAX + 256];

	if (prof_find_agent(p->exe, lib, sizeof(lib), err, sizeof(err)))
		return cli_error("%s", err);
	pl->staged = proc->other_mntns;
	if (pl->staged) {
		if (prof_stage_agent(proc->root, lib, proc->uid, proc->gid, pl->lib,
				     sizeof(pl->lib), err, sizeof(err)) ||
		    prof_stage_dir(proc->root, proc->uid, proc->gid, pl->dir, sizeof(pl->dir),
				   pl->ours, sizeof(pl->ours), err, sizeof(err)))
			return cli_error("Java VM %d lives in another mount namespace: %s",
					 (int)p->pid, err);
		return 0;
	}
	if (strchr(p->dir, ','))
		return cli_error("%s holds a comma, which splits the agent's options: choose "
				 "another -o", p->dir);
	/* The JVM's user writes the dumps there. */
	if (geteuid() == 0 && proc->uid != 0 && chown(p->dir, proc->uid, proc->gid))
		return cli_error("chown %s: %s", p->dir, strerror(errno));
	snprintf(pl->lib, sizeof(pl->lib), "%s", lib);
	snprintf(pl->dir, sizeof(pl->dir), "%s", p->dir);
	snprintf(pl->ours, sizeof(pl->ours), "%s", p->dir);
	return 0;
}

/* A dump an earlier `jitprof profile` left running (killed before its stop): in a data
 * directory (*.jitprof/) or a staged one (/tmp/.jitprof-profile-N/). */
static int left_by_profile(const char *dump)
{
	const char *slash = strrchr(dump, '/');
	size_t dn = slash ? (size_t)(slash - dump) : 0;

	return (dn > 8 && !strncmp(slash - 8, ".jitprof", 8)) ||
	       strstr(dump, "/.jitprof-profile-") != NULL;
}

/* Loads the agent and tells whether it writes our dump (1), or another agent's is there (0,
 * its path in dump). */
static int load(struct profile *p, const struct att_proc *proc, const struct placement *pl,
		char *dump, size_t len)
{
	char opts[PATH_MAX + 16], err[1024];
	int arc = -1;

	snprintf(opts, sizeof(opts), "dir=%s", pl->dir);
	snprintf(dump, len, "%s/jit-%d.dump", pl->ours, (int)proc->nspid);
	if (att_load_agent(proc, pl->lib, opts, 20000, &arc, err, sizeof(err)))
		return cli_error("%s", err), -1;
	if (exists(dump))
		return 1;
	if (att_find_dump(proc, dump, len))
		return cli_error("libagent.so was loaded into Java VM %d (return code %d) but "
				 "wrote no %s/jit-%d.dump: the reason is on the JVM's stderr",
				 (int)p->pid, arc, pl->dir, (int)proc->nspid), -1;
	return 0;
}

/* -p PID: agent in, record, agent stopped (only when it is ours). */
int profile_attach(struct profile *p)
{
	char dump[PATH_MAX + 32], err[1024];
	struct placement pl;
	struct att_proc proc;
	int arc = -1, ours, rc;

	if (att_proc_read(p->pid, &proc, err, sizeof(err)) || att_check(&proc, err, sizeof(err)))
		return cli_error("%s", err);
	if ((rc = place(p, &proc, &pl)))
		return rc;
	if ((ours = load(p, &proc, &pl, dump, sizeof(dump))) < 0)
		return 1;
	if (!ours && left_by_profile(dump)) {
		cli_warn("Java VM %d still runs the agent of an earlier jitprof profile that did "
			 "not end (writing %s): stopped, and started again here", (int)p->pid, dump);
		if (att_load_agent(&proc, pl.lib, "stop", 20000, &arc, err, sizeof(err)))
			return cli_error("%s", err);
		if ((ours = load(p, &proc, &pl, dump, sizeof(dump))) < 0)
			return 1;
	}
	if (!ours) {
		cli_info("Java VM %d already has a JIT agent writing %s: using that dump (it "
			 "keeps running after this profile)", (int)p->pid, dump);
		/* Read where we see it (another namespace's path is not ours). */
		if (proc.other_mntns)
			snprintf(p->jit_dir, sizeof(p->jit_dir), "%.*s",
				 (int)(strrchr(dump, '/') - dump), dump);
	} else {
		cli_info("libagent.so loaded into Java VM %d, writing %s", (int)p->pid, dump);
	}
	rc = profile_record(p, NULL);
	if (ours) {
		char err2[1024];
		if (att_load_agent(&proc, pl.lib, "stop", 20000, &arc, err2, sizeof(err2)) &&
		    !(kill(p->pid, 0) && errno == ESRCH))
			cli_warn("could not stop the agent in Java VM %d: %s", (int)p->pid, err2);
	}
	if (pl.staged) {
		if (ours && prof_collect_dumps(pl.ours, p->dir, err, sizeof(err)))
			return cli_error("%s", err);
		if (ours)
			snprintf(p->jit_dir, sizeof(p->jit_dir), "%s", p->dir);
	}
	return rc;
}
