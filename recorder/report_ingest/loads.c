/* loads.c - what each jitted load is: method name and code size from its ELF symbol, then
 * generation and tier from our ELF's .note.jitprof, else from the jitdump beside the ELFs
 * (perf inject puts them in the dump's directory), else from load order (model.c). The
 * dump also gives unload times, and code bytes when the ELF is not at hand. */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "lib/nomem.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

/* The dump's DEBUG_INFO line for a frame whose ELF gave none (libdw cannot read the DWARF
 * of every writer's ELFs, and perf's carry no .debug_aranges): the last entry at or below
 * the address, as perf's own line mapping does. */
static void line_from_dump(struct rp_session *s, const struct jd_load_entry *je,
			   struct rp_frame *f)
{
	if (!je || !je->nr_lines)
		return;
	/* By offset in the method: the code may have moved since the dump described it. */
	uint64_t addr = f->sym ? je->load.code_addr + f->symoff : f->ip;
	if (addr < je->lines[0].addr)
		return;
	size_t lo = 0, hi = je->nr_lines;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (je->lines[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the row's file as synth reads it (node 20 writes some names from freed memory) */
	char script[SYNTH_SCRIPT_MAX + 1];	/* as synth reads it */
	const char *file = synth_line_file(je->lines[lo].file,
					   synth_name_script(je->load.name, script, sizeof(script)));
	if (!file)
		return;
	const char *b = strrchr(file, '/');
	f->srcfile = rp_intern(s, b ? b + 1 : file);
	f->line = je->lines[lo].line > 0 ? (uint32_t)je->lines[lo].line : 0;
}

/* Frames per load before rp_session_finish, callers included: which loads the samples
 * touched (their ELFs exist; their code is worth keeping). */
static uint64_t *count_samples(const struct rp_session *s)
{
	uint64_t *n = calloc(s->nr_loads + 1, sizeof(*n));
	if (!n)
		return NULL;
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		for (uint32_t k = 0; k < smp->nr; k++) {
			uint32_t load = rp_chain_frame(s, smp->first + k)->load;
			if (load)
				n[load]++;
		}
	}
	return n;
}

/* The dump's line table as offsets, for --compare's interleaved source. 0 or -ENOMEM. */
static int keep_lines(struct rp_session *s, const struct jd_load_entry *je, struct rp_load *l)
{
	struct rp_src_line *v;
	size_t n = 0;
	if (!je || !je->nr_lines)
		return 0;
	if (!(v = malloc(je->nr_lines * sizeof(*v))))
		return -ENOMEM;
	char buf[SYNTH_SCRIPT_MAX + 1];	/* as synth reads it: a longer script is none */
	const char *script = synth_name_script(je->load.name, buf, sizeof(buf));
	for (size_t i = 0; i < je->nr_lines; i++) {
		const struct jd_line *jl = &je->lines[i];
		const char *file = synth_line_file(jl->file, script);	/* as synth reads it */
		uint64_t start = je->load.code_addr;
		/* a row a few bytes before the code is its first bytes' line, as synth keeps it */
		uint64_t off = jl->addr > start ? jl->addr - start : 0;
		if (!file || (jl->addr < start && start - jl->addr > SYNTH_LINE_BEFORE_MAX) ||
		    off >= l->code_size)
			continue;
		if (!off && n && !v[n - 1].off)
			n--;	/* a later row before or at the code start replaces one there */
		const char *b = strrchr(file, '/');
		v[n++] = (struct rp_src_line){ off,
					       rp_intern(s, b ? b + 1 : file),
					       jl->line > 0 ? (uint32_t)jl->line : 0 };
	}
	l->lines = n ? (const void *)rp_keep_bytes(s, v, n * sizeof(*v)) : NULL;
	l->nr_lines = l->lines ? n : 0;
	free(v);
	return n && !l->lines ? -ENOMEM : 0;
}

struct dw_rows {
	struct rp_session *s;
	uint64_t start;
	struct rp_src_line *v;
	size_t n, cap;
	int nomem;	/* a row could not be kept: the table is not used (-ENOMEM) */
};

static void dw_row(void *ctx, uint64_t addr, const char *file, int line)
{
	struct dw_rows *r = ctx;
	const char *b = file ? strrchr(file, '/') : NULL;
	if (r->nomem || jp_grow(&r->v, &r->cap, r->n + 1, sizeof(*r->v), 64)) {
		r->nomem = 1;
		return;
	}
	r->v[r->n++] = (struct rp_src_line){ addr - r->start, rp_intern(r->s, b ? b + 1 : file),
					     line > 0 ? (uint32_t)line : 0 };
}

static int src_line_order(const void *pa, const void *pb)
{
	const struct rp_src_line *a = pa, *b = pb;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* No dump beside the ELF (an archive, a moved recording): the ELF's own DWARF line table.
 * 0 or -ENOMEM. */
static int keep_dwarf_lines(struct rp_session *s, struct sym_session *ss, struct sym_dso *d,
			    uint64_t sym_start, struct rp_load *l)
{
	struct dw_rows r = { .s = s, .start = sym_start };
	int rc = l->lines || !d ? 0 : sym_dso_lines(ss, d, sym_start, sym_start + l->code_size,
						    dw_row, &r);
	if (r.nomem || rc == -ENOMEM) {
		free(r.v);
		return -ENOMEM;
	}
	if (l->lines || !d || rc || !r.n) {
		free(r.v);
		return 0;
	}
	qsort(r.v, r.n, sizeof(*r.v), src_line_order);
	l->lines = (const void *)rp_keep_bytes(s, r.v, r.n * sizeof(*r.v));
	l->nr_lines = l->lines ? r.n : 0;
	free(r.v);
	return l->lines ? 0 : -ENOMEM;
}

/* 0 or -ENOMEM. */
static int load_code(struct rp_session *s, struct sym_session *ss, struct sym_dso *d,
		     uint64_t sym_start, const struct jd_load_entry *je, struct rp_load *l)
{
	if (!l->code_size || l->code_size > (64u << 20))
		return 0;
	uint8_t *buf = malloc(l->code_size);
	if (!buf)
		return -ENOMEM;
	long got = d ? sym_dso_read_code(ss, d, sym_start, buf, l->code_size) : -ENOENT;
	if (got > 0)
		l->code = rp_keep_bytes(s, buf, (size_t)got), l->code_size = (uint64_t)got;
	else if (je && je->load.code && je->load.code_size)
		l->code = rp_keep_bytes(s, je->load.code, je->load.code_size),
		l->code_size = je->load.code_size;
	free(buf);
	if (got == -ENOMEM || ((got > 0 || (je && je->load.code && je->load.code_size)) &&
			       !l->code))
		return -ENOMEM;
	int rc = keep_lines(s, je, l);
	return rc ? rc : keep_dwarf_lines(s, ss, d, sym_start, l);
}

/* For sampled_methods_only: the identities of the sampled loads (rp_raw_ident_hash of their
 * runtime's names) into idents, and into all_named the processes (pid + 1) with a sampled load
 * whose name the dump does not give (its identity comes from its ELF symbol, so every load of
 * that process is named). */
static int sampled_methods(struct rp_session *s, const struct rp_load_src *src,
			   const uint64_t *hits, struct rp_dumps *dumps,
			   struct rp_u64map *idents, struct rp_u64map *all_named,
			   struct rp_u64map *jvm)
{
	for (size_t i = 0; i < s->nr_loads; i++) {
		const struct rp_load *l = &s->loads[i];
		if (!hits[i + 1])
			continue;
		const struct jd_load_entry *je = rp_dumps_entry(dumps, src[i].path, l->pid);
		int rc = je && je->load.name ?
			 rp_map_put(idents, rp_raw_ident_hash(l->pid, je->load.name), 1) :
			 rp_map_put(all_named, (uint64_t)l->pid + 1, 1);
		if (!rc && je && rp_is_jvm_name(je->load.name))
			rc = rp_map_put(jvm, (uint64_t)l->pid + 1, 1);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* sampled_methods_only: the pending mappings that are generations of a sampled method (or of
 * a process whose loads are all named, or without a dump entry: named from their ELF) made
 * loads, as they were when every mapping was one; and in each process one with a JVM's name
 * when no load had such a name, so that rp_identify_loads knows the same JVMs. */
static int promote_generations(const struct rp_promote *pr, const struct rp_load_src **src,
			       struct rp_dumps *dumps,
			       const struct rp_u64map *idents, const struct rp_u64map *all_named,
			       struct rp_u64map *jvm)
{
	uint32_t one;
	int rc = 0;
	for (size_t id = 1; rc >= 0 && id <= pr->pending->n; id++) {
		const struct rp_pending_map *pm = &pr->pending->v[id - 1];
		if (pm->load)
			continue;
		const struct jd_load_entry *je = rp_dumps_entry(dumps, pm->path, pm->pid);
		const char *name = je ? je->load.name : NULL;
		int keep = !name || rp_map_get(all_named, (uint64_t)pm->pid + 1, &one) ||
			   rp_map_get(idents, rp_raw_ident_hash(pm->pid, name), &one);
		/* the process first: once it has its JVM-named load, no name is parsed */
		if (!keep && !rp_map_get(jvm, (uint64_t)pm->pid + 1, &one) &&
		    rp_is_jvm_name(name)) {
			keep = 1;
			rc = rp_map_put(jvm, (uint64_t)pm->pid + 1, 1);
		}
		if (keep && rc >= 0 && !pr->promote(pr->ctx, (uint32_t)id, src))
			rc = -ENOMEM;
	}
	return rc < 0 ? rc : 0;
}

/* The note synth puts in every ELF it writes (inject's, and the in-memory ones of `inject
 * --no-elfs`), its runtime name interned (the file's copy is freed); zeroed for another
 * writer's ELF (perf inject's) or none. */
static void read_note(struct rp_session *s, struct sym_session *ss, struct sym_dso *d,
		      struct synth_note *ni)
{
	void *buf = NULL;
	size_t len = 0;

	memset(ni, 0, sizeof(*ni));
	int rc = d ? sym_dso_read_file(ss, d, &buf, &len) : -ENOENT;
	/* no note would read as another writer's ELF: the generation and tier guessed */
	jp_nomem_check(rc, "a jitted ELF's note");
	if (!rc && synth_note_read(buf, len, ni))
		ni->name = ni->name && ni->name[0] ? rp_intern(s, ni->name) : NULL;
	free(buf);
}

/* For the outputs that name only the sampled loads: each one's note, whose runtime name spares
 * reading its dump (a Java start-up's: tens of MB, 34k loads, for a few thousand sampled). The
 * processes those names show to be JVMs go into jvm_pids, so their unsampled loads ask the
 * dump nothing either. notes[i]: load i + 1's. */
static struct synth_note *sampled_notes(struct rp_session *s, struct sym_session *ss,
					const struct rp_load_src *src, const uint64_t *hits,
					struct rp_u64map *jvm_pids)
{
	struct synth_note *notes = calloc(s->nr_loads + 1, sizeof(*notes));

	for (size_t i = 0; notes && i < s->nr_loads; i++) {
		const struct rp_load *l = &s->loads[i];
		struct sym_result res;
		memset(&res, 0, sizeof(res));
		if (!hits[i + 1] || sym_resolve(ss, l->pid, l->code_addr, src[i].map_time,
						PERF_RECORD_MISC_USER, 0, &res) < 0)
			continue;
		read_note(s, ss, res.dso, &notes[i]);
		if (rp_is_jvm_name(notes[i].name))
			(void)rp_map_put(jvm_pids, (uint64_t)l->pid + 1, 1);
	}
	return notes;
}

int rp_ingest_loads(struct rp_session *s, struct sym_session *ss, const struct rp_load_src *src,
		    const struct rp_promote *pr, const struct rp_ingest_opts *o)
{
	elf_version(EV_CURRENT);
	struct rp_dumps dumps;
	int took = rp_dumps_take(s, &dumps);
	uint64_t *hits = count_samples(s);
	struct rp_u64map jvm_pids = { 0 };	/* processes a load's raw name showed to be JVMs */
	/* sampled_methods_only: the sampled identities, the processes named whole, the
	 * processes a sampled load's name shows to be JVMs */
	struct rp_u64map sampled_idents = { 0 }, all_named = { 0 }, sampled_jvms = { 0 };
	uint32_t one;
	int rc = took ? took : hits ? 0 : -ENOMEM;
	if (!rc && o->sampled_methods_only)
		rc = sampled_methods(s, src, hits, &dumps, &sampled_idents, &all_named,
				     &sampled_jvms);
	if (!rc && pr && pr->pending->n) {	/* the other generations of those methods */
		size_t before = s->nr_loads;
		rc = promote_generations(pr, &src, &dumps, &sampled_idents, &all_named,
					 &sampled_jvms);
		if (!rc && s->nr_loads != before) {	/* they have no frame */
			free(hits);
			rc = (hits = count_samples(s)) ? 0 : -ENOMEM;
		}
	}
	const struct jd_load_entry **je_of = rc ? NULL : calloc(s->nr_loads + 1, sizeof(*je_of));
	rp_map_free(&sampled_jvms);
	if (!je_of) {
		rp_map_free(&sampled_idents);
		rp_map_free(&all_named);
		free(hits);
		rp_dumps_free(&dumps);
		return rc ? rc : -ENOMEM;
	}
	struct synth_note *notes = o->sampled_loads_only ? sampled_notes(s, ss, src, hits,
									    &jvm_pids) : NULL;
	int code_rc = 0;	/* -ENOMEM from load_code or a name */
	struct jp_str name = { 0 };
	for (size_t i = 0; !code_rc && i < s->nr_loads; i++) {
		struct rp_load *l = &s->loads[i];
		const char *path = src[i].path;
		/* No frame lands in it and no output lists it: left unnamed (see the options). */
		int unnamed = o->sampled_loads_only && !hits[i + 1];
		/* Its raw name would only say its process is a JVM (rp_identify_loads): once one
		 * load did, the dump is not asked (a start-up's 34k loads, a few hundred sampled). */
		if (unnamed && rp_map_get(&jvm_pids, (uint64_t)l->pid + 1, &one))
			continue;
		const char *noted = notes ? notes[i].name : NULL;
		const struct jd_load_entry *je = noted ? NULL
					       : rp_dumps_entry(&dumps, path, l->pid);
		je_of[i] = je;	/* its raw name still says which processes are JVMs */
		if (unnamed && je && rp_is_jvm_name(je->load.name))	/* failing, later ones asked */
			(void)rp_map_put(&jvm_pids, (uint64_t)l->pid + 1, 1);
		/* No frame lands in it, nor in its method: the flame graph and --html list it
		 * nowhere (sampled_methods_only). */
		if (o->sampled_methods_only && !hits[i + 1] && je && je->load.name &&
		    !rp_map_get(&all_named, (uint64_t)l->pid + 1, &one) &&
		    !rp_map_get(&sampled_idents, rp_raw_ident_hash(l->pid, je->load.name), &one))
			unnamed = 1;
		if (unnamed)
			continue;
		const char *base = strrchr(path, '/');
		l->dso = rp_intern(s, base ? base + 1 : path);
		/* Inject writes ELFs for sampled generations only: ask the symbols (and maybe
		 * warn about a missing file) only where samples need them or no dump tells. */
		struct sym_result res;
		memset(&res, 0, sizeof(res));
		if ((hits[i + 1] || !je) &&
		    sym_resolve(ss, l->pid, l->code_addr, src[i].map_time, PERF_RECORD_MISC_USER, 0,
				&res) < 0)
			res.dso = NULL;
		if (res.sym) {
			l->method = rp_intern(s, res.sym);
			if (res.sym_size)
				l->code_size = res.sym_size;
			l->code_addr -= res.sym_off;
		}
		const char *raw = je ? je->load.name : noted;
		if (raw) {
			/* One source of names for all loads of a dump, sampled or not. */
			int readable = !o->no_demangle && sym_java_demangle_str(raw, &name) == 1;
			l->method = rp_intern(s, readable ? name.s : raw);
			if (name.nomem)
				code_rc = -ENOMEM;
			if (je)
				l->code_size = je->load.code_size;
		}
		if (res.dso) {
			char hex[SYM_BUILD_ID_HEX];
			const struct sym_build_id *bid = sym_dso_build_id(res.dso);
			if (bid && bid->size)
				l->build_id = rp_intern(s, sym_build_id_hex(bid, hex));
		}
		struct synth_note ni;
		if (notes && hits[i + 1])
			ni = notes[i];	/* read already */
		else
			read_note(s, ss, res.dso, &ni);
		l->generation = ni.generation ? ni.generation : je ? je->generation : 0;
		l->tier = ni.tier ? ni.tier : je && je->info ? je->info->tier : 0;
		l->flags = ni.tier ? ni.flags : je && je->info ? je->info->flags : 0;
		if (je && je->unload_time && (!l->end_time || je->unload_time < l->end_time))
			l->end_time = je->unload_time;
		l->unload_time = je ? je->unload_time : 0;
		l->level = je && je->info ? je->info->level : -1;
		l->compile_id = je && je->info ? je->info->compile_id : -1;
		l->osr_bci = je && je->info ? je->info->osr_bci : -1;
		if (o->want_sites && je)
			rp_keep_call_sites(s, je->inl, l);
		/* Sampled or not: the ELF's .text where inject wrote one, else the dump. */
		if (o->want_code)
			code_rc = load_code(s, ss, res.dso, res.sym_start, je, l);
	}
	if (jp_str_free(&name) && !code_rc)
		code_rc = -ENOMEM;
	/* A frame's line from the dump depends on the frame alone: each distinct frame is
	 * given its own, for every sample that refers to it. */
	int given = 0;
	for (size_t i = 0; !code_rc && o->want_lines && i < s->nr_frames; i++) {
		struct rp_frame *f = &s->frames[i];
		if (f->load && !f->srcfile && !(f->flags & RP_FRAME_INLINED)) {
			line_from_dump(s, je_of[f->load - 1], f);
			given |= f->srcfile != NULL;
		}
	}
	int edit_rc = code_rc ? code_rc : given ? rp_frames_edited(s) : 0;
	/* Samples after their code was unloaded belong to no generation: that depends on the
	 * sample's time, so such a reference is given a frame of its own. */
	for (size_t i = 0; !edit_rc && i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		for (uint32_t k = 0; !edit_rc && k < smp->nr; k++) {
			const struct rp_frame *f = rp_chain_frame(s, smp->first + k);
			const struct rp_load *l = f->load ? &s->loads[f->load - 1] : NULL;
			if (!l || !l->end_time || smp->time < l->end_time ||
			    (f->flags & RP_FRAME_UNLOADED))
				continue;
			struct rp_frame u = *f;
			u.flags |= RP_FRAME_UNLOADED;
			edit_rc = rp_chain_set(s, smp->first + k, &u);
		}
	}
	/* The dumps' names are the runtimes' own: they say which runtime made each load. */
	const char **raw = calloc(s->nr_loads + 1, sizeof(*raw));
	int some_unnamed = o->sampled_loads_only || o->sampled_methods_only;
	unsigned char *unnamed = some_unnamed ? calloc(s->nr_loads + 1, 1) : NULL;
	for (size_t i = 0; raw && i < s->nr_loads; i++) {
		raw[i] = je_of[i] ? je_of[i]->load.name : notes ? notes[i].name : NULL;
		if (unnamed)	/* no method given it above */
			unnamed[i] = !hits[i + 1] && !s->loads[i].method && !s->loads[i].dso;
	}
	rc = !edit_rc && raw && (unnamed || !some_unnamed) ? rp_identify_loads(s, raw, unnamed)
							       : -1;
	rp_dumps_warn_unread(&dumps, &o->log);
	free(raw);
	free(unnamed);
	rp_dumps_free(&dumps);
	free(notes);
	rp_map_free(&jvm_pids);
	rp_map_free(&sampled_idents);
	rp_map_free(&all_named);
	free(hits);
	free(je_of);
	return rc < 0 ? -ENOMEM : 0;
}
