/* kallsyms_cache.c - what kallsyms_open's index_text made of a kallsyms file (an address and
 * a line offset per text symbol), kept in the build-id cache (`<root>/.jitprof/kallsyms/
 * <device>-<inode>`) and mapped by the next report instead of made again: finding the ends of
 * ~120k lines and parsing their addresses cost 4-5 ms, 11% of the CPU of a small call-graph
 * report; mapped, a fraction of a millisecond. An entry is the file's identity (device,
 * inode, size, mtime: a file replaced or rewritten is indexed again), the reference symbol's
 * address, then the array, sorted and one entry per address, as before any relocation. Trust as
 * for the inflated DWARF (inflate_cache.c, docs/SECURITY.md): beneath the root, no symlink, a
 * regular file of ours that nobody else may write, written fresh, and only into a cache root
 * of ours (or root's); and every entry must point at a line's start in the text, or the whole
 * entry is ignored. */
#include "recorder/symbols/symbols_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio.h"

#define DIR_REL ".jitprof/kallsyms"
#define MAGIC "JPKSX01\n"

struct head {
	char magic[8];
	uint64_t dev, ino, size, mtime_ns;	/* the kallsyms file's */
	uint64_t ref_name_hash;			/* the reference symbol asked for */
	uint64_t ref_addr;			/* its address in the file, 0 none */
	uint64_t n;				/* entries after the head */
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a: a key, not a defence */
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int entry_name(const struct stat *st, char *rel, size_t len)
{
	return (size_t)snprintf(rel, len, DIR_REL "/%llx-%llx", (unsigned long long)st->st_dev,
				(unsigned long long)st->st_ino) < len ? 0 : -1;
}

static void make_head(const struct stat *st, const char *ref_name, struct head *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, MAGIC, sizeof(h->magic));
	h->dev = st->st_dev;
	h->ino = st->st_ino;
	h->size = (uint64_t)st->st_size;
	h->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
	h->ref_name_hash = name_hash(ref_name);
}

/* Every entry at a line's start of k's text, none materialized, in address order, one per
 * address: what kallsyms_open keeps, so nothing read from the file can break a search. */
static int entries_fit(const struct kallsyms *k, const struct ksym *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].line >= k->len || (v[i].line && k->text[v[i].line - 1] != '\n') ||
		    v[i].mat || (i && v[i].addr <= v[i - 1].addr))
			return 0;
	return 1;
}

int kallsyms_cache_load(int rootfd, const struct stat *st, const char *ref_name,
			struct kallsyms *k, uint64_t *ref_addr)
{
	char rel[sizeof(DIR_REL) + 64];
	struct head want, have;
	struct stat est;
	if (rootfd < 0 || entry_name(st, rel, sizeof(rel)))
		return 0;
	make_head(st, ref_name, &want);
	int fd = sio_open_beneath(rootfd, rel);	/* no symlink, a regular file */
	if (fd < 0)
		return 0;
	void *map = MAP_FAILED;
	size_t bytes = 0;
	/* ours and nobody else's to write; exactly the size the head says */
	if (fstat(fd, &est) || est.st_uid != geteuid() || (est.st_mode & 022) ||
	    pread(fd, &have, sizeof(have), 0) != (ssize_t)sizeof(have) ||
	    memcmp(have.magic, want.magic, sizeof(want.magic)) || have.dev != want.dev ||
	    have.ino != want.ino || have.size != want.size || have.mtime_ns != want.mtime_ns ||
	    have.ref_name_hash != want.ref_name_hash || have.n > SIZE_MAX / sizeof(struct ksym) ||
	    (uint64_t)est.st_size != sizeof(have) + have.n * sizeof(struct ksym))
		goto out;
	bytes = (size_t)est.st_size;
	/* private and writable: kallsyms_find marks the entries samples hit, and a relocation
	 * moves them (only the pages written are copied); not populated, which would copy all */
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	struct ksym *v = (struct ksym *)(void *)((char *)map + sizeof(have));
	if (!entries_fit(k, v, (size_t)have.n)) {
		munmap(map, bytes);
		map = MAP_FAILED;
		goto out;
	}
	k->v = v;
	k->n = (size_t)have.n;
	k->v_map = map;
	k->v_map_len = bytes;
	*ref_addr = have.ref_addr;
out:
	close(fd);
	return map != MAP_FAILED;
}

void kallsyms_cache_save(int rootfd, const struct stat *st, const char *ref_name,
			 const struct kallsyms *k, uint64_t ref_addr)
{
	char rel[sizeof(DIR_REL) + 64];
	struct head h;
	struct sio_out o;
	if (!sym_cache_writable(rootfd) || entry_name(st, rel, sizeof(rel)))
		return;
	make_head(st, ref_name, &h);
	h.ref_addr = ref_addr;
	h.n = k->n;
	int dfd = sio_mkdirs_beneath(rootfd, DIR_REL, 0700);
	if (dfd < 0)
		return;
	/* failing leaves no entry; nothing is said (the next report indexes the text again) */
	if (sio_out_open(&o, dfd, rel + sizeof(DIR_REL), 0600) == 0) {
		if (sym_write_all(o.fd, &h, sizeof(h)) ||
		    sym_write_all(o.fd, k->v, k->n * sizeof(*k->v)))
			sio_out_abort(&o);
		else
			sio_out_commit(&o);
	}
	close(dfd);
}
