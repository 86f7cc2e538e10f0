/* symbols_archive.c - "another machine": minijit recorded and injected with HOME=A, packed
 * with `jitprof archive`; then machine A's files (binary, build-id cache, dumps) are gone
 * and `jitprof report` with an empty HOME=B and only the archive must show the same symbols.
 * A file with another build-id at the recorded path is refused, naming both ids. What an
 * archive packs is bounded by the recording (--max-size). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"

static char *dir;

static void setup(void)
{
	dir = tu_tmpdir("sym-archive");
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

static struct tu_result sh(const char *fmt, const char *a, const char *b)
{
	char cmd[16384];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), fmt, a, b);
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	return r;
}

static char *must(const char *fmt, const char *a, const char *b)
{
	struct tu_result r = sh(fmt, a, b);
	cr_assert_eq(r.status, 0, "%s\n%s", fmt, r.err);
	char *out = strdup(r.out);
	tu_result_free(&r);
	return out;
}

Test(archive, another_machine_same_symbols_mismatch_refused, .init = setup, .fini = teardown,
     .timeout = 300)
{
	char env[8192];
	/* the commands run from inside the test directory: absolute tool paths */
	char *jitprof = realpath(tu_build("jitprof"), NULL);
	char *minijit = realpath(tu_build("minijit"), NULL);
	cr_assert(jitprof && minijit, "jitprof and minijit are built");
	snprintf(env, sizeof(env), "cd %s && J=%s && M=%s", dir, jitprof, minijit);
	free(jitprof), free(minijit);
	/* machine A */
	free(must("%s && mkdir -p A/bin B && cp $M A/bin/minijit && "
		  "HOME=$PWD/A $J record -q -k mono -o A/p.data -- A/bin/minijit --seconds 0.3 "
		  ">/dev/null && HOME=$PWD/A $J inject -q --jit -i A/p.data -o pj.data%s", env, ""));
	char *base = must("%s && HOME=$PWD/A $J report -q -i pj.data --sort dso,sym%s", env, "");
	cr_assert(strstr(base, "checksum"), "jitted methods resolved on A:\n%s", base);
	cr_assert(strstr(base, "[.] run\n"), "minijit's own code resolved on A:\n%s", base);
	char *ids = must("%s && HOME=$PWD/A $J buildid-list -i pj.data | grep /A/bin/minijit%s",
			 env, "");
	free(must("%s && HOME=$PWD/A $J archive -i pj.data -o p.tar.zst 2>/dev/null && rm -rf A%s", env,
		  ""));

	/* machine B: nothing of A but the recording and the archive */
	char *other = must("%s && HOME=$PWD/B $J report -q -i pj.data --sort dso,sym "
			   "--archive p.tar.zst%s", env, "");
	cr_expect_str_eq(other, base, "report on B with the archive differs from A's");
	char *bare = must("%s && HOME=$PWD/B $J report -q -i pj.data --sort dso,sym%s", env, "");
	cr_expect(!strstr(bare, "] checksum"), "without the archive B cannot know the methods:\n%s",
		  bare);

	/* a different file at the recorded path: refused, both ids named, never used */
	char want_id[41];
	snprintf(want_id, sizeof(want_id), "%.40s", ids);
	char *true_id = must("%s && mkdir -p A/bin && cp /bin/true A/bin/minijit && "
			     "$J buildid-list -i A/bin/minijit%s", env, "");
	true_id[strcspn(true_id, "\n")] = 0;
	struct tu_result r = sh("%s && HOME=$PWD/B $J report -i pj.data --sort dso,sym%s", env, "");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, want_id), "recorded id %s not named:\n%s", want_id, r.err);
	cr_expect(strstr(r.err, true_id), "found id %s not named:\n%s", true_id, r.err);
	cr_expect(!strstr(r.out, "[.] run\n"), "the wrong file was used:\n%s", r.out);
	tu_result_free(&r);
	free(base), free(ids), free(other), free(bare), free(true_id);
}

