/* inject_util.h - what the tests/e2e/inject_*.c binaries share: running tools with a private
 * build-id cache and no debuginfod, reading `perf report` rows, and comparing jitprof inject's
 * rows with perf inject's. Header-only because every e2e .c file is its own binary. */
#ifndef JITPROF_E2E_INJECT_UTIL_H
#define JITPROF_E2E_INJECT_UTIL_H

#include <criterion/criterion.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"

#define IU_MAX_ROWS 4096

struct iu_row {
	unsigned long samples;
	char dso[256];
	char sym[512];
};

struct iu_rows {
	struct iu_row *r;
	size_t n;
};

/* Runs argv with PERF_BUILDID_DIR=cache (if any) and no debuginfod; r is caller's to free. */
static inline void iu_run(struct tu_result *r, char *const argv[], const char *cache,
			  unsigned timeout)
{
	char env_cache[4200];
	const char *env[3] = { "DEBUGINFOD_URLS=", NULL, NULL };
	if (cache) {
		snprintf(env_cache, sizeof(env_cache), "PERF_BUILDID_DIR=%s", cache);
		env[1] = env_cache;
	}
	cr_assert_eq(tu_run(r, argv, env, NULL, 0, timeout), 0, "cannot run %s", argv[0]);
}

static inline void iu_run_ok(struct tu_result *r, char *const argv[], const char *cache,
			     unsigned timeout)
{
	iu_run(r, argv, cache, timeout);
	cr_assert_eq(r->status, 0, "%s %s exited %d:\n%.2000s\n%.2000s", argv[0],
		     argv[1] ? argv[1] : "", r->status, r->out, r->err);
}

/* perf's stderr after a report/script on our output: anything but the kernel's missing
 * symbols (no vmlinux here, perf says so for its own output too) counts as a warning. */
static inline void iu_assert_no_warnings(const char *what, const char *err)
{
	const char *p = err;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int benign = len == 0 || memmem(p, len, "kallsyms", 8) || memmem(p, len, "vmlinux", 7);
		cr_assert(benign, "%s printed a warning: %.*s", what, (int)len, p);
		p = e ? e + 1 : NULL;
	}
}

/* `perf report --sort dso,sym` sample counts of data, read with cache as the build-id cache. */
static inline void iu_report(struct iu_rows *rows, const char *data, const char *cache)
{
	struct tu_result r;
	char *argv[] = { "perf", "report", "-i", (char *)data, "--stdio", "--no-children",
			 "--sort", "dso,sym", "-g", "none", "-F", "sample,dso,sym", NULL };
	iu_run_ok(&r, argv, cache, 120);
	iu_assert_no_warnings("perf report", r.err);
	rows->r = calloc(IU_MAX_ROWS, sizeof(struct iu_row));
	rows->n = 0;
	cr_assert_not_null(rows->r);
	char *save = NULL;
	for (char *l = strtok_r(r.out, "\n", &save); l && rows->n < IU_MAX_ROWS;
	     l = strtok_r(NULL, "\n", &save)) {
		struct iu_row *w = &rows->r[rows->n];
		int off = 0;
		if (l[0] == '#' || sscanf(l, " %lu %255s %n", &w->samples, w->dso, &off) < 2)
			continue;
		const char *sym = l + off;
		if (!strncmp(sym, "[.] ", 4) || !strncmp(sym, "[k] ", 4))
			sym += 4;
		snprintf(w->sym, sizeof(w->sym), "%s", sym);
		for (size_t k = strlen(w->sym); k > 0 && w->sym[k - 1] == ' '; k--)
			w->sym[k - 1] = 0;
		rows->n++;
	}
	tu_result_free(&r);
}

static inline void iu_rows_free(struct iu_rows *rows)
{
	free(rows->r);
	rows->r = NULL;
	rows->n = 0;
}

static inline int iu_is_jitted(const struct iu_row *r)
{
	return !strncmp(r->dso, "jitted-", 7);
}

static inline unsigned long iu_jitted_total(const struct iu_rows *rows)
{
	unsigned long t = 0;
	for (size_t i = 0; i < rows->n; i++)
		t += iu_is_jitted(&rows->r[i]) ? rows->r[i].samples : 0;
	return t;
}

/* The top jitted rows of perf's report (up to top of them, by samples) must be in ours with
 * the same DSO, symbol and count. Returns how many were compared. */
