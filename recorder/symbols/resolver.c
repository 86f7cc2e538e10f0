/* resolver.c - the symbol session: options, de-duplicated messages, the event feed (MMAP/COMM/FORK/EXIT/build-ids) and sym_resolve with its per-DSO result cache.
 * Report resolves millions of samples, so every answer is computed once per (dso, addr). */
#include "lib/nomem.h"
#include "lib/opts.h"
#include "recorder/symbols/symbols_int.h"
#include "lib/grow.h"
#include "lib/hash_seed.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int msg_eq(const void *key, uint32_t idx, const void *ctx)
{
	return !strcmp(((const struct sym_session *)ctx)->msgs[idx], key);
}

/* Each distinct message once per session (a missing file is met at every sample), whole
 * however long. Out of memory to keep it, the message is still said, and the shortage too. */
void sess_msg(struct sym_session *s, enum jp_level lvl, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		jp_logf(&s->o.log, JP_LOG_ERROR, "out of memory for a message");
		return;
	}
	uint64_t h = jp_hindex_hash(msg, (size_t)n);
	if (jp_hindex_find(&s->msg_index, h, msg, msg_eq, s) >= 0) {
		free(msg);
		return;
	}
	jp_logf(&s->o.log, lvl, "%s", msg);
	if (JP_GROW_FOR(s->msgs, s->cap_msgs, s->n_msgs) ||
	    jp_hindex_add(&s->msg_index, h, s->n_msgs)) {
		free(msg);	/* said, not kept: it may be said again */
		return;
	}
	s->msgs[s->n_msgs++] = msg;
}

void sess_log_msg(void *ctx, enum jp_level lvl, const char *msg)
{
	struct sess_log *l = ctx;
	l->said++;
	sess_msg(l->s, lvl > l->max ? l->max : lvl, "%s", msg);
}

struct sym_session *sym_session_new(const struct sym_opts *opts)
{
	if (!JP_OPTS_VALID(opts, struct sym_opts)) {
		errno = EINVAL;
		return NULL;
	}
	struct sym_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	jp_opts_copy(&s->o, sizeof(s->o), opts);
	const char *dir = s->o.buildid_dir;
	char tmp[4096];
	if (!dir)
		dir = getenv("PERF_BUILDID_DIR");
	if (!dir && getenv("HOME")) {
		snprintf(tmp, sizeof(tmp), "%s/.debug", getenv("HOME"));
		dir = tmp;
	}
	if (dir && !(s->buildid_dir = strdup(dir))) {
		free(s);
		return NULL;
	}
	elf_version(EV_CURRENT);
	return s;
}

void sym_session_remove_files(struct sym_session *s)
{
	if (!s)
		return;
	dwarf_ahead_end(s);	/* its worker may be reading a file being removed */
	source_remove_all_files(s);
}

int sym_session_set_provider(struct sym_session *s, const struct sym_provider *p)
{
	if (s->prov.get)
		return -EBUSY;
	s->prov = *p;
	return 0;
}

void sym_session_free(struct sym_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->proc_cap; i++)
		for (struct sym_proc *p = s->procs[i], *n; p; p = n) {
			n = p->hnext;
			proc_free(p);
		}
	free(s->procs);
	dwarf_ahead_end(s);
	for (struct sym_dso *d = s->dsos; d; d = d->next)
		dso_release(d);
	sess_arena_free(s);
	free(s->dso_hash);
	symtab_free(&s->ksyms);
	kallsyms_free(&s->kall);
	source_free_all(s);
	jp_strset_free(&s->strs);
	for (size_t i = 0; i < s->n_msgs; i++)
		free(s->msgs[i]);
	free(s->msgs);
	jp_hindex_free(&s->msg_index);
	free(s->kref_name);
	free(s->buildid_dir);
	dbgd_end(s);
	if (s->prov.fini)
		s->prov.fini(s->prov.ctx);
	free(s);
}

int sym_session_add_source(struct sym_session *s, const char *dir_or_archive)
{
	return source_add(s, dir_or_archive);
}

/* ---- the event feed ---- */

static int is_anon_name(const char *f)
{
	return !strcmp(f, "//anon") || !strncmp(f, "[anon:", 6) || !strcmp(f, "/dev/zero") ||
	       !strncmp(f, "/anon_hugepage", 14) || !strncmp(f, "/memfd:", 7) ||
	       !strcmp(f, "[heap]") || !strcmp(f, "[stack]");
}

