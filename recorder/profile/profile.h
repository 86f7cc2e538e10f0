/* profile.h - the decisions behind `jitprof profile` that need no process (recorder/profile/,
 * librecorder-profile.a): where the recording is kept (the report an output name asks for is
 * report's table of formats, rp_format_of in recorder/report/report.h), which runtime a
 * command starts and what it needs added to run with JIT dumps, and where libagent.so lives.
 * cmd_profile.c runs the processes. Prefix prof_. docs/profile.md.
 * Errors: -errno, and the reason at JP_LOG_ERROR through the caller's log (lib/log.h). */
#ifndef JITPROF_PROFILE_H
#define JITPROF_PROFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/log.h"

/* "<OUT>.jitprof" (p.html -> p.html.jitprof): the directory beside OUT that keeps perf.data,
 * perf.jit.data, the jitdumps and their ELFs. Named after the whole of OUT, so that profiles
 * into p.html and p.svg keep a recording each: a run replaces only the data of an earlier
 * run of the same OUT. 0 or -ENAMETOOLONG. */
int prof_data_dir(const char *out, char *buf, size_t len);

enum prof_runtime { PROF_RT_OTHER, PROF_RT_JAVA, PROF_RT_NODE };

/* What argv[0] starts: "java" (any path), "node"/"nodejs"; forced (--java, --node) wins
 * unless it is PROF_RT_OTHER. */
enum prof_runtime prof_runtime_of(const char *argv0, enum prof_runtime forced);
/* 1 when argv[0] itself is the runtime (flags go on its command line), 0 when the runtime
 * runs somewhere below it (flags go in JAVA_TOOL_OPTIONS / NODE_OPTIONS). */
int prof_runtime_direct(const char *argv0, enum prof_runtime rt);

/* How the recording gets its stacks (--call-graph, perf's spelling): frame pointers (record
 * -g) or copies of the user stack of SIZE bytes, unwound by inject and report (docs/unwind.md).
 * PROF_CG_AUTO: not asked for, prof_call_graph_pick decides. */
enum prof_cg_mode { PROF_CG_AUTO, PROF_CG_FP, PROF_CG_DWARF };
struct prof_call_graph {
	enum prof_cg_mode mode;
	unsigned size;		/* dwarf: bytes copied per sample, a multiple of 8 */
};
/* A JVM's stack copy: 32 KiB reaches main under the deep stacks of frameworks and javac, where
 * 16 KiB cut ~1 in 10 (docs/PERFORMANCE.md, "profile's Java mode"). */
#define PROF_JAVA_STACK_SIZE 32768u
/* "fp", "dwarf" (PROF_JAVA_STACK_SIZE) or "dwarf,SIZE" (1..65528, rounded up to 8): 0, or
 * -EINVAL (a mode it is not) or -ERANGE (SIZE) with the reason logged. */
int prof_parse_call_graph(const char *arg, struct prof_call_graph *cg,
			  const struct jp_log *log);
/* The mode used: asked's when it is not AUTO; else dwarf for a JVM (java launched, or -p:
 * compiled frames without frame pointers and interpreted frames by name), fp for the rest
 * (node's and native code's frame pointers walk as they are). *why: a phrase for the line
 * that says which mode and why. */
struct prof_call_graph prof_call_graph_pick(struct prof_call_graph asked, int jvm,
					    const char **why);

/* The JVM options profile adds: "-agentpath:LIB=dir=DIR", and -XX:+PreserveFramePointer when
 * preserve_fp (the fp mode: perf's walk needs it through compiled code; the dwarf mode does
 * not). How many (1 or 2), or -EINVAL with a reason logged when LIB or DIR cannot be passed
 * (a comma splits the agent's options; a quote or whitespace breaks JAVA_TOOL_OPTIONS). */
#define PROF_JAVA_NARGS 2
int prof_java_args(char *agentpath, size_t len, const char *lib, const char *dir,
		   int preserve_fp, const char *args[PROF_JAVA_NARGS],
		   const struct jp_log *log);
