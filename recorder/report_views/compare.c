/* compare.c - two generations of one method side by side: the share of each generation's
 * samples per source line, then per instruction (capstone disassembly of the code bytes kept
 * from the ELF .text or the dump), so a recompile can be judged line by line. */
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dynload.h"
#include "recorder/report_views/views_int.h"

/* capstone is loaded by --compare alone (lib/dynload.h: linked, its relocations cost every
 * run ~6 ms at start). Its soname comes from the build (recorder/module.mk). */
#ifndef JP_SONAME_CAPSTONE
#define JP_SONAME_CAPSTONE "libcapstone.so.4"
#endif
/* Each field is the capstone function of its name: the list gives both. */
#define CS_FNS(X) X(cs_open) X(cs_close) X(cs_disasm) X(cs_free)
static struct {
#define CS_FIELD(f) __typeof__(f) *f;
	CS_FNS(CS_FIELD)
#undef CS_FIELD
} cs_api;
static struct jp_dynlib capstone = {
	.soname = JP_SONAME_CAPSTONE,
#define CS_NAME(f) #f,
	.names = (const char *const[]){ CS_FNS(CS_NAME) },
#undef CS_NAME
	.slots = (void **)&cs_api,
	.n = sizeof(cs_api) / sizeof(void *),
};

#define COL 60

struct gen_samples {
	const struct rp_load *l;
	uint32_t idx;
	uint64_t *ips;		/* sorted leaf offsets from the method start (code may move) */
	const struct rp_frame **frames;	/* leaf frames, same order as collected */
	size_t n;
};

static int u64_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int collect(const struct rp_session *s, struct gen_samples *g)
{
	g->n = 0;
	g->ips = malloc((g->l->samples + 1) * sizeof(*g->ips));
	g->frames = malloc((g->l->samples + 1) * sizeof(*g->frames));
	if (!g->ips || !g->frames)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_samples && g->n < g->l->samples; i++) {
		const struct rp_frame *f = rp_leaf(s, &s->samples[i]);
		if (f->load == g->idx && !(f->flags & RP_FRAME_UNLOADED)) {
			g->frames[g->n] = f;
			g->ips[g->n++] = f->sym ? f->symoff : f->ip - g->l->code_addr;
		}
	}
	if (g->n > 1)
		qsort(g->ips, g->n, sizeof(*g->ips), u64_order);
	return 0;
}

