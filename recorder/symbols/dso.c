/* dso.c - the DSO registry (one entry per recorded name + build-id), perf-style short names,
 * opening the located ELF once, and translating file offsets from the maps into the ELF's
 * virtual addresses, where symbols and DWARF live. */
#include "lib/buildid.h"
#include "lib/grow.h"
#include "lib/hash_seed.h"
#include "lib/nomem.h"
#include "recorder/symbols/symbols_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* perf's short names: basename for files, "[name]" for kernel modules, "[JIT] tid PID" for
 * a process's anonymous code (its /tmp/perf-PID.map). */
static const char *short_name_of(struct sym_session *s, const char *long_name, int kernel,
				 uint32_t anon_pid)
{
	char buf[4096];
	if (kernel == 1)
		return "[kernel.kallsyms]";
	unsigned pid;
	int end = 0;
	if (!anon_pid && !strncmp(long_name, "/tmp/perf-", 10) &&
	    sscanf(long_name, "/tmp/perf-%u.map%n", &pid, &end) == 1 && !long_name[end])
		anon_pid = pid;
	if (anon_pid) {
		snprintf(buf, sizeof(buf), "[JIT] tid %u", anon_pid);
		return sess_strdup(s, buf);
	}
	const char *b = strrchr(long_name, '/');
	b = b && b[1] ? b + 1 : long_name;
	if (kernel == 2 && b[0] != '[') {
		size_t n = strcspn(b, ".");
		snprintf(buf, sizeof(buf), "[%.*s]", (int)n, b);
		for (char *q = buf; *q; q++)
			if (*q == '-')
				*q = '_';
		return sess_strdup(s, buf);
	}
	return b;	/* a suffix of long_name, which lives as long */
}

static int rehash(struct sym_session *s)
{
	size_t ncap = s->dso_hash_cap ? s->dso_hash_cap * 2 : 256;
	struct sym_dso **nv = calloc(ncap, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	for (struct sym_dso *d = s->dsos; d; d = d->next) {
		size_t j = d->hash & (ncap - 1);
		d->hnext = nv[j];
		nv[j] = d;
	}
	free(s->dso_hash);
	s->dso_hash = nv;
	s->dso_hash_cap = ncap;
	return 0;
}

/* A DSO is (name, build-id). A map with no build-id takes the one a build-id record gave
 * that name; a build-id record fills a DSO that had none. */
struct sym_dso *dso_get(struct sym_session *s, const char *long_name,
			const struct sym_build_id *bid, int kernel, uint32_t pid)
{
	struct sym_dso *nobid = NULL, *withbid = NULL;
	/* Recorded paths: seeded, or a recording's crafted names all share one chain. */
	if (!s->dso_hash_seed)
		s->dso_hash_seed = jp_hash_seed();	/* odd: never 0 once taken */
	size_t len = strlen(long_name);
	size_t h = (size_t)jp_hash_bytes(long_name, len, s->dso_hash_seed);
	if (s->dso_hash_cap) {
		for (struct sym_dso *d = s->dso_hash[h & (s->dso_hash_cap - 1)]; d; d = d->hnext) {
			s->dso_probes++;
			if (d->hash != h || d->anon_pid != pid || strcmp(d->long_name, long_name))
				continue;
			if (bid && sym_build_id_equal(&d->bid, bid))
				return d;
			if (!d->bid.size && !nobid)
				nobid = d;
			if (d->bid.size)
				withbid = d;
		}
	}
	if (!bid && (withbid || nobid))
		return withbid ? withbid : nobid;
	if (bid && nobid && !nobid->find_done) {
		nobid->bid = *bid;
		return nobid;
	}
	if (s->n_dsos * 2 >= s->dso_hash_cap && rehash(s))
		return NULL;
	struct sym_dso *d = sess_alloc(s, sizeof(*d) + len + 1);
	if (!d)
		return NULL;
	d->fd = d->dbg_fd = -1;
	d->kernel = kernel;
	d->anon_pid = pid;
	d->anon = pid != 0;
	d->hash = h;
	d->long_name = memcpy(d + 1, long_name, len + 1);
	if (!(d->short_name = short_name_of(s, d->long_name, kernel, pid)))
		return NULL;
	if (bid)
		d->bid = *bid;
	size_t j = h & (s->dso_hash_cap - 1);
	d->hnext = s->dso_hash[j];
	s->dso_hash[j] = d;
	if (s->dsos_tail)
		s->dsos_tail->next = d;
	else
		s->dsos = d;
	s->dsos_tail = d;
	s->n_dsos++;
	return d;
}

void dso_release(struct sym_dso *d)
{
	lines_free(d);
	dbgd_dso_release(d);
	if (d->elf)
		elf_end(d->elf);
	if (d->dbg_elf)
		elf_end(d->dbg_elf);
	if (d->fd >= 0)
		close(d->fd);
	if (d->dbg_fd >= 0)
		close(d->dbg_fd);
	free(d->image);
	free(d->dbg_image);
	for (size_t i = 0; i < d->cache_cap; i++)
		for (struct sym_cached *c = d->cache[i]; c; c = c->next)
			free(c->inl);	/* the entries themselves are the arena's */
	free(d->cache);
	symtab_free(&d->syms);
	free(d->phdrs);
	free(d->scns);
	free(d->path);
}

static int add_range(struct phdr_map **v, size_t *n, size_t *cap, uint64_t off, uint64_t sz,
		     uint64_t va)
{
	if (JP_GROW_FOR(*v, *cap, *n))
		return -ENOMEM;
	(*v)[(*n)++] = (struct phdr_map){ off, sz, va };
	return 0;
}

int dso_add_segment(struct sym_dso *d, uint64_t off, uint64_t size, uint64_t vaddr)
{
	return add_range(&d->phdrs, &d->n_phdrs, &d->cap_phdrs, off, size, vaddr);
}

/* Offset -> vaddr tables: PT_LOAD segments, and allocated sections for ELFs without
 * program headers (perf's own jitted-*.so are such). */
static int read_layout(struct sym_dso *d)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(d->elf, &eh))
		return -EINVAL;
	d->is_rel = eh.e_type == ET_REL;
	size_t nph = 0;
	if (elf_getphdrnum(d->elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(d->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    add_range(&d->phdrs, &d->n_phdrs, &d->cap_phdrs, ph.p_offset,
				      ph.p_filesz, ph.p_vaddr))
				return -ENOMEM;
		}
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(d->elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS &&
		    add_range(&d->scns, &d->n_scns, &d->cap_scns, sh.sh_offset, sh.sh_size,
			      sh.sh_addr))
			return -ENOMEM;
	}
	return 0;
}