/* A recording at data naming the ELF at elf by its build-id: no samples, no sample ids, one
 * map and the build-id table. */
static void recording_naming(const char *data, const char *elf)
{
	struct sym_build_id lid;
	struct stat st;
	cr_assert_eq(sym_elf_build_id(elf, &lid, NULL), 0);
	cr_assert_eq(stat(elf, &st), 0);
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = PERF_SAMPLE_IP };
	struct pd_writer *w;
	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	struct pd_mmap2_args m = { .pid = 77, .tid = 77, .cpumode = PERF_RECORD_MISC_USER,
				   .start = 0x7f0000000000ull, .len = (uint64_t)st.st_size,
				   .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
				   .filename = elf };
	cr_assert_eq(pd_writer_mmap2(w, &m, NULL), 0);
	cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, lid.data, lid.size,
					    elf), 0);
	cr_assert_eq(pd_writer_close(w), 0);
}

/* A recording (a few hundred bytes) naming libc by build-id, as a crafted one names 1,160
 * system ELFs: archive packs at most --max-size bytes (default 256 MiB + 1024x the
 * recording's size) and refuses past it, naming the limit, with no archive left behind. */
Test(archive, size_budget_refuses, .init = setup, .fini = teardown, .timeout = 120)
{
	char data[4200], libc[4096], out[4300];
	snprintf(data, sizeof(data), "%s/a.data", dir);
	snprintf(out, sizeof(out), "%s/a.tar.zst", dir);
	cr_assert(tu_self_map_path("/libc.so.6", libc, sizeof(libc))[0]);
	recording_naming(data, libc);

	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "%s archive -i %s -o %s --max-size 100000 --buildid-dir %s/none",
		 tu_build("jitprof"), data, out, dir);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(strstr(r.err, "refused: the files the recording names pass 100000 bytes before "
			 "compression at ") && strstr(r.err, "(--max-size); nothing written"),
		  "%s", r.err);
	cr_assert_neq(access(out, F_OK), 0, "no archive left behind");
	tu_result_free(&r);
	/* the default budget holds libc */
	snprintf(cmd, sizeof(cmd), "%s archive -i %s -o %s --buildid-dir %s/none",
		 tu_build("jitprof"), data, out, dir);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "1 file"), "%s", r.err);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "%s archive -i %s -o %s --max-size 1x", tu_build("jitprof"),
		 data, out);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 2, "%s", r.err);
	tu_result_free(&r);
}

/* The same refusal for a copy of libc at the end of an 800-byte path: the path is named
 * whole (it was cut at 300 bytes). */
Test(archive, size_budget_refusal_names_a_long_path_whole, .init = setup, .fini = teardown,
     .timeout = 120)
{
	char data[4200], libc[4096], copy[4200], out[4300];
	snprintf(data, sizeof(data), "%s/a.data", dir);
	snprintf(out, sizeof(out), "%s/a.tar.zst", dir);
	cr_assert(tu_self_map_path("/libc.so.6", libc, sizeof(libc))[0]);
	size_t n = tu_long_dir(copy, sizeof(copy), dir, 3);
	cr_assert_gt(n, 0);
	snprintf(copy + n, sizeof(copy) - n, "/libc.so.6");
	size_t len;
	void *bytes = tu_read_file(libc, &len);
	cr_assert_not_null(bytes);
	cr_assert_eq(tu_write_file(copy, bytes, len), 0);
	free(bytes);
	recording_naming(data, copy);
	char cmd[9000], want[4400];
	snprintf(cmd, sizeof(cmd), "%s archive -i %s -o %s --max-size 100000 --buildid-dir %s/none",
		 tu_build("jitprof"), data, out, dir);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 1, "%s", r.err);
	snprintf(want, sizeof(want), "compression at %s (--max-size); nothing written", copy);
	cr_assert(strstr(r.err, want), "the path cut (%zu bytes of stderr)", strlen(r.err));
	tu_result_free(&r);
}