static size_t count_range(const struct gen_samples *g, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = g->n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (g->ips[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	size_t n = 0;
	while (a + n < g->n && g->ips[a + n] < hi)
		n++;
	return n;
}

/* The methods a pattern matches, refused: -ENOTUNIQ. Formatted here and handed to the log as
 * it is, not through jp_logf: list's newlines are the message's own lines (its names were
 * escaped as it was made). */
static int say_candidates(const struct jp_log *log, const char *method, size_t nr,
			  const char *list)
{
	static const char head[] = "'%s' matches %zu methods, give one exactly:";
	int n = sio_snprintf_text(NULL, 0, head, method, nr);
	char *msg = n < 0 ? NULL : malloc((size_t)n + strlen(list) + 1);
	if (!msg)
		return jp_logf(log, JP_LOG_ERROR, "out of memory"), -ENOMEM;
	sio_snprintf_text(msg, (size_t)n + 1, head, method, nr);
	strcpy(msg + n, list);
	if (log && log->fn)
		log->fn(log->ctx, JP_LOG_ERROR, msg);
	free(msg);
	return -ENOTUNIQ;
}

/* Picks the loads: an exact method name (rp_load_title) first, else as --method matches; both
 * generations in one process, the one with the most samples in them when several qualify. */
static int find_pair(const struct rp_session *s, const char *method, uint32_t ga, uint32_t gb,
		     uint32_t *ia, uint32_t *ib, const struct jp_log *log)
{
	struct rp_name_match nm;
	rp_name_match_init(&nm, method);
	int exact = 0;
	for (size_t i = 0; i < s->nr_loads; i++)
		exact |= rp_load_title(&s->loads[i]) && !strcmp(rp_load_title(&s->loads[i]), method);
	uint64_t best = 0;
	int found = 0;
	*ia = *ib = 0;
	/* A pattern naming several methods is refused with the candidates: picking one of them
	 * silently compares the wrong code. */
	const char *cand[21];
	struct jp_str list = { 0 };	/* the candidates' names, whole */
	size_t nr = 0;
	for (size_t i = 0; !exact && i < s->nr_loads && nr < 21; i++) {
		const struct rp_load *l = &s->loads[i];
		const char *id = rp_load_ident(l), *title = rp_load_title(l);
		size_t k = 0;
		while (k < nr && cand[k] != id)	/* identities are interned */
			k++;
		if (!id || !title || l->runtime || k < nr || !rp_name_matches(&nm, title))
			continue;
		cand[nr++] = id;
		/* One per line: the lines are the message's, the names in them data. */
		const char *name = nr < 21 ? title : "...";
		int n = sio_snprintf_text(NULL, 0, "\n  %s", name);
		char *at = n > 0 ? jp_str_reserve(&list, (size_t)n) : NULL;
		if (at)
			list.len += (size_t)sio_snprintf_text(at, (size_t)n + 1, "\n  %s", name);
	}
	if (nr > 1 || list.nomem) {
		rp_name_match_fini(&nm);
		int rc = list.nomem ? (jp_logf(log, JP_LOG_ERROR, "out of memory"), -ENOMEM)
				    : say_candidates(log, method, nr, list.s);
		jp_str_free(&list);
		return rc;
	}
	jp_str_free(&list);
	for (size_t i = 0; i < s->nr_loads; i++) {
		const struct rp_load *a = &s->loads[i];
		const char *id = rp_load_ident(a), *title = rp_load_title(a);
		if (!id || !title || a->runtime || a->generation != ga)
			continue;
		if (exact ? strcmp(title, method) : !rp_name_matches(&nm, title))
			continue;
		for (size_t j = 0; j < s->nr_loads; j++) {
			const struct rp_load *b = &s->loads[j];
			if (rp_load_ident(b) != id || b->runtime || b->pid != a->pid ||
			    b->generation != gb)
				continue;
			if (!found || a->samples + b->samples > best) {
				best = a->samples + b->samples;
				*ia = (uint32_t)i + 1;
				*ib = (uint32_t)j + 1;
				found = 1;
			}
		}
	}
	rp_name_match_fini(&nm);
	if (!found) {
		jp_logf(log, JP_LOG_ERROR, "no process has generations %u and %u of a method %s "
			"'%s'", ga, gb, exact ? "named" : "matching", method);
		return -ENOENT;
	}
	return 0;
}

/* One instruction of a listing: its text (sample share, offset, instruction, named target),
 * its normalized hash for the alignment, the source line it starts, if any, the line it is in
 * (at) and the samples whose line is its own (hits: at ip - 1, as the report reads lines). */
struct row {
	char *text;			/* the instruction and its target's name, whole */
	uint64_t hash;
	const struct rp_src_line *src, *at;
	uint64_t hits;
};

/* Both generations' listings and their alignment (n < 0: none, the code or capstone missing). */
struct code_pair {
	struct row *a, *b;
	size_t na, nb;
	struct rp_pair *p;
	long n;
};

/* A row of the per-line table: the line of the code in A and in B (one line when the code is
 * the same and so is its line) and each generation's samples there. */
struct line_row { const char *file, *file_b; uint32_t line, line_b; uint64_t a, b; };

static int line_order(const void *pa, const void *pb)
{
	const struct line_row *x = pa, *y = pb;
	uint64_t mx = x->a > x->b ? x->a : x->b, my = y->a > y->b ? y->a : y->b;
	if (mx != my)
		return mx > my ? -1 : 1;
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c || x->line != y->line)
		return c ? c : x->line < y->line ? -1 : 1;
	c = strcmp(x->file_b ? x->file_b : "", y->file_b ? y->file_b : "");
	return c ? c : (x->line_b < y->line_b ? -1 : x->line_b > y->line_b);
}

/* Adds a and b samples to the row of (file, line) in A and (file_b, line_b) in B. */
static void add_line(struct line_row *rows, size_t *n, const struct line_row *r)
{
	size_t j = 0;
	while (j < *n && (rows[j].file != r->file || rows[j].line != r->line ||
			  rows[j].file_b != r->file_b || rows[j].line_b != r->line_b))
		j++;
	if (j == *n)
		rows[(*n)++] = (struct line_row){ r->file, r->file_b, r->line, r->line_b, 0, 0 };
	rows[j].a += r->a;
	rows[j].b += r->b;
}

/* Each generation's samples by its own lines: what there is without the aligned code. */
static size_t lines_by_samples(const struct gen_samples *g, struct line_row *rows)
{
	size_t n = 0;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < g[k].n; i++) {
			const struct rp_frame *f = g[k].frames[i];
			struct line_row r = { f->srcfile, f->srcfile, f->line, f->line, !k, k };
			add_line(rows, &n, &r);
		}
	return n;
}

