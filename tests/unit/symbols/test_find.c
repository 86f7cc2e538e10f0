/* test_find.c - finding a DSO's file (recorder/symbols/find.c, source.c): the build-id cache
 * as `perf buildid-cache` fills it, --symfs, archives of the cache (tar.zst, tar.gz), separate
 * debug files, and refusal of any file whose build-id differs from the recorded one. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

#define BASE 0x7f0000000000ull

static char *dir;

static void setup(void)
{
	dir = tu_tmpdir("sym-find");
	st_msgs[0] = 0;
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(find, .init = setup, .fini = teardown);

static struct sym_session *session(const char *buildid_dir, const char *symfs)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = buildid_dir, .symfs = symfs,
			      .no_debuginfod = 1, .log = { st_collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	cr_assert(s);
	return s;
}

/* Resolves work()+4 of the ELF at layout (mapped at BASE as `recorded`), with lines. */
static struct sym_result resolve_work(struct sym_session *s, const char *recorded,
				      const char *layout, const struct sym_build_id *bid)
{
	cr_assert_eq(st_map(s, 9, recorded, layout, BASE, bid), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 9, BASE + st_nm_addr(layout, "work") + 4, 2, 2, SYM_RES_LINES,
				 &r), 0);
	return r;
}

static char *path_in(const char *sub)
{
	char *p = malloc(4200);
	snprintf(p, 4200, "%s/%s", dir, sub);
	return p;
}

Test(find, perf_buildid_cache_layout)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct sym_build_id bid;
	char cmd[9000], hex[SYM_BUILD_ID_HEX];
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf buildid-cache -a %s && mv %s %s.gone", dir, so, so,
		 so);
	st_run(cmd);
	char *cache = path_in(".debug");
	char *gone = path_in("libt.so.gone");
	/* the recorded path no longer exists: only the cache can answer */
	struct sym_session *s = session(cache, NULL);
	struct sym_result r = resolve_work(s, so, gone, &bid);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work");
	cr_expect_str_eq(r.dso_name, "libt.so");
	cr_expect_not_null(r.srcfile, "lines from the cached copy");
	const char *found = NULL;
	cr_assert_eq(sym_dso_find(s, r.dso, &found), 0);
	cr_expect(strstr(found, "/.debug/"), "found at %s", found);
	cr_expect(strstr(found, sym_build_id_hex(&bid, hex) + 2), "found at %s", found);
	sym_session_free(s);
	/* without the cache the same recording has no symbols, and says so */
	s = session("/nonexistent", NULL);
	r = resolve_work(s, so, gone, &bid);
	cr_expect_null(r.sym);
	cr_expect_null(strstr(st_msgs, "not found"), "said before the end: %s", st_msgs);
	sym_say_not_found(s);	/* once, for every file not found (report: after the replay) */
	cr_expect(strstr(st_msgs, "libt.so (by build-id) not found here"), "%s", st_msgs);
	sym_session_free(s);
	free(so), free(cache), free(gone);
}

