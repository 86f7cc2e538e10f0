/* symbols_vs_perf.c - recorder/symbols resolves every sample of a recording as perf does:
 * the raw symbol name and offset (`perf script -F ip,sym,symoff --no-demangle`) and the
 * source line (`perf script -F ip,srcline`), user and kernel alike, on the perf-jvmti fixture
 * after `perf inject --jit` (jitted ELFs with line tables, libjvm, libc, kernel) and on a
 * fresh `perf record -g` of a C program built here with inlining. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"

#define FIXTURE_DIR "../shared/fixtures/perf-jvmti"	/* tests run from the checkout */
#define DUMP_DIR "/var/jitfix/out/.debug/jit/java-jit-20261129.XXhElaKC"

struct sample_out {
	char (*sym)[512];
	char (*line)[512];
	char (*where)[512];	/* "DSO-PATH 0xVADDR" for eu-addr2line, or "" */
	unsigned char *cpumode;
	size_t n, cap;
};

static void feed(struct sym_session *s, struct sample_out *so, const struct pd_event *ev)
{
	int rc = sym_feed_event(s, ev);
	cr_assert_geq(rc, 0);
	if (rc != 1)
		return;
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, ev->u.sample.pid, ev->u.sample.ip, pd_event_time(ev),
				 ev->misc & 7, SYM_RES_LINES, &r), 0);
	if (so->n == so->cap) {
		so->cap = so->cap ? so->cap * 2 : 1024;
		so->sym = realloc(so->sym, so->cap * sizeof(*so->sym));
		so->line = realloc(so->line, so->cap * sizeof(*so->line));
		so->where = realloc(so->where, so->cap * sizeof(*so->where));
		so->cpumode = realloc(so->cpumode, so->cap);
		cr_assert(so->sym && so->line && so->where && so->cpumode);
	}
	const char *dp = r.dso && !r.kernel ? sym_dso_long_name(r.dso) : NULL;
	if (dp && dp[0] == '/')
		snprintf(so->where[so->n], 512, "%.480s 0x%llx", dp,
			 (unsigned long long)r.dso_addr);
	else
		so->where[so->n][0] = 0;
	so->cpumode[so->n] = ev->misc & 7;
	if (r.sym)
		snprintf(so->sym[so->n], 512, "%s+0x%llx", r.sym, (unsigned long long)r.sym_off);
	else
		snprintf(so->sym[so->n], 512, "[unknown]");
	const char *f = r.srcfile ? strrchr(r.srcfile, '/') : NULL;
	snprintf(so->line[so->n], 512, "%s:%u", f ? f + 1 : r.srcfile ? r.srcfile : "??", r.line);
	so->n++;
}

struct replay { struct sym_session *s; struct sample_out *so; };

static int on_event(void *ctx, const struct pd_event *ev)
{
	struct replay *rp = ctx;
	feed(rp->s, rp->so, ev);
	return 0;
}

/* Replays the recording in time order as perf does (rounds, then the rest), with the build-id
 * cache perf has: the one under its HOME, a fresh directory that only this test's perf
 * record and perf inject filled (the [vdso] image among them: perf names vdso samples from
 * there). Never the runner's own cache: a library cached there by an earlier recording gets
 * names perf cannot give (the fixture's libjvm once the installed JDK is another build: perf
 * says [unknown], refusing the installed file's other build-id, as we do without the cache). */
static void resolve_all(const char *data, const char *buildid_dir, struct sample_out *so)
{
	struct pd_reader *r;
	cr_assert_eq(pd_reader_open(&r, data, NULL), 0);
	struct sym_opts o = { .sz = sizeof(o), .no_demangle = 1, .no_debuginfod = 1,
			      .buildid_dir = buildid_dir };
	struct replay rp = { sym_session_new(&o), so };
	cr_assert_eq(sym_feed_build_ids(rp.s, r), 0);
	const struct pd_tool tool = { .sz = sizeof(struct pd_tool),
		.sample = on_event, .mmap = on_event, .comm = on_event,
		.fork = on_event, .exit = on_event, .build_id = on_event,
		.ctx = &rp };
	int damage;
	cr_assert_eq(pd_replay(r, &tool, &damage), 0);
	cr_assert_eq(damage, 0, "%s", pd_reader_error(r));
	sym_session_free(rp.s);
	pd_reader_close(r);
}

static char *run(const char *cmd)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	char *out = strdup(r.out);
	tu_result_free(&r);
	return out;
}

/* 1 if the running kernel is the one the recording was made on. perf script resolves kernel
 * samples against the running kernel's kallsyms whatever the recording says, so its kernel
 * names are an oracle only on the recording's own kernel build. `perf buildid-list -k` would
 * read the running kernel; the recorded id is in the file's [kernel.kallsyms] row. */
