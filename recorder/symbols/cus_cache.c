/* cus_cache.c - the CU index of a debug file (lines_index_cus: each unit's address ranges),
 * kept in the build-id cache beside the file's inflated DWARF (`<root>/.jitprof/dwarf/
 * <build-id>.cus`) and read by the next report instead of walking every unit again: libc's
 * 2,083 ranges took 6-7 ms of CPU (each unit's first DIE and abbreviations parsed), 13-17% of
 * a small call-graph report of a C program. Kept only for DWARF that came mapped from the
 * cache, and keyed by that entry's identity (device, inode, size, mtime: the entry is
 * validated against the debug file itself, and written fresh when that changes, so a new
 * entry makes the index stale). Trust as for the entry (inflate_cache.c): beneath the root, no
 * symlink, ours, nobody else may write it, written fresh into a root of ours; and every range
 * must be ordered, non-empty and name a unit offset inside .debug_info, or none is taken. */
#include "recorder/symbols/symbols_int.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio.h"

#define DIR_REL LINES_ZCACHE_DIR
#define MAGIC "JPCUS01\n"
#define MAX_RANGES (1u << 24)

struct head {
	char magic[8];
	uint64_t entry_id[4];	/* the DWARF entry's */
	uint64_t n;		/* ranges after the head */
};

struct range {
	uint64_t lo, hi, cu_off;
};

/* The size of dw's .debug_info (inflated), 0 when it has none. */
static uint64_t info_size(Dwarf *dw)
{
	Elf_Scn *scn = lines_section(dwarf_getelf(dw), ".debug_info", NULL);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	return d ? d->d_size : 0;
}

int lines_cus_load(int rootfd, const struct sym_build_id *bid, const struct lines_zbuf *z,
		   Dwarf *dw, struct cu_range **cus, size_t *n_cus)
{
	char rel[sizeof(DIR_REL) + SYM_BUILD_ID_HEX + 8];
	struct head h;
	struct stat st;
	if (rootfd < 0 || !z->mapped || lines_zcache_entry(bid, ".cus", rel, sizeof(rel)))
		return 0;
	int fd = sio_open_beneath(rootfd, rel);	/* no symlink, a regular file */
	if (fd < 0)
		return 0;
	struct range *v = NULL;
	struct cu_range *out = NULL;
	uint64_t limit = info_size(dw);
	/* ours and nobody else's to write, for this very entry, exactly the size it says */
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022) ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, MAGIC, sizeof(h.magic)) ||
	    memcmp(h.entry_id, z->entry_id, sizeof(h.entry_id)) || !h.n || h.n > MAX_RANGES ||
	    (uint64_t)st.st_size != sizeof(h) + h.n * sizeof(*v) ||
	    !(v = malloc((size_t)h.n * sizeof(*v))) || !(out = calloc((size_t)h.n, sizeof(*out))) ||
	    pread(fd, v, (size_t)h.n * sizeof(*v), sizeof(h)) != (ssize_t)(h.n * sizeof(*v)))
		goto fail;
	for (size_t i = 0; i < h.n; i++) {
		if (v[i].lo >= v[i].hi || v[i].cu_off >= limit || (i && v[i].lo < v[i - 1].lo))
			goto fail;
		out[i] = (struct cu_range){ .lo = v[i].lo, .hi = v[i].hi, .cu_off = v[i].cu_off };
	}
	free(v);
	close(fd);
	*cus = out;
	*n_cus = (size_t)h.n;
	return 1;
fail:
	free(v);
	free(out);
	close(fd);
	return 0;
}

void lines_cus_save(int rootfd, const struct sym_build_id *bid, const struct lines_zbuf *z,
		    const struct cu_range *cus, size_t n_cus)
{
	char rel[sizeof(DIR_REL) + SYM_BUILD_ID_HEX + 8];
	struct head h = { .n = n_cus };
	struct sio_out o;
	if (!z->mapped || !n_cus || n_cus > MAX_RANGES || !sym_cache_writable(rootfd) ||
	    lines_zcache_entry(bid, ".cus", rel, sizeof(rel)))
		return;
	struct range *v = malloc(n_cus * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < n_cus; i++)
		v[i] = (struct range){ cus[i].lo, cus[i].hi, cus[i].cu_off };
	memcpy(h.magic, MAGIC, sizeof(h.magic));
	memcpy(h.entry_id, z->entry_id, sizeof(h.entry_id));
	int dfd = sio_mkdirs_beneath(rootfd, DIR_REL, 0700);
	if (dfd >= 0 && sio_out_open(&o, dfd, rel + sizeof(DIR_REL), 0600) == 0) {
		if (sym_write_all(o.fd, &h, sizeof(h)) ||
		    sym_write_all(o.fd, v, n_cus * sizeof(*v)))
			sio_out_abort(&o);
		else
			sio_out_commit(&o);
	}
	if (dfd >= 0)
		close(dfd);
	free(v);
}
