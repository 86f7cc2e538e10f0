/* inject.h - the whole face of recorder/inject/ (`jitprof inject --jit`), what commands use:
 * inj_run merges the code loads of every jitdump a recording names into that recording as
 * MMAP2 records carrying the build-ids of the per-generation ELFs, and writes those ELFs
 * (sampled generations only, by default). The pieces behind it are in inject_int.h.
 * docs/inject.md. */
#ifndef JITPROF_INJECT_H
#define JITPROF_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/log.h"

/* ELF writer figures (elfpool.c). */
struct inj_pool_stats {
	uint64_t written, reused, cached, cache_reused, failed;
	char first_error[512];
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
	int all;		/* write every generation's ELF */
	int threads;		/* 0: a default from the online CPUs */
	struct jp_log log;	/* each warning, one line, naming the file */
	void *ctx;		/* for the progress callbacks */
	/* Every 64 Ki records: bytes of the data section read so far (total 0 in a pipe). */
	void (*progress_bytes)(void *ctx, uint64_t done, uint64_t total);
	/* While the last ELFs are written: ELFs done out of queued. */
	void (*progress_elfs)(void *ctx, uint64_t done, uint64_t total);
};

struct inj_stats {
	uint64_t records_in, records_out;
	uint64_t dumps, dumps_missing;
	uint64_t loads, moves, unloads, mmaps_emitted, placeholders;
	uint64_t anon_dropped, markers_consumed, clamped;
	uint64_t samples;
	uint64_t loads_hit;
	uint64_t dumps_salvaged;	/* dumps with a damaged tail */
	struct inj_pool_stats pool;
};

/* 0 on success; a negative errno with a message in err when the output must not be used. */
int inj_run(const struct inj_opts *o, struct inj_stats *st, char *err, size_t errlen);

#endif