uint64_t dso_off_to_vaddr(struct sym_dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->n_phdrs; i++)
		if (off >= d->phdrs[i].off && off - d->phdrs[i].off < d->phdrs[i].filesz)
			return off - d->phdrs[i].off + d->phdrs[i].vaddr;
	if (!d->n_phdrs)
		for (size_t i = 0; i < d->n_scns; i++)
			if (off >= d->scns[i].off && off - d->scns[i].off < d->scns[i].filesz)
				return off - d->scns[i].off + d->scns[i].vaddr;
	return off;
}

int dso_open(struct sym_session *s, struct sym_dso *d)
{
	(void)s;
	if (d->layout_done)
		return d->elf ? 0 : -ENOENT;
	if (d->find_rc)
		return d->find_rc;
	errno = 0;
	if (!d->elf && d->image)
		d->elf = elf_memory(d->image, d->image_len);
	else if (!d->elf && d->fd >= 0)
		d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	d->layout_done = 1;
	if (!d->elf)
		jp_nomem_if_errno("opening an ELF file");
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		if (d->elf)
			elf_end(d->elf);
		d->elf = NULL;
		return -EINVAL;
	}
	/* a layout cut short would map every later address wrongly */
	return jp_nomem_check(read_layout(d), "an ELF file's segments");
}

/* ---- public accessors ---- */

struct sym_dso *sym_dso_next(struct sym_session *s, struct sym_dso *prev)
{
	return prev ? prev->next : s->dsos;
}

const char *sym_dso_long_name(const struct sym_dso *d)
{
	return d->long_name;
}

uint32_t sym_dso_tag(const struct sym_dso *d)
{
	return d->tag;
}

void sym_dso_set_tag(struct sym_dso *d, uint32_t tag)
{
	d->tag = tag;
}

uint32_t sym_dso_frame_tag(const struct sym_dso *d)
{
	return d->frame_tag;
}

void sym_dso_set_frame_tag(struct sym_dso *d, uint32_t tag)
{
	d->frame_tag = tag;
}

const char *sym_dso_short_name(const struct sym_dso *d)
{
	return d->short_name;
}

const struct sym_build_id *sym_dso_build_id(const struct sym_dso *d)
{
	return &d->bid;
}

int sym_dso_is_kernel(const struct sym_dso *d)
{
	return d->kernel != 0;
}

int sym_dso_find(struct sym_session *s, struct sym_dso *d, const char **path)
{
	if (!d->find_done) {
		d->find_done = 1;
		d->find_rc = jp_nomem_check(find_dso_file(s, d), "finding a DSO's file");
	}
	if (path)
		*path = d->find_rc ? NULL : d->path;
	return d->find_rc;
}

int sym_dso_read_file(struct sym_session *s, struct sym_dso *d, void **buf, size_t *len)
{
	int rc = sym_dso_find(s, d, NULL);
	if (rc || (rc = dso_open(s, d)))
		return rc;
	size_t size = 0;
	const char *raw = d->image ? d->image : elf_rawfile(d->elf, &size);
	if (d->image)
		size = d->image_len;
	if (!raw)
		return -EIO;
	if (!(*buf = malloc(size ? size : 1)))
		return -ENOMEM;
	memcpy(*buf, raw, size);
	*len = size;
	return 0;
}

long sym_dso_read_code(struct sym_session *s, struct sym_dso *d, uint64_t addr, void *buf,
		       size_t len)
{
	int rc = sym_dso_find(s, d, NULL);
	if (rc || (rc = dso_open(s, d)))
		return rc;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(d->elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		uint64_t at = addr - sh.sh_addr;
		if (!data || !data->d_buf || at >= data->d_size)
			return -EIO;
		size_t n = data->d_size - at < len ? data->d_size - at : len;
		memcpy(buf, (const char *)data->d_buf + at, n);
		return (long)n;
	}
	return -ENOENT;
}

int dso_elf_build_id(Elf *elf, struct sym_build_id *id)
{
	errno = 0;
	int n = jp_elf_build_id(elf, id->data, SYM_BUILD_ID_MAX);
	if (n <= 0)
		jp_nomem_if_errno("reading an ELF file's build-id");
	if (n <= 0)
		return -ENOENT;
	id->size = (uint8_t)n;
	return 0;
}
