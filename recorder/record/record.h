/* record.h - the engine behind `jitprof record` (recorder/record/, librecorder-record.a): opens
 * perf events per CPU, drains their ring buffers, synthesizes what existed before the start,
 * resolves build-ids on a side thread, and writes perf.data through recorder/perfdata. */
#ifndef JITPROF_RECORD_H
#define JITPROF_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/log.h"

struct rec_opts {
	size_t sz;		/* sizeof(struct rec_opts) (0 = this header's): lib/opts.h's rule */
	int clockid;		/* -1: the kernel's perf clock (no use_clockid) */
	uint64_t freq;		/* -F (0: use period) */
	uint64_t period;	/* -c */
	const char *event;	/* -e, "a,b" for several; NULL: cycles where the PMU has them,
				 * else cpu-clock (cpu-clock with off_cpu: wall time wants ns) */
	bool callchain;		/* -g */
	pid_t pid;		/* -p (0: none) */
	bool system_wide;	/* -a */
	const char *output;	/* -o; "-" = pipe mode on stdout (names the output in messages) */
	int out_fd;		/* where the recording is written (the caller opens and commits it) */
	char **argv;		/* workload (NULL-terminated) or NULL */
	size_t mmap_pages;	/* data pages per CPU buffer (power of two; 0 = default) */
	int orig_argc;		/* the command line, for the CMDLINE feature */
	const char *const *orig_argv;
	bool quiet;
	struct jp_log log;	/* errors and warnings, one line each */
	/* Set (to the signal number) by the caller's SIGINT/SIGTERM handler: stop cleanly. */
	const volatile sig_atomic_t *stop;
	/* After every drain pass: samples so far, bytes written so far. */
	void (*progress)(void *ctx, uint64_t samples, uint64_t bytes);
	void *ctx;
	const char *buildid_dir;	/* build-id cache for the vdso image; NULL: none */
	bool keep_deleted;	/* deleted mapped files' contents into buildid_dir too */
	/* --call-graph dwarf[,SIZE]: bytes of user stack copied per sample with the user
	 * registers (a multiple of 8, at most REC_STACK_USER_MAX; 0: no copies). */
	size_t stack_user;
	/* --off-cpu: every context switch of the profiled threads, sampled with its call chain
	 * at switch-out, and their switch-in records (events.c says why these). */
	bool off_cpu;
};

/* --call-graph dwarf: perf's default copy size and the most the kernel's u16 size allows. */
#define REC_STACK_USER_DEFAULT 8192u
#define REC_STACK_USER_MAX 65528u
/* perf's user register mask for x86_64 DWARF unwinding: every general register, ip, flags,
 * cs and ss; not ds/es/fs/gs (PERF_REG_X86_DS..GS, 12..15). */
#define REC_REGS_USER_X86_64 0xff0fffULL

/* Pipe mode: how long one round may wait for the build-ids its samples need. */
#define REC_BID_HOLD_MS 1000

/* --keep-deleted: the deleted mapped files that could not be kept, by why. */
struct rec_not_kept {
	uint64_t unreadable;	/* map_files could not be opened or read whole (the process or
				 * its mapping went away, no capability to read it) */
	uint64_t too_big;	/* over the size limit */
	uint64_t no_build_id;	/* none could be read: the cache files by build-id */
	uint64_t cache_error;	/* the cache refused the write */
	char *first;		/* "PATH: WHY" of the first; malloc'd, the caller frees it */
};

struct rec_stats {
	uint64_t samples;
	uint64_t lost;		/* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t records;
	uint64_t bytes;
	uint64_t build_ids;	/* build-ids resolved by the side thread */
	uint64_t held_rounds;	/* pipe mode: rounds held until the build-ids they need */
	uint64_t held_ms;	/* ... and the time spent waiting for them */
	uint64_t late_dsos;	/* DSOs whose samples went out before their build-id could be
				 * read (REC_BID_HOLD_MS ran out) */
	int vdso_saved;		/* 1: the vdso image went to the build-id cache */
	uint64_t kept_deleted;	/* deleted mapped files kept in the build-id cache */
	struct rec_not_kept not_kept;	/* ... and those that could not be */
	int workload_status;	/* exit code of the workload (128+sig if killed), or 0 */
	char *event_name;	/* the recorded events, comma separated, all of them; malloc'd:
				 * the caller frees it (NULL until they are open), as not_kept.first */
};

/* Parses a -k value: mono, monotonic, CLOCK_MONOTONIC, 1, raw, boot, realtime, tai (and
 * CLOCK_* spellings / numbers of those). Returns the clockid or -EINVAL. */
int rec_parse_clock(const char *s);

/* Runs a whole recording. Returns 0 or -errno; messages go to o->log. A library: it prints
 * nothing and installs no signal handler. */
int rec_run(const struct rec_opts *o, struct rec_stats *st);

#endif
