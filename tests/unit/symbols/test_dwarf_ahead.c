/* test_dwarf_ahead.c - recorder/symbols/dwarf_ahead.c: a separate debug file's DWARF read on a
 * worker thread gives the same lines and inline chains as reading it at the first lookup;
 * SYM_RES_NO_WAIT never waits for it and says so (lines_later); DWARF inside the binary
 * itself is not read ahead; JITPROF_DWARF_AHEAD=0 turns it off. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

#define BASE 0x7f0000000000ull

static char *dir, *so, *dbg, *cache;
static struct sym_build_id bid;

static struct sym_session *session(void);

/* libt.so stripped, its debug file in a perf build-id cache, padded past the size under
 * which the symbols read a file into memory instead of mapping it (only a mapped debug file
 * is read ahead). Its sections compressed, as distributions ship them: the read-ahead
 * leaves the location lists compressed and unread (lines_skip_unread), the reference does
 * not, and the answers must be the same. */
static void setup(void)
{
	dir = tu_tmpdir("sym-ahead");
	st_msgs[0] = 0;
	so = st_build(dir, "libt.so", "-fPIC -shared -gz=zlib");
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	char hex[SYM_BUILD_ID_HEX], cmd[9000];
	sym_build_id_hex(&bid, hex);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && head -c 1048576 /dev/zero > pad && objcopy --only-keep-debug libt.so "
		 "libt.debug && objcopy --add-section .note.pad=pad libt.debug && strip -s libt.so "
		 "&& HOME=%s perf buildid-cache -a %s && cp libt.debug %s/.debug%s/%s/debug",
		 dir, dir, so, dir, so, hex);
	st_run(cmd);
	dbg = malloc(4200);
	cache = malloc(4200);
	snprintf(dbg, 4200, "%s/libt.debug", dir);
	snprintf(cache, 4200, "%s/.debug", dir);
	unsetenv("JITPROF_DWARF_AHEAD");
}

static void teardown(void)
{
	unsetenv("JITPROF_DWARF_AHEAD");
	tu_rmtree(dir);
	free(dir), free(so), free(dbg), free(cache);
}

TestSuite(dwarf_ahead, .init = setup, .fini = teardown, .timeout = 60);

static struct sym_session *session(void)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = cache, .no_debuginfod = 1,
			      .log = { st_collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	cr_assert(s);
	cr_assert_eq(st_map(s, 9, so, so, BASE, &bid), 0);
	return s;
}

static int threads(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	cr_assert(d);
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Starts the read-ahead of the session's one DSO; returns how many threads it started. */
static int read_ahead(struct sym_session *s)
{
	struct sym_dso *d = sym_dso_next(s, NULL);
	cr_assert_not_null(d);
	int before = threads();
	cr_assert_eq(sym_dso_read_dwarf_ahead(s, d), 0);
	return threads() - before;
}

/* work() and other(); in work(), the first address inside inlined code (addsq, sq), found
 * in a session without read-ahead: where the two must agree. */
static uint64_t addrs[2];

static void describe_at(struct sym_session *s, unsigned flags, uint64_t a, char *out,
			int *later)
{
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 9, a, 2, 2, flags, &r), 0);
	*later += r.lines_later;
	int n = snprintf(out, 512, "%s:%u", r.srcfile ? r.srcfile : "?", r.line);
	for (unsigned k = 0; k < r.n_inline; k++)
		n += snprintf(out + n, 512 - (size_t)n, " %s@%s:%u", r.inl[k].func,
			      r.inl[k].file ? r.inl[k].file : "?", r.inl[k].line);
}

static void find_addrs(void)
{
	struct sym_session *s = session();
	uint64_t work = BASE + st_nm_addr(dbg, "work");
	addrs[0] = 0;
	for (uint64_t off = 0; off < 256 && !addrs[0]; off++) {
		struct sym_result r;
		cr_assert_eq(sym_resolve(s, 9, work + off, 2, 2, SYM_RES_LINES, &r), 0);
		if (r.n_inline >= 2)
			addrs[0] = work + off;
	}
	cr_assert_neq(addrs[0], 0, "no inlined code in work(): %s", st_msgs);
	addrs[1] = BASE + st_nm_addr(dbg, "other") + 4;
	sym_session_free(s);
}

