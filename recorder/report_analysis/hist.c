/* hist.c - aggregation of samples by sort keys into entries, ordered the way perf report
 * orders them (period descending, ties by each key ascending) so the tables can be compared
 * row by row. One hash pass over the samples; keys compare interned pointers. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hindex.h"
#include "recorder/report_analysis/analysis_int.h"

static const char *const key_names[RP_KEY__MAX] = {
	[RP_KEY_COMM] = "comm", [RP_KEY_PID] = "pid", [RP_KEY_DSO] = "dso",
	[RP_KEY_SYM] = "sym", [RP_KEY_SRCLINE] = "srcline", [RP_KEY_GENERATION] = "generation",
};

const char *rp_key_name(enum rp_key k)
{
	return k < RP_KEY__MAX ? key_names[k] : "?";
}

int rp_parse_sort(const char *spec, enum rp_key *keys, int *nr, const struct jp_log *log)
{
	*nr = 0;
	const char *p = spec;
	while (*p) {
		size_t n = strcspn(p, ",");
		int found = -1;
		for (int k = 0; k < RP_KEY__MAX; k++)
			if (strlen(key_names[k]) == n && !strncmp(p, key_names[k], n))
				found = k;
		if (found < 0 || *nr >= RP_MAX_KEYS) {
			jp_logf(log, JP_LOG_ERROR, "unknown or too many sort keys at '%.*s' (keys: "
				"comm, pid, dso, sym, srcline, generation)", (int)n, p);
			return -EINVAL;
		}
		keys[(*nr)++] = (enum rp_key)found;
		p += n;
		if (*p == ',')
			p++;
	}
	if (!*nr) {
		jp_logf(log, JP_LOG_ERROR, "empty sort key list");
		return -EINVAL;
	}
	return 0;
}

/* Samples whose srcline is unknown collapse into one "??:0" row, as perf does, unless the
 * symbol is unknown too: then the address is all there is. */
static int srcline_by_addr(const struct rp_frame *f)
{
	return !f->srcfile && !f->sym;
}

static int no_map(const struct rp_frame *f)
{
	return !f->dso || (f->dso[0] == '[' && !strcmp(f->dso, "[unknown]"));
}

static uint64_t key_hash(const struct rp_hist *h, const struct rp_sample *smp,
			 const struct rp_frame *f, const enum rp_key *keys, int nr)
{
	uint64_t v[RP_MAX_KEYS * 2];
	int n = 0;
	for (int i = 0; i < nr; i++) {
		switch (keys[i]) {
		case RP_KEY_COMM: v[n++] = (uintptr_t)smp->comm; break;
		case RP_KEY_PID: v[n++] = smp->pid; break;
		case RP_KEY_DSO: v[n++] = (uintptr_t)f->dso; break;
		case RP_KEY_SYM:
			if (h->merge_gens && rp_frame_jitted(h->s, f)) {
				/* a method: its name, whichever generation's ELF ran it */
				v[n++] = (uintptr_t)f->sym;
				v[n++] = f->flags & RP_METHOD_MARKS;
				v[n++] = 1;
				break;
			}
			/* perf keys symbols by identity: two symbols of one name are two rows. */
			v[n++] = f->sym ? (uintptr_t)f->sym : f->addr;
			v[n++] = f->sym ? f->addr - f->symoff : 0;
			v[n++] = (uintptr_t)f->dso;
			break;
		case RP_KEY_SRCLINE:
			v[n++] = srcline_by_addr(f) ? f->addr : (uintptr_t)f->srcfile;
			v[n++] = f->line;
			break;
		case RP_KEY_GENERATION: v[n++] = f->load; break;
		default: break;
		}
	}
	/* a word at a time: hashed for every sample, where a byte at a time was 24-32 dependent
	 * multiplies (a third of a dense HTML report's tables) */
	return rp_hash_words(v, n * sizeof(v[0]));
}

