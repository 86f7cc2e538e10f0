/* tree.c - the samples' stacks as a tree of frames, shared by the pictures (flame graph SVG,
 * HTML): built once from the session (a hash of (parent, frame) finds a child in O(1) even
 * under a node with thousands of callees), frames too narrow to see merged, children ordered
 * heaviest first. */
#include "lib/grow.h"
#include "lib/hindex.h"
#include "lib/nomem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/views_int.h"

/* What makes two frames one node: one symbol (a method's generations merged unless split;
 * an inlined copy apart from the compiled code), or one address when unresolved. */
static uint64_t frame_key(const struct rp_session *s, const struct rp_frame *f)
{
	if (!f->sym)
		return f->ip * 0x9e3779b97f4a7c15ull + 1;
	uint64_t k = (uintptr_t)f->sym ^ (uint64_t)rp_frame_split_load(s, f) << 40;
	if (f->flags & RP_FRAME_INLINED)
		k ^= 1ull << 62;
	if (f->flags & RP_FRAME_INTERPRETED)	/* apart from the method's compiled code */
		k ^= 1ull << 61;
	return k;
}

static int same(const struct rp_session *s, const struct rp_tnode *n, const struct rp_frame *f,
		const char *comm)
{
	if (!n->f || !f)
		return !n->f && !f && n->comm == comm;
	return frame_key(s, n->f) == frame_key(s, f) && n->f->sym == f->sym;
}

static uint64_t mix(uint64_t parent, uint64_t key)
{
	uint64_t h = (parent + 1) * 0xff51afd7ed558ccdull ^ key;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return h ? h : 1;
}

/* The child of parent for frame f (or command comm), made if new: 0 out of memory,
 * RP_NO_NODE when a new one would pass max nodes. */
static uint32_t child_of(struct rp_tree *t, struct rp_u64map *idx, const struct rp_session *s,
			 uint32_t parent, const struct rp_frame *f, const char *comm, size_t max)
{
	uint64_t h = mix(parent, f ? frame_key(s, f) : (uintptr_t)comm);
	uint32_t c;
	/* Every node is put under its hash: none there, no such child. Another node there (a
	 * collision, which may have replaced ours) is when the siblings are searched, not for
	 * each new child: under the reversed tree's root, thousands of leaves, that search was
	 * two thirds of the HTML report's stack trees. */
	if (rp_map_get(idx, h, &c)) {
		if (t->n[c].parent == parent && same(s, &t->n[c], f, comm))
			return c;
		for (c = t->n[parent].child; c; c = t->n[c].sibling)
			if (same(s, &t->n[c], f, comm))
				return c;
	}
	if (t->nr >= max)
		return RP_NO_NODE;
	if (rp_grow(&t->n, &t->cap, t->nr + 1, sizeof(*t->n)))
		return 0;
	c = (uint32_t)t->nr++;
	t->n[c] = (struct rp_tnode){ .f = f, .comm = comm, .parent = parent,
				     .sibling = t->n[parent].child,
				     .depth = t->n[parent].depth + 1 };
	t->n[parent].child = c;
	if (t->n[c].depth > t->max_depth)
		t->max_depth = t->n[c].depth;
	if (rp_map_put(idx, h, c) < 0)
		return 0;
	return c;
}

/* The path of the sample before: per level its key (a frame's reference in the chain, or the
 * command), the node and the kind. A sample whose outer levels are the previous sample's (the
 * same thread a moment later, mostly) takes those nodes again without looking them up: equal
 * references are the same frame, under the same parent the same node. */
struct prev_path {
	uint64_t *key;
	uint32_t *node;
	uint8_t *comm, *kind;
	size_t n, cap;
};

static int path_room(struct prev_path *p, size_t levels)
{
	if (levels <= p->cap)
		return 0;
	size_t cap = levels * 2;
	uint64_t *key = realloc(p->key, cap * sizeof(*key));
	if (key)
		p->key = key;
	uint32_t *node = realloc(p->node, cap * sizeof(*node));
	if (node)
		p->node = node;
	uint8_t *comm = realloc(p->comm, cap), *kind = comm ? realloc(p->kind, cap) : NULL;
	if (comm)
		p->comm = comm;
	if (kind)
		p->kind = kind;
	if (!key || !node || !comm || !kind)
		return -ENOMEM;
	p->cap = cap;
	return 0;
}

static void path_free(struct prev_path *p)
{
	free(p->key);
	free(p->node);
	free(p->comm);
	free(p->kind);
}

