/* inject.h - the whole face of recorder/inject/ (`jitprof inject --jit`), what commands and
 * report use: inj_run merges the code loads of every jitdump a recording names into that
 * recording as MMAP2 records carrying the build-ids of the per-generation ELFs, and writes
 * those ELFs (sampled generations only, by default) or, with --no-elfs, their origins;
 * inj_elfs_for writes an --no-elfs output's ELFs later (recorder/origins/ builds them in
 * memory for a reader). The pieces behind it are in inject_int.h. docs/inject.md. */
#ifndef JITPROF_INJECT_H
#define JITPROF_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/log.h"
#include "recorder/unwind/unwind.h"

/* ELF writer figures (elfpool.c). */
struct inj_pool_stats {
	uint64_t written, reused, cached, cache_reused;
	uint64_t failed;	/* said in one message through the run's log: how many, the
				 * first failure */
};

/* ---- The whole command (run.c) -------------------------------------------------------- */

struct inj_opts {
	size_t sz;		/* sizeof(struct inj_opts) (0 = this header's): lib/opts.h's rule */
	const char *input;	/* path or "-" */
	const char *output;	/* path or "-" */
	int out_fd;		/* where output goes (cli_outfile's fd, or 1) */
	int out_pipe;		/* write pipe mode */
	const char *jit_dir;	/* NULL: dumps where the markers say */
	const char *cache_root;	/* NULL: no build-id cache */
	const char *fallback_cache_root;	/* with cache_root NULL: the cache for ELFs that
						 * may not go beside their dump (NULL: none) */
	int all;		/* write every generation's ELF */
	int no_elfs;		/* write no ELF: record their origins (INJ_FEAT_ORIGINS) instead */
	int threads;		/* 0: a default from the online CPUs */
	struct jp_log log;	/* each warning, one line, naming the file */
	void *ctx;		/* for the progress callbacks */
	/* Every 64 Ki records: bytes of the data section read so far (total 0 in a pipe). */
	void (*progress_bytes)(void *ctx, uint64_t done, uint64_t total);
	/* While the last ELFs are written: ELFs done out of queued. */
	void (*progress_elfs)(void *ctx, uint64_t done, uint64_t total);
	/* Pipe input: how long in all (ms) to wait for one live writer's dump to reach the
	 * stream's time before going on without its newer loads; 0 = INJ_FOLLOW_WAIT_MS, <0
	 * never wait (the dumps are still re-read as they grow). */
	int follow_wait_ms;
	/* A recording with copies of the user stacks (record --call-graph dwarf): 1 keeps the
	 * copies (and the registers) in the rewritten samples; 0 drops them (stacks.c). */
	int keep_stacks;
};

#define INJ_FOLLOW_WAIT_MS 5000

struct inj_stats {
	uint64_t records_in, records_out;
	uint64_t dumps, dumps_missing;
	uint64_t loads, moves, unloads, mmaps_emitted, placeholders;
	uint64_t anon_dropped, markers_consumed, clamped;
	uint64_t samples;
	uint64_t loads_hit;
	uint64_t dumps_salvaged;	/* dumps with a damaged tail */
	uint64_t origins;		/* --no-elfs: ELFs recorded by origin instead of written */
	uint64_t rereads;		/* a followed dump read again after it grew */
	uint64_t wait_ms;		/* waited for live writers, in all */
	uint64_t behind;		/* dumps a live writer had not yet written up to the
					 * stream's time when the wait bound ran out */
	uint64_t unresolved;		/* samples in a dump's code ranges no load covered */
	uint64_t dumps_indexed;		/* dump files read and indexed (shared by the processes
					 * and parts naming the same file) */
	struct inj_pool_stats pool;
	/* Samples whose user stack copy was unwound into their call chain (stacks.c), and why
	 * each walk ended (enum unw_end, recorder/unwind/unwind.h). */
	struct inj_stacks_stats {
		uint64_t walks, rewritten;
		uint64_t too_big;	/* --keep-stacks: no room for the chain, left as read */
		uint64_t ends[UNW_END_NR];
		uint64_t copy_cut, copy_size;	/* cut by a full copy's end; the largest */
		/* interpreter frames named by an address in their process's ELF of
		 * interpreted methods (interp.c), left the interpreter's, and those ELFs */
		uint64_t interp_named, interp_unnamed, interp_elfs;
	} stacks;
};

/* 0 on success; a negative errno when the output must not be used, its message sent last
 * (after every warning) through o->log at JP_LOG_ERROR. Warnings go at JP_LOG_WARN. */
int inj_run(const struct inj_opts *o, struct inj_stats *st);

/* ---- ELFs without files (--no-elfs; the origins format is in inject_int.h) ------------- */

/* `inject --elfs-for INJECTED`: writes the ELF files an --no-elfs output names, where the
 * file-writing path would have (beside the dump; into cache_root too unless NULL). A dump
 * (or companion) owned by another user than the running one or root is refused unless force
 * (-f). 0, or -errno with its message logged (JP_LOG_ERROR; log may be NULL); ELFs that could
 * not be written are counted in *st and make it -EIO, said in one message. */
int inj_elfs_for(const char *injected, const char *cache_root, int threads, int force,
		 struct inj_pool_stats *st, const struct jp_log *log);


#endif