static inline size_t iu_compare_top(const struct iu_rows *perf, const struct iu_rows *ours,
				    size_t top)
{
	size_t done = 0;
	for (size_t i = 0; i < perf->n && done < top; i++) {
		const struct iu_row *p = &perf->r[i];
		if (!iu_is_jitted(p))
			continue;
		const struct iu_row *o = NULL;
		for (size_t k = 0; k < ours->n && !o; k++)
			if (!strcmp(ours->r[k].dso, p->dso) && !strcmp(ours->r[k].sym, p->sym))
				o = &ours->r[k];
		cr_assert_not_null(o, "perf inject's row %lu %s %s is missing from ours",
				   p->samples, p->dso, p->sym);
		cr_assert_eq(o->samples, p->samples, "%s %s: %lu samples with jitprof inject, %lu "
			     "with perf inject", p->dso, p->sym, o->samples, p->samples);
		done++;
	}
	return done;
}

/* Copies every regular file of src whose name starts with prefix into dst. */
static inline void iu_copy_prefixed(const char *src, const char *dst, const char *prefix)
{
	char cmd[9000];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "cp '%s'/%s* '%s'/", src, prefix, dst);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	tu_result_free(&r);
}

/* ---- Producers and recorders of the inject e2e tests ---------------------------------- */

enum producer { MINIJIT, JAVA, NODE };
enum recorder { PERF, JITPROF, PERF_ZSTD };

static const char node_js[] =
	"function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
	"function work(k) { let s = 0; for (let i = 0; i < 30; i++) s += fib(20 + i % 3) * k;"
	" return s; }\n"
	"let t = Date.now(), acc = 0;\n"
	"while (Date.now() - t < 1200) acc += work(acc & 7);\n"
	"console.log('done', acc > 0);\n";

static inline int have_built(const char *name)
{
	return access(tu_build(name), F_OK) == 0;
}

/* An absolute path of a built artifact (the commands run in the test's directory). */
static inline const char *abs_build(const char *name, char *buf, size_t len)
{
	const char *b = tu_build(name);
	char cwd[1024];
	if (b[0] == '/')
		snprintf(buf, len, "%s", b);
	else
		snprintf(buf, len, "%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".", b);
	return buf;
}

/* The workload's command line, run in dir (node writes its dump to the cwd). */
static inline int producer_cmd(enum producer p, const char *dir, char *buf, size_t len)
{
	char js[600], a[1200], b[1200];
	switch (p) {
	case MINIJIT:
		if (!have_built("minijit"))
			cr_skip_test("minijit is not built");
		return snprintf(buf, len, "'%s' --dir '%s' --seconds 0.3",
				abs_build("minijit", a, sizeof(a)), dir);
	case JAVA:
		if (!tu_have("java"))
			cr_skip_test("java is not installed");
		if (!have_built("libagent.so") || !have_built("java/.built"))
			cr_skip_test("the agent or samples/java is not built");
		abs_build("libagent.so", a, sizeof(a));
		return snprintf(buf, len, "%sjava -XX:+PreserveFramePointer -agentpath:'%s'=dir='%s' "
				"-cp '%s' jitprof.samples.Generations 500", tu_java_env_sh(a), a, dir,
				abs_build("java", b, sizeof(b)));
	case NODE:
		if (!tu_have("node"))
			cr_skip_test("node is not installed");
		snprintf(js, sizeof(js), "%s/work.js", dir);
		cr_assert_eq(tu_write_file(js, node_js, sizeof(node_js) - 1), 0);
		return snprintf(buf, len, "node --perf-prof --interpreted-frames-native-stack '%s'",
				js);
	}
	return 0;
}

static inline void record(enum producer p, enum recorder r, const char *dir, const char *data)
{
	char work[3000], cmd[8192], jp[1200];
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	producer_cmd(p, dir, work, sizeof(work));
	if (r == JITPROF && !have_built("jitprof"))
		cr_skip_test("jitprof is not built");
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s record -q %s-k mono -F 999 -g -o '%s' -- %s "
		 ">/dev/null", dir, r == JITPROF ? abs_build("jitprof", jp, sizeof(jp)) : "perf",
		 r == PERF_ZSTD ? "-z " : "", data, work);
	struct tu_result res;
	cr_assert_eq(tu_sh(&res, cmd, 120), 0);
	cr_assert_eq(res.status, 0, "%s\n%s", cmd, res.err);
	tu_result_free(&res);
}

#endif
