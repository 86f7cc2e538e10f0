/* test_find_provider.c - DSOs whose ELF has no file (recorder/symbols/find.c): a provider
 * serves the bytes or the symbols by build-id (what inject --no-elfs leaves for report), and
 * its refusals are said; and sessions that read no lines naming addresses as those that do.
 * Split from test_find.c. */
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
	dir = tu_tmpdir("sym-prov");
	st_msgs[0] = 0;
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(find_provider, .init = setup, .fini = teardown);

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

Test(find_provider, provider_serves_elfs_that_have_no_file)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	char *gone = st_path(dir, "no-such-dir/jitted-1-2.so");
	struct prov_ctx p = { .path = so };
	cr_assert_eq(sym_elf_build_id(so, &p.id, NULL), 0);
	struct sym_provider pv = { .get = prov_get, .fini = prov_fini, .ctx = &p };
	struct sym_session *s = st_session("/nonexistent", NULL);
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
	s = st_session("/nonexistent", NULL);
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

Test(find_provider, provider_gives_symbols_without_an_elf)
{
	char *gone = st_path(dir, "no-such-dir/jitted-1-3.so");
	struct prov_ctx p = { .id = { .size = 20 } };
	memset(p.id.data, 0xab, 20);
	struct sym_provider pv = { prov_get, prov_fini, &p, prov_symbols };
	struct sym_session *s = st_session("/nonexistent", NULL);
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
	s = st_session("/nonexistent", NULL);
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
Test(find_provider, sessions_without_lines_name_addresses_alike)
{
	char *so = st_build(dir, "libt.so", "-fPIC -shared");
	char *gone = st_path(dir, "no-such-dir/jitted-1-4.so");
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
