/* cmd_archive.h - what `jitprof archive`'s files share: the job (cmd_archive.c packs the ELFs
 * by build-id) and the jitdumps beside the jitted ELFs (cmd_archive_dumps.c), which the
 * generations view on another machine needs for every generation, its tier, level and
 * compile id. */
#ifndef JITPROF_CMD_ARCHIVE_H
#define JITPROF_CMD_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/symbols/symbols.h"

struct listed_id {
	uint8_t size, data[SYM_BUILD_ID_MAX];
};

struct archive_job {
	struct archive *a;
	const char *symfs, *buildid_dir;
	size_t added, missing, unsampled, bytes;
	size_t dumps;			/* jitdumps packed (RP_ARCHIVE_DUMPS) */
	uint64_t max_bytes;		/* the budget; UINT64_MAX: none */
	int max_given;			/* --max-size set it */
	int force;			/* -f: files of other users too */
	char *refusal;			/* why the budget stopped the archive (malloc'd) */
	int verbose;
	/* The recording's build-id table, sorted: perf and jitprof list there the DSOs
	 * samples landed in. A DSO it leaves out whose file is absent is no loss: inject
	 * makes ELFs only for sampled generations, and no report needs the others. */
	struct listed_id *listed;
	size_t nr_listed;
	int have_table;
};

/* A regular file member of len bytes. 0 or -EIO. */
int archive_add_file(struct archive_job *j, const char *member, const void *buf, size_t len);
/* -EFBIG, with the refusal written, when len more bytes would pass the budget. */
int archive_budget_take(struct archive_job *j, size_t len, const char *name);
/* A whole regular file (never a FIFO or device) into *buf (malloc'd). 0 or -errno. */
int archive_slurp(const char *path, void **buf, size_t *len);

/* The jitdump (and its .jitprof companion) of each directory and process of the session's
 * jitted ELFs, as RP_ARCHIVE_DUMPS/jit-PID.dump. 0, or -errno (-EFBIG: the budget). */
int archive_add_dumps(struct archive_job *j, struct sym_session *ss);

#endif