int sym_mmap(struct sym_session *s, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
	     uint64_t pgoff, const char *filename, const uint8_t *build_id, size_t build_id_len,
	     int cpumode, uint64_t time)
{
	return mmap_dso(s, pid, tid, start, len, pgoff, filename, build_id, build_id_len, cpumode,
			time, NULL);
}

/* sym_mmap, and the DSO mapped into *out (when out is not NULL and the map was taken). */
int mmap_dso(struct sym_session *s, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
	     uint64_t pgoff, const char *filename, const uint8_t *build_id, size_t build_id_len,
	     int cpumode, uint64_t time, struct sym_dso **out)
{
	(void)tid;
	struct sym_build_id bid = { 0 }, *bp = NULL;
	if (!filename || start + len < start)
		return -EINVAL;
	if (build_id && build_id_len) {
		bid.size = build_id_len > SYM_BUILD_ID_MAX ? SYM_BUILD_ID_MAX : build_id_len;
		memcpy(bid.data, build_id, bid.size);
		bp = &bid;
	}
	int kernel = (cpumode & 7) == 1 || (cpumode & 7) == 4 || pid == SYM_PID_KERNEL;
	struct sym_dso *d;
	if (kernel && !strncmp(filename, "[kernel.kallsyms]", 17)) {
		d = dso_get(s, "[kernel.kallsyms]", bp, 1, 0);
		if (!d)
			return -ENOMEM;
		s->kdso = d;
		free(s->kref_name);
		s->kref_name = strdup(filename[17] ? filename + 17 : "_text");
		s->kref_addr = pgoff;
		pid = SYM_PID_KERNEL;
	} else if (kernel) {
		d = dso_get(s, filename, bp, 2, 0);
		pid = SYM_PID_KERNEL;
	} else {
		/* anonymous executable memory is perf's /tmp/perf-PID.map "DSO" */
		char anon[64];
		if (is_anon_name(filename)) {
			snprintf(anon, sizeof(anon), "/tmp/perf-%u.map", pid);
			filename = anon;
		}
		d = dso_get(s, filename, bp, 0, filename == anon ? pid : 0);
	}
	if (!d)
		return -ENOMEM;
	struct sym_proc *p = proc_get(s, pid, 1);
	if (!p)
		return -ENOMEM;
	struct sym_map m = { start, start + len, pgoff, time, ++s->seq, UINT64_MAX, d };
	s->epoch++;
	if (time > s->max_map_time)
		s->max_map_time = time;
	int rc = proc_add_map(p, &m);
	if (!rc && out)
		*out = d;
	return rc;
}

int sym_add_build_id(struct sym_session *s, const char *filename, const uint8_t *build_id,
		     size_t build_id_len, int cpumode)
{
	struct sym_build_id bid = { 0 };
	if (!filename || !build_id || !build_id_len)
		return -EINVAL;
	s->epoch++;	/* a DSO not looked for yet may take it */
	bid.size = build_id_len > SYM_BUILD_ID_MAX ? SYM_BUILD_ID_MAX : build_id_len;
	memcpy(bid.data, build_id, bid.size);
	int kernel = (cpumode & 7) == 1 || (cpumode & 7) == 4;
	if (kernel && !strncmp(filename, "[kernel.kallsyms]", 17))
		return dso_get(s, "[kernel.kallsyms]", &bid, 1, 0) ? 0 : -ENOMEM;
	return dso_get(s, filename, &bid, kernel ? 2 : 0, 0) ? 0 : -ENOMEM;
}

static int add_comm(struct sym_proc *p, uint32_t tid, const char *comm, uint64_t time)
{
	if (JP_GROW_FOR(p->comms, p->cap_comms, p->n_comms))
		return -ENOMEM;
	p->comms[p->n_comms++] = (struct sym_comm_ev){ time, tid, comm };
	return 0;
}

int sym_comm(struct sym_session *s, uint32_t pid, uint32_t tid, const char *comm,
	     uint64_t time)
{
	struct sym_proc *p = proc_get(s, pid, 1);
	const char *c = sess_intern(s, comm ? comm : "");
	if (!p || !c)
		return -ENOMEM;
	return add_comm(p, tid, c, time);
}

/* The last COMM of tid at or before time; else tid's first; else the process leader's. */
static const char *comm_at(const struct sym_proc *p, uint32_t tid, uint64_t time)
{
	const char *best = NULL, *first = NULL;
	for (size_t i = 0; i < p->n_comms; i++) {
		const struct sym_comm_ev *c = &p->comms[i];
		if (c->tid != tid)
			continue;
		if (!first)
			first = c->comm;
		if (c->time <= time)
			best = c->comm;
	}
	return best ? best : first;
}