/* The samples' distinct stacks (command and frame references) in the order each first
 * appears, each with how many samples have it. A tree made from them, weighted, is the tree
 * made from every sample: a node is created by the first sample through it, which is the first
 * of its stack, and counts and kinds add up the same. A hot loop repeats a few thousand stacks
 * over 100k+ samples, and the callers' tree, whose paths start at the leaf, shares little
 * between one sample and the next: per sample, one hash of its references instead of a lookup
 * per frame. A group's references are copied together, so telling stacks apart reads no
 * earlier sample's chain (a cache miss each). */
struct stack_group {
	uint32_t sample;	/* the first with the stack */
	uint64_t weight;	/* samples with it (their time: rp_stack_weight) */
	uint32_t samples;	/* samples with it (the kinds count those) */
	uint32_t ref;		/* its references: refs[ref .. ref + that sample's nr) */
};
struct stack_groups {
	struct stack_group *v;
	size_t n, cap;
	uint32_t *refs;
	size_t nr_refs, refs_cap;
	struct jp_hindex ix;	/* the groups by their stack */
};

static void groups_free(struct stack_groups *g)
{
	free(g->v);
	free(g->refs);
	jp_hindex_free(&g->ix);
}

/* Sample smp has group k's stack. */
static int same_stack(const struct rp_session *s, const struct stack_groups *g, uint32_t k,
		      const struct rp_sample *smp)
{
	const struct rp_sample *o = &s->samples[g->v[k].sample];
	return o->comm == smp->comm && o->nr == smp->nr &&
	       (!smp->nr || !memcmp(&g->refs[g->v[k].ref], &s->chain[smp->first],
				    smp->nr * sizeof(*g->refs)));
}

struct group_key {
	const struct rp_session *s;
	const struct stack_groups *g;
};

static int group_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct group_key *k = ctx;
	return same_stack(k->s, k->g, idx, key);
}

static int group_stacks(const struct rp_session *s, struct stack_groups *g)
{
	memset(g, 0, sizeof(*g));
	const struct group_key key = { s, g };
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		size_t bytes = smp->nr * sizeof(*s->chain);
		uint64_t h = (smp->nr ? rp_hash_words(&s->chain[smp->first], bytes) : 0) ^
			     (uintptr_t)smp->comm * 0x9e3779b97f4a7c15ull;
		int64_t k = jp_hindex_find(&g->ix, h, smp, group_eq, &key);
		if (k >= 0) {
			g->v[k].weight += rp_stack_weight(s, smp);
			g->v[k].samples++;
			continue;
		}
		if (rp_grow(&g->v, &g->cap, g->n + 1, sizeof(*g->v)) ||
		    g->nr_refs + smp->nr > UINT32_MAX ||
		    rp_grow(&g->refs, &g->refs_cap, g->nr_refs + smp->nr + 1, sizeof(*g->refs)) ||
		    jp_hindex_add(&g->ix, h, g->n))
			return -ENOMEM;
		if (smp->nr)
			memcpy(&g->refs[g->nr_refs], &s->chain[smp->first], bytes);
		g->v[g->n++] = (struct stack_group){ (uint32_t)i, rp_stack_weight(s, smp), 1,
						     (uint32_t)g->nr_refs };
		g->nr_refs += smp->nr;
	}
	return 0;
}

/* n more samples through node in load's code (the gens table's (node, load) index in gi). */
static int gen_add(struct rp_tree *t, struct rp_u64map *gi, uint32_t node, uint32_t load,
		   uint32_t n)
{
	uint64_t key = (uint64_t)node << 32 | load;
	uint32_t at;
	if (rp_map_get(gi, key, &at)) {
		t->gens[at - 1].samples += n;
		return 0;
	}
	if (t->nr_gens >= UINT32_MAX - 1 ||
	    rp_grow(&t->gens, &t->cap_gens, t->nr_gens + 1, sizeof(*t->gens)))
		return -ENOMEM;
	t->gens[t->nr_gens++] = (struct rp_tgen){ node, load, n };
	return rp_map_put(gi, key, (uint32_t)t->nr_gens) < 0 ? -ENOMEM : 0;
}

/* The generation whose code a frame of a method runs in, given that of the frame outside it
 * (host, 0 none): its own load, or, inlined, the host's; 0 for anything else. */
static uint32_t code_load(const struct rp_session *s, const struct rp_frame *f, uint32_t host)
{
	if (!f || !f->sym || (f->flags & RP_FRAME_INTERPRETED))
		return 0;
	if (f->flags & RP_FRAME_INLINED)
		return host;
	return f->load && f->load <= s->nr_loads && !s->loads[f->load - 1].runtime ? f->load : 0;
}

/* The tree (reverse: the callers') of s's samples from their distinct stacks g; gens (not
 * reversed: a frame's host is outside it) with each node's samples per generation. */