Test(find, mismatched_build_id_is_refused_naming_both)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct sym_build_id recorded, other;
	char h1[SYM_BUILD_ID_HEX], h2[SYM_BUILD_ID_HEX];
	cr_assert_eq(sym_elf_build_id(so, &recorded, NULL), 0);
	/* the file at the recorded path is rebuilt differently after the recording */
	char *keep = path_in("libt.so.orig"), cmd[9000];
	snprintf(cmd, sizeof(cmd), "mv %s %s", so, keep);
	st_run(cmd);
	free(st_build(dir, "libt.so", "-fPIC -shared -DREBUILT=1 -fno-inline-functions-called-once"));
	cr_assert_eq(sym_elf_build_id(so, &other, NULL), 0);
	cr_assert(!sym_build_id_equal(&recorded, &other));
	struct sym_session *s = session("/nonexistent", NULL);
	struct sym_result r = resolve_work(s, so, keep, &recorded);
	cr_expect_null(r.sym, "a file with another build-id must never be used");
	cr_expect_null(r.srcfile);
	cr_expect(strstr(st_msgs, sym_build_id_hex(&recorded, h1)), "%s", st_msgs);
	cr_expect(strstr(st_msgs, sym_build_id_hex(&other, h2)), "%s", st_msgs);
	cr_expect(strstr(st_msgs, "refused"), "%s", st_msgs);
	cr_expect_neq(sym_dso_find(s, r.dso, NULL), 0);
	sym_session_free(s);
	/* a wrong file planted in the cache under the recorded id is refused as well */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/c/.build-id/%.2s && cp %s %s/c/.build-id/%.2s/%s",
		 dir, h1, so, dir, h1, h1 + 2);
	st_run(cmd);
	char *cache = path_in("c");
	st_msgs[0] = 0;
	s = session(cache, NULL);
	r = resolve_work(s, so, keep, &recorded);
	cr_expect_null(r.sym);
	cr_expect(strstr(st_msgs, "/c/.build-id/"), "%s", st_msgs);
	cr_expect(strstr(st_msgs, h2), "%s", st_msgs);
	sym_session_free(s);
	/* and the recorded id with no build-id recorded at all: the file is taken as is */
	s = session("/nonexistent", NULL);
	r = resolve_work(s, so, so, NULL);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work");
	sym_session_free(s);
	free(so), free(keep), free(cache);
}

Test(find, symfs)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/root/opt/app && cp %s %s/root/opt/app/", dir, so, dir);
	st_run(cmd);
	char *root = path_in("root");
	struct sym_session *s = session("/nonexistent", root);
	struct sym_result r = resolve_work(s, "/opt/app/libt.so", so, &bid);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work");
	cr_expect_not_null(r.srcfile);
	sym_session_free(s);
	free(so), free(root);
}

/* perf-archive's layout: the .build-id links plus the <path>/<id>/elf files they point to,
 * relative to the cache root; found with an empty cache and the original deleted. */
static void archive_case(const char *tar_flags, const char *name)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct sym_build_id bid;
	char cmd[9000];
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	snprintf(cmd, sizeof(cmd),
		 "HOME=%s/a perf buildid-cache -a %s && cd %s/a/.debug && "
		 "tar %s -cf %s/%s .build-id \"$(echo %s | cut -c2- | cut -d/ -f1)\" && "
		 "cp %s %s/layout.so && rm -rf %s/a %s",
		 dir, so, dir, tar_flags, dir, name, so, so, dir, dir, so);
	st_run(cmd);
	char *arch = path_in(name), *layout = path_in("layout.so"), *empty = path_in("b/.debug");
	struct sym_session *s = session(empty, NULL);
	cr_assert_eq(sym_session_add_source(s, arch), 0, "%s", st_msgs);
	struct sym_result r = resolve_work(s, so, layout, &bid);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work", "%s", st_msgs);
	cr_expect_not_null(r.srcfile);
	void *buf = NULL;
	size_t len = 0;
	cr_assert_eq(sym_dso_read_file(s, r.dso, &buf, &len), 0);
	size_t want_len = 0;
	void *want = tu_read_file(layout, &want_len);
	cr_expect_eq(len, want_len);
	cr_expect(want && !memcmp(buf, want, len), "archive member equals the original");
	free(buf), free(want);
	sym_session_free(s);
	free(so), free(arch), free(layout), free(empty);
}

Test(find, archive_tar_zst)
{
	archive_case("--zstd", "perf.tar.zst");
}

Test(find, archive_tar_gz)
{
	archive_case("-z", "perf.tar.gz");
}

