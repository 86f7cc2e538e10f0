/* views_int.h - what the views' own files share beyond views.h: escaping, folded stacks,
 * the stack tree, string tables, the HTML page's parts, the generations table's columns.
 * Not for other modules. */
#ifndef JITPROF_REPORT_VIEWS_INT_H
#define JITPROF_REPORT_VIEWS_INT_H

#include "recorder/report_views/views.h"

/* JSON string escaping and XML escaping to a stream. */
void rp_json_str(FILE *out, const char *str);
void rp_xml_str(FILE *out, const char *str);


/* gen_inlined.c: --generations --method's rows for the matching methods' inlined frames
 * (samples with one the innermost method, per generation of the code it was inlined into),
 * their number of rows in *printed. 0, -ENOMEM or -EIO. */
int rp_gen_print_inlined(FILE *out, const struct rp_session *s, const char *method,
			 size_t *printed);

/* gen_explain.c: the generations table's columns and detail lines, its source notes, and
 * the per-generation JSON fields of docs/generations.schema.json. */
void rp_gen_print_head(FILE *out);
void rp_gen_print_row(FILE *out, const struct rp_gen_row *r);
void rp_gen_print_detail(FILE *out, const struct rp_gen_row *r);
/* What the JVM log says ended r, one line ("deoptimized: unstable_if, action reinterpret, at
 * ... line 27 bci 12", "dependency broken: ..."), whole in buf: buf->s, or NULL when it says
 * nothing. Out of memory is jp_nomem (its callers print, with no error path). */
const char *rp_gen_end_detail(const struct rp_gen_row *r, struct jp_str *buf);
/* --compare's inlining decisions (JVM log) that differ: a call site only one compile looked
 * at, or one decided differently (compare_inline.c). */
void rp_compare_inline_diff(FILE *out, const struct rp_load *la, const struct rp_load *lb);
/* The HTML timeline's fields of one generation (after the row's opening brace): level, compile
 * id, end of its active period, what ended it, by which generation, and the log's why (or how
 * it was replaced: "higher_tier", ...). */
void rp_gen_html_fields(FILE *out, const struct rp_gen_row *r);
/* The HTML timeline's line on its sources, as a JSON string: the JVM log joined, or for
 * HotSpot code without one how to get the reasons; null for other runtimes. */
void rp_gen_html_sources(FILE *out, const struct rp_session *s);
void rp_gen_print_sources(FILE *out, const struct rp_session *s);
void rp_gen_json_fields(FILE *out, const struct rp_gen_row *r);
void rp_gen_json_sources(FILE *out, const struct rp_session *s);	/* "jvm_log": ... */

/* Distinct folded stacks with their sample counts, sorted (collapsed and flame graph). */
struct rp_stack { char *stack; uint64_t count; };
struct rp_stacks { struct rp_stack *v; size_t n; };
int rp_collapse(const struct rp_session *s, struct rp_stacks *out);
void rp_stacks_free(struct rp_stacks *st);

/* The samples' stacks as a tree (flame graph, HTML): one node per distinct path of frames,
 * root = all samples, then the command, then frames outermost first (or, reversed, leaf
 * first: callers under each function). Frames are equal as the call graph's are: one
 * method's generations are one node unless split. */
struct rp_tnode {
	const struct rp_frame *f;	/* representative frame; NULL for the root and comms */
	const char *comm;		/* the command node's name */
	uint64_t count;
	uint32_t child, sibling, parent;
	uint32_t depth;
	uint32_t kinds[RP_KIND__MAX];	/* samples per frame kind (merged generations differ) */
	uint32_t narrow;		/* > 0: this node stands for that many narrow frames */
	uint8_t dropped;		/* pruned */
};
/* Samples through a node in the code of one generation: a jitted method's frame's own load,
 * an inlined frame's the load of the code it was inlined into (its nearest caller frame that
 * is not inlined): a frame's details count that frame's samples, not the method's. */
