/* test_ondemand.c - recorder/inject/ondemand.c: a symbols session given an `inject --no-elfs`
 * output finds every sampled generation's ELF in memory, byte for byte the ELF the file path
 * writes, built once per session; a dump changed since inject is refused with its reason, and
 * so is an ELF whose build-id no longer matches (a dump rewritten past its hashed first page
 * with its mtime put back). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/inject/inject_int.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"
#include "tests/unit/inject/runfix.h"

static char msgs[8192];

static void collect(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	size_t n = strlen(msgs);
	snprintf(msgs + n, sizeof(msgs) - n, "%s\n", msg);
}

/* A session over out (no build-id cache, no debuginfod) with its events and build-ids fed and
 * the --no-elfs provider attached. */
static struct sym_session *session(struct pd_reader **r)
{
	struct sym_opts so = { .sz = sizeof(so), .buildid_dir = "/nonexistent",
			       .no_debuginfod = 1, .log = { collect, NULL } };
	struct sym_session *s = sym_session_new(&so);
	char err[512];
	struct pd_event ev;
	msgs[0] = 0;
	cr_assert_not_null(s);
	cr_assert_eq(pd_reader_open(r, out, NULL), 0);
	cr_assert_eq(inj_ondemand_attach(s, *r, out, err, sizeof(err)), 1, "%s", err);
	cr_assert_eq(sym_feed_build_ids(s, *r), 0);
	while (pd_reader_next(*r, &ev) > 0)
		cr_assert_geq(sym_feed_event(s, &ev), 0);
	return s;
}

/* The DSO of load i (its MMAP2 name), or NULL. */
static struct sym_dso *dso_of(struct sym_session *s, int i)
{
	char name[64];
	snprintf(name, sizeof(name), "/jitted-%d-%llu.so", getpid(),
		 (unsigned long long)code_index[i]);
	for (struct sym_dso *d = sym_dso_next(s, NULL); d; d = sym_dso_next(s, d))
		if (strstr(sym_dso_long_name(d), name))
			return d;
	return NULL;
}

static void inject_both(void)
{
	struct inj_stats st;
	char err[512];
	rf_make_input(0);
	/* the file path's ELFs first, kept aside as the reference */
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	struct inj_opts o = { .input = data, .output = out, .out_fd = fd, .threads = 2 };
	cr_assert_eq(inj_run(&o, &st, err, sizeof(err)), 0, "%s", err);
	close(fd);
	cr_assert_eq(rf_run_no_elfs(0, &st, err, sizeof(err)), 0, "%s", err);
}

static char *ref_elf(int i, size_t *len)
{
	char p[4300];
	snprintf(p, sizeof(p), "%s/jitted-%d-%llu.so", dir, getpid(),
		 (unsigned long long)code_index[i]);
	return tu_read_file(p, len);
}

Test(ondemand, sampled_elfs_built_in_memory_as_the_file_path_writes, .fini = rf_cleanup)
{
	struct pd_reader *r;
	inject_both();
	struct sym_session *s = session(&r);
	for (int i = 0; i < NLOADS; i += 2) {
		struct sym_dso *d = dso_of(s, i);
		const char *found;
		void *img;
		size_t len, rlen;
		cr_assert_not_null(d, "load %d", i);
		char p[4300];
		snprintf(p, sizeof(p), "%s/jitted-%d-%llu.so", dir, getpid(),
			 (unsigned long long)code_index[i]);
		cr_assert_eq(unlink(p) == 0 || i, 1);	/* no file to fall back on for load 0 */
		cr_assert_eq(sym_dso_find(s, d, &found), 0, "load %d: %s", i, msgs);
		cr_assert(strstr(found, dump) && strchr(found, '@'), "found at %s", found);
		cr_assert_eq(sym_dso_read_file(s, d, &img, &len), 0);
		char *ref = i ? ref_elf(i, &rlen) : NULL;
		if (ref)
			cr_assert(len == rlen && !memcmp(img, ref, len), "load %d: bytes differ", i);
		free(ref);
		free(img);
	}
	sym_session_free(s);
	pd_reader_close(r);
}

Test(ondemand, a_changed_dump_is_refused_with_its_reason, .fini = rf_cleanup)
{
	struct pd_reader *r;
	inject_both();
	FILE *f = fopen(dump, "a");
	cr_assert_not_null(f);
	fputc(0, f);
	fclose(f);
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/jitted-*", dir);
	cr_assert_eq(system(cmd), 0);
	struct sym_session *s = session(&r);
	cr_assert_neq(sym_dso_find(s, dso_of(s, 0), NULL), 0);
	cr_assert(strstr(msgs, "changed since inject") && strstr(msgs, "refused"), "%s", msgs);
	sym_session_free(s);
	pd_reader_close(r);
}

Test(ondemand, an_elf_whose_build_id_changed_is_refused, .fini = rf_cleanup)
{
	struct pd_reader *r;
	struct stat sb;
	char err[512];
	inject_both();
	struct jd_index *x;
	cr_assert_eq(jd_index_open(&x, dump, err, sizeof(err)), 0, "%s", err);
	const struct jd_load_entry *e = jd_index_load(x, NLOADS - 2);
	uint64_t at = e->offset + 56 + strlen(e->load.name) + 1;	/* its first code byte */
	jd_index_close(x);
	cr_assert_gt(at, 4096);
	cr_assert_eq(stat(dump, &sb), 0);
	int fd = open(dump, O_WRONLY);
	cr_assert_eq(pwrite(fd, "\x90", 1, (off_t)at), 1);
	close(fd);
	struct timespec ts[2] = { sb.st_atim, sb.st_mtim };
	cr_assert_eq(utimensat(AT_FDCWD, dump, ts, 0), 0);
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/jitted-*", dir);
	cr_assert_eq(system(cmd), 0);
	struct sym_session *s = session(&r);
	cr_assert_eq(sym_dso_find(s, dso_of(s, 0), NULL), 0, "%s", msgs);	/* untouched */
	cr_assert_neq(sym_dso_find(s, dso_of(s, NLOADS - 2), NULL), 0);
	cr_assert(strstr(msgs, "build-id differs"), "%s", msgs);
	sym_session_free(s);
	pd_reader_close(r);
}
