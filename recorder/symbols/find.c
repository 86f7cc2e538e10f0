/* find.c - finding the file of a DSO by build-id: added sources (archives, directories), the
 * build-id cache in perf's layout, --symfs, the recorded path, then debuginfod (debuginfod.c). Every
 * candidate is checked: one whose build-id differs from the recorded one is refused with a
 * message naming both ids and never used. */
#include "recorder/symbols/symbols_int.h"

#include "lib/buildid.h"
#include "lib/nomem.h"
#include "safeio/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A candidate file: either an fd or a malloc'd image, checked before it is kept. */
struct cand {
	int fd;
	void *image;
	size_t len;
	char *path;
};

static void cand_drop(struct cand *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->image);
	free(c->path);
	c->fd = -1;
	c->image = NULL;
	c->path = NULL;
}

/* 1 if the candidate is an ELF whose build-id matches (or nothing was recorded to compare
 * with), 0 if refused; *out gets the opened ELF. */
static int cand_check(struct sym_session *s, struct sym_dso *d, struct cand *c, Elf **out)
{
	errno = 0;
	Elf *elf = c->image ? elf_memory(c->image, c->len)
			    : elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		jp_nomem_if_errno("opening an ELF file");
	struct sym_build_id got = { 0 };
	char h1[SYM_BUILD_ID_HEX], h2[SYM_BUILD_ID_HEX];
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		sess_msg(s, JP_LOG_WARN, "%s: not an ELF file, ignored for %s", c->path,
			 d->long_name);
		goto refuse;
	}
	if (!d->bid.size) {
		*out = elf;
		return 1;
	}
	if (dso_elf_build_id(elf, &got) || !sym_build_id_equal(&got, &d->bid)) {
		sess_msg(s, JP_LOG_WARN,
			 "%s: build-id %s differs from the recorded build-id %s of %s: refused",
			 c->path, got.size ? sym_build_id_hex(&got, h1) : "(none)",
			 sym_build_id_hex(&d->bid, h2), d->long_name);
		goto refuse;
	}
	*out = elf;
	return 1;
refuse:
	if (elf)
		elf_end(elf);
	return 0;
}

/* Small files (every jitted ELF) are read into memory and their fd closed at once: a report
 * over 33k method generations must not hold 33k descriptors or mappings. Bigger ones (the
 * few shared libraries: reading all of libc to use its symbol table would copy megabytes)
 * are mmapped by libelf and let go of their fd after opening (see keep_elf). */
#define SMALL_FILE (256u << 10)

/* fd (ours now, negative: nothing) as the candidate named path. */
static int open_fd(struct cand *c, int fd, const char *path)
{
	c->fd = fd;
	if (c->fd < 0) {
		c->fd = -1;
		return 0;
	}
	struct stat st;
	if (fstat(c->fd, &st) || !S_ISREG(st.st_mode))
		goto fail;
	if (!(c->path = strdup(path)))
		jp_nomem("a candidate file's name");
	/* A mapping faults (SIGBUS) when its file shrinks: only files nobody but root and we
	 * can truncate are mapped, another user's are read whatever their size. */
	int mappable = st.st_uid == geteuid() || st.st_uid == 0;
	if (st.st_size > 0 && ((uint64_t)st.st_size <= SMALL_FILE || !mappable)) {
		size_t len = (size_t)st.st_size, got = 0;
		if (!(c->image = malloc(len)))
			jp_nomem("reading a candidate file");
		while (got < len) {
			ssize_t r = pread(c->fd, (char *)c->image + got, len - got, (off_t)got);
			if (r <= 0)
				goto fail;
			got += (size_t)r;
		}
		c->len = len;
		close(c->fd);
		c->fd = -1;
	}
	return 1;
fail:
	close(c->fd);
	c->fd = -1;
	free(c->image);
	c->image = NULL;
	free(c->path);
	c->path = NULL;
	return 0;
}

static int open_path(struct cand *c, const char *path)
{
	/* A recorded path may name a FIFO or a device: never block on it, never read it. */
	return open_fd(c, sio_open_regular(path), path);
}