struct rp_tgen {
	uint32_t node, load, samples;
};
struct rp_tree {
	struct rp_tnode *n;
	size_t nr, cap;
	uint32_t max_depth;
	uint64_t cut_stacks, cut_samples;	/* stopped at the node limit, their samples */
	struct rp_tgen *gens;			/* rp_trees_build's gens: the callees' tree's */
	size_t nr_gens, cap_gens;
};
/* A tree has at most this many nodes (about 80 MB): 50k samples of distinct 512-frame chains
 * (289 KB of perf.data) made 25 million, 3.3 GB with the callers' tree. A stack that needs a
 * node past it stops where it is, its samples counted in the frame reached. */
#define RP_TREE_MAX_NODES (1u << 20)
/* Says once what the limit cut from the picture (nothing when nothing was). */
void rp_tree_log_cut(const struct rp_tree *t, uint32_t max_nodes, const struct jp_log *log);
int rp_tree_build(struct rp_tree *t, const struct rp_session *s, int reverse);
/* The tree and the callers' tree (rev, when not NULL) of the same samples, whose distinct
 * stacks are found once for both (the HTML report shows both); gens: t's gens too. */
int rp_trees_build(struct rp_tree *t, struct rp_tree *rev, const struct rp_session *s,
		   int gens);
void rp_tree_free(struct rp_tree *t);
/* The node's most frequent kind, and its name as stacks print it (tagged). */
enum rp_kind rp_tnode_kind(const struct rp_tnode *n);
const char *rp_tnode_name(const struct rp_session *s, const struct rp_tnode *n,
			  struct jp_str *buf);
/* Children narrower than min_count samples are replaced by one node "[N narrow frames]"
 * (dropped if that too is narrow); depth recomputed. 0, or -ENOMEM (the tree is then not
 * to be drawn: without that node it would show another answer). */
int rp_tree_prune(struct rp_tree *t, uint64_t min_count);
/* Children in order: heaviest first for stable pictures. 0 or -ENOMEM (the order not
 * made: the tree is not to be drawn). */
int rp_tree_sort(struct rp_tree *t);
/* Differential pictures: the child of node b of base's tree bt that matches node n (named
 * name) of the shown tree: the same name, or both the narrow frames of their parent.
 * RP_NO_NODE when there is none (b itself may be RP_NO_NODE). */
#define RP_NO_NODE UINT32_MAX
uint32_t rp_tree_match(const struct rp_session *base, const struct rp_tree *bt, uint32_t b,
		       const struct rp_tnode *n, const char *name);

/* Distinct (string, tag) pairs numbered from 0 in first-seen order (strtab.c). Zero-init. */
struct rp_strtab {
	struct rp_u64map idx;
	char **str;
	uintptr_t *tag;
	size_t n, cap;
};
int rp_strtab_id(struct rp_strtab *t, const char *str, uintptr_t tag, uint32_t *id);
void rp_strtab_free(struct rp_strtab *t);

/* The HTML page's data block in parts. html_tree.c: ,"names":[...],"tree":{...} (and
 * "rtree" with a base) of ss[0], and with n > 1 ,"tab_trees":[{...}...] of the others, their
 * names in the one table; present[k][kind] set for the kinds session k draws; rp_put_long: a
 * long after sep (0: none).
 * html_summary.c: ,"summary":{...} (processes, methods, warnings) and ,"lines":[...],
 * "no_line":N (the hottest lines with their method). 0 or -ENOMEM. */
int rp_html_tree(FILE *out, const struct rp_session *const *ss, size_t n,
		 const struct rp_html_opts *o, uint32_t (*present)[RP_KIND__MAX]);
void rp_put_long(FILE *out, char sep, long v);
int rp_html_summary(FILE *out, const struct rp_session *s);
int rp_html_lines(FILE *out, const struct rp_session *s, size_t max_rows);
/* html_jvm_summary.c: the same parts for the JVM's own samples (s->jvm_leaf: alloc, lock),
 * whose methods and lines are their sites, the frame below the class leaf
 * (rp_jvm_sample_site: NULL when the sample has none, or another session's). */
const struct rp_frame *rp_jvm_sample_site(const struct rp_session *s,
					  const struct rp_sample *smp);
int rp_html_jvm_methods(FILE *out, const struct rp_session *s, size_t max_rows);
int rp_html_jvm_lines(FILE *out, const struct rp_session *s, size_t max_rows);

/* recorder/report/html/report.{js,css}, NUL-terminated (generated at build time). */
extern const char rp_html_js[], rp_html_css[];

#endif