/* The samples of the same code, by its line in A and in B: through the instruction alignment,
 * so a multiply both compiles made is one row even when the two line tables give it other
 * lines ("Foo.java:21 | Foo.java:62"); code only one has is a row of its own. */
static size_t lines_by_code(const struct code_pair *c, struct line_row *rows)
{
	size_t n = 0;
	for (long i = 0; i < c->n; i++) {
		const struct row *ra = c->p[i].a >= 0 ? &c->a[c->p[i].a] : NULL;
		const struct row *rb = c->p[i].b >= 0 ? &c->b[c->p[i].b] : NULL;
		if (!(ra && ra->hits) && !(rb && rb->hits))
			continue;
		struct line_row r = { 0 };
		if (ra && ra->at)
			r.file = ra->at->file, r.line = ra->at->line;
		if (rb && rb->at)
			r.file_b = rb->at->file, r.line_b = rb->at->line;
		r.a = ra ? ra->hits : 0;
		r.b = rb ? rb->hits : 0;
		add_line(rows, &n, &r);
	}
	return n;
}

static const char *line_text(struct jp_str *buf, const char *file, uint32_t line, int present)
{
	if (!present)
		return "-";
	if (file)
		return jp_str_printf(buf, "%s:%u", file, line);
	return "??:0";
}

static int print_lines(FILE *out, const struct gen_samples *g, const struct code_pair *c)
{
	size_t cap = g[0].n + g[1].n + (c->n > 0 ? (size_t)c->n : 0) + 1, n;
	struct line_row *rows = calloc(cap, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	int aligned = c->n > 0;
	n = aligned ? lines_by_code(c, rows) : lines_by_samples(g, rows);
	if (n > 1)
		qsort(rows, n, sizeof(*rows), line_order);
	if (aligned)
		fprintf(out, "\n# Per source line of the same code (instructions aligned as below; "
			"'A | B' where the two line tables differ; share of each generation's "
			"samples)\n");
	else
		fprintf(out, "\n# Per source line (each generation's own lines: one lacks the code "
			"or the line table to align them through; share of each generation's "
			"samples)\n");
	fprintf(out, "  %-40s  %8s  %8s\n", "Source:Line", "gen A", "gen B");
	struct jp_str ba = { 0 }, bb = { 0 };	/* the two lines' file names, whole */
	for (size_t i = 0; i < n; i++) {
		const struct line_row *r = &rows[i];
		int in_a = !aligned || r->a || r->file, in_b = !aligned || r->b || r->file_b;
		const char *la = line_text(&ba, r->file, r->line, in_a);
		const char *lb = line_text(&bb, r->file_b, r->line_b, in_b);
		int same = !strcmp(la, lb);
		size_t w = strlen(la) + (same ? 0 : 3 + strlen(lb));	/* "A | B" in 40 columns */
		fprintf(out, "  %s%s%s%*s  %7.2f%%  %7.2f%%\n", la, same ? "" : " | ", same ? "" : lb,
			w < 40 ? (int)(40 - w) : 0, "", g[0].n ? 100.0 * r->a / g[0].n : 0,
			g[1].n ? 100.0 * r->b / g[1].n : 0);
	}
	free(rows);
	return jp_str_free(&ba) | jp_str_free(&bb) ? -ENOMEM : 0;
}


/* The load of pid whose code holds addr, loaded last before (or with) at. */
static const struct rp_load *load_at(const struct rp_session *s, uint32_t pid, uint64_t addr,
				     uint64_t at)
{
	const struct rp_load *best = NULL;
	for (size_t i = 0; i < s->nr_loads; i++) {
		const struct rp_load *l = &s->loads[i];
		if (l->pid != pid || addr < l->code_addr || addr - l->code_addr >= l->code_size ||
		    l->load_time > at || (best && best->load_time > l->load_time))
			continue;
		best = l;
	}
	return best;
}

/* " <name>" for a direct call/jump target: inside the method "<+off>", else the method, stub
 * or jitted dso whose code holds it. */
static void name_target(const struct rp_session *s, const struct rp_load *self, const cs_insn *in,
			struct jp_str *buf)
{
	char *end;
	if (strcmp(in->mnemonic, "call") && in->mnemonic[0] != 'j' && strcmp(in->mnemonic, "b") &&
	    strcmp(in->mnemonic, "bl"))
		return;
	const char *o = in->op_str[0] == '#' ? in->op_str + 1 : in->op_str;
	uint64_t t = strtoull(o, &end, 16);
	if (end == o || *end || strncmp(o, "0x", 2))
		return;
	if (t >= self->code_addr && t - self->code_addr < self->code_size) {
		jp_str_appendf(buf, " <+%" PRIx64 ">", t - self->code_addr);
		return;
	}
	const struct rp_load *l = load_at(s, self->pid, t, self->load_time);
	const char *name = l ? rp_load_title(l) : NULL;
	if (name && l->generation && !l->runtime)
		jp_str_appendf(buf, " <%s [gen %u]>", name, l->generation);
	else if (l)
		jp_str_appendf(buf, " <%s>", name ? name : l->dso ? l->dso : "jitted");
}

/* The line entry starting at off, or NULL. Entries are ascending by offset. */
static const struct rp_src_line *line_at(const struct rp_load *l, uint64_t lo, uint64_t hi,
					 size_t *k)
{
	const struct rp_src_line *found = NULL;
	while (*k < l->nr_lines && l->lines[*k].off < hi) {
		if (l->lines[*k].off >= lo)
			found = &l->lines[*k];
		++*k;
	}
	return found;
}

/* The line entry the code at off is in (the last starting at or before it), or NULL. */
static const struct rp_src_line *line_of(const struct rp_load *l, uint64_t off)
{
	size_t a = 0, b = l->nr_lines;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (l->lines[m].off <= off)
			a = m + 1;
		else
			b = m;
	}
	return a ? &l->lines[a - 1] : NULL;
}