Test(find, archive_directory_and_bad_archive)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct sym_build_id bid;
	char cmd[9000];
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	snprintf(cmd, sizeof(cmd), "HOME=%s/a perf buildid-cache -a %s && echo junk > %s/junk.tar",
		 dir, so, dir);
	st_run(cmd);
	char *d = path_in("a/.debug"), *junk = path_in("junk.tar");
	struct sym_session *s = session("/nonexistent", NULL);
	cr_expect_lt(sym_session_add_source(s, junk), 0);
	cr_expect_lt(sym_session_add_source(s, "/nonexistent/x.tar.zst"), 0);
	cr_assert_eq(sym_session_add_source(s, d), 0);
	struct sym_result r = resolve_work(s, "/gone/libt.so", so, &bid);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work");
	sym_session_free(s);
	free(so), free(d), free(junk);
}

Test(find, separate_debug_file_in_cache)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct sym_build_id bid;
	char cmd[9000], hex[SYM_BUILD_ID_HEX];
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	sym_build_id_hex(&bid, hex);
	/* the cache holds a stripped binary; its debug info sits beside it as "debug" */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && objcopy --only-keep-debug libt.so libt.debug && strip -s libt.so && "
		 "HOME=%s perf buildid-cache -a %s && cp libt.debug %s/.debug%s/%s/debug",
		 dir, dir, so, dir, so, hex);
	st_run(cmd);
	char *cache = path_in(".debug"), *dbg = path_in("libt.debug");
	struct sym_session *s = session(cache, NULL);
	cr_assert_eq(st_map(s, 9, so, so, BASE, &bid), 0);
	struct sym_result r;
	/* sq() is static and inlined: only the debug file's DWARF knows it */
	cr_assert_eq(sym_resolve(s, 9, BASE + st_nm_addr(dbg, "other") + 8, 2, 2, SYM_RES_LINES, &r),
		     0);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "other");
	cr_expect_not_null(r.srcfile, "%s", st_msgs);
	cr_expect_geq(r.n_inline, 1);
	if (r.n_inline)
		cr_expect_str_eq(r.inl[r.n_inline - 1].func, "other");
	sym_session_free(s);
	free(so), free(cache), free(dbg);
}

/* Makes DIR/bomb.tar.zst of what make_members (a shell command run in DIR/z) leaves there,
 * opens it under o with TMPDIR at DIR/tmp: refused with what (the limit) named, and what it
 * unpacked is removed with the session. */
static void archive_refused(const char *make_members, struct sym_opts o, const char *what)
{
	char cmd[9000], tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/z/d %s && cd %s/z && %s && tar --zstd -cf "
		 "%s/bomb.tar.zst d", dir, tmp, dir, make_members, dir);
	st_run(cmd);
	setenv("TMPDIR", tmp, 1);
	o.sz = sizeof(o);
	o.buildid_dir = "/nonexistent";
	o.no_debuginfod = 1;
	o.log = (struct jp_log){ st_collect, NULL };
	struct sym_session *s = sym_session_new(&o);
	cr_assert(s);
	char *arch = path_in("bomb.tar.zst");
	st_msgs[0] = 0;
	cr_assert_lt(sym_session_add_source(s, arch), 0);
	cr_assert(strstr(st_msgs, what) && strstr(st_msgs, "bomb.tar.zst"), "%s", st_msgs);
	sym_session_free(s);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s)\"", tmp);
	st_run(cmd);
	free(arch);
}

/* Issue 16 finding 10: an archive whose members expand past the budget is refused with the
 * limit named, and what it unpacked is removed with the session. */
Test(find, archive_over_its_budget_is_refused_and_removed)
{
	archive_refused("head -c 4194304 /dev/zero > d/big",
			(struct sym_opts){ .sz = sizeof(struct sym_opts),
				.archive_budget = 1u << 20 }, "SYM_ARCHIVE_BUDGET");
}

/* Issue 34 finding 9: 200,000 empty members in 306 KB unpacked within any byte budget (198 s
 * creating and removing inodes). Members and the directories they make are counted: 300
 * empty files in nested directories over a limit of 100. */