const char *sym_comm_of(struct sym_session *s, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct sym_proc *p = proc_get(s, pid, 0);
	if (!p)
		return NULL;
	const char *c = comm_at(p, tid, time);
	if (!c && tid != pid)
		c = comm_at(p, pid, time);
	if (!c && p->n_comms)
		c = p->comms[0].comm;
	return c;
}

int sym_fork(struct sym_session *s, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time)
{
	struct sym_proc *parent = proc_get(s, ppid, 0);
	struct sym_proc *child = proc_get(s, pid, 1);
	if (!child)
		return -ENOMEM;
	s->epoch++;	/* the child's maps: cleared, copied */
	const char *pc = parent ? sym_comm_of(s, ppid, ptid, time) : NULL;
	if (pid != ppid) {
		if (child->exit_time != UINT64_MAX) {
			/* pid reused: the old process's maps and names are gone */
			proc_clear_maps(child);
			child->n_comms = 0;
			child->exit_time = UINT64_MAX;
		}
		if (parent && !child->live.n && !child->hist.n && !child->n_recent) {
			int rc = proc_copy_maps(child, parent);
			if (rc)
				return rc;
		}
	}
	if (pc && !comm_at(child, tid, time))
		return add_comm(child, tid, pc, time);
	return 0;
}

int sym_exit(struct sym_session *s, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time)
{
	(void)ppid;
	(void)ptid;
	struct sym_proc *p = proc_get(s, pid, 0);
	if (p && pid == tid) {
		p->exit_time = time;
		s->epoch++;	/* no map of it after that */
		if (time > s->max_exit_time)
			s->max_exit_time = time;
	}
	return 0;
}

uint64_t sym_resolve_epoch(const struct sym_session *s, uint64_t time)
{
	/* A map that starts after time would answer for later times only, and a process that
	 * exits at or after time has its maps at time but not after: an answer made now is not
	 * one for later. Else every map is in force at time and later alike (the latest over an
	 * address answers; a replaced map only answers before the map that replaced it) and
	 * every exited process is gone alike, whatever the time, until something is fed. */
	return time < s->max_map_time || (s->max_exit_time && time <= s->max_exit_time)
		       ? 0
		       : s->epoch + 1;
}

/* ---- resolution ---- */

/* The cache entry of (d, addr), made on first use. A jitted DSO holds one method and is hit
 * at a handful of addresses, and a sample-dense run has tens of thousands of them: each
 * table starts at 16 buckets (not hundreds), and the entries come from the session's arena
 * (no malloc per address; freed with the session). */
/* An address's bucket among cap (a power of two), seeded: the addresses are the recording's,
 * and an unseeded multiply put every multiple of 2^36 in one chain. */
static size_t addr_bucket(uint64_t addr, size_t cap)
{
	return (size_t)jp_hash_bytes(&addr, sizeof(addr), jp_hash_seed()) & (cap - 1);
}

static struct sym_cached *cache_get(struct sym_session *s, struct sym_dso *d, uint64_t addr)
{
	if (d->cache_cap) {
		for (struct sym_cached *c = d->cache[addr_bucket(addr, d->cache_cap)]; c;
		     c = c->next) {
			if (c->addr == addr)
				return c;
			s->cache_probes++;
		}
	}
	if (d->cache_n >= d->cache_cap) {
		size_t ncap = d->cache_cap ? d->cache_cap * 4 : 16;
		struct sym_cached **nv = calloc(ncap, sizeof(*nv));
		if (!nv)
			return NULL;
		for (size_t i = 0; i < d->cache_cap; i++)
			for (struct sym_cached *c = d->cache[i], *n; c; c = n) {
				n = c->next;
				size_t j = addr_bucket(c->addr, ncap);
				c->next = nv[j];
				nv[j] = c;
			}
		free(d->cache);
		d->cache = nv;
		d->cache_cap = ncap;
	}
	struct sym_cached *c = sess_alloc(s, sizeof(*c));	/* zeroed */
	if (!c)
		return NULL;
	size_t j = addr_bucket(addr, d->cache_cap);
	c->addr = addr;
	c->next = d->cache[j];
	d->cache[j] = c;
	d->cache_n++;
	c->sym = NULL;
	c->lines_done = -1;	/* symbol not looked up yet */
	return c;
}

static int guess_kernel(uint64_t addr)
{
	return addr >= 0xffff800000000000ull;
}

static const char *unknown_name = "[unknown]";

