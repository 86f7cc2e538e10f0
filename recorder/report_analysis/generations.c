/* generations.c - the view this project exists for: every generation (code load) of a jitted
 * method side by side, with when it was loaded, how long it lived, how much time it took and
 * on which lines, plus the samples no generation can claim (unloaded or unknown code). */
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "lib/hindex.h"
#include "recorder/report_analysis/analysis_int.h"

/* jitdump's spelling (jd_tier_name); an empty cell ("-") when the runtime did not say. */
const char *rp_tier_name(uint32_t tier)
{
	switch (tier) {	/* the report's own V8 tiers (identity.c), then jitdump's */
	case RP_TIER_BASELINE: return "baseline";
	case RP_TIER_MIDTIER: return "maglev";
	case RP_TIER_OPTIMIZED: return "turbofan";
	default:
		return tier == JD_TIER_UNKNOWN || tier > JD_TIER_OTHER ? "-" : jd_tier_name(tier);
	}
}

const char *rp_load_tier(const struct rp_load *l)
{
	static const char *const osr[] = { "-/osr", "interp/osr", "C1/osr", "C2/osr",
					   "stub/osr", "other/osr" };
	if ((l->flags & JD_LOAD_OSR) && l->tier < sizeof(osr) / sizeof(osr[0]))
		return osr[l->tier];
	return rp_tier_name(l->tier);
}

/* The samples of one (load, file, line): a sampled leaf frame, counted. */
struct hit { uint32_t load; uint32_t line; const char *file; uint64_t n; };

static int hit_order(const void *pa, const void *pb)
{
	const struct hit *a = pa, *b = pb;
	if (a->load != b->load)
		return a->load < b->load ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int load_ptr_order(const void *pa, const void *pb)
{
	const struct rp_load *a = *(const struct rp_load *const *)pa;
	const struct rp_load *b = *(const struct rp_load *const *)pb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->runtime != b->runtime)
		return a->runtime < b->runtime ? -1 : 1;
	const char *x = rp_load_ident(a), *y = rp_load_ident(b);
	int c = strcmp(x ? x : "", y ? y : "");
	if (c)
		return c;
	if (a->generation != b->generation)
		return a->generation < b->generation ? -1 : 1;
	return a->load_time < b->load_time ? -1 : a->load_time > b->load_time;
}

/* The hits counted so far, found by their (load, file, line) through the shared seeded
 * index (lib/hindex.h): the lines come from the recording's dumps. */
struct hit_key {
	uint32_t load, line;
	const char *file;	/* interned: equal names, equal pointers */
};

static int hit_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct hit_key *k = key;
	const struct hit *h = &((const struct hit *)ctx)[idx];
	return h->load == k->load && h->line == k->line && h->file == k->file;
}

/* One more sample of leaf frame f's (load, file, line): a new hit or one more on its own. */
static int count_hit(struct jp_hindex *x, struct hit *hits, size_t *n, const struct rp_frame *f)
{
	const struct hit_key k = { f->load, f->line, f->srcfile };
	uint64_t h = jp_hindex_hash(&k, sizeof(k));
	int64_t at = jp_hindex_find(x, h, &k, hit_eq, hits);
	if (at >= 0) {
		hits[at].n++;
		return 0;
	}
	if (jp_hindex_add(x, h, *n))
		return -ENOMEM;
	hits[(*n)++] = (struct hit){ f->load, f->line, f->srcfile, 1 };
	return 0;
}

/* Heavier first; between equals the file name, then the line: the hits come sorted by where
 * the interned names lie in memory, which the order the names were first met decides (the
 * DWARF read-ahead thread makes that vary from run to run). */
static int hotter(const struct rp_gen_line *a, const struct rp_gen_line *b)
{
	if (a->samples != b->samples)
		return a->samples > b->samples;
	int c = strcmp(a->file, b->file);
	return c ? c < 0 : a->line < b->line;
}

