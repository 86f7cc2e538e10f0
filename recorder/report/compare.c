/* compare.c - two generations of one method side by side: the share of each generation's
 * samples per source line, then per instruction (capstone disassembly of the code bytes kept
 * from the ELF .text or the dump), so a recompile can be judged line by line. */
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report/report_int.h"

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

/* Picks the loads: an exact method name (rp_load_title) first, else a regex; both
 * generations in one process, the one with the most samples in them when several qualify. */
static int find_pair(const struct rp_session *s, const char *method, uint32_t ga, uint32_t gb,
		     uint32_t *ia, uint32_t *ib, char *err, size_t errlen)
{
	regex_t re;
	int have_re = regcomp(&re, method, REG_EXTENDED | REG_NOSUB) == 0;
	int exact = 0;
	for (size_t i = 0; i < s->nr_loads; i++)
		exact |= rp_load_title(&s->loads[i]) && !strcmp(rp_load_title(&s->loads[i]), method);
	uint64_t best = 0;
	int found = 0;
	*ia = *ib = 0;
	for (size_t i = 0; i < s->nr_loads; i++) {
		const struct rp_load *a = &s->loads[i];
		const char *id = rp_load_ident(a), *title = rp_load_title(a);
		if (!id || !title || a->runtime || a->generation != ga)
			continue;
		if (exact ? strcmp(title, method) : !have_re || regexec(&re, title, 0, NULL, 0))
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
	if (have_re)
		regfree(&re);
	if (!found) {
		snprintf(err, errlen, "no process has generations %u and %u of a method %s '%s'", ga,
			 gb, exact ? "named" : "matching", method);
		return -ENOENT;
	}
	return 0;
}

struct line_row { const char *file; uint32_t line; uint64_t a, b; };

static int line_order(const void *pa, const void *pb)
{
	const struct line_row *x = pa, *y = pb;
	uint64_t mx = x->a > x->b ? x->a : x->b, my = y->a > y->b ? y->a : y->b;
	if (mx != my)
		return mx > my ? -1 : 1;
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	return c ? c : (x->line < y->line ? -1 : x->line > y->line);
}

static int print_lines(FILE *out, const struct gen_samples *g)
{
	size_t cap = g[0].n + g[1].n + 1, n = 0;
	struct line_row *rows = calloc(cap, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < g[k].n; i++) {
			const struct rp_frame *f = g[k].frames[i];
			size_t j = 0;
			while (j < n && (rows[j].file != f->srcfile || rows[j].line != f->line))
				j++;
			if (j == n)
				rows[n++] = (struct line_row){ f->srcfile, f->line, 0, 0 };
			if (k)
				rows[j].b++;
			else
				rows[j].a++;
		}
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), line_order);
	fprintf(out, "\n# Per source line (share of each generation's samples)\n");
	fprintf(out, "  %-40s  %8s  %8s\n", "Source:Line", "gen A", "gen B");
	for (size_t i = 0; i < n; i++) {
		char loc[512];
		if (rows[i].file)
			snprintf(loc, sizeof(loc), "%s:%u", rows[i].file, rows[i].line);
		else
			snprintf(loc, sizeof(loc), "??:0");
		fprintf(out, "  %-40s  %7.2f%%  %7.2f%%\n", loc,
			g[0].n ? 100.0 * rows[i].a / g[0].n : 0, g[1].n ? 100.0 * rows[i].b / g[1].n : 0);
	}
	free(rows);
	return 0;
}

/* One generation's listing as lines of at most COL characters. */
static char **listing(csh cs, const struct gen_samples *g, size_t *nr)
{
	const struct rp_load *l = g->l;
	*nr = 0;
	if (!l->code || !l->code_size) {
		char **v = malloc(sizeof(*v));
		if (v && (v[0] = strdup("(code bytes not retained)")))
			*nr = 1;
		return v;
	}
	cs_insn *insn = NULL;
	size_t count = cs_disasm(cs, l->code, l->code_size, l->code_addr, 0, &insn);
	char **v = calloc(count + 1, sizeof(*v));
	if (!v) {
		cs_free(insn, count);
		return NULL;
	}
	for (size_t i = 0; i < count; i++) {
		uint64_t off = insn[i].address - l->code_addr;
		uint64_t hits = count_range(g, off, off + insn[i].size);
		char line[256];
		if (hits)
			snprintf(line, sizeof(line), "%6.2f%% %6" PRIx64 ": %s %s",
				 g->n ? 100.0 * hits / g->n : 0, insn[i].address - l->code_addr,
				 insn[i].mnemonic, insn[i].op_str);
		else
			snprintf(line, sizeof(line), "        %6" PRIx64 ": %s %s",
				 insn[i].address - l->code_addr, insn[i].mnemonic, insn[i].op_str);
		v[(*nr)++] = strndup(line, COL);
	}
	uint64_t done = count ? insn[count - 1].address + insn[count - 1].size - l->code_addr : 0;
	if (done < l->code_size)
		v[(*nr)++] = strdup("(rest not decodable: data or padding)");
	cs_free(insn, count);
	return v;
}

static int print_insns(FILE *out, const struct gen_samples *g)
{
	csh cs;
#if defined(__aarch64__)
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK)
#else
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
#endif
		return -ENOTSUP;
	size_t na, nb;
	char **a = listing(cs, &g[0], &na), **b = listing(cs, &g[1], &nb);
	cs_close(&cs);
	int rc = a && b ? 0 : -ENOMEM;
	if (!rc) {
		fprintf(out, "\n# Per instruction (offset from the method start)\n");
		fprintf(out, "  %-*s | %s\n", COL, "gen A", "gen B");
		for (size_t i = 0; i < na || i < nb; i++)
			fprintf(out, "  %-*s | %s\n", COL, i < na && a[i] ? a[i] : "",
				i < nb && b[i] ? b[i] : "");
	}
	for (size_t i = 0; a && i < na; i++)
		free(a[i]);
	for (size_t i = 0; b && i < nb; i++)
		free(b[i]);
	free(a);
	free(b);
	return rc;
}

int rp_print_compare(FILE *out, const struct rp_session *s, const char *method,
		     uint32_t gen_a, uint32_t gen_b, char *err, size_t errlen)
{
	uint32_t ia, ib;
	int rc = find_pair(s, method, gen_a, gen_b, &ia, &ib, err, errlen);
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
		rc = print_lines(out, g);
		if (!rc)
			rc = print_insns(out, g);
	}
	for (int k = 0; k < 2; k++) {
		free(g[k].ips);
		free(g[k].frames);
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}