static int build_from(struct rp_tree *t, const struct rp_session *s, const struct stack_groups *g,
		      int reverse, int gens)
{
	struct rp_u64map idx = { 0 }, gi = { 0 };
	struct prev_path prev = { 0 };
	int rc = 0;
	size_t max = s->tree_max_nodes ? s->tree_max_nodes : RP_TREE_MAX_NODES;
	memset(t, 0, sizeof(*t));
	/* nodes <= 1 + frames + samples: a small recording needs no 1024-node start */
	t->cap = 1;
	for (size_t i = 0; i < s->nr_samples && t->cap < 1024; i++)
		t->cap += (size_t)s->samples[i].nr + 1;
	t->cap = t->cap < 1024 ? t->cap : 1024;
	t->nr = 1;
	t->n = calloc(t->cap, sizeof(*t->n));
	if (!t->n)
		return -ENOMEM;
	for (size_t i = 0; i < g->n && !rc; i++) {
		const struct rp_sample *smp = &s->samples[g->v[i].sample];
		uint64_t w = g->v[i].weight;
		size_t levels = (size_t)smp->nr + 1;
		uint32_t node = 0, host = 0;
		int same_so_far = 1;
		if ((rc = path_room(&prev, levels)))
			break;
		t->n[0].count += w;
		/* Flame: comm, outermost ... leaf. Reversed: leaf ... outermost, comm. */
		for (size_t k = 0; k < levels; k++) {
			int comm = reverse ? k == smp->nr : k == 0;
			size_t pos = reverse ? smp->first + k : smp->first + smp->nr - k;
			uint64_t key = comm ? (uintptr_t)smp->comm : s->chain[pos];
			enum rp_kind kind;
			if (same_so_far && k < prev.n && prev.key[k] == key && prev.comm[k] == comm) {
				node = prev.node[k];
				kind = prev.kind[k];
			} else {
				same_so_far = 0;
				const struct rp_frame *f = comm ? NULL : rp_chain_frame(s, pos);
				uint32_t c = child_of(t, &idx, s, node, f, f ? NULL : smp->comm, max);
				if (c == RP_NO_NODE) {	/* the rest of the stack is cut */
					t->cut_stacks++;
					t->cut_samples += w;
					levels = k;
					break;
				}
				if (!(node = c)) {
					rc = -ENOMEM;
					break;
				}
				kind = f ? rp_frame_kind(s, f) : RP_KIND_NATIVE;
				prev.key[k] = key;
				prev.comm[k] = (uint8_t)comm;
				prev.node[k] = node;
				prev.kind[k] = (uint8_t)kind;
			}
			t->n[node].count += w;
			t->n[node].kinds[kind] += g->v[i].samples;
			if (gens && !reverse && !comm &&
			    (host = code_load(s, rp_chain_frame(s, pos), host)) &&
			    (rc = gen_add(t, &gi, node, host, g->v[i].samples)))
				break;
		}
		prev.n = levels;
	}
	path_free(&prev);
	rp_map_free(&idx);
	rp_map_free(&gi);
	if (rc)
		rp_tree_free(t);
	return rc;
}

int rp_trees_build(struct rp_tree *t, struct rp_tree *rev, const struct rp_session *s,
		   int gens)
{
	struct stack_groups g;
	memset(t, 0, sizeof(*t));
	if (rev)
		memset(rev, 0, sizeof(*rev));
	int rc = group_stacks(s, &g);
	if (!rc)
		rc = build_from(t, s, &g, 0, gens);
	if (!rc && rev && (rc = build_from(rev, s, &g, 1, 0)))
		rp_tree_free(t);
	groups_free(&g);
	return rc;
}

int rp_tree_build(struct rp_tree *t, const struct rp_session *s, int reverse)
{
	struct stack_groups g;
	memset(t, 0, sizeof(*t));
	int rc = group_stacks(s, &g);
	if (!rc)
		rc = build_from(t, s, &g, reverse, 0);
	groups_free(&g);
	return rc;
}

void rp_tree_log_cut(const struct rp_tree *t, uint32_t max_nodes, const struct jp_log *log)
{
	if (t->cut_stacks)
		jp_logf(log, JP_LOG_WARN, "the stacks make more than %u nodes (RP_TREE_MAX_NODES): "
			"%" PRIu64 " distinct stacks (%" PRIu64 " samples) stop where the limit was "
			"reached, their samples counted in the frame reached",
			max_nodes ? max_nodes : RP_TREE_MAX_NODES, t->cut_stacks, t->cut_samples);
}

void rp_tree_free(struct rp_tree *t)
{
	free(t->n);
	free(t->gens);
	memset(t, 0, sizeof(*t));
}

enum rp_kind rp_tnode_kind(const struct rp_tnode *n)
{
	int best = RP_KIND_NATIVE;
	for (int k = 0; k < RP_KIND__MAX; k++)
		if (n->kinds[k] > n->kinds[best])
			best = k;
	return (enum rp_kind)best;
}

