/* interp.c - interpreted Java frames as addresses perf can name: the first time a process's
 * unwound stacks hold a HotSpot interpreter frame whose method the agent's table knows, inject
 * builds one ELF of every method of that table (synth_build_interp: a symbol over one byte per
 * bytecode, DWARF line rows per bci), writes it where the process's jitted ELFs go, and maps it
 * with an MMAP2 at INJ_INTERP_BASE, a range no x86_64 process can map (docs/inject.md); the
 * frame of bci b in method k becomes base + .text + offset_k + b in the call chain. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hindex.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

/* One ELF: the methods of one dump index x of process pid. */
struct interp_elf {
	uint32_t pid;
	const struct jd_index *x;
	struct inj_dump *d;
	int state;		/* ELF_* */
	uint64_t start;		/* its MMAP2 */
	uint64_t *offset;	/* per method record (jd_index_method_nth): from start; or NONE */
	size_t n;
	struct jp_hindex by_rec;	/* a record's address -> its nth */
	struct synth_elf elf;	/* kept only for its id and sizes once placed */
	char path[4096 + 64];
};

enum { ELF_FAILED = -1, ELF_PLACED = 1, ELF_MAPPED = 2 };
#define NONE UINT64_MAX

struct inj_interp {
	struct inj_pool *pool;
	const struct jp_log *log;
	struct interp_elf *v;
	size_t n, cap;
	uint64_t named, unnamed;
};

int inj_interp_new(struct inj_interp **out, struct inj_pool *pool, const struct jp_log *log)
{
	*out = NULL;
	if (!pool)
		return 0;	/* --no-elfs: nothing is written, frames stay the interpreter's */
	struct inj_interp *ip = calloc(1, sizeof(*ip));
	if (!ip)
		return -ENOMEM;
	ip->pool = pool;
	ip->log = log;
	*out = ip;
	return 0;
}

void inj_interp_free(struct inj_interp *ip)
{
	if (!ip)
		return;
	for (size_t i = 0; i < ip->n; i++) {
		free(ip->v[i].offset);
		jp_hindex_free(&ip->v[i].by_rec);
		synth_elf_free(&ip->v[i].elf);
	}
	free(ip->v);
	free(ip);
}

void inj_interp_counts(const struct inj_interp *ip, uint64_t *named, uint64_t *unnamed,
		       uint64_t *elfs)
{
	*named = ip ? ip->named : 0;
	*unnamed = ip ? ip->unnamed : 0;
	*elfs = 0;
	for (size_t i = 0; ip && i < ip->n; i++)
		*elfs += ip->v[i].state == ELF_MAPPED;
}

static int rec_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct interp_elf *e = ctx;
	return jd_index_method_nth(e->x, idx) == *(const struct jd_ext_method *const *)key;
}

static uint64_t rec_hash(const struct jd_ext_method *m)
{
	return jp_hindex_hash(&m, sizeof(m));
}

/* The symbol of a method record: its demangled name with the interpreted mark, as report
 * prints it when it unwinds the copies itself ("pkg.Cls.m(int)_[int]"). */
static char *symbol_of(const struct jd_ext_method *m)
{
	struct jp_str buf = { 0 };
	sym_java_demangle_str(m->name ? m->name : "", &buf);
	jp_str_appendf(&buf, "%s", SYNTH_INTERP_MARK);
	char *sym = buf.nomem ? NULL : strdup(buf.s);	/* whole: report names the frame so */
	jp_str_free(&buf);
	return sym;
}

/* e's layout (every record of its table the ELF can hold: a record of more bytecodes than a
 * JVM method can have is left out, its frames unnamed) and its ELF, in e->elf. */
static int build(struct interp_elf *e, const struct jp_log *log)
{
	size_t n = jd_index_nr_methods(e->x), k = 0;
	struct synth_interp_method *mv = calloc(n ? n : 1, sizeof(*mv));
	int rc = mv && (e->offset = malloc((n ? n : 1) * sizeof(*e->offset))) ? 0 : -ENOMEM;
	uint64_t off = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		const struct jd_ext_method *m = jd_index_method_nth(e->x, i);
		e->offset[i] = NONE;
		if (!m || m->code_size > SYNTH_INTERP_METHOD_MAX || !m->name)
			continue;
		struct synth_interp_method *s = &mv[k];
		*s = (struct synth_interp_method){
			.name = symbol_of(m), .linkage = m->name, .file = m->file,
			.size = m->code_size ? m->code_size : 1, .lines = m->lines,
			.nr_lines = m->nr_lines,
		};
		if (!s->name || jp_hindex_add(&e->by_rec, rec_hash(m), i)) {
			free((char *)s->name);
			rc = -ENOMEM;
			break;
		}
		e->offset[i] = off;
		off += s->size;
		k++;
	}
	e->n = n;
	if (!rc && !k)
		rc = -ENOENT;
	if (!rc) {
		const struct synth_interp in = { .pid = e->pid, .m = mv, .n = k,
						 .e_machine = e->d->e_machine };
		rc = synth_build_interp(&in, &e->elf, log);
	}
	for (size_t i = 0; mv && i < k; i++)
		free((char *)mv[i].name);
	free(mv);
	return rc;
}

