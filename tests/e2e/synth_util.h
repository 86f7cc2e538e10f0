/* synth_util.h - what tests/e2e/synth_*.c share: running commands, making dumps (minijit, or
 * hand-built loads through libjitdump's writer), running `jitprof synth` on them and checking
 * its files against libsynth's own build of every load. Header-only: each e2e .c file is its
 * own binary. */
#ifndef JITPROF_E2E_SYNTH_UTIL_H
#define JITPROF_E2E_SYNTH_UTIL_H

#include <criterion/criterion.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "synth/synth.h"
#include "tests/lib/testutil.h"

/* Runs a shell command line built like printf, with no debuginfod lookups. */
static inline __attribute__((format(printf, 2, 3)))
void su_sh(struct tu_result *r, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n < sizeof(cmd));
	char full[8300];
	snprintf(full, sizeof(full), "DEBUGINFOD_URLS= %s", cmd);
	cr_assert_eq(tu_sh(r, full, 120), 0, "could not run: %s", cmd);
}

/* The one jit-*.dump in dir (malloc'd). */
static inline char *su_find_dump(const char *dir)
{
	char pat[4096];
	glob_t g;
	snprintf(pat, sizeof(pat), "%s/jit-*.dump", dir);
	cr_assert_eq(glob(pat, 0, NULL, &g), 0, "no dump in %s", dir);
	cr_assert_eq(g.gl_pathc, 1);
	char *p = strdup(g.gl_pathv[0]);
	globfree(&g);
	return p;
}

/* Runs minijit briefly with its dump in dir; returns the dump's path (malloc'd). */
static inline char *su_minijit_dump(const char *dir, const char *prefix)
{
	struct tu_result r;
	su_sh(&r, "%s %s --dir %s --seconds 0.05", prefix, tu_build("minijit"), dir);
	cr_assert_eq(r.status, 0, "minijit failed: %s", r.err);
	tu_result_free(&r);
	return su_find_dump(dir);
}

/* One load as jitprof synth wrote it and libsynth builds it. */
struct su_load {
	char path[4096 + SYNTH_FILE_NAME_MAX + 2];
	struct synth_input in;
	struct synth_elf elf;
};

struct su_set {
	struct jd_index *x;
	struct su_load *v;
	size_t n;
};

/* `jitprof synth dump -o outdir --all`, then every load rebuilt with libsynth: the files must
 * be byte-identical and the printed build-ids the ELFs' own. */
static inline void su_synth(struct su_set *s, const char *dump, const char *outdir)
{
	struct tu_result r;
	su_sh(&r, "%s synth %s -o %s --all -q", tu_build("jitprof"), dump, outdir);
	cr_assert_eq(r.status, 0, "jitprof synth: %s", r.err);
	char err[512];
	cr_assert_eq(jd_index_open(&s->x, dump, err, sizeof(err)), 0, "%s", err);
	s->n = jd_index_nr_loads(s->x);
	s->v = calloc(s->n ? s->n : 1, sizeof(*s->v));
	cr_assert_eq(tu_count(r.out, "\n"), s->n, "one line per load:\n%s", r.out);
	uint32_t *seqs = calloc(s->n ? s->n : 1, sizeof(*seqs));
	cr_assert_eq(synth_index_file_seqs(s->x, seqs), 0);
	for (size_t i = 0; i < s->n; i++) {
		struct su_load *l = &s->v[i];
		char name[SYNTH_FILE_NAME_MAX], hex[SYNTH_BUILD_ID_HEX], line[8192];
		synth_input_from_load(&l->in, jd_index_header(s->x), jd_index_load(s->x, i));
		l->in.file_seq = seqs[i];
		cr_assert_geq(synth_input_drop_bad_debug(&l->in, JP_ERRBUF_LOG(err)), 0, "%s", err);
		cr_assert_eq(synth_build(&l->in, &l->elf, JP_ERRBUF_LOG(err)), 0, "%s", err);
		synth_file_name(&l->in, name, sizeof(name));
		snprintf(l->path, sizeof(l->path), "%s/%s", outdir, name);
		size_t len;
		void *bytes = tu_read_file(l->path, &len);
		cr_assert_not_null(bytes, "%s missing", l->path);
		cr_assert(len == l->elf.size && !memcmp(bytes, l->elf.data, len),
			  "%s differs from libsynth's build", l->path);
		free(bytes);
		synth_build_id_hex(l->elf.build_id, hex);
		snprintf(line, sizeof(line), "%s %s gen=%u ", hex, l->path, l->in.generation);
		cr_assert_not_null(strstr(r.out, line), "no line '%s' in:\n%s", line, r.out);
	}
	free(seqs);
	tu_result_free(&r);
}

static inline void su_free(struct su_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		synth_elf_free(&s->v[i].elf);
	free(s->v);
	jd_index_close(s->x);
}

/* ELF vaddr of a code address of load l. */
static inline uint64_t su_vaddr(const struct su_load *l, uint64_t addr)
{
	return l->elf.text_offset + (addr - l->in.code_addr);
}

#endif