static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? -1 : 1;	/* resolved names before unresolved, like perf's cmp_null */
	return strcmp(a, b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Orders two samples, of leaf frames fa and fb, by one key; 0 means "same entry" for that
 * key. */
static int key_cmp(const struct rp_hist *h, const struct rp_sample *a,
		   const struct rp_frame *fa, const struct rp_sample *b,
		   const struct rp_frame *fb, enum rp_key k)
{
	const struct rp_session *s = h->s;
	int c;
	switch (k) {
	case RP_KEY_COMM: return cmp_str(a->comm, b->comm);
	case RP_KEY_PID: return cmp_u64(a->pid, b->pid);
	case RP_KEY_DSO:
		if (fa->dso == fb->dso)
			return 0;	/* interned: the same name (every sample but a row's first) */
		/* perf sorts samples outside every map after all the others. */
		if (no_map(fa) != no_map(fb))
			return no_map(fa) ? 1 : -1;
		return cmp_str(fa->dso, fb->dso);
	case RP_KEY_SYM:
		if (h->merge_gens && (rp_frame_jitted(s, fa) || rp_frame_jitted(s, fb)))
			return rp_method_cmp(s, fa, fb);
		if (fa->sym || fb->sym) {
			if ((c = cmp_str(fa->sym, fb->sym)))
				return c;
			if ((c = cmp_str(fa->dso, fb->dso)))
				return c;
			return cmp_u64(fa->addr - fa->symoff, fb->addr - fb->symoff);
		}
		return cmp_u64(fa->addr, fb->addr);
	case RP_KEY_SRCLINE:
		if (srcline_by_addr(fa) != srcline_by_addr(fb))
			return srcline_by_addr(fa) ? 1 : -1;
		if (srcline_by_addr(fa))
			return cmp_u64(fa->addr, fb->addr);
		if ((c = cmp_str(fa->srcfile, fb->srcfile)))
			return c;
		return cmp_u64(fa->line, fb->line);
	case RP_KEY_GENERATION: {
		const struct rp_load *la = fa->load ? &s->loads[fa->load - 1] : NULL;
		const struct rp_load *lb = fb->load ? &s->loads[fb->load - 1] : NULL;
		if (!la || !lb)
			return la ? -1 : lb ? 1 : 0;
		if ((c = cmp_str(la->method, lb->method)))
			return c;
		if ((c = cmp_u64(la->generation, lb->generation)))
			return c;
		return cmp_u64(fa->load, fb->load);
	}
	default:
		return 0;
	}
}

static const struct rp_hist *sort_hist;

static int entry_order(const void *pa, const void *pb)
{
	const struct rp_entry *a = pa, *b = pb;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	for (int i = 0; i < sort_hist->nr_keys; i++) {
		int c = key_cmp(sort_hist, a->first, a->leaf, b->first, b->leaf,
				sort_hist->keys[i]);
		if (c)
			return c;
	}
	return 0;
}

/* A sample's row key: the sample and the frame its row is read from. */
struct hist_key {
	const struct rp_sample *smp;
	const struct rp_frame *leaf;
};

static int entry_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct hist_key *k = key;
	const struct rp_hist *h = ctx;
	const struct rp_entry *o = &h->entries[idx];
	for (int i = 0; i < h->nr_keys; i++)
		if (key_cmp(h, k->smp, k->leaf, o->first, o->leaf, h->keys[i]))
			return 0;
	return 1;
}

int rp_hist_build(struct rp_hist *h, const struct rp_session *s, const enum rp_key *keys,
		  int nr_keys, int need_members)
{
	memset(h, 0, sizeof(*h));
	h->s = s;
	h->nr_keys = nr_keys < RP_MAX_KEYS ? nr_keys : RP_MAX_KEYS;
	memcpy(h->keys, keys, h->nr_keys * sizeof(*keys));
	rp_hist_method_mode(h);

	struct jp_hindex ix = { 0 };	/* the entries by their keys */
	uint32_t *owner = malloc((s->nr_samples + 1) * sizeof(*owner));
	size_t ecap = s->nr_samples < 1024 ? s->nr_samples + 1 : 1024;	/* rows <= samples */
	h->entries = malloc(ecap * sizeof(*h->entries));
	if (!owner || !h->entries) {
		free(owner);
		free(h->entries);
		h->entries = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		const struct rp_frame *leaf = h->innermost ? rp_method_frame(s, smp) : rp_leaf(s, smp);
		uint64_t hv = key_hash(h, smp, leaf, h->keys, h->nr_keys);
		const struct hist_key hk = { smp, leaf };
		int64_t at = jp_hindex_find(&ix, hv, &hk, entry_eq, h);
		if (at < 0) {
			if (JP_GROW_FOR(h->entries, ecap, h->nr_entries) ||
			    jp_hindex_add(&ix, hv, h->nr_entries)) {
				jp_hindex_free(&ix);
				free(owner);
				rp_hist_free(h);
				return -ENOMEM;
			}
			struct rp_entry *e = &h->entries[h->nr_entries];
			memset(e, 0, sizeof(*e));
			e->first = smp;
			e->leaf = leaf;
			at = (int64_t)h->nr_entries++;
		}
		struct rp_entry *e = &h->entries[at];
		e->period += smp->period;
		e->samples++;
		owner[i] = (uint32_t)at;
		h->total_period += smp->period;
		h->total_samples++;
	}
	jp_hindex_free(&ix);

	int rc = 0;
	if (need_members) {
		/* Counting sort of sample indexes by entry: one block, entries point into it. */
		uint32_t *all = malloc((s->nr_samples + 1) * sizeof(*all));
		size_t *pos = calloc(h->nr_entries + 1, sizeof(*pos));
		if (!all || !pos) {
			free(all);
			free(pos);
			rc = -ENOMEM;
		} else {
			for (size_t e = 0, acc = 0; e < h->nr_entries; e++) {
				pos[e] = acc;
				acc += h->entries[e].samples;
			}
			for (size_t e = 0; e < h->nr_entries; e++)
				h->entries[e].members = all + pos[e];
			for (size_t i = 0; i < s->nr_samples; i++) {
				struct rp_entry *e = &h->entries[owner[i]];
				e->members[e->nr_members++] = (uint32_t)i;
			}
			free(pos);
			if (!h->nr_entries)
				free(all);	/* no entry points into it */
		}
	}
	free(owner);
	sort_hist = h;
	if (h->nr_entries > 1)
		qsort(h->entries, h->nr_entries, sizeof(*h->entries), entry_order);
	sort_hist = NULL;
	return rc;
}

