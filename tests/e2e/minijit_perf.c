/* minijit_perf.c - end to end: what minijit writes (read back with libjitdump), and perf as the
 * oracle: `perf record -k mono` of minijit, `perf inject --jit`, then `perf report`/`perf script`
 * must show checksum once per generation, fill at the range gen 1 freed, the moved code still
 * named, lines in toy.mjs, and no warning about our dump. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"

/* A recording keeps perf away from ~/.debug and the network: -N, no debuginfod. */
static const char *const quiet_env[] = { "DEBUGINFOD_URLS=", NULL };

struct run {
	char *dir;
	char dump[512];
	struct jd_index *x;
};

static void run_cmd(struct tu_result *r, char *const argv[], unsigned timeout)
{
	cr_assert_eq(tu_run(r, argv, quiet_env, NULL, 0, timeout), 0, "cannot run %s", argv[0]);
	cr_assert_eq(r->status, 0, "%s exited %d:\n%s\n%s", argv[0], r->status, r->out, r->err);
}

/* Runs minijit (under `perf record` when perf_data is set) and opens the dump it names. */
static void run_minijit(struct run *m, const char *seconds, const char *perf_data)
{
	struct tu_result r;
	m->dir = tu_tmpdir("minijit");
	cr_assert(m->dir);
	char *mj[] = { (char *)tu_build("minijit"), "--dir", m->dir, "--seconds", (char *)seconds,
		       NULL };
	char *rec[] = { "perf", "record", "-N", "-q", "-k", "mono", "-F", "999", "-o",
			(char *)perf_data, "--", mj[0], mj[1], mj[2], mj[3], mj[4], NULL };
	cr_assert_eq(tu_run(&r, perf_data ? rec : mj, quiet_env, NULL, 0, 60), 0);
	if (r.status == 77 && strstr(r.err, "x86-64 only"))
		cr_skip_test("minijit emits x86-64 code only");
	cr_assert_eq(r.status, 0, "minijit exited %d:\n%s\n%s", r.status, r.out, r.err);
	const char *p = strstr(r.out, ", dump ");
	cr_assert(p && sscanf(p, ", dump %511[^,]", m->dump) == 1, "no dump path in:\n%s", r.out);
	cr_assert(strstr(r.out, "every result matched"), "minijit output:\n%s", r.out);
	tu_result_free(&r);
	char err[512] = "";
	cr_assert_eq(jd_index_open(&m->x, m->dump, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_empty(jd_index_warning(m->x));
}

static void run_free(struct run *m)
{
	jd_index_close(m->x);
	tu_rmtree(m->dir);
	free(m->dir);
}

/* The nth load (0-based) called name, or NULL. */
static const struct jd_load_entry *load_named(const struct jd_index *x, const char *name,
					      unsigned nth)
{
	for (size_t i = 0; i < jd_index_nr_loads(x); i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);
		if (!strcmp(e->load.name, name) && nth-- == 0)
			return e;
	}
	return NULL;
}

/* Number of lines of a text file, and whether line n (1-based) holds code, not a comment. */
static int source_line_is_code(const char *text, int n)
{
	const char *p = text;
	for (int i = 1; i < n && p; i++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	if (!p || !*p)
		return 0;
	p += strspn(p, " \t");
	return *p && *p != '\n' && strncmp(p, "//", 2) != 0;
}

static void check_lines(const struct jd_load_entry *e)
{
	cr_assert_gt(e->nr_lines, 0, "%s gen %u has no line table", e->load.name, e->generation);
	char *text = tu_read_file(e->lines[0].file, NULL);
	cr_assert(text, "line table names %s, which cannot be read", e->lines[0].file);
	cr_assert(strstr(e->lines[0].file, "toy.mjs"), "lines point to %s", e->lines[0].file);
	for (size_t i = 0; i < e->nr_lines; i++) {
		const struct jd_line *l = &e->lines[i];
		cr_assert_str_eq(l->file, e->lines[0].file);
		cr_assert(l->addr >= e->load.code_addr &&
			  l->addr < e->load.code_addr + e->load.code_size);
		cr_assert(i == 0 || l->addr > e->lines[i - 1].addr, "line table not ascending");
		cr_assert(source_line_is_code(text, l->line), "%s:%d is not a line of code",
			  l->file, l->line);
	}
	free(text);
}

Test(minijit, dump_has_three_generations_reuse_and_move, .timeout = 60)
{
	struct run m;
	run_minijit(&m, "0.02", NULL);
	const struct jd_load_entry *g[3];
	for (unsigned i = 0; i < 3; i++) {
		g[i] = load_named(m.x, "checksum", i);
		cr_assert(g[i], "checksum generation %u missing", i + 1);
		cr_assert_eq(g[i]->generation, i + 1);
		check_lines(g[i]);
		cr_assert(g[i]->info, "no companion load info for gen %u", i + 1);
		cr_assert_eq(g[i]->info->generation, i + 1);
		cr_assert_eq(g[i]->info->level, (int32_t)i);
		for (unsigned k = 0; k < i; k++)
			cr_assert(g[k]->load.code_size != g[i]->load.code_size ||
				  memcmp(g[k]->load.code, g[i]->load.code, g[i]->load.code_size),
				  "generations %u and %u have the same code", k + 1, i + 1);
	}
	cr_assert_null(load_named(m.x, "checksum", 3), "more than three checksum loads");

	/* gen 1's range is freed, then fill is placed at the same address */
	const struct jd_load_entry *fill = load_named(m.x, "fill", 0);
	cr_assert(fill);
	check_lines(fill);
	cr_assert_eq(fill->load.code_addr, g[0]->load.code_addr);
	cr_assert_neq(g[0]->unload_time, 0, "gen 1 was freed but has no unload");
	cr_assert(g[0]->unload_time <= fill->timestamp);
	cr_assert(g[0]->timestamp < g[1]->timestamp && g[1]->timestamp < fill->timestamp);

	/* gen 3 moved, as itself */
	cr_assert_eq(jd_index_nr_moves(m.x), 1);
	const struct jd_code_move *mv = &jd_index_move(m.x, 0)->move;
	cr_assert_eq(mv->code_index, g[2]->load.code_index);
	cr_assert_eq(mv->old_code_addr, g[2]->load.code_addr);
	cr_assert_eq(mv->code_size, g[2]->load.code_size);
	cr_assert_neq(mv->new_code_addr, mv->old_code_addr);

	/* inline stacks: mix() inside checksum, innermost first */
	int inlined = 0;
	for (unsigned i = 0; i < 3; i++) {
		const struct jd_ext_inline *in = g[i]->inl;
		for (uint32_t p = 0; in && p < in->nr_pcs; p++) {
			const struct jd_inline_pc *pc = &in->pcs[p];
			if (pc->depth != 2)
				continue;
			cr_assert_str_eq(in->methods[pc->frames[0].method].name, "mix");
			cr_assert_str_eq(in->methods[pc->frames[1].method].name, "checksum");
			inlined++;
		}
	}
	cr_assert_gt(inlined, 0, "no inlined frame in any generation");
	const struct jd_ext_agent_stats *st = jd_index_agent_stats(m.x);
	cr_assert(st && st->loads == 4 && st->unloads == 1);
	run_free(&m);
}

Test(minijit, same_code_bytes_every_run, .timeout = 60)
{
	struct run a, b;
	run_minijit(&a, "0", NULL);
	run_minijit(&b, "0", NULL);
	cr_assert_eq(jd_index_nr_loads(a.x), jd_index_nr_loads(b.x));
	for (size_t i = 0; i < jd_index_nr_loads(a.x); i++) {
		const struct jd_code_load *la = &jd_index_load(a.x, i)->load;
		const struct jd_code_load *lb = &jd_index_load(b.x, i)->load;
		cr_assert_str_eq(la->name, lb->name);
		cr_assert_eq(la->code_size, lb->code_size);
		cr_assert_eq(memcmp(la->code, lb->code, la->code_size), 0, "load %zu differs", i);
	}
	run_free(&a);
	run_free(&b);
}

Test(minijit, help_and_bad_arguments)
{
	struct tu_result r;
	char *help[] = { (char *)tu_build("minijit"), "--help", NULL };
	char *bad[] = { (char *)tu_build("minijit"), "--seconds", "soon", NULL };
	run_cmd(&r, help, 10);
	cr_assert(strstr(r.out, "--seconds") && strstr(r.out, "--dir"));
	tu_result_free(&r);
	cr_assert_eq(tu_run(&r, bad, NULL, NULL, 0, 10), 0);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "--seconds"));
	tu_result_free(&r);
}