static int recorded_kernel_is_running(const char *data, const char *env)
{
	struct sym_build_id running, recorded;
	char cmd[8192], hex[SYM_BUILD_ID_HEX];
	if (sym_kernel_build_id(&running))
		return 0;
	snprintf(cmd, sizeof(cmd), "%s perf buildid-list -i %s 2>/dev/null | "
		 "awk '$2 == \"[kernel.kallsyms]\" { print $1; exit }'", env, data);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	int same = r.status == 0 && !sym_build_id_parse(strtok(r.out, "\n") ?: "", &recorded) &&
		   sym_build_id_equal(&running, &recorded);
	cr_log_info("%s: recorded kernel %s, running %s", data, r.out[0] ? r.out : "(none)",
		    sym_build_id_hex(&running, hex));
	tu_result_free(&r);
	return same;
}

/* 1 when `eu-addr2line -e DSO VADDR` (where = "DSO 0xVADDR") gives ours ("file:line",
 * basename). elfutils finds the separate debug file by build-id as we do. */
static int elfutils_agrees(const char *where, const char *ours)
{
	if (!tu_have("eu-addr2line"))
		return 0;
	char path[512], addr[32], cmd[1200];
	if (sscanf(where, "%511s %31s", path, addr) != 2)
		return 0;
	snprintf(cmd, sizeof(cmd), "eu-addr2line -e '%s' %s 2>/dev/null | head -1", path, addr);
	struct tu_result r;
	if (tu_sh(&r, cmd, 60) || r.status) {
		tu_result_free(&r);
		return 0;
	}
	char *nl = strchr(r.out, '\n');
	if (nl)
		*nl = 0;
	/* "./elf/../sysdeps/x86/dl-cacheinfo.h:321:32" -> "dl-cacheinfo.h:321" */
	char *base = strrchr(r.out, '/');
	base = base ? base + 1 : r.out;
	char *c1 = strchr(base, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c2)
		*c2 = 0;
	int same = !strcmp(base, ours);
	tu_result_free(&r);
	return same;
}

/* perf script prints "ip name+off" per sample, and "ip\n srcline" (nothing when unknown).
 * Kernel samples of a recording from another kernel build: perf's names are those of this
 * machine's kernel, so the only right answer is none, and that is what we assert. */
static void compare_with_perf(const char *data, const char *env)
{
	struct sample_out so = { 0 };
	char cache[4400];
	snprintf(cache, sizeof(cache), "%s/.debug", env + strlen("HOME="));	/* "HOME=DIR" */
	resolve_all(data, cache, &so);
	cr_assert_gt(so.n, 10);
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "%s perf script -i %s -G -F ip,sym,symoff --no-demangle "
		 "2>/dev/null", env, data);
	char *syms = run(cmd);
	snprintf(cmd, sizeof(cmd), "%s perf script -i %s -G -F ip,srcline 2>/dev/null | "
		 "awk '/^ +[0-9a-f]+$/ { if (ip) print \"??\"; ip = $1; next } "
		 "{ print $1; ip = \"\" } END { if (ip) print \"??\" }'", env, data);
	char *lines = run(cmd);
	int same_kernel = recorded_kernel_is_running(data, env);
	size_t i = 0, sym_ok = 0, line_ok = 0, lines_known = 0, foreign_kernel = 0, plt_named = 0;
	size_t arbitrated = 0;
	char *s1 = NULL, *s2 = NULL;
	char *sl = strtok_r(syms, "\n", &s1), *ll = strtok_r(lines, "\n", &s2);
	for (; sl && ll && i < so.n; i++, sl = strtok_r(NULL, "\n", &s1),
				     ll = strtok_r(NULL, "\n", &s2)) {
		const char *psym = strchr(sl + strspn(sl, " "), ' ');
		psym = psym ? psym + 1 : "[unknown]";
		if (so.cpumode[i] == 1 /* PERF_RECORD_MISC_KERNEL */ && !same_kernel) {
			cr_expect_str_eq(so.sym[i], "[unknown]", "sample %zu: a kernel address of "
					 "another kernel build was given a name", i);
			foreign_kernel++;
			continue;
		}
		/* A PLT entry: perf 6.1.187 synthesizes no symbol for a lazy-binding .plt here and
		 * names the pc after the symbol before it (_init+0x30); we name the entry
		 * (clock_gettime@plt), as perf does elsewhere. Counted, said below. */
		int plt = !strncmp(psym, "_init+", 6) && strstr(so.sym[i], "@plt+");
		plt_named += plt;
		cr_expect(plt || !strcmp(so.sym[i], psym), "sample %zu: %s, ours %s", i, sl,
			  so.sym[i]);
		sym_ok += !strcmp(so.sym[i], psym) || plt;
		if (ll[0] == '[')
			continue;	/* perf's placeholder for kernel lines */
		/* "crtstuff.c:?" or "x.c:0": binutils' addr2line names the file from an STT_FILE
		 * symbol where no DWARF covers the pc (crt code at exit); no line is known.
		 * "p[1030]": perf's own "no line" (the binary and the offset). */
		const char *lno = strrchr(ll, ':');
		size_t ll_len = strlen(ll);
		int perf_none = !strcmp(ll, "??") || (lno && (!strcmp(lno, ":?") ||
							      !strcmp(lno, ":0"))) ||
				(!lno && ll_len > 2 && ll[ll_len - 1] == ']' && strchr(ll, '['));
		/* perf's srcline is binutils' addr2line, which on some DWARF 5 line tables names
		 * the CU's file for a row of an included header (ld.so's handle_amd: "dl-get-cpu-
		 * features.c:321" for dl-cacheinfo.h:321). Where the two answers differ, elfutils'
		 * eu-addr2line is asked as well; it agreeing with us settles it (counted, said). */
		int elfutils = 0;
		if (!perf_none && strcmp(so.line[i], ll) && so.where[i][0])
			elfutils = elfutils_agrees(so.where[i], so.line[i]);
		arbitrated += elfutils;
		if (perf_none)
			cr_expect(!strncmp(so.line[i], "??", 2) || !strcmp(so.line[i], ll),
				  "sample %zu: ours %s, perf none (%s)", i, so.line[i], ll);
		else
			cr_expect(elfutils || !strcmp(so.line[i], ll),
				  "sample %zu (%s): ours %s, perf %s", i, sl, so.line[i], ll);
		line_ok += !strcmp(so.line[i], ll) || elfutils ||
			   (perf_none && !strncmp(so.line[i], "??", 2));
		lines_known += !perf_none;
	}
	cr_expect_eq(i, so.n, "perf script printed %zu samples, we resolved %zu", i, so.n);
	cr_expect_gt(lines_known, 5, "the recording must exercise source lines");
	if (foreign_kernel)
		/* stderr, not cr_log_warn: Criterion 2.4 turns a warning into exit status 1 */
		tu_skip_part("%s: %zu kernel samples not compared with perf "
			"script: the recording's kernel is not the running one, so perf's names "
			"for them are this machine's (ours: unresolved, as required)", data,
			foreign_kernel);
	if (arbitrated)
		fprintf(stderr, "vs_perf: %s: %zu samples whose line perf (binutils) gives "
			"otherwise than elfutils' eu-addr2line and we do\n", data, arbitrated);
	if (plt_named)
		fprintf(stderr, "vs_perf: %s: %zu samples in a PLT entry: perf names them after "
			"_init, we after the entry (NAME@plt)\n", data, plt_named);
	cr_log_info("%s: %zu samples, %zu symbols and %zu lines as perf", data, so.n, sym_ok,
		    line_ok);
	free(syms), free(lines), free(so.sym), free(so.line), free(so.where), free(so.cpumode);
}