/* An mmapped ELF needs its descriptor no more once libelf has mapped it. */
static void keep_elf(Elf *elf, int *fd)
{
	if (*fd >= 0 && elf_cntl(elf, ELF_C_FDDONE) == 0) {
		close(*fd);
		*fd = -1;
	}
}

/* perf's cache: .build-id/xx/rest links to the <path>/<id> directory (append the kind
 * file), or, in the old layout, is the file itself; walked without following anything
 * planted inside the cache (sym_cache_open). */
static int find_in_cache(const char *root, const struct sym_build_id *id, const char *kind,
			 struct cand *c)
{
	char hex[SYM_BUILD_ID_HEX], path[4096];
	if (!root || !id->size)
		return 0;
	int fd = sym_cache_open(root, id, NULL, kind);
	if (fd < 0)
		return 0;
	sym_build_id_hex(id, hex);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/%s", root, hex, hex + 2, kind);
	return open_fd(c, fd, path);
}

/* The session's provider of in-memory ELFs (jitted code injected without files). */
static int from_provider(struct sym_session *s, struct sym_dso *d, struct cand *c)
{
	struct sess_log said = { s, JP_LOG_WARN, 0 };
	if (!s->prov.get || !d->bid.size || d->prov_refused)
		return 0;
	int rc = s->prov.get(s->prov.ctx, &d->bid, d->long_name, &c->image, &c->len, &c->path,
			     &(struct jp_log){ sess_log_msg, &said });
	jp_nomem_check(rc, "building a jitted ELF");	/* not a refusal */
	if (rc < 0) {
		if (!said.said)
			sess_msg(s, JP_LOG_WARN, "%s", strerror(-rc));
		d->prov_refused = 1;
	}
	return rc > 0;
}

/* The provider's symbols without an ELF (sym_provider.get_symbols): 1 when d has them, 0
 * when the provider does not know d (or has no such shortcut), -1 when it refused d (said,
 * and d->prov_refused set). The symbol passes the filters an ELF's would (elfsym.c
 * load_table: a name, not "$..."). */
static int symbols_from_provider(struct sym_session *s, struct sym_dso *d)
{
	struct sess_log said = { s, JP_LOG_WARN, 0 };
	struct sym_provided p = { 0 };
	if (!s->prov.get_symbols || !d->bid.size)
		return 0;
	int rc = s->prov.get_symbols(s->prov.ctx, &d->bid, d->long_name, &p,
				     &(struct jp_log){ sess_log_msg, &said });
	jp_nomem_check(rc, "building a jitted ELF's symbols");	/* not a refusal */
	if (rc < 0) {
		if (!said.said)
			sess_msg(s, JP_LOG_WARN, "%s", strerror(-rc));
		d->prov_refused = 1;
		return -1;
	}
	if (rc == 0)
		return 0;
	int named = p.sym_name && *p.sym_name && p.sym_name[0] != '$';
	const char *raw = named ? sess_intern(s, p.sym_name) : NULL;
	free(p.sym_name);
	d->path = p.what;
	d->layout_done = 1;	/* no ELF to open: the layout is the provider's */
	d->syms_loaded = 1;
	if ((named && !raw) ||
	    dso_add_segment(d, p.seg_off, p.seg_size, p.seg_vaddr) ||
	    (raw && symtab_add(&d->syms, p.sym_start, p.sym_size, raw, NULL, 2)))
		jp_nomem("a jitted ELF's symbols");	/* without them: [unknown] */
	symtab_finish(&d->syms);
	return 1;
}

/* A [vdso] recorded without a build-id (perf record -z writes none) has nothing to compare
 * with: this host's own vdso stands in, as the running kallsyms does for such a kernel, and as
 * perf does. A copy, so that it is freed like any other candidate's image. */
