/* test_ondemand.c - recorder/origins/ondemand.c: a symbols session given an `inject --no-elfs`
 * output finds every sampled generation's ELF in memory, byte for byte the ELF the file path
 * writes, built once per session; a dump changed since inject is refused with its reason (a
 * rewrite with its mtime put back too, in every mode), and so is an ELF whose build-id no
 * longer matches (identities that match a rewritten dump). For a symbols-only reader each ELF has the file's symbol, .text
 * offset and build-id, and no line table. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
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
static struct sym_session *session_flags(struct pd_reader **r, unsigned flags)
{
	struct sym_opts so = { .sz = sizeof(so), .buildid_dir = "/nonexistent",
			       .no_debuginfod = 1, .log = { collect, NULL } };
	struct sym_session *s = sym_session_new(&so);
	char err[512];
	struct pd_event ev;
	msgs[0] = 0;
	cr_assert_not_null(s);
	cr_assert_eq(pd_reader_open(r, out, NULL), 0);
	cr_assert_eq(inj_ondemand_attach(s, *r, out, flags, JP_ERRBUF_LOG(err)), 1, "%s", err);
	cr_assert_eq(sym_feed_build_ids(s, *r), 0);
	while (pd_reader_next(*r, &ev) > 0)
		cr_assert_geq(sym_feed_event(s, &ev), 0);
	return s;
}

static struct sym_session *session(struct pd_reader **r)
{
	return session_flags(r, 0);
}

/* What a reader of symbols sees in an ELF image: its one function symbol, where .text lies
 * in the file, its build-id note, and whether it has a section named want. */
struct elf_face {
	char sym[256];
	uint64_t value, size, text_offset;
	uint8_t id[20];
	int has;
};

static void face_of(const void *img, size_t len, const char *want, struct elf_face *f)
{
	memset(f, 0, sizeof(*f));
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	Elf *e = elf_memory((char *)img, len);
	cr_assert_not_null(e);
	size_t shstr;
	cr_assert_eq(elf_getshdrstrndx(e, &shstr), 0);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		cr_assert_not_null(gelf_getshdr(scn, &sh));
		const char *name = elf_strptr(e, shstr, sh.sh_name);
		cr_assert_not_null(name);
		f->has |= !strcmp(name, want);
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!strcmp(name, ".text"))
			f->text_offset = sh.sh_offset;
		if (sh.sh_type == SHT_SYMTAB && d) {
			GElf_Sym sym;
			cr_assert_not_null(gelf_getsym(d, 1, &sym));
			snprintf(f->sym, sizeof(f->sym), "%s", elf_strptr(e, sh.sh_link, sym.st_name));
			f->value = sym.st_value;
			f->size = sym.st_size;
		}
		if (sh.sh_type == SHT_NOTE && d && d->d_size >= 16 + 20 &&
		    !memcmp((char *)d->d_buf + 12, "GNU", 4))
			memcpy(f->id, (char *)d->d_buf + 16, 20);
	}
	elf_end(e);
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
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = data, .output = out, .out_fd = fd, .threads = 2 };
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&o, &st), 0, "%s", err);
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

static void rm_elfs(void)
{
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/jitted-*", dir);
	cr_assert_eq(system(cmd), 0);
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
	rm_elfs();
	struct sym_session *s = session(&r);
	cr_assert_neq(sym_dso_find(s, dso_of(s, 0), NULL), 0);
	cr_assert(strstr(msgs, "changed since inject") && strstr(msgs, "refused"), "%s", msgs);
	sym_session_free(s);
	pd_reader_close(r);
}

/* Issue 34 finding 5: a dump rewritten past its first page with its mtime put back passed the
 * identity, and a symbols-only reader (report --sort dso,sym), which does not hash the ELF
 * again, showed the rewritten load. Now the dump's ctime and SHA-1 refuse it in every mode. */
Test(ondemand, a_rewrite_with_its_mtime_put_back_is_refused_in_every_mode, .fini = rf_cleanup)
{
	static const unsigned modes[] = { INJ_OD_SYMBOLS_ONLY | INJ_OD_NO_ELF,
					  INJ_OD_SYMBOLS_ONLY, 0 };
	inject_both();
	rf_rewrite_code(NLOADS - 2);
	rm_elfs();
	for (int m = 0; m < 3; m++) {
		struct pd_reader *r;
		struct sym_session *s = session_flags(&r, modes[m]);
		struct sym_dso *d = dso_of(s, NLOADS - 2);
		cr_assert_not_null(d);
		cr_assert_neq(sym_dso_find(s, d, NULL), 0, "mode %u", modes[m]);
		cr_assert(strstr(msgs, "ctime differs") && strstr(msgs, "refused") &&
			  strstr(msgs, dump), "mode %u: %s", modes[m], msgs);
		sym_session_free(s);
		pd_reader_close(r);
	}
}

/* Identities that match a rewritten dump (an inject racing the rewrite): the ELF built from
 * it no longer hashes to the recorded build-id and is refused, one warning naming the dump
 * and the load. */