/* Both addresses as "file:line func@file:line ...", innermost first. */
static void describe(struct sym_session *s, unsigned flags, char out[2][512], int *later)
{
	*later = 0;
	for (int i = 0; i < 2; i++)
		describe_at(s, flags, addrs[i], out[i], later);
}

/* The answers of a session that reads the DWARF at the first lookup: the reference. */
static void reference(char want[2][512])
{
	int later;
	find_addrs();
	struct sym_session *s = session();
	describe(s, SYM_RES_LINES, want, &later);
	sym_session_free(s);
	cr_assert(strstr(want[0], " work@"), "no inline chain to compare: %s", want[0]);
}

Test(dwarf_ahead, same_lines_as_reading_at_first_lookup)
{
	char want[2][512], got[2][512];
	int later;
	reference(want);
	struct sym_session *s = session();
	cr_assert_eq(read_ahead(s), 1, "no worker started for a mapped debug file");
	describe(s, SYM_RES_LINES, got, &later);
	cr_assert_eq(later, 0);
	cr_assert_str_eq(got[0], want[0]);
	cr_assert_str_eq(got[1], want[1]);
	sym_session_free(s);
}

Test(dwarf_ahead, no_wait_says_lines_later_and_never_blocks)
{
	char want[2][512], got[2][512];
	int later;
	reference(want);
	/* held: busy until a lookup waits for it, whatever the worker has done */
	setenv("JITPROF_DWARF_AHEAD", "hold", 1);
	struct sym_session *s = session();
	cr_assert_eq(read_ahead(s), 1);
	describe(s, SYM_RES_LINES | SYM_RES_NO_WAIT, got, &later);
	cr_assert_eq(later, 2, "a held read-ahead gave lines without waiting");
	cr_assert(!strncmp(got[0], "?:0", 3), "lines while held: %s", got[0]);
	describe(s, SYM_RES_LINES, got, &later);	/* waits, then answers */
	cr_assert_eq(later, 0);
	cr_assert_str_eq(got[0], want[0]);
	cr_assert_str_eq(got[1], want[1]);
	describe(s, SYM_RES_LINES | SYM_RES_NO_WAIT, got, &later);	/* taken: no wait */
	cr_assert_eq(later, 0);
	cr_assert_str_eq(got[0], want[0]);
	sym_session_free(s);
}

Test(dwarf_ahead, debug_info_in_the_binary_or_switched_off_reads_nothing_ahead)
{
	struct sym_opts o = { .sz = sizeof(o), .no_debuginfod = 1, .log = { st_collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	char *full = st_build(dir, "full.so", "-fPIC -shared");
	cr_assert_eq(st_map(s, 9, full, full, BASE, NULL), 0);
	cr_assert_eq(read_ahead(s), 0, "DWARF in the binary itself was read ahead");
	sym_session_free(s);
	free(full);

	find_addrs();
	setenv("JITPROF_DWARF_AHEAD", "0", 1);
	s = session();
	cr_assert_eq(read_ahead(s), 0, "read ahead with JITPROF_DWARF_AHEAD=0");
	char got[2][512];
	int later;
	describe(s, SYM_RES_LINES | SYM_RES_NO_WAIT, got, &later);
	cr_assert_eq(later, 0);
	cr_assert(strstr(got[0], " work@"), "%s", got[0]);
	sym_session_free(s);
}

/* A session freed with a read-ahead nobody took waits for it and frees it (ASan's leak check
 * and a clean exit tell). */
Test(dwarf_ahead, untaken_read_ahead_freed_with_the_session)
{
	struct sym_session *s = session();
	cr_assert_eq(read_ahead(s), 1);
	int before = threads();
	sym_session_free(s);
	cr_assert_eq(threads(), before - 1, "the worker outlived its session");
}
