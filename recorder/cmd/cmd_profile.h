/* cmd_profile.h - what `jitprof profile`'s files share: the run's state (cmd_profile.c runs
 * the recording, cmd_profile_steps.c inject and report in process), attaching to a running
 * JVM (cmd_profile_attach.c) and what is read once the recording is over
 * (cmd_profile_data.c: counts, the JVM's compilation log, node's files, the closing line's
 * hottest row). */
#ifndef JITPROF_CMD_PROFILE_H
#define JITPROF_CMD_PROFILE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "recorder/inject/inject.h"
#include "recorder/profile/profile.h"
#include "recorder/report/report.h"

struct profile {
	unsigned long duration_ms;
	const char *out, *freq;
	pid_t pid;
	enum prof_runtime forced;	/* --java, --node */
	int quiet;
	int elfs;	/* --elfs: inject writes the ELF files (default --no-elfs) */
	int jvm_log;	/* --jvm-log: HotSpot's compilation log written and joined */
	int off_cpu;	/* -e wall|offcpu: record --off-cpu */
	struct prof_call_graph cg;	/* --call-graph as asked, then as used (cmd_profile.c) */
	char events[256];	/* -e's record events, "a,b" ("": record's default) */
	char *report_event;	/* report --event (NULL: report's default) */
	char agent_opts[32];	/* -e alloc|lock: ",alloc", ",lock" after the agent's dir= */
	char jvm_log_path[PATH_MAX + 32];	/* the log found after the run, or "" */
	char **cmd;
	const struct rp_format *fmt;	/* by OUT's extension (formats.c) */
	char exe[PATH_MAX], dir[PATH_MAX], data[PATH_MAX + 16], jitdata[PATH_MAX + 16];
	int dirfd;		/* dir, opened when it was made (or found ours) */
	char jit_dir[PATH_MAX];		/* inject's --jit-dir: dumps not where the JVM wrote them */
	char cwd[PATH_MAX];		/* where a launched command starts ("" unknown) */
	int workload_status;
};

#define MAX_LOGS 32
#define MAX_MARKED 64

struct counts {
	unsigned long long samples, loads, markers;
	/* the processes whose jitdump is in the working directory (node's), and whether any
	 * other process's is elsewhere */
	pid_t cwd_dump_pid[MAX_MARKED];
	int nr_cwd_dumps, dumps_elsewhere;
	/* samples of the processes that wrote a compilation log (--jvm-log) */
	pid_t log_pid[MAX_LOGS];
	unsigned long long log_samples[MAX_LOGS];
	int nr_logs;
};

/* The last SIGINT or SIGTERM profile caught (0: none yet): what a wait or a read checks. */
extern volatile sig_atomic_t profile_signal;

/* `jitprof record -k mono -g` (or --call-graph dwarf,SIZE, p->cg) of cmd (a launched command)
 * or of p->pid, into p->data, until it ends or -d passed (cmd_profile.c). 0, or a message said
 * and 1. */
int profile_record(struct profile *p, char **cmd);
/* After the recording, in this process (cmd_profile_steps.c): inject's run on p->data into
 * p->jitdata, inject's exit status (0; 1; 3: nothing injected, said); the report into p->out
 * from the injected recording (or the plain one), retried without the JVM's log when the one
 * with it fails: 0, or 1 with the error said. Inject's counts into *st (the injected file's
 * samples and code loads, said at the end without reading it again). */
int profile_inject(struct profile *p, struct inj_stats *st);
int profile_report(struct profile *p, int injected);
/* From the signal handler: a signal while a step of these runs ends the profile there (the
 * error said, _exit(1)); at any other time it returns. */
void profile_step_signal(int sig);
/* -p PID: the agent loaded, the JVM recorded, the agent stopped (cmd_profile_attach.c). */
int profile_attach(struct profile *p);
/* Picks the call-graph mode and says it with why (cmd_profile.c): after -p's checks, so that
 * a process that is no JVM is refused before anything is said of how a JVM is recorded. */
void profile_pick_call_graph(struct profile *p);

/* Samples in a recording, code loads of jitted methods (MMAP2 of jitted-*.so) and jitdump
 * markers (mappings of jit-PID.dump); the processes whose dump is in cwd (none for ""); the
 * samples of each pid in c->log_pid (set by profile_find_jvm_logs, or nr_logs 0). */
void profile_count(const char *path, const char *cwd, struct counts *c);
/* The agent's files (jit-N.dump and its companions) copied from the staged directory stagefd
 * (where the JVM of uid wrote them; shown: its path for messages) into p->dirfd, 0600: read
 * beneath the fd (no link followed, regular files of uid only, never blocking, not on FUSE, at
 * most PROF_DUMP_MAX bytes each). A file refused is a warning; 0, or 1 after an error said. */
#define PROF_DUMP_MAX (4ull << 30)
int profile_collect_dumps(struct profile *p, int stagefd, uid_t uid, const char *shown);
/* The processes whose compilation log (jvm-pid<PID>.log) is in the data directory. */
void profile_find_jvm_logs(struct profile *p, struct counts *c);
/* p->jvm_log_path: the log of the JVM with the most samples, or a warning when none. */
void profile_pick_jvm_log(struct profile *p, const struct counts *c);
/* -p PID --jvm-log: the agent's Flight Recording of the JVM's compiles and traps
 * (jit-NSPID.jfr beside its dump) as the report's --jvm-log, or a warning without it. */
void profile_pick_jvm_jfr(struct profile *p, int nspid);
/* node's dump and V8's log from the working directory into the data directory (p->jit_dir set)
 * when every dump of the recording is there. */
void profile_tidy_node_files(struct profile *p, const struct counts *c);
/* "; hottest Java method: NAME (P%)" from a text report (the methods view), "; hottest:
 * SYMBOL (P%)" when it has no jitted method, or "". */
void profile_hottest(const char *report, char *buf, size_t len);

/* `jitprof profile --help` (cmd_profile_usage.c). */
void profile_usage(FILE *out);

#endif
