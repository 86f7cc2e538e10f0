/* test_find.c - finding a DSO's file (recorder/symbols/find.c, source.c): the build-id cache
 * as `perf buildid-cache` fills it, --symfs, archives of the cache (tar.zst, tar.gz), separate
 * debug files, and refusal of any file whose build-id differs from the recorded one. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL, 0), 0);
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
	cr_expect(strstr(st_msgs, "not found"), "%s", st_msgs);
	sym_session_free(s);
	free(so), free(cache), free(gone);
}

Test(find, mismatched_build_id_is_refused_naming_both)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	struct sym_build_id recorded, other;
	char h1[SYM_BUILD_ID_HEX], h2[SYM_BUILD_ID_HEX];
	cr_assert_eq(sym_elf_build_id(so, &recorded, NULL, 0), 0);
	/* the file at the recorded path is rebuilt differently after the recording */
	char *keep = path_in("libt.so.orig"), cmd[9000];
	snprintf(cmd, sizeof(cmd), "mv %s %s", so, keep);
	st_run(cmd);
	free(st_build(dir, "libt.so", "-fPIC -shared -DREBUILT=1 -fno-inline-functions-called-once"));
	cr_assert_eq(sym_elf_build_id(so, &other, NULL, 0), 0);
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
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL, 0), 0);
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
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL, 0), 0);
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
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL, 0), 0);
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
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL, 0), 0);
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

/* A provider serving one ELF's bytes for one build-id (what inject --no-elfs leaves). */
struct prov_ctx {
	struct sym_build_id id;
	const char *path;
	int calls, fini, fail;
};

static int prov_get(void *ctx, const struct sym_build_id *id, const char *long_name,
		    void **image, size_t *len, char **what, char *msg, size_t msglen)
{
	struct prov_ctx *p = ctx;
	(void)long_name;
	if (!sym_build_id_equal(id, &p->id))
		return 0;
	p->calls++;
	if (p->fail) {
		snprintf(msg, msglen, "the dump changed: refused");
		return -ESTALE;
	}
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
	cr_assert_eq(sym_elf_build_id(so, &p.id, NULL, 0), 0);
	struct sym_provider pv = { prov_get, prov_fini, &p };
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
	cr_expect(strstr(st_msgs, "the dump changed: refused"), "%s", st_msgs);
	sym_session_free(s);
	free(so), free(gone);
}