/* The map (and DSO) of an address; kernel addresses fall back to the kernel image. */
static struct sym_dso *map_of(struct sym_session *s, uint32_t pid, uint64_t addr, uint64_t time,
			      int cpumode, const struct sym_map **mp, int *kernelp)
{
	int mode = cpumode & 7;
	int kernel = mode ? (mode == 1 || mode == 4) : guess_kernel(addr);
	struct sym_proc *p = proc_get(s, kernel ? SYM_PID_KERNEL : pid, 0);
	const struct sym_map *m = NULL;
	if (p && (kernel || time <= p->exit_time))
		m = proc_find_map(p, addr, kernel ? UINT64_MAX : time);
	*mp = m;
	*kernelp = kernel;
	if (m)
		return m->dso;
	if (kernel && !s->kdso)
		s->kdso = dso_get(s, "[kernel.kallsyms]", NULL, 1, 0);
	return kernel ? s->kdso : NULL;
}

struct sym_dso *sym_dso_at(struct sym_session *s, uint32_t pid, uint64_t addr, uint64_t time,
			   int cpumode, uint64_t *dso_addr)
{
	const struct sym_map *m;
	int kernel;
	struct sym_dso *d = map_of(s, pid, addr, time, cpumode, &m, &kernel);
	if (dso_addr)
		*dso_addr = d && m && !d->kernel && !d->anon ? addr - m->start + m->pgoff : addr;
	return d;
}

#define FEW_SYMS 4

/* out's symbol fields from e (demangled on its first use). */
static void set_sym(struct sym_session *s, struct sym_result *out, struct sym_entry *e,
		    uint64_t daddr)
{
	if (!e->name)
		e->name = sess_demangle(s, e->raw);
	out->sym = e->name;
	out->sym_raw = e->raw;
	out->sym_start = e->start;
	out->sym_size = e->size;
	out->sym_off = daddr - e->start;
}

int sym_resolve(struct sym_session *s, uint32_t pid, uint64_t addr, uint64_t time, int cpumode,
		unsigned flags, struct sym_result *out)
{
	const struct sym_map *m;
	int kernel;
	memset(out, 0, sizeof(*out));
	out->dso_name = unknown_name;
	struct sym_dso *d = map_of(s, pid, addr, time, cpumode, &m, &kernel);
	out->kernel = kernel;
	if (!d && kernel)
		jp_nomem("the kernel's DSO");
	if (!d)
		return 0;
	out->dso = d;
	out->dso_name = d->short_name;
	if (m) {
		out->map_start = m->start;
		out->map_end = m->end;
		out->map_time = m->time;
	}
	uint64_t daddr = addr;
	if (!d->kernel && !d->anon && m) {
		if (sym_dso_find(s, d, NULL) == 0)
			dso_open(s, d);
		daddr = dso_off_to_vaddr(d, addr - m->start + m->pgoff);
	}
	out->dso_addr = daddr;
	/* A session that never looks up lines, in a DSO of a few symbols (a jitted ELF has
	 * one): the table is searched directly. The per-address cache would cost two more
	 * cache misses than the search, for each of the tens of thousands of DSOs a
	 * sample-dense run hits. */
	if (s->o.no_lines && !d->kernel && elfsym_load(s, d) == 0 && d->syms.n <= FEW_SYMS) {
		struct sym_entry *e = symtab_find(&d->syms, daddr);
		if (e)
			set_sym(s, out, e, daddr);
		return 0;
	}
	struct sym_cached *c = cache_get(s, d, daddr);
	if (!c)
		jp_nomem("the symbol cache");	/* the caller would show [unknown] */
	if (c->lines_done < 0) {
		c->lines_done = 0;
		if (d->kernel) {
			if (kernel_load(s) == 0)
				c->sym = kernel_find(s, daddr);
		} else if (elfsym_load(s, d) == 0) {
			c->sym = symtab_find(&d->syms, daddr);
		}
	}
	if ((flags & SYM_RES_LINES) && !c->lines_done && !s->o.no_lines && !d->kernel) {
		if ((flags & SYM_RES_NO_WAIT) && dwarf_ahead_busy(d)) {
			out->lines_later = 1;
		} else {
			c->lines_done = 1;
			/* kept as looked up: out of memory, the line would stay missing */
			jp_nomem_check(lines_lookup(s, d, c), "a line lookup");
		}
	}
	if (c->sym)
		set_sym(s, out, c->sym, daddr);
	out->srcfile = c->srcfile;
	out->line = c->line;
	out->n_inline = c->n_inline;
	out->inl = c->inl;
	return 0;
}
