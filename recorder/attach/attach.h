/* attach.h - HotSpot's attach mechanism spoken directly (recorder/attach/, librecorder-attach.a):
 * what /proc says about a target process (is it a JVM, whose is it, which pid does it see
 * itself as), and loading an agent library into it the way jcmd does, without a jcmd process.
 * Prefix att_. docs/profile.md describes the protocol and the refusals. Errors: -errno, and the
 * reason at JP_LOG_ERROR through the caller's log (lib/log.h). */
#ifndef JITPROF_ATTACH_H
#define JITPROF_ATTACH_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/log.h"

struct att_proc {
	pid_t pid;		/* as this process sees it */
	pid_t nspid;		/* as the target sees itself (innermost NSpid) */
	uid_t uid;		/* effective ids of the target */
	gid_t gid;
	int is_jvm;		/* libjvm.so is mapped */
	int catches_quit;	/* SIGQUIT has a handler (HotSpot's attach trigger) */
	int other_mntns;	/* lives in another mount namespace than we do */
	int attach_disabled;	/* -XX:+DisableAttachMechanism on its command line */
	char root[64];		/* "/proc/PID/root": the target's view of the file system */
};

/* Reads /proc/PID/{status,maps,ns/mnt}. 0, or -errno with a message logged (-ESRCH: no such
 * process; -EACCES: its maps cannot be read by us). */
int att_proc_read(pid_t pid, struct att_proc *p, const struct jp_log *log);

/* Whether this process may attach to p: the same effective user, or root; a JVM; one that
 * handles SIGQUIT (a JVM started with -Xrs would be killed by it) and was not started with
 * -XX:+DisableAttachMechanism. 0 or -EPERM/-EINVAL with the refusal logged. */
int att_check(const struct att_proc *p, const struct jp_log *log);

/* The first mapped "jit-N.dump" in p's mappings (a jitdump marker: a JIT agent already writes
 * one) as a path in our file system view; 0 when found, -ENOENT when none. */
int att_find_dump(const struct att_proc *p, char *path, size_t len);

/* A socket file at the target's /tmp/.java_pid<nspid> that nobody listens on (left by a
 * killed JVM that had this pid) is removed: HotSpot cannot replace one of another user in the
 * sticky /tmp, and its listener then fails without a word. 0 when there is none, it listens,
 * it is gone or the JVM's user owns it; -EPERM with the reason logged when another user's
 * remains (we are not root). att_load_agent calls it before it starts the listener. */
int att_clear_stale_socket(const struct att_proc *p, const struct jp_log *log);

/* Loads the agent library `lib` (a path valid inside the target) with `options` through the
 * attach listener: starts it if needed (.attach_pid file + SIGQUIT), then sends
 * "1\0load\0lib\0true\0options\0" on the target's /tmp/.java_pid<nspid> socket. timeout_ms
 * bounds the wait for the listener. On 0 *agent_rc is the agent's Agent_OnAttach return code.
 * -errno with a message logged otherwise (the JVM's own reply text included). */
int att_load_agent(const struct att_proc *p, const char *lib, const char *options,
		   unsigned timeout_ms, int *agent_rc, const struct jp_log *log);

/* Parses the listener's reply "<result>\n[return code: <n>\n]..." 0 with *result and
 * *agent_rc (-1 when the reply carries none), -EPROTO for anything else. */
int att_parse_reply(const char *reply, int *result, int *agent_rc);

/* 1 when talking to p needs its user's ids (we are root and it is another user's): what
 * the protocol touches in its directories and mount namespace is then done by att_as_user. */
int att_need_user(const struct att_proc *p);

/* Runs fn(ctx, out) in a child with p's effective uid and gid (no supplementary groups, not
 * dumpable) when att_need_user(p), else with ours, every fd but keep[0..nkeep) closed; the
 * child's out (outlen bytes, filled by fn) is copied back into out. fn's return, or -ETIMEDOUT
 * after timeout_ms, -EINTR once *stop (may be NULL) is set, -EPIPE when the child died without
 * an answer, -EPERM when the ids could not be taken (the child is killed in each case). */
int att_as_user(const struct att_proc *p, int (*fn)(void *ctx, void *out), void *ctx,
		void *out, size_t outlen, const int *keep, int nkeep, unsigned timeout_ms,
		volatile sig_atomic_t *stop);

#endif