const char *rp_tnode_name(const struct rp_session *s, const struct rp_tnode *n,
			  struct jp_str *buf)
{
	if (n->f)
		return rp_frame_name(s, n->f, rp_stack_tag(s), buf);
	if (n->comm)
		return n->comm;
	if (n->narrow)
		return jp_str_printf(buf, "[%u narrow frames]", n->narrow);
	return "all";
}

static int by_count(const void *a, const void *b, void *ctx)
{
	const struct rp_tree *t = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (t->n[x].count != t->n[y].count)
		return t->n[x].count > t->n[y].count ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Visits nodes depth first without recursion (stacks can be 1000 frames deep). */
static int sort_children(struct rp_tree *t, uint32_t node, uint32_t **buf, size_t *cap)
{
	size_t n = 0;
	for (uint32_t c = t->n[node].child; c; c = t->n[c].sibling)
		n++;
	if (n < 2)
		return 0;
	if (n > *cap) {
		uint32_t *p = realloc(*buf, n * sizeof(*p));
		if (!p)
			return -ENOMEM;	/* unsorted, the picture would be another */
		*buf = p;
		*cap = n;
	}
	n = 0;
	for (uint32_t c = t->n[node].child; c; c = t->n[c].sibling)
		(*buf)[n++] = c;
	qsort_r(*buf, n, sizeof(**buf), by_count, t);
	t->n[node].child = (*buf)[0];
	for (size_t i = 0; i < n; i++)
		t->n[(*buf)[i]].sibling = i + 1 < n ? (*buf)[i + 1] : 0;
	return 0;
}

int rp_tree_sort(struct rp_tree *t)
{
	uint32_t *buf = NULL;
	size_t cap = 0;
	int rc = 0;
	/* Nodes are created after their parent: any order of visiting parents works. */
	for (size_t i = 0; i < t->nr && !rc; i++)
		rc = sort_children(t, (uint32_t)i, &buf, &cap);
	free(buf);
	return rc;
}

int rp_tree_prune(struct rp_tree *t, uint64_t min_count)
{
	if (!min_count)
		min_count = 1;
	/* Parents come before children in the array: one forward pass decides what stays. */
	t->max_depth = 0;
	for (size_t i = 0; i < t->nr; i++) {
		if (i && (t->n[i].dropped || t->n[t->n[i].parent].dropped)) {
			t->n[i].dropped = 1;
			continue;
		}
		if (t->n[i].depth > t->max_depth)
			t->max_depth = t->n[i].depth;
		uint64_t narrow = 0;
		uint32_t nr_narrow = 0, kinds[RP_KIND__MAX] = { 0 };
		uint32_t *link = &t->n[i].child, prev = 0;
		while (*link) {
			struct rp_tnode *c = &t->n[*link];
			if (c->count >= min_count) {
				prev = *link;
				link = &c->sibling;
				continue;
			}
			narrow += c->count;
			nr_narrow += c->narrow ? c->narrow : 1;
			for (int k = 0; k < RP_KIND__MAX; k++)
				kinds[k] += c->kinds[k];
			c->dropped = 1;
			*link = c->sibling;
		}
		if (narrow < min_count || nr_narrow < 2)
			continue;
		/* The frames too narrow to draw, as one: their share stays visible. */
		if (JP_GROW_FOR(t->n, t->cap, t->nr))
			return -ENOMEM;	/* a picture without the box would be another answer */
		uint32_t m = (uint32_t)t->nr++;
		t->n[m] = (struct rp_tnode){ .count = narrow, .parent = (uint32_t)i,
					     .depth = t->n[i].depth + 1, .narrow = nr_narrow };
		memcpy(t->n[m].kinds, kinds, sizeof(kinds));
		*(prev ? &t->n[prev].sibling : &t->n[i].child) = m;
	}
	return 0;
}

uint32_t rp_tree_match(const struct rp_session *base, const struct rp_tree *bt, uint32_t b,
		       const struct rp_tnode *n, const char *name)
{
	struct jp_str buf = { 0 };
	uint32_t found = RP_NO_NODE;
	if (b == RP_NO_NODE)
		return RP_NO_NODE;
	for (uint32_t c = bt->n[b].child; c && found == RP_NO_NODE; c = bt->n[c].sibling) {
		const struct rp_tnode *x = &bt->n[c];
		/* The narrow frames of one parent, however many, are the same box. */
		if (n->narrow ? x->narrow > 0 :
		    !x->narrow && !strcmp(rp_tnode_name(base, x, &buf), name))
			found = c;
	}
	if (jp_str_free(&buf))
		jp_nomem("a flame graph frame's name");	/* no path: NO_NODE means "new" */
	return found;
}