/* Keeps the three heaviest lines of one load from its run of sorted hits. */
static void hot_lines(struct rp_gen_row *row, const struct hit *h, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t samples = 0;
		while (j < n && h[j].file == h[i].file && h[j].line == h[i].line)
			samples += h[j++].n;
		if (h[i].file) {
			struct rp_gen_line cand = { h[i].file, h[i].line, samples };
			for (int k = 0; k < 3; k++) {
				if (k >= row->nr_hot || hotter(&cand, &row->hot[k])) {
					struct rp_gen_line t = row->hot[k];
					if (k < row->nr_hot)
						row->hot[k] = cand, cand = t;
					else {
						row->hot[row->nr_hot++] = cand;
						break;
					}
				}
			}
		}
		i = j;
	}
}

uint64_t rp_gen_method_samples(const struct rp_gen_method *m)
{
	uint64_t n = 0;
	for (size_t k = 0; k < m->nr_rows; k++)
		n += m->rows[k].samples;
	return n;
}

static int method_order(const void *pa, const void *pb)
{
	const struct rp_gen_method *a = pa, *b = pb;
	uint64_t x = rp_gen_method_samples(a), y = rp_gen_method_samples(b);
	if (x != y)
		return x > y ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return strcmp(a->method, b->method);
}

const char *rp_until_src_name(enum rp_until_src u)
{
	static const char *const n[] = { "recording_end", "next_generation", "not_entrant",
					 "unload", "before_attach", "last_sample" };
	return (size_t)u < sizeof(n) / sizeof(n[0]) ? n[u] : "?";
}

const char *rp_from_src_name(enum rp_from_src f)
{
	static const char *const n[] = { "load", "compile", "before_attach" };
	return (size_t)f < sizeof(n) / sizeof(n[0]) ? n[f] : "?";
}

static int backfilled(const struct rp_load *l)
{
	return !!(l->flags & JD_LOAD_BACKFILLED);
}

/* Whether o takes over from l: the next non-OSR load of the method for normal code; for OSR
 * code the next OSR load at the same loop (any OSR load when a bci is unknown). Back-filled
 * loads (reported together at the attach) succeed one another by compile id, unknown ids
 * not at all; a load since the attach succeeds every back-filled one. */
static int takes_over(const struct rp_load *l, const struct rp_load *o)
{
	int lo = !!(l->flags & JD_LOAD_OSR), oo = !!(o->flags & JD_LOAD_OSR);
	if (lo != oo || (lo && l->compile_id > 0 && o->compile_id > 0 &&
			 l->osr_bci != o->osr_bci))
		return 0;
	if (backfilled(o))
		return backfilled(l) && l->compile_id > 0 && o->compile_id > l->compile_id;
	return backfilled(l) || o->load_time > l->load_time;
}

/* Whether a takes over before b (both take over from the same load). */
static int sooner(const struct rp_load *a, const struct rp_load *b)
{
	if (backfilled(a) != backfilled(b))
		return backfilled(a);
	return backfilled(a) ? a->compile_id < b->compile_id : a->load_time < b->load_time;
}

static double rel_s(const struct rp_session *s, uint64_t t)
{
	return t > s->start ? (t - s->start) / 1e9 : 0;
}

/* What the period's end says ended it, unless the JVM log says more. */
static enum rp_end_kind ended_by(const struct rp_load *l, enum rp_until_src u)
{
	if (l->jvm && l->jvm->end != RP_END_RUNNING)
		return l->jvm->end;
	switch (u) {
	case RP_UNTIL_NEXT_GEN:
	case RP_UNTIL_BEFORE_ATTACH: return RP_END_REPLACED;
	case RP_UNTIL_UNLOAD: return RP_END_UNLOADED;
	case RP_UNTIL_NOT_ENTRANT: return RP_END_NOT_ENTRANT;
	default: return RP_END_RUNNING;
	}
}

/* HotSpot code (a tier our agent or perf's named): a newer nmethod of a method makes the older
 * not entrant when it is installed, so samples after it are activations running on. */
static int hotspot(const struct rp_load *l)
{
	return l->tier == JD_TIER_C1 || l->tier == JD_TIER_C2 || l->jvm;
}