Test(find, archive_of_many_members_is_refused_and_removed)
{
	archive_refused("for i in $(seq 300); do mkdir -p d/$i/a && : > d/$i/a/f; done",
			(struct sym_opts){ .sz = sizeof(struct sym_opts),
				.archive_max_entries = 100 }, "SYM_ARCHIVE_ENTRIES");
}

/* so (freed here) still names work(); the lookup warned with why (NULL: about no unit). */
static void expect_dwarf(char *so, const char *why)
{
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	struct sym_session *s = session("/nonexistent", NULL);
	st_msgs[0] = 0;
	struct sym_result r = resolve_work(s, so, so, &bid);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work");
	cr_expect(why ? strstr(st_msgs, why) != NULL : !strstr(st_msgs, "DWARF unit"), "%s",
		  st_msgs);
	sym_session_free(s);
	free(so);
}

/* Issue 16 finding 5: 40,000 nested lexical blocks overflowed the stack inside libdw's
 * recursive dwarf_getscopes. The line lookup now stops at SYM_DWARF_MAX_DEPTH, says so, and
 * still names the function. */
Test(find, deeply_nested_dwarf_is_refused_not_a_crash, .timeout = 60)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	st_deep_dwarf(so, 40000);
	expect_dwarf(so, "SYM_DWARF_MAX_DEPTH");
}

/* Issue 34 finding 6: a unit importing a partial unit that imports the next, 100,000 deep,
 * overflowed the stack in libdw's dwarf_getscopes (it follows each import recursively, and
 * searched the chain of imports for a loop at each: quadratic too). The walk that checks a
 * unit's depth follows imports now and counts them as levels; a loop of imports is refused
 * as libdw would. The function is still named, the lookup says why its inline frames are not
 * read. */
static void expect_imports(unsigned n, enum st_imports how, const char *why)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	st_import_chain_dwarf(so, n, how);
	expect_dwarf(so, why);
}

Test(find, deeply_imported_units_are_refused_not_a_crash, .timeout = 60)
{
	expect_imports(100000, ST_IMPORT_CHAIN, "SYM_DWARF_MAX_DEPTH");
}

Test(find, imported_units_in_a_loop_are_refused, .timeout = 60)
{
	expect_imports(3, ST_IMPORT_LOOP, "imports a unit that imports it back");
}

/* Within the limits nothing is refused: 100 units in a chain, 10 levels imported twice
 * (2,046 imports). */
Test(find, imported_units_within_the_limits_are_read, .timeout = 60)
{
	static const struct { unsigned n; enum st_imports how; } ok[] = {
		{ 100, ST_IMPORT_CHAIN }, { 10, ST_IMPORT_TWICE } };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		expect_imports(ok[i].n, ok[i].how, NULL);
}

/* 40 levels of units importing the next twice: 2^40 units for libdw to walk. */
Test(find, imports_doubling_per_level_are_refused, .timeout = 60)
{
	expect_imports(40, ST_IMPORT_TWICE, "SYM_DWARF_IMPORT_BUDGET");
}

/* Issue 34 finding 6: an ELF symbol named "L" + "A<L" x 250,000 + ";m()V" (a Java name to
 * the demangler, one level of recursion per '<') crashed the lookup that names a sample's
 * frame (report's table, --generations, --html). It is shown as it was recorded. */
Test(find, deeply_generic_java_symbol_shown_as_recorded, .timeout = 60)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	uint64_t work = st_nm_addr(so, "work");
	size_t levels = 250000, len = 1 + 3 * levels + 5;
	char *deep = malloc(len + 1), *p = deep, map[4200], cmd[8600];
	cr_assert(deep);
	*p++ = 'L';
	for (size_t i = 0; i < levels; i++, p += 3)
		memcpy(p, "A<L", 3);
	strcpy(p, ";m()V");
	snprintf(map, sizeof(map), "%s/rename", dir);
	FILE *f = fopen(map, "w");
	cr_assert(f);
	fprintf(f, "work %s\n", deep);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "objcopy --redefine-syms='%s' '%s'", map, so);
	st_run(cmd);
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	struct sym_session *s = session("/nonexistent", NULL);
	cr_assert_eq(st_map(s, 9, so, so, BASE, &bid), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 9, BASE + work + 4, 2, 2, SYM_RES_LINES, &r), 0);
	cr_expect(r.sym && !strcmp(r.sym, deep), "%.40s", r.sym ? r.sym : "(none)");
	sym_session_free(s);
	free(deep);
	free(so);
}

