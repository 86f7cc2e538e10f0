/* inflate_cache.c - what lines_inflate made of a debug file, kept in the build-id cache
 * (`<root>/.jitprof/dwarf/<build-id>`) and mapped by the next report instead of inflated
 * again: libc's 8.6 MB of DWARF cost 12 ms of libdeflate and as much again in fresh pages
 * zeroed by the kernel at every call-graph report of a C program; mapped from the page cache,
 * about 1 ms. An entry is the debug file's identity (device, inode, size, mtime: a file
 * replaced or rewritten is inflated again), the sizes of its sections, then lines_inflate's
 * buffer byte for byte. Trust (docs/SECURITY.md): the cache's insides are walked beneath the
 * root (no symlink, regular files only), an entry is used only if it is ours and nobody else
 * may write it, and written fresh (sio_out: a temp renamed over the name), only beneath a root
 * of ours or root's. */
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

#define DIR_REL LINES_ZCACHE_DIR
#define MAGIC "JPDWZ01\n"
#define MAX_SCNS 64
#define HEAD_SIZE 4096	/* the sections' buffer starts page-aligned */

struct head {
	char magic[8];
	uint64_t dev, ino, size, mtime_ns;	/* the debug file's */
	uint64_t total;				/* bytes after the head */
	uint64_t n;				/* sections */
	uint64_t scn_size[MAX_SCNS];
};
_Static_assert(sizeof(struct head) <= HEAD_SIZE, "the head fits its page");

int lines_zcache_root(const char *root)
{
	if (!root)
		return -1;
	const char *v = getenv("JITPROF_DWARF_INFLATE");
	if (v && !strcmp(v, "nocache"))
		return -1;
	return open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The head an entry for elf (read from srcfd) must have: 0, or -1 when there is none. */
static int make_head(int srcfd, Elf *elf, struct head *h)
{
	struct stat st;
	size_t n, shstrndx, off = 0, i = 0;
	GElf_Chdr ch;
	Elf_Data *raw;
	memset(h, 0, sizeof(*h));
	h->total = lines_inflate_size(elf, &n);
	if (!h->total || n > MAX_SCNS || fstat(srcfd, &st) || elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	memcpy(h->magic, MAGIC, sizeof(h->magic));
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->size = (uint64_t)st.st_size;
	h->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	h->n = n;
	for (Elf_Scn *scn = NULL; (scn = lines_inflate_next(elf, shstrndx, scn, &off, &ch,
							     &raw)) && i < n;)
		h->scn_size[i++] = ch.ch_size;
	return 0;
}

int lines_zcache_entry(const struct sym_build_id *bid, const char *suffix, char *rel,
		       size_t len)
{
	char hex[SYM_BUILD_ID_HEX];
	if (!bid->size)
		return -1;
	sym_build_id_hex(bid, hex);
	return (size_t)snprintf(rel, len, DIR_REL "/%s%s", hex, suffix) < len ? 0 : -1;
}

/* 1 when the entry rel has the head want: elf's sections set to it, mapped (*z). */
static int load(int rootfd, const char *rel, const struct head *want, Elf *elf,
		struct lines_zbuf *z)
{
	struct head have;
	struct stat st;
	int fd = sio_open_beneath(rootfd, rel);	/* no symlink, a regular file */
	if (fd < 0)
		return 0;
	void *map = MAP_FAILED;
	/* ours and nobody else's to write; exactly the size the head says */
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022) ||
	    (uint64_t)st.st_size != HEAD_SIZE + want->total ||
	    pread(fd, &have, sizeof(have), 0) != (ssize_t)sizeof(have) ||
	    memcmp(&have, want, sizeof(have)))
		goto out;
	/* read-only, as libdw reads an uncompressed file mapped by libelf (writable, the
	 * populate would copy every page); populated: the CU index reads all of it */
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	size_t shstrndx, off = 0;
	GElf_Chdr ch;
	Elf_Data *raw;
	elf_getshdrstrndx(elf, &shstrndx);
	for (Elf_Scn *scn = NULL; (scn = lines_inflate_next(elf, shstrndx, scn, &off, &ch,
							     &raw));) {
		lines_inflate_set(scn, raw, &ch, (char *)map + HEAD_SIZE + off);
		off += ch.ch_size;
	}
	*z = (struct lines_zbuf){ .p = map, .len = (size_t)st.st_size, .mapped = 1,
				  .entry_id = { st.st_dev, st.st_ino, (uint64_t)st.st_size,
						(uint64_t)st.st_mtim.tv_sec * 1000000000u +
							(uint64_t)st.st_mtim.tv_nsec } };
out:
	close(fd);
	return map != MAP_FAILED;
}

int sym_write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p = (const char *)p + k;
		n -= (size_t)k;
	}
	return 0;
}

int sym_cache_writable(int rootfd)
{
	return rootfd >= 0 && sio_dir_check(rootfd, geteuid(), 0, NULL, 0) == 0;
}

/* Writes z as the entry rel with head h. Failing leaves no entry; nothing is said. */
static void save(int rootfd, const char *rel, const struct head *h, const struct lines_zbuf *z)
{
	char page[HEAD_SIZE] = { 0 };
	struct sio_out o;
	if (!sym_cache_writable(rootfd))
		return;
	int dfd = sio_mkdirs_beneath(rootfd, DIR_REL, 0700);
	if (dfd < 0)
		return;
	memcpy(page, h, sizeof(*h));
	if (sio_out_open(&o, dfd, rel + sizeof(DIR_REL), 0600) == 0) {
		if (sym_write_all(o.fd, page, sizeof(page)) || sym_write_all(o.fd, z->p, z->len))
			sio_out_abort(&o);
		else
			sio_out_commit(&o);
	}
	close(dfd);
}

size_t lines_inflate_cached(int rootfd, const struct sym_build_id *bid, int srcfd, Elf *elf,
			    struct lines_zbuf *z)
{
	char rel[sizeof(DIR_REL) + SYM_BUILD_ID_HEX + 1];
	struct head h;
	/* the head is made before inflating: it reads the compressed sections' headers */
	int keyed = rootfd >= 0 && !lines_zcache_entry(bid, "", rel, sizeof(rel)) && !make_head(srcfd, elf, &h);
	if (keyed && load(rootfd, rel, &h, elf, z))
		return 0;
	size_t left = lines_inflate(elf, z);
	if (keyed && !left && z->p && z->len == h.total)
		save(rootfd, rel, &h, z);
	return left;
}