/* ---- perf as the oracle ------------------------------------------------------------------ */

struct recording {
	struct run m;
	char data[600], jit[600];
};

static void record_and_inject(struct recording *rc)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char *dir = tu_tmpdir("minijit-perf");
	snprintf(rc->data, sizeof(rc->data), "%s/perf.data", dir);
	snprintf(rc->jit, sizeof(rc->jit), "%s/perf.jit.data", dir);
	free(dir);
	run_minijit(&rc->m, "0.3", rc->data);
	struct tu_result r;
	char *inject[] = { "perf", "inject", "--jit", "-i", rc->data, "-o", rc->jit, NULL };
	run_cmd(&r, inject, 60);
	/* perf prints one line per record it does not know: our extras must not be in the dump */
	cr_assert_str_empty(r.err, "perf inject complained:\n%s", r.err);
	tu_result_free(&r);
}

static void recording_free(struct recording *rc)
{
	char *slash = strrchr(rc->data, '/');
	*slash = 0;
	tu_rmtree(rc->data);
	run_free(&rc->m);
}

/* Percent of samples perf report gives to (dso, sym); dso is a basename. */
static double share(const char *report, const char *dso, const char *sym)
{
	double total = 0, pct;
	char d[256], s[256];
	for (const char *p = report; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (sscanf(p, " %lf%% %255s [%*c] %255s", &pct, d, s) == 3 && !strcmp(d, dso) &&
		    !strcmp(s, sym))
			total += pct;
	}
	return total;
}