static int running_vdso(struct sym_session *s, struct cand *c)
{
	size_t len;
	const void *image = jp_vdso_image(&len);

	if (!image || len > (1u << 20))
		return 0;
	/* out of memory is said: a NULL would read as "no vdso here" and lose its symbols */
	if (!(c->image = malloc(len)) || !(c->path = strdup("this host's [vdso]")))
		jp_nomem("this host's [vdso]");
	memcpy(c->image, image, len);
	c->len = len;
	sess_msg(s, JP_LOG_INFO, "[vdso]: the recording names no build-id, so this host's "
		 "vdso is used for its symbols");
	return 1;
}

/* Tries the candidates in order; step is the index of the next one. */
static int next_cand(struct sym_session *s, struct sym_dso *d, int debug, int step,
		     struct cand *c)
{
	char buf[4096];
	switch (step) {
	case -1:
		return !debug && from_provider(s, d, c);
	case 0: {
		char *p = NULL;
		int vdso = !strcmp(d->long_name, "[vdso]");
		if (!d->bid.size || (vdso && debug))
			return 0;
		int rc = source_lookup(s, &d->bid, vdso ? "vdso" : debug ? "debug" : "elf", &p,
				       &c->image, &c->len);
		if (rc == -ENOMEM)	/* not "not found": the file is there */
			jp_nomem("a build-id source's path");
		if (rc)
			return 0;
		if (c->image) {
			c->path = p;
			return 1;
		}
		int ok = open_path(c, p);
		free(p);
		return ok;
	}
	case 1:
		/* [vdso] is in no file: perf caches it as [vdso]/<id>/vdso */
		if (!strcmp(d->long_name, "[vdso]"))
			return !debug && find_in_cache(s->buildid_dir, &d->bid, "vdso", c);
		return find_in_cache(s->buildid_dir, &d->bid, debug ? "debug" : "elf", c);
	case 2:
		if (!strcmp(d->long_name, "[vdso]"))
			return !debug && !d->bid.size && running_vdso(s, c);
		if (debug) {
			char hex[SYM_BUILD_ID_HEX];
			if (!d->bid.size)
				return 0;
			sym_build_id_hex(&d->bid, hex);
			snprintf(buf, sizeof(buf), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				 s->o.symfs ? s->o.symfs : "", hex, hex + 2);
			return open_path(c, buf);
		}
		if (d->long_name[0] != '/')
			return 0;
		snprintf(buf, sizeof(buf), "%s%s", s->o.symfs ? s->o.symfs : "", d->long_name);
		return open_path(c, buf);
	case 3: {
		char *path = NULL;
		int fd = dbgd_find(s, d, debug, &path);
		if (fd < 0)
			return 0;
		c->fd = fd;
		c->path = path ? path : strdup("debuginfod");
		return 1;
	}
	}
	return -1;
}

/* The candidates from step first to step last, in order (next_cand's steps). */
static int locate_steps(struct sym_session *s, struct sym_dso *d, int debug, int first, int last,
			struct cand *out, Elf **elf)
{
	for (int step = first; step <= last; step++) {
		struct cand c = { -1, NULL, 0, NULL };
		int r = next_cand(s, d, debug, step, &c);
		if (r < 0)
			return -ENOENT;
		if (r && cand_check(s, d, &c, elf)) {
			*out = c;
			return 0;
		}
		cand_drop(&c);
	}
	return -ENOENT;
}

static int locate(struct sym_session *s, struct sym_dso *d, int debug, struct cand *out,
		  Elf **elf)
{
	return locate_steps(s, d, debug, -1, INT_MAX, out, elf);
}

int find_local(struct sym_session *s, struct sym_dso *d, int debug, int *wants_debug)
{
	struct cand c;
	Elf *elf = NULL;
	if (locate_steps(s, d, debug, 0, 2, &c, &elf))
		return 0;
	if (wants_debug)
		*wants_debug = find_wants_debug(elf);
	elf_end(elf);
	cand_drop(&c);
	return 1;
}