static void rows_free(struct row *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
}

/* One generation's listing; *nr rows (0 with a note row when there is no code). NULL out of
 * memory. */
static struct row *listing(csh cs, const struct rp_session *s, const struct gen_samples *g,
			   size_t *nr)
{
	const struct rp_load *l = g->l;
	const struct rp_src_line *prev = NULL;
	cs_insn *insn = NULL;
	size_t count = 0, k = 0;
	*nr = 0;
	if (l->code && l->code_size)
		count = cs_api.cs_disasm(cs, l->code, l->code_size, l->code_addr, 0, &insn);
	struct row *v = calloc(count + 1, sizeof(*v));
	if (!v) {
		cs_api.cs_free(insn, count);
		return NULL;
	}
	if (!l->code || !l->code_size) {
		if (!(v[0].text = strdup("(no code: no ELF and no dump for it)"))) {
			free(v);
			return NULL;
		}
		*nr = 1;
		return v;
	}
	struct jp_str t = { 0 };
	for (size_t i = 0; i < count; i++) {
		uint64_t off = insn[i].address - l->code_addr;
		uint64_t hits = count_range(g, off, off + insn[i].size);
		char pct[16] = "";	/* "%6.2f%%" of at most 100 */
		struct row *r = &v[*nr];
		if (hits)
			snprintf(pct, sizeof(pct), "%6.2f%%", g->n ? 100.0 * hits / g->n : 0);
		jp_str_printf(&t, "%7s %5" PRIx64 ": %s %s", pct, off, insn[i].mnemonic,
			      insn[i].op_str);
		name_target(s, l, &insn[i], &t);
		if (t.nomem || !(r->text = strdup(t.s))) {
			rows_free(v, *nr);
			v = NULL;
			break;
		}
		++*nr;
		r->hash = rp_insn_norm_hash(insn[i].mnemonic, insn[i].op_str);
		/* a sample's line is that of the instruction before its address (ingest.c) */
		r->hits = count_range(g, off ? off + 1 : 0, off + insn[i].size + 1);
		r->at = line_of(l, off);
		const struct rp_src_line *src = line_at(l, off, off + insn[i].size, &k);
		if (src && (!prev || src->file != prev->file || src->line != prev->line))
			r->src = prev = src;
	}
	jp_str_free(&t);
	cs_api.cs_free(insn, count);
	return v;
}

static const char *src_text(const struct row *r, struct jp_str *buf)
{
	if (r && r->src)
		return jp_str_printf(buf, "  ; %s:%u", r->src->file ? r->src->file : "??",
				     r->src->line);
	return "";
}

/* The LCS pairing of both listings' instructions into c->p, c->n pairs; 0 or -ENOMEM. */
static int align_code(struct code_pair *c)
{
	uint64_t *ha = malloc((c->na + 1) * sizeof(*ha)), *hb = malloc((c->nb + 1) * sizeof(*hb));
	c->n = -ENOMEM;
	if (ha && hb) {
		for (size_t i = 0; i < c->na; i++)
			ha[i] = c->a[i].hash;
		for (size_t i = 0; i < c->nb; i++)
			hb[i] = c->b[i].hash;
		c->n = rp_align(ha, c->na, hb, c->nb, &c->p);
	}
	free(ha);
	free(hb);
	return c->n < 0 ? (int)c->n : 0;
}