static void jitted_name(char *buf, size_t len, const struct jd_load_entry *e)
{
	snprintf(buf, len, "jitted-%u-%llu.so", e->load.pid, (unsigned long long)e->load.code_index);
}

Test(minijit, perf_report_shows_each_generation, .timeout = 120)
{
	struct recording rc;
	record_and_inject(&rc);
	struct tu_result r;
	char *report[] = { "perf", "report", "-i", rc.jit, "--stdio", "--sort", "dso,sym", NULL };
	run_cmd(&r, report, 60);
	cr_assert_eq(tu_count(r.err, "jit"), 0, "perf report warned:\n%s", r.err);
	char so[64];
	for (unsigned i = 0; i < 3; i++) {
		const struct jd_load_entry *g = load_named(rc.m.x, "checksum", i);
		jitted_name(so, sizeof(so), g);
		cr_assert_gt(share(r.out, so, "checksum"), 1.0, "checksum gen %u (%s) has no samples:\n%s",
			     i + 1, so, r.out);
	}
	jitted_name(so, sizeof(so), load_named(rc.m.x, "fill", 0));
	cr_assert_gt(share(r.out, so, "fill"), 1.0, "fill has no samples:\n%s", r.out);
	cr_assert_eq(tu_count(r.out, "] checksum"), 3, "checksum not once per generation:\n%s", r.out);
	tu_result_free(&r);
	/* perf's ELFs, our report: every sample inside its generation's active period */
	char msg[8192];
	cr_assert_eq(tu_check_generations(rc.jit, NULL, msg, sizeof(msg)), 0, "%s", msg);
	recording_free(&rc);
}

/* Samples at gen 1's freed range resolve to gen 1 before the reuse and to fill after it; the
 * moved gen 3 still resolves to its own ELF at the new address. */