/* The ELF of x for pid, made (built and placed) on first use; NULL when none can be. */
static struct interp_elf *elf_for(struct inj_interp *ip, uint32_t pid, struct inj_dump *d,
				  int *err)
{
	uint32_t seq = 0;
	for (size_t i = 0; i < ip->n; i++) {
		if (ip->v[i].pid != pid)
			continue;
		if (ip->v[i].x == d->x)
			return ip->v[i].state == ELF_FAILED ? NULL : &ip->v[i];
		seq++;
	}
	if (seq >= INJ_INTERP_MAX_PER_PID || JP_GROW_FOR(ip->v, ip->cap, ip->n)) {
		*err = seq >= INJ_INTERP_MAX_PER_PID ? 0 : -ENOMEM;
		return NULL;
	}
	struct interp_elf *e = &ip->v[ip->n++];
	memset(e, 0, sizeof(*e));
	*e = (struct interp_elf){ .pid = pid, .x = d->x, .d = d, .state = ELF_FAILED,
				  .start = INJ_INTERP_BASE + (uint64_t)seq * INJ_INTERP_SPAN };
	char name[64], msg[512] = "";
	int rc = synth_interp_file_name(pid, seq, name, sizeof(name));
	if (!rc && snprintf(e->path, sizeof(e->path), "%s/%s", d->dir, name) >=
		   (int)sizeof(e->path))
		rc = -ENAMETOOLONG;
	if (!rc)
		rc = build(e, JP_ERRBUF_LOG(msg));	/* said inside the warning below */
	if (!rc)
		rc = inj_pool_place(ip->pool, d, &e->elf, e->path, JP_ERRBUF_LOG(msg));
	if (!rc) {
		e->state = ELF_PLACED;
		/* Only the id and sizes are read from here on. */
		free(e->elf.data);
		e->elf.data = NULL;
		return e;
	}
	if (rc == -ENOMEM) {
		*err = rc;
		return NULL;
	}
	if (rc != -ENOENT)	/* -ENOENT: a table of nothing it can hold, nothing to say */
		jp_logf(ip->log, JP_LOG_WARN, "%s: process %u's interpreted methods: no ELF "
			"(%s); its interpreted frames stay 'Interpreter'", d->path, pid,
			msg[0] ? msg : strerror(-rc));
	return NULL;
}

int inj_interp_addr(struct inj_interp *ip, uint32_t pid, struct inj_dump *d,
		    const struct unw_frame *f, uint64_t time, uint64_t *addr)
{
	const struct jd_ext_method *m;
	uint32_t bci, line;
	int err = 0;

	*addr = 0;
	if (!ip || inj_interp_resolve(d->x, f->method, f->bcp, f->bcp_slot, time, &m, &bci,
				      &line)) {
		if (ip)
			ip->unnamed++;
		return 0;
	}
	struct interp_elf *e = elf_for(ip, pid, d, &err);
	int64_t i = e ? jp_hindex_find(&e->by_rec, rec_hash(m), &m, rec_eq, e) : -1;
	if (i < 0 || e->offset[i] == NONE || bci >= (m->code_size ? m->code_size : 1)) {
		ip->unnamed++;
		return err;
	}
	*addr = e->start + e->offset[i] + bci;
	ip->named++;
	return 0;
}

int inj_interp_emit(struct inj_run_state *s, struct inj_interp *ip)
{
	for (size_t i = 0; ip && i < ip->n; i++) {
		struct interp_elf *e = &ip->v[i];
		if (e->state != ELF_PLACED)
			continue;
		/* Before every sample that names it: no earlier than what perf has flushed
		 * (an older event would come out of order) nor than the process's dump. */
		uint64_t t = inj_sim_flush_limit(s->sim);
		if (t < e->d->marker_time)
			t = e->d->marker_time;
		int rc = inj_write_mmap2(s, e->d, INJ_NONE, e->pid, e->pid, t, e->start,
					 e->elf.map_len, e->elf.text_offset, e->elf.build_id,
					 e->path);
		if (rc < 0)
			return rc;
		e->state = ELF_MAPPED;
	}
	return 0;
}

int inj_interp_build_ids(struct inj_run_state *s, const struct inj_interp *ip)
{
	for (size_t i = 0; ip && i < ip->n; i++) {
		const struct interp_elf *e = &ip->v[i];
		if (e->state != ELF_MAPPED)
			continue;
		int rc = inj_add_build_id(s, e->elf.build_id, e->path);
		if (rc < 0)
			return rc;
	}
	return 0;
}