/* The members block: entries point into it, the lowest pointer is its start (entries are
 * sorted after they got their slices). Kept out of the public struct. */
static uint32_t *members_block(const struct rp_hist *h)
{
	uint32_t *b = NULL;
	for (size_t e = 0; e < h->nr_entries; e++)
		if (h->entries[e].members && (!b || h->entries[e].members < b))
			b = h->entries[e].members;
	return b;
}

void rp_hist_free(struct rp_hist *h)
{
	free(members_block(h));
	free(h->entries);
	memset(h, 0, sizeof(*h));
}

const char *rp_srcline_str(const struct rp_frame *f, struct jp_str *buf)
{
	if (srcline_by_addr(f))
		return jp_str_printf(buf, "%s[%" PRIx64 "]", f->dso ? f->dso : "[unknown]", f->addr);
	if (!f->srcfile)
		return "??:0";
	return jp_str_printf(buf, "%s:%u", f->srcfile, f->line);
}

/* Strings the entry holds are returned as they are, not copied: the table asks twice for each
 * of a sample-dense run's 20k rows. */
const char *rp_entry_key_str(const struct rp_hist *h, const struct rp_entry *e,
			     enum rp_key k, struct jp_str *buf)
{
	const struct rp_sample *smp = e->first;
	const struct rp_frame *f = e->leaf;
	switch (k) {
	case RP_KEY_COMM:
		return smp->comm ? smp->comm : ":?";
	case RP_KEY_PID:
		/* signed, as perf prints it: a sample without a task has pid -1 */
		return jp_str_printf(buf, "%7d:%s", (int)smp->pid, smp->comm ? smp->comm : "");
	case RP_KEY_DSO:
		return f->dso ? f->dso : "[unknown]";
	case RP_KEY_SYM:
		if (!f->sym)
			return jp_str_printf(buf, "[%c] 0x%016" PRIx64,
					     f->flags & RP_FRAME_KERNEL ? 'k' : '.', f->addr);
		/* "[k] " or "[.] ", the name; "_[i]" marks a method-centric row's inlined frame,
		 * "_[int]" an interpreted one (apart from the method's compiled rows) */
		return jp_str_printf(buf, "%s%s%s", f->flags & RP_FRAME_KERNEL ? "[k] " : "[.] ",
				     f->sym, f->flags & RP_FRAME_INLINED ? "_[i]"
					     : f->flags & RP_FRAME_INTERPRETED ? "_[int]" : "");
	case RP_KEY_SRCLINE:
		return rp_srcline_str(f, buf);
	case RP_KEY_GENERATION: {
		const struct rp_load *l = f->load ? &h->s->loads[f->load - 1] : NULL;
		if (!l)
			return "-";
		return jp_str_printf(buf, "gen %u%s%s", l->generation, l->tier ? " " : "",
				     l->tier ? rp_load_tier(l) : "");
	}
	default:
		return "?";
	}
}