/* With profile --jvm-log: the JVM options that make HotSpot write its compilation log into
 * DIR/jvm-pid<PID>.log (HotSpot turns "%p" into "pid" and the process id), for report's
 * --jvm-log. -EINVAL with a reason logged when DIR holds a '%' (HotSpot would expand it). */
#define PROF_JVMLOG_NARGS 3
int prof_jvm_log_args(char *logfile, size_t len, const char *dir,
		      const char *args[PROF_JVMLOG_NARGS], const struct jp_log *log);
/* The process id a log's file name ("jvm-pid<PID>.log") gives; 0 when it is no such name. */
pid_t prof_jvm_log_pid(const char *name);

/* The V8 flags that make node write a jitdump with walkable frames. */
#define PROF_NODE_NARGS 2
extern const char *const prof_node_args[PROF_NODE_NARGS];

/* A new NULL-terminated argv: argv[0], then add[0..nadd), then argv[1...]. malloc'd array
 * (strings shared); NULL when out of memory. */
char **prof_argv_insert(char *const *argv, const char *const *add, int nadd);
/* The value to set JAVA_TOOL_OPTIONS (or NODE_OPTIONS) to: existing (may be NULL) then
 * add[], space separated. 0 or -ENAMETOOLONG. */
int prof_env_append(char *buf, size_t len, const char *existing, const char *const *add,
		    int nadd);

/* libagent.so for this jitprof: $JITPROF_AGENT, else beside the executable exe (the build
 * tree), else <exe's dir>/../lib/ (installed). 0, or -ENOENT with the places tried logged. */
int prof_find_agent(const char *exe, char *buf, size_t len, const struct jp_log *log);

/* ---- stage.c: where the agent of a JVM of another user, or in another mount namespace,
 * writes. root = "/proc/PID/root". Run as the JVM's user (a child that dropped root): every
 * path here is the JVM's user's to follow, create or remove. */

/* libagent.so (the bytes of libfd) copied into the target's /tmp, kept when the bytes are the
 * same (else replaced by a rename: the JVM may have it mapped), as
 * /tmp/.jitprof-libagent-<euid>.so; target gets the path the JVM sees. 0 or -errno, logged. */
int prof_stage_agent(const char *root, int libfd, char *target, size_t len,
		     const struct jp_log *log);
/* A fresh directory (mkdtemp, 0700) in the target's /tmp for the agent's dumps: target = the
 * JVM's path (/tmp/.jitprof-profile-XXXXXX), ours = the same through root. */
int prof_stage_dir(const char *root, char *target, size_t tlen, char *ours, size_t olen,
		   const struct jp_log *log);
/* 1 when name is what the agent writes: jit-N.dump, its companions (jit-N.dump.*) and its
 * Flight Recording (jit-N.jfr, the agent's jfr option). */
int prof_is_dump_file(const char *name);
/* Removes what a profile writes in the directory dirfd (jit-*.dump*, jitted-*.so,
 * jvm-pid*.log, perf.data, perf.jit.data): the agent never writes over an existing dump, and
 * old ELFs are not this run's. Names only (unlinkat): a link there is removed, not followed. */
void prof_clear_dir(int dirfd);

/* node writes its jitdump (jit-PID.dump) and V8 its code log (isolate-0xADDR-PID-v8.log) in its
 * working directory, with no option to put the dump elsewhere: the process id such a name
 * gives, 0 for any other name. */
pid_t prof_node_file_pid(const char *name);
/* Moves the files of prof_node_file_pid whose pid is one of pids[0..n) from one directory
 * into another (rename only: regular files of ours, not symbolic links; a file that cannot be
 * renamed stays). How many dumps (jit-PID.dump) moved. */
int prof_move_node_files(const char *from, const char *to, const pid_t *pids, int n);

/* Seconds ("3", "2.5", "1m" and "500ms" too) into milliseconds; -EINVAL unless 0 < v. */
int prof_parse_duration(const char *s, unsigned long *ms);

#endif