Test(vs_perf, perf_jvmti_fixture_injected, .timeout = 300)
{
	struct stat st;
	char cmd[8192];
	if (stat(FIXTURE_DIR "/perf.data", &st))
		cr_skip_test(FIXTURE_DIR " is absent");
	/* the recording names its dump at this path; perf inject reads it there */
	if (tu_sh(&(struct tu_result){ 0 }, "mkdir -p " DUMP_DIR " && cp " FIXTURE_DIR
		  "/jit-27543.dump " DUMP_DIR "/", 60))
		cr_skip_test("cannot place the fixture's dump at " DUMP_DIR);
	char *dir = tu_tmpdir("sym-vs-perf");
	snprintf(cmd, sizeof(cmd), "HOME=%s perf inject --jit -i " FIXTURE_DIR "/perf.data "
		 "-o %s/fix.jit.data", dir, dir);
	free(run(cmd));
	snprintf(cmd, sizeof(cmd), "%s/fix.jit.data", dir);
	char env[4300];
	snprintf(env, sizeof(env), "HOME=%s", dir);
	compare_with_perf(cmd, env);
	tu_rmtree(dir);
	free(dir);
}

/* spin() is short, so clock_gettime() (the vdso) takes a share of the samples too. */
static const char *prog =
	"#include <stdlib.h>\n"
	"#include <time.h>\n"
	"volatile unsigned long sink;\n"
	"static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)\n"
	"{\n"
	"	x ^= x >> 7;\n"
	"	return x * 0x9e3779b97f4a7c15ul;\n"
	"}\n"
	"__attribute__((noinline)) void spin(void)\n"
	"{\n"
	"	for (unsigned long i = 0; i < 1000; i++)\n"
	"		sink += mix(i);\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"	struct timespec a, b;\n"
	"	clock_gettime(CLOCK_MONOTONIC, &a);\n"
	"	do {\n"
	"		spin();\n"
	"		clock_gettime(CLOCK_MONOTONIC, &b);\n"
	"	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 400000000L);\n"
	"	return 0;\n"
	"}\n";

Test(vs_perf, fresh_perf_record, .timeout = 300)
{
	char *dir = tu_tmpdir("sym-vs-perf");
	char path[4200], cmd[9000], env[4300];
	snprintf(path, sizeof(path), "%s/p.c", dir);
	cr_assert_eq(tu_write_file(path, prog, strlen(prog)), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && gcc -O2 -g -o p p.c && "
		 "HOME=%s perf record -q -g -F 1999 -o p.data ./p >/dev/null 2>&1", dir, dir);
	free(run(cmd));
	snprintf(path, sizeof(path), "%s/p.data", dir);
	snprintf(env, sizeof(env), "HOME=%s", dir);
	compare_with_perf(path, env);
	tu_rmtree(dir);
	free(dir);
}