/* Issue 16 finding 11: a recorded library that is a FIFO, and a perf-PID.map that is a FIFO or
 * a link to /dev/zero, resolve to nothing instead of blocking or reading forever. */
Test(find, fifos_and_devices_named_by_the_recording_never_block, .timeout = 30)
{
	char *fifo = path_in("libfifo.so");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	struct sym_session *s = session("/nonexistent", NULL);
	cr_assert_eq(sym_mmap(s, 9, 9, 0x400000, 0x1000, 0, fifo, NULL, 0, 2, 1), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 9, 0x400010, 2, 2, SYM_RES_LINES, &r), 0);
	cr_expect_null(r.sym);
	/* perf's map of anonymous code: /tmp/perf-PID.map, for a pid no process has */
	uint32_t pids[2] = { 0x7ffffff0u - (uint32_t)getpid() % 1000, 0 };
	pids[1] = pids[0] + 1;
	char map[2][64];
	for (int i = 0; i < 2; i++) {
		snprintf(map[i], sizeof(map[i]), "/tmp/perf-%u.map", pids[i]);
		unlink(map[i]);
	}
	cr_assert_eq(mkfifo(map[0], 0600), 0);
	cr_assert_eq(symlink("/dev/zero", map[1]), 0);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(sym_mmap(s, pids[i], pids[i], 0x500000, 0x1000, 0, "//anon", NULL, 0,
				      2, 1), 0);
		cr_assert_eq(sym_resolve(s, pids[i], 0x500010, 2, 2, 0, &r), 0);
		cr_expect_null(r.sym, "%s", map[i]);
		unlink(map[i]);
	}
	sym_session_free(s);
	free(fifo);
}

/* A provider serving one ELF's bytes for one build-id (what inject --no-elfs leaves). */
struct prov_ctx {
	struct sym_build_id id;
	const char *path;
	int calls, fini, fail;
};

/* Whether p answers for id: 1, 0 (not its id) or its refusal (p->fail), said as an error
 * naming a 600-byte path (the session used to cut it at 512 bytes). */
static int prov_answers(struct prov_ctx *p, const struct sym_build_id *id,
			const struct jp_log *log)
{
	if (!sym_build_id_equal(id, &p->id))
		return 0;
	p->calls++;
	if (p->fail) {
		char dir[601];
		memset(dir, 'd', 600);
		dir[600] = 0;
		jp_logf(log, JP_LOG_ERROR, "/%s/jit-1.dump: the dump changed: refused", dir);
		return -ESTALE;
	}
	return 1;
}

static int prov_get(void *ctx, const struct sym_build_id *id, const char *long_name,
		    void **image, size_t *len, char **what, const struct jp_log *log)
{
	struct prov_ctx *p = ctx;
	int rc = prov_answers(p, id, log);
	(void)long_name;
	if (rc <= 0)
		return rc;
	*image = tu_read_file(p->path, len);
	*what = strdup("in memory");
	return *image ? 1 : -EIO;
}

static void prov_fini(void *ctx)
{
	((struct prov_ctx *)ctx)->fini++;
}