Test(minijit, perf_script_attributes_reused_and_moved_code, .timeout = 120)
{
	struct recording rc;
	record_and_inject(&rc);
	struct tu_result r;
	char *script[] = { "perf", "script", "-i", rc.jit, "-F", "ip,sym,dso", NULL };
	run_cmd(&r, script, 60);
	const struct jd_load_entry *g1 = load_named(rc.m.x, "checksum", 0);
	const struct jd_load_entry *g3 = load_named(rc.m.x, "checksum", 2);
	const struct jd_load_entry *fill = load_named(rc.m.x, "fill", 0);
	const struct jd_code_move *mv = &jd_index_move(rc.m.x, 0)->move;
	char so1[64], so3[64], sof[64], sym[256], dso[512];
	jitted_name(so1, sizeof(so1), g1);
	jitted_name(so3, sizeof(so3), g3);
	jitted_name(sof, sizeof(sof), fill);
	unsigned long long ip;
	unsigned at_reused_g1 = 0, at_reused_fill = 0, at_moved = 0;
	for (const char *p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (sscanf(p, " %llx %255s (%511[^)])", &ip, sym, dso) != 3)
			continue;
		const char *base = strrchr(dso, '/') ? strrchr(dso, '/') + 1 : dso;
		if (ip >= g1->load.code_addr && ip < g1->load.code_addr + g1->load.code_size) {
			if (!strcmp(base, so1) && !strncmp(sym, "checksum", 8))
				at_reused_g1++;
			else if (!strcmp(base, sof) && !strncmp(sym, "fill", 4))
				at_reused_fill++;
			else
				cr_assert_fail("sample at 0x%llx in the reused range is %s in %s", ip,
					       sym, dso);
		}
		if (ip >= mv->new_code_addr && ip < mv->new_code_addr + mv->code_size) {
			cr_assert(!strcmp(base, so3) && !strncmp(sym, "checksum", 8),
				  "sample at 0x%llx in the moved code is %s in %s", ip, sym, dso);
			at_moved++;
		}
	}
	cr_assert_gt(at_reused_g1, 0, "no sample of gen 1 at its range");
	cr_assert_gt(at_reused_fill, 0, "no sample of fill at gen 1's old range");
	cr_assert_gt(at_moved, 0, "no sample at the moved code");
	tu_result_free(&r);
	recording_free(&rc);
}

/* perf's own line lookup (DWARF in the ELF inject wrote) lands in toy.mjs. */
Test(minijit, perf_srcline_points_into_toy_source, .timeout = 120)
{
	struct recording rc;
	record_and_inject(&rc);
	struct tu_result r;
	char *report[] = { "perf", "report", "-i", rc.jit, "--stdio", "--sort", "dso,srcline",
			   NULL };
	run_cmd(&r, report, 60);
	size_t jitted = 0, in_toy = 0, shorthand = 0;
	for (const char *p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *nl = strchr(p, '\n'), *j = strstr(p, "jitted-");
		if (!j || (nl && j > nl))
			continue;
		jitted++;
		const char *t = strstr(p, "toy.mjs:"), *ff = strstr(p, "\xff:");
		in_toy += t && (!nl || t < nl);
		shorthand += ff && (!nl || ff < nl);
	}
	cr_assert_gt(jitted, 3, "no jitted rows:\n%s", r.out);
	/* the "\xff" same-file shorthand of DEBUG_INFO is not resolved by perf 6.1's genelf: a
	 * dump that uses it shows "\xff" as the file name of every line but the first */
	cr_assert_eq(shorthand, 0, "%zu of %zu jitted rows name the file \"\\xff\": the dump uses "
		     "the same-file shorthand, which perf 6.1 takes as a file name", shorthand, jitted);
	/* perf keeps a row or two it cannot place ("??:0"); the bulk must be in toy.mjs */
	cr_assert_geq(in_toy * 10, jitted * 8, "%zu of %zu jitted rows are in toy.mjs:\n%s", in_toy,
		      jitted, r.out);
	tu_result_free(&r);
	recording_free(&rc);
}