Test(ondemand, an_elf_whose_build_id_changed_is_refused, .fini = rf_cleanup)
{
	struct pd_reader *r;
	inject_both();
	rf_rewrite_code(NLOADS - 2);
	rf_reidentify();
	rm_elfs();
	struct sym_session *s = session(&r);
	cr_assert_eq(sym_dso_find(s, dso_of(s, 0), NULL), 0, "%s", msgs);	/* untouched */
	cr_assert_neq(sym_dso_find(s, dso_of(s, NLOADS - 2), NULL), 0);
	cr_assert_neq(sym_dso_find(s, dso_of(s, NLOADS - 2), NULL), 0);	/* asked again */
	cr_assert(strstr(msgs, "build-id differs") && strstr(msgs, dump), "%s", msgs);
	cr_assert_eq(tu_count(msgs, "build-id differs"), 1, "%s", msgs);
	sym_session_free(s);
	pd_reader_close(r);
}

Test(ondemand, symbols_only_elfs_keep_symbol_offset_and_build_id, .fini = rf_cleanup)
{
	struct pd_reader *r;
	inject_both();
	struct sym_session *s = session_flags(&r, INJ_OD_SYMBOLS_ONLY);
	int compared = 0;
	for (int i = 2; i < NLOADS; i += 2) {
		struct sym_dso *d = dso_of(s, i);
		size_t len, rlen;
		void *img;
		cr_assert_not_null(d, "load %d", i);
		char *ref = ref_elf(i, &rlen);
		if (!ref)
			continue;	/* not a sampled generation: no file to compare with */
		char p[4300];
		snprintf(p, sizeof(p), "%s/jitted-%d-%llu.so", dir, getpid(),
			 (unsigned long long)code_index[i]);
		cr_assert_eq(unlink(p), 0);	/* only the provider can give it now */
		cr_assert_eq(sym_dso_find(s, d, NULL), 0, "load %d: %s", i, msgs);
		cr_assert_eq(sym_dso_read_file(s, d, &img, &len), 0);
		struct elf_face lite, full;
		face_of(img, len, ".debug_line", &lite);
		face_of(ref, rlen, ".debug_line", &full);
		cr_assert(full.has, "load %d: the file path's ELF has a line table", i);
		cr_assert_not(lite.has, "load %d: a symbols-only ELF carries a line table", i);
		cr_assert_lt(len, rlen);
		cr_assert_str_eq(lite.sym, full.sym);
		cr_assert_eq(lite.value, full.value);
		cr_assert_eq(lite.size, full.size);
		cr_assert_eq(lite.text_offset, full.text_offset);
		cr_assert_arr_eq(lite.id, full.id, 20, "load %d: build-id", i);
		free(ref);
		free(img);
		compared++;
	}
	cr_assert_gt(compared, 0, "no sampled generation to compare");
	sym_session_free(s);
	pd_reader_close(r);
}

/* INJ_OD_NO_ELF: every sample of the output resolves to the same DSO address, symbol and
 * offset as through the symbols-only ELFs, with no ELF to read. */
Test(ondemand, symbols_without_elfs_resolve_as_the_elfs_do, .fini = rf_cleanup)
{
	struct pd_reader *ra, *rb, *rs;
	inject_both();
	struct sym_session *a = session_flags(&ra, INJ_OD_SYMBOLS_ONLY);
	struct sym_session *b = session_flags(&rb, INJ_OD_SYMBOLS_ONLY | INJ_OD_NO_ELF);
	cr_assert_eq(pd_reader_open(&rs, out, NULL), 0);
	struct pd_event ev;
	int named = 0;
	while (pd_reader_next(rs, &ev) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		const struct pd_sample *ps = &ev.u.sample;
		struct sym_result x, y;
		cr_assert_eq(sym_resolve(a, ps->pid, ps->ip, ps->time, 2, 0, &x), 0);
		cr_assert_eq(sym_resolve(b, ps->pid, ps->ip, ps->time, 2, 0, &y), 0);
		cr_assert_str_eq(y.dso_name, x.dso_name);
		cr_assert_eq(y.dso_addr, x.dso_addr, "%s", x.dso_name);
		cr_assert_str_eq(y.sym ? y.sym : "(none)", x.sym ? x.sym : "(none)", "%s",
				 x.dso_name);
		cr_assert_eq(y.sym_off, x.sym_off);
		cr_assert_eq(y.sym_size, x.sym_size);
		if (y.sym && strstr(y.dso_name, "jitted-")) {
			void *img = NULL;
			size_t len;
			cr_assert_lt(sym_dso_read_file(b, y.dso, &img, &len), 0, "an ELF was built");
			named++;
		}
	}
	cr_assert_gt(named, 0, "no sample in a jitted ELF");
	cr_assert_eq(msgs[0], 0, "%s", msgs);
	sym_session_free(a);
	sym_session_free(b);
	pd_reader_close(ra);
	pd_reader_close(rb);
	pd_reader_close(rs);
}