Test(find, provider_serves_elfs_that_have_no_file)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	char *gone = path_in("no-such-dir/jitted-1-2.so");
	struct prov_ctx p = { .path = so };
	cr_assert_eq(sym_elf_build_id(so, &p.id, NULL), 0);
	struct sym_provider pv = { .get = prov_get, .fini = prov_fini, .ctx = &p };
	struct sym_session *s = session("/nonexistent", NULL);
	cr_assert_eq(sym_session_set_provider(s, &pv), 0);
	cr_assert_eq(sym_session_set_provider(s, &pv), -EBUSY);
	cr_assert_eq(st_map(s, 9, gone, so, BASE, &p.id), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 9, BASE + st_nm_addr(so, "work") + 4, 2, 2, SYM_RES_LINES,
				 &r), 0);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work");
	cr_expect_not_null(r.srcfile, "lines from the in-memory image");
	const char *found = NULL;
	cr_assert_eq(sym_dso_find(s, r.dso, &found), 0);
	cr_expect_str_eq(found, "in memory");
	cr_assert_eq(sym_resolve(s, 9, BASE + st_nm_addr(so, "other"), 2, 2, 0, &r), 0);
	cr_expect_eq(p.calls, 1, "built once per session, not per lookup");
	sym_session_free(s);
	cr_expect_eq(p.fini, 1);

	/* A refusal is reported and leaves the DSO without symbols, never another file. */
	p = (struct prov_ctx){ .id = p.id, .path = so, .fail = 1 };
	s = session("/nonexistent", NULL);
	cr_assert_eq(sym_session_set_provider(s, &pv), 0);
	cr_assert_eq(st_map(s, 9, gone, so, BASE, &p.id), 0);
	cr_assert_eq(sym_resolve(s, 9, BASE + st_nm_addr(so, "work") + 4, 2, 2, 0, &r), 0);
	cr_expect_null(r.sym);
	cr_expect(strstr(st_msgs, "ddd/jit-1.dump: the dump changed: refused\n"), "%s", st_msgs);
	sym_session_free(s);
	free(so), free(gone);
}

/* The symbols-only shortcut: a DSO's symbol and layout without an ELF. */
static int prov_symbols(void *ctx, const struct sym_build_id *id, const char *long_name,
			struct sym_provided *out, const struct jp_log *log)
{
	int rc = prov_answers(ctx, id, log);
	(void)long_name;
	if (rc <= 0)
		return rc;
	/* the one segment starts at file offset 0x100, loaded at vaddr 0x4100 */
	*out = (struct sym_provided){ .seg_off = 0x100, .seg_size = 0x200, .seg_vaddr = 0x4100,
				      .sym_start = 0x4140, .sym_size = 0x40 };
	out->sym_name = strdup("Lcom/acme/Foo;bar(I)I");
	out->what = strdup("without an ELF");
	return 1;
}

Test(find, provider_gives_symbols_without_an_elf)
{
	char *gone = path_in("no-such-dir/jitted-1-3.so");
	struct prov_ctx p = { .id = { .size = 20 } };
	memset(p.id.data, 0xab, 20);
	struct sym_provider pv = { prov_get, prov_fini, &p, prov_symbols };
	struct sym_session *s = session("/nonexistent", NULL);
	cr_assert_eq(sym_session_set_provider(s, &pv), 0);
	/* mapped at 0x900000 from file offset 0x100: ip 0x900050 is file offset 0x150, vaddr
	 * 0x4150, 0x10 into the symbol */
	cr_assert_eq(sym_mmap(s, 9, 9, 0x900000, 0x200, 0x100, gone, p.id.data, 20, 2, 1), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 9, 0x900050, 3, 2, 0, &r), 0);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "com.acme.Foo.bar(int)",
			 "demangled as an ELF's symbol would be");
	cr_expect_eq(r.dso_addr, 0x4150);
	cr_expect_eq(r.sym_off, 0x10);
	cr_assert_eq(sym_resolve(s, 9, 0x900010, 3, 2, 0, &r), 0);
	cr_expect_null(r.sym, "before the symbol: none");
	cr_expect_eq(p.calls, 1, "asked once per DSO");
	const char *found = NULL;
	cr_assert_eq(sym_dso_find(s, r.dso, &found), 0);
	cr_expect_str_eq(found, "without an ELF");
	void *buf = NULL;
	size_t len = 0;
	cr_expect_lt(sym_dso_read_file(s, r.dso, &buf, &len), 0, "no file to read");
	uint8_t code[4];
	cr_expect_lt(sym_dso_read_code(s, r.dso, 0x4150, code, sizeof(code)), 0, "no code");
	sym_session_free(s);
	cr_expect_eq(p.fini, 1);

	/* refused: said once, no symbol, and the ELF path is not asked again */
	p = (struct prov_ctx){ .id = p.id, .fail = 1 };
	s = session("/nonexistent", NULL);
	cr_assert_eq(sym_session_set_provider(s, &pv), 0);
	cr_assert_eq(sym_mmap(s, 9, 9, 0x900000, 0x200, 0x100, gone, p.id.data, 20, 2, 1), 0);
	cr_assert_eq(sym_resolve(s, 9, 0x900050, 3, 2, 0, &r), 0);
	cr_expect_null(r.sym);
	cr_expect(strstr(st_msgs, "ddd/jit-1.dump: the dump changed: refused\n"), "%s", st_msgs);
	cr_expect_eq(p.calls, 1, "get is not asked after get_symbols refused");
	sym_session_free(s);
	free(gone);
}