/* active_from/active_until of one row among its method's loads ([i, j) of order), and how
 * it ended: the JVM log's word where it has one, else what ended its active period. The
 * samples are evidence too: HotSpot code made not entrant (or replaced) runs on in the
 * activations already in it, so its period lasts until its last sample (last: 0 none); other
 * code that ran after a later load was not replaced by it (node 20 names V8's OSR code and
 * the function's normal code alike, and they run side by side): it is running. Not past an
 * unload: samples there are not the load's (RP_FRAME_UNLOADED). */
static void active_period(const struct rp_session *s, struct rp_gen_row *r,
			  const struct rp_load *const *order, size_t i, size_t j, uint64_t last)
{
	const struct rp_load *l = r->load;
	uint64_t end = s->end > l->load_time ? s->end : l->load_time, until = end;
	r->until_src = RP_UNTIL_END;
	r->next = NULL;
	r->from_src = RP_FROM_LOAD;
	r->from_ns = l->load_time;
	if (backfilled(l)) {
		r->from_src = l->install_time ? RP_FROM_COMPILE : RP_FROM_BEFORE_ATTACH;
		r->from_ns = l->install_time;
	}
	for (size_t k = i; k < j; k++)
		if (takes_over(l, order[k]) && (!r->next || sooner(order[k], r->next)))
			r->next = order[k];
	if (r->next && backfilled(r->next))	/* replaced before the attach reported both */
		until = l->load_time, r->until_src = RP_UNTIL_BEFORE_ATTACH;
	else if (r->next && r->next->load_time < until)
		until = r->next->load_time, r->until_src = RP_UNTIL_NEXT_GEN;
	if (l->not_entrant_time && l->not_entrant_time < until)
		until = l->not_entrant_time, r->until_src = RP_UNTIL_NOT_ENTRANT;
	if (l->unload_time && l->unload_time < until)
		until = l->unload_time, r->until_src = RP_UNTIL_UNLOAD;
	if (last > until && r->until_src != RP_UNTIL_UNLOAD && r->until_src != RP_UNTIL_END &&
	    !hotspot(l))
		until = end, r->until_src = RP_UNTIL_END, r->next = NULL;
	r->ended_by = ended_by(l, r->until_src);
	if (last > until && r->until_src != RP_UNTIL_UNLOAD)
		until = last, r->until_src = RP_UNTIL_LAST_SAMPLE;
	r->until_ns = until;
	r->active_from_s = r->from_ns ? (r->from_ns > s->start ? rel_s(s, r->from_ns)
					 : -((s->start - r->from_ns) / 1e9)) : 0;
	r->active_until_s = rel_s(s, until);
	/* the rate over the part of the period the recording saw */
	uint64_t seen = r->from_ns > s->start ? r->from_ns : s->start;
	r->per_sec = until > seen ? l->samples / ((until - seen) / 1e9) : 0;
}

static uint64_t proc_samples(const struct rp_session *s, uint32_t pid)
{
	uint64_t n = 0;
	for (size_t i = 0; i < s->nr_samples; i++)
		n += s->samples[i].pid == pid;
	return n;
}

int rp_gen_view_build(struct rp_gen_view *v, const struct rp_session *s, const char *method)
{
	return rp_gen_view_build_all(v, s, method, 0);
}