static int print_aligned(FILE *out, const struct code_pair *c)
{
	const struct row *a = c->a, *b = c->b;
	const struct rp_pair *p = c->p;
	long n = c->n;
	fprintf(out, "\n# Per instruction, aligned by code (LCS over instructions without their "
		"numbers; '-' only in A, '+' only in B, '~' same instruction, other numbers)\n");
	fprintf(out, "    %-*s | %s\n", COL, "gen A", "gen B");
	struct jp_str ba = { 0 }, bb = { 0 };	/* the two source lines, whole */
	for (long i = 0; i < n; i++) {
		const struct row *ra = p[i].a >= 0 ? &a[p[i].a] : NULL;
		const struct row *rb = p[i].b >= 0 ? &b[p[i].b] : NULL;
		const char *sa = src_text(ra, &ba), *sb = src_text(rb, &bb);
		if (sa[0] || sb[0])
			fprintf(out, "    %-*s | %s\n", COL, sa, sb);
		char mark = !ra ? '+' : !rb ? '-' :
			    strcmp(strchr(ra->text, ':'), strchr(rb->text, ':')) ? '~' : ' ';
		fprintf(out, "  %c %-*s | %s\n", mark, COL, ra ? ra->text : "", rb ? rb->text : "");
	}
	return jp_str_free(&ba) | jp_str_free(&bb) ? -ENOMEM : 0;
}

/* Both listings and their alignment; c->n < 0 with c->why when there is none to show. */
static int code_pair(struct code_pair *c, const struct rp_session *s,
		     const struct gen_samples *g, const char **why)
{
	csh cs;
	memset(c, 0, sizeof(*c));
	c->n = -1;
	*why = NULL;
	if (jp_dynload(&capstone)) {
		*why = capstone.err;
		return 0;
	}
#if defined(__aarch64__)
	if (cs_api.cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK)
#else
	if (cs_api.cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
#endif
		return -ENOTSUP;
	c->a = listing(cs, s, &g[0], &c->na);
	c->b = listing(cs, s, &g[1], &c->nb);
	cs_api.cs_close(&cs);
	if (!c->a || !c->b)
		return -ENOMEM;
	return align_code(c);
}

static void code_pair_free(struct code_pair *c)
{
	rows_free(c->a, c->na);
	rows_free(c->b, c->nb);
	free(c->p);
}

/* Lines can go through the aligned code when both generations have code (else a listing is a
 * note row) and a line table of it (else only their samples' frames have lines). */
static int lines_alignable(const struct gen_samples *g)
{
	for (int k = 0; k < 2; k++)
		if (!g[k].l->code || !g[k].l->code_size || !g[k].l->nr_lines)
			return 0;
	return 1;
}

int rp_print_compare(FILE *out, const struct rp_session *s, const char *method,
		     uint32_t gen_a, uint32_t gen_b, const struct jp_log *log)
{
	uint32_t ia, ib;
	int rc = find_pair(s, method, gen_a, gen_b, &ia, &ib, log);
	if (rc)
		return rc;
	struct gen_samples g[2] = { { .l = &s->loads[ia - 1], .idx = ia },
				    { .l = &s->loads[ib - 1], .idx = ib } };
	if (!(rc = collect(s, &g[0])) && !(rc = collect(s, &g[1]))) {
		fprintf(out, "# %s  (pid %u)\n", g[0].l->method, g[0].l->pid);
		for (int k = 0; k < 2; k++) {
			const struct rp_load *l = g[k].l;
			fprintf(out, "# gen %c = generation %u: tier %s, %s, %" PRIu64 " bytes at 0x%"
				PRIx64 ", %zu samples\n", 'A' + k, l->generation,
				rp_load_tier(l), l->dso ? l->dso : "?", l->code_size,
				l->code_addr, g[k].n);
		}
		struct code_pair c;
		const char *why;
		rc = code_pair(&c, s, g, &why);
		struct code_pair none = { .n = -1 };
		if (!rc)
			rc = print_lines(out, g, lines_alignable(g) ? &c : &none);
		if (!rc)
			rp_compare_inline_diff(out, g[0].l, g[1].l);
		if (!rc && why)
			fprintf(out, "\n# Per instruction: not shown (%s)\n", why);
		else if (!rc)
			rc = print_aligned(out, &c);
		code_pair_free(&c);
	}
	for (int k = 0; k < 2; k++) {
		free(g[k].ips);
		free(g[k].frames);
	}
	if (rc == -ENOMEM)
		jp_logf(log, JP_LOG_ERROR, "out of memory");
	return rc;
}