/* A session that never reads lines names every address as one that does: in a DSO of one
 * symbol (searched directly, without the per-address cache) and in a shared library of
 * many (through the cache), before, inside and past the symbol. */
Test(find, sessions_without_lines_name_addresses_alike)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	char *gone = path_in("no-such-dir/jitted-1-4.so");
	struct prov_ctx p = { .id = { .size = 20 } };
	memset(p.id.data, 0xcd, 20);
	struct sym_provider pv = { prov_get, prov_fini, &p, prov_symbols };
	struct sym_session *v[2];
	for (int k = 0; k < 2; k++) {
		struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent",
				      .no_debuginfod = 1, .no_lines = k, .log = { st_collect, NULL } };
		cr_assert_not_null(v[k] = sym_session_new(&o));
		cr_assert_eq(sym_session_set_provider(v[k], &pv), 0);
		cr_assert_eq(sym_mmap(v[k], 9, 9, 0x900000, 0x200, 0x100, gone, p.id.data, 20, 2, 1),
			     0);
		cr_assert_eq(st_map(v[k], 9, so, so, BASE, NULL), 0);
	}
	const uint64_t addrs[] = { 0x900010, 0x900040, 0x900050, 0x90007f, 0x900080,
				   BASE + st_nm_addr(so, "work"), BASE + st_nm_addr(so, "work") + 4,
				   BASE + st_nm_addr(so, "other") + 1 };
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		struct sym_result a, b;
		cr_assert_eq(sym_resolve(v[0], 9, addrs[i], 3, 2, 0, &a), 0);
		cr_assert_eq(sym_resolve(v[1], 9, addrs[i], 3, 2, 0, &b), 0);
		cr_assert_str_eq(b.sym ? b.sym : "(none)", a.sym ? a.sym : "(none)", "%#llx",
				 (unsigned long long)addrs[i]);
		cr_assert_eq(b.sym_off, a.sym_off);
		cr_assert_eq(b.sym_start, a.sym_start);
		cr_assert_eq(b.sym_size, a.sym_size);
		cr_assert_eq(b.dso_addr, a.dso_addr);
		cr_assert_null(b.srcfile);
	}
	struct sym_result r;
	cr_assert_eq(sym_resolve(v[1], 9, 0x900050, 3, 2, 0, &r), 0);
	cr_assert_str_eq(r.sym, "com.acme.Foo.bar(int)");
	cr_assert_eq(sym_resolve(v[1], 9, BASE + st_nm_addr(so, "work") + 4, 3, 2, 0, &r), 0);
	cr_assert_str_eq(r.sym, "work");
	for (int k = 0; k < 2; k++)
		sym_session_free(v[k]);
	free(so), free(gone);
}