int rp_gen_view_build_all(struct rp_gen_view *v, const struct rp_session *s, const char *method,
			  int all)
{
	memset(v, 0, sizeof(*v));
	struct rp_name_match nm;
	if (method)
		rp_name_match_init(&nm, method);
	int ret = -ENOMEM;
	struct hit *hits = malloc((s->nr_samples + 1) * sizeof(*hits));
	const struct rp_load **order = malloc((s->nr_loads + 1) * sizeof(*order));
	uint64_t *last = calloc(s->nr_loads + 1, sizeof(*last));	/* per load, 1-based */
	struct jp_hindex ht = { 0 };
	size_t nr_hits = 0;
	uint64_t psamples = 0;
	uint32_t last_pid = 0;
	int have_pid = 0;
	if (!hits || !order || !last)
		goto out;
	/* Counted per (load, file, line) (a dense recording's 200k samples land on a few
	 * thousand), then those sorted: sorting every sample's hit was most of the HTML page's
	 * timeline. */
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_frame *f = rp_leaf(s, &s->samples[i]);
		v->total_samples++;
		if (f->flags & RP_FRAME_UNLOADED)
			v->unloaded_samples++;
		else if (f->flags & RP_FRAME_UNKNOWN)
			v->unknown_samples++;
		else if (f->load && count_hit(&ht, hits, &nr_hits, f))
			goto out;
		else if (f->load && f->load <= s->nr_loads && s->samples[i].time > last[f->load])
			last[f->load] = s->samples[i].time;
	}
	if (nr_hits > 1)
		qsort(hits, nr_hits, sizeof(*hits), hit_order);
	for (size_t i = 0; i < s->nr_loads; i++)
		order[i] = &s->loads[i];
	if (s->nr_loads > 1)
		qsort(order, s->nr_loads, sizeof(*order), load_ptr_order);

	for (size_t i = 0; i < s->nr_loads;) {
		size_t j = i;
		const char *ident = rp_load_ident(order[i]);
		while (j < s->nr_loads && order[j]->pid == order[i]->pid &&
		       order[j]->runtime == order[i]->runtime && rp_load_ident(order[j]) == ident)
			j++;
		/* Runtime code: distinct blobs sharing a name, counted apart, never generations. */
		for (size_t k = i; k < j && order[i]->runtime; k++) {
			v->runtime_loads++;
			v->runtime_samples += order[k]->samples;
		}
		const char *title = rp_load_title(order[i]);
		int match = title && !order[i]->runtime &&
			    (method ? rp_name_matches(&nm, title) : all || j - i > 1);
		if (!match) {
			i = j;
			continue;
		}
		if (JP_GROW_FOR(v->methods, v->cap_methods, v->nr_methods))
			goto out;
		struct rp_gen_method *m = &v->methods[v->nr_methods++];
		*m = (struct rp_gen_method){ .pid = order[i]->pid, .method = title };
		m->rows = calloc(j - i, sizeof(*m->rows));
		if (!m->rows)
			goto out;
		/* Groups come sorted by pid: count each process once. */
		if (!have_pid || order[i]->pid != last_pid) {
			psamples = proc_samples(s, order[i]->pid);
			last_pid = order[i]->pid;
			have_pid = 1;
		}
		for (size_t k = i; k < j; k++) {
			const struct rp_load *l = order[k];
			struct rp_gen_row *r = &m->rows[m->nr_rows++];
			uint64_t end = l->end_time ? l->end_time : s->end;
			r->load = l;
			r->samples = l->samples;
			r->proc_samples = psamples;
			r->rel_load_s = rel_s(s, l->load_time);
			r->lifetime_s = end > l->load_time ? (end - l->load_time) / 1e9 : 0;
			r->share = psamples ? (double)l->samples / psamples : 0;
			active_period(s, r, order, i, j, last[l - s->loads + 1]);
			/* hits are sorted by load index: find this load's run. */
			uint32_t idx = (uint32_t)(l - s->loads) + 1;
			size_t lo = 0, hi = nr_hits;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (hits[mid].load < idx)
					lo = mid + 1;
				else
					hi = mid;
			}
			size_t end_run = lo;
			while (end_run < nr_hits && hits[end_run].load == idx)
				end_run++;
			hot_lines(r, hits + lo, end_run - lo);
		}
		i = j;
	}
	/* Where the time went first: methods by samples over all their generations. */
	if (v->nr_methods > 1)
		qsort(v->methods, v->nr_methods, sizeof(*v->methods), method_order);
	ret = 0;
out:
	if (method)
		rp_name_match_fini(&nm);
	free(hits);
	free(order);
	free(last);
	jp_hindex_free(&ht);
	if (ret)
		rp_gen_view_free(v);
	return ret;
}

void rp_gen_view_free(struct rp_gen_view *v)
{
	for (size_t i = 0; i < v->nr_methods; i++)
		free(v->methods[i].rows);
	free(v->methods);
	memset(v, 0, sizeof(*v));
}