int find_dso_file(struct sym_session *s, struct sym_dso *d)
{
	struct cand c;
	Elf *elf = NULL;
	if (d->kernel || d->anon || (d->long_name[0] == '[' && strcmp(d->long_name, "[vdso]")))
		return -ENOENT;
	/* refused there (prov_refused set): the other sources are still tried, as after get */
	if (symbols_from_provider(s, d) > 0)
		return 0;
	if (locate(s, d, 0, &c, &elf)) {
		/* The provider's one message (a dump gone or changed since inject) covers all
		 * its ELFs: one "not found" each would bury it. */
		if (!d->prov_refused) {
			if (s->n_not_found < 3) {
				s->not_found[s->n_not_found] = d->long_name;
				s->not_found_id[s->n_not_found] = d->bid.size != 0;
			}
			s->n_not_found++;
		}
		return -ENOENT;
	}
	keep_elf(elf, &c.fd);
	d->fd = c.fd;
	d->image = c.image;
	d->image_len = c.len;
	d->path = c.path;
	d->elf = elf;
	return dso_open(s, d) ? -ENOENT : 0;
}

static int has_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(name, want))
			return 1;
	}
	return 0;
}

int find_wants_debug(Elf *elf)
{
	return !has_section(elf, ".debug_info") || !has_section(elf, ".symtab");
}

/* Separate debug info, looked for only when the binary lacks DWARF or a symtab. */
int find_debug_file(struct sym_session *s, struct sym_dso *d)
{
	if (d->dbg_elf)
		return 0;
	if (!d->elf || d->dbg_fd == -2)
		return -ENOENT;
	if (!find_wants_debug(d->elf))
		return -ENOENT;
	d->dbg_fd = -2;	/* tried */
	struct cand c;
	Elf *elf = NULL;
	/* Nothing recorded (perf's pipe mode, older recordings): the file in use names its debug
	 * file by its own build-id, else by its .gnu_debuglink. */
	struct sym_build_id recorded = d->bid;
	if (!d->bid.size)
		dso_elf_build_id(d->elf, &d->bid);
	int rc = d->bid.size ? locate(s, d, 1, &c, &elf) : -ENOENT;
	d->bid = recorded;
	if (rc && !d->bid.size) {
		char buf[4096];
		c = (struct cand){ -1, NULL, 0, NULL };
		rc = debuglink_find(d->elf, d->path, d->long_name, s->o.symfs, buf, sizeof(buf));
		if (!rc && !(open_path(&c, buf) && cand_check(s, d, &c, &elf))) {
			cand_drop(&c);
			rc = -ENOENT;
		}
	}
	if (rc)
		return -ENOENT;
	/* A mapped debug file keeps its descriptor: its DWARF may be read on another thread
	 * through a handle of its own (dwarf_ahead.c). A report holds a few, one per library. */
	d->dbg_fd = c.fd;
	d->dbg_image = c.image;
	d->dbg_elf = elf;
	free(c.path);
	return 0;
}

void sym_say_not_found(struct sym_session *s)
{
	char names[3 * 256 + 16] = "";
	size_t off = 0, n = s->n_not_found < 3 ? s->n_not_found : 3;

	if (!s->n_not_found)
		return;
	for (size_t i = 0; i < n && off < sizeof(names); i++) {
		int k = snprintf(names + off, sizeof(names) - off, "%s%.250s%s", i ? ", " : "",
				 s->not_found[i], s->not_found_id[i] ? " (by build-id)" : "");
		if (k < 0)
			break;
		off += (size_t)k;
	}
	if (s->n_not_found == 1)
		sess_msg(s, JP_LOG_WARN, "%s not found here: its samples show addresses, not "
			 "symbols", names);
	else
		sess_msg(s, JP_LOG_WARN, "%zu ELF files the recording names were not found here "
			 "(%s%s): their samples show addresses, not symbols. A recording from "
			 "another machine: 'jitprof archive' there, then --archive FILE here (or "
			 "DEBUGINFOD_URLS)", s->n_not_found, names,
			 s->n_not_found > n ? ", ..." : "");
	s->n_not_found = 0;
}
