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
	return st_session(buildid_dir, symfs);
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
	return st_path(dir, sub);
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
