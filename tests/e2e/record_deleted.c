/* record_deleted.c - a mapped library deleted right after it was mapped (beyond perf): its
 * build-id is read through /proc/PID/map_files while the process lives (-p on a process whose
 * maps say "(deleted)": nothing else can read it), and with --keep-deleted its bytes go to the
 * build-id cache, so the report names its samples; without, they stay unnamed. */
#include "tests/e2e/record_util.h"

#include <unistd.h>

TestSuite(record_deleted, .init = setup, .fini = teardown, .timeout = 120);

static const char lib_src[] =
	"volatile unsigned long sink;\n"
	"void deleted_hot(void) { for (unsigned long i = 0; i < 100000; i++) sink += i * i; }\n";
static const char main_src[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
	"#include <unistd.h>\n"
	"int main(int argc, char **argv) { (void)argc; void *h = dlopen(argv[1], RTLD_NOW);\n"
	" if (!h || unlink(argv[1])) return 1; void (*f)(void) = (void (*)(void))dlsym(h,"
	" \"deleted_hot\");\n printf(\"ready\\n\"); fflush(stdout); struct timespec a, b;\n"
	" clock_gettime(CLOCK_MONOTONIC, &a); do { f(); clock_gettime(CLOCK_MONOTONIC, &b); }"
	" while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 <"
	" atoi(argv[2])); return 0; }\n";

static char id[64];

/* Builds the library (kept as lib.keep: the oracle for its build-id) and the program. */
static void build(void)
{
	char p[600], cmd[4096];
	struct tu_result r;
	snprintf(p, sizeof(p), "%s/x.c", dir);
	cr_assert_eq(tu_write_file(p, lib_src, sizeof(lib_src) - 1), 0);
	snprintf(p, sizeof(p), "%s/m.c", dir);
	cr_assert_eq(tu_write_file(p, main_src, sizeof(main_src) - 1), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p h && cc -O1 -shared -fPIC -o lib.keep x.c &&"
		 " cc -O1 -o m m.c -ldl && cp lib.keep libdx.so && '%s' buildid-list -i lib.keep",
		 dir, realpath(tu_build("jitprof"), p));
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(sscanf(r.out, "%63s", id), 1);
	tu_result_free(&r);
}

/* The recording's libdx row of buildid-list and the report's top libdx row. */
static void check(const char *data, int kept)
{
	char cmd[4096], jp[600];
	struct tu_result r;
	realpath(tu_build("jitprof"), jp);
	snprintf(cmd, sizeof(cmd), "cd '%s' && HOME=$PWD/h '%s' buildid-list -i %s | grep libdx",
		 dir, jp, data);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert(!strncmp(r.out, id, strlen(id)), "recorded %s, the library's is %s", r.out, id);
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "cd '%s' && HOME=$PWD/h DEBUGINFOD_URLS= '%s' report -i %s "
		 "--sort dso,sym 2>/dev/null | grep -m1 libdx", dir, jp, data);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	if (kept)
		cr_assert(strstr(r.out, "deleted_hot"), "kept but unnamed: %s", r.out);
	else
		cr_assert(!strstr(r.out, "deleted_hot") && strstr(r.out, "0x"), "%s", r.out);
	tu_result_free(&r);
}

static void attach(const char *opt, int kept)
{
	char cmd[4096], jp[600];
	struct tu_result r;
	build();
	snprintf(cmd, sizeof(cmd), "cd '%s' || exit 1; ./m \"$PWD/libdx.so\" 2500 > ready & P=$!; "
		 "for i in $(seq 100); do [ -s ready ] && break; sleep 0.05; done && "
		 "grep -q 'libdx.so (deleted)' /proc/$P/maps && "
		 "HOME=$PWD/h '%s' record -q %s -p $P -o p.data -- sleep 0.5; rc=$?; wait; exit $rc",
		 dir, realpath(tu_build("jitprof"), jp), opt);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	check("p.data", kept);
}

Test(record_deleted, attach_reads_the_build_id_through_map_files) { attach("", 0); }
Test(record_deleted, attach_keep_deleted_names_it) { attach("--keep-deleted", 1); }

Test(record_deleted, workload_keep_deleted_names_it)
{
	char cmd[4096], jp[600];
	struct tu_result r;
	build();
	snprintf(cmd, sizeof(cmd), "cd '%s' && HOME=$PWD/h '%s' record --keep-deleted -o w.data -- "
		 "./m \"$PWD/libdx.so\" 500 >/dev/null", dir, realpath(tu_build("jitprof"), jp));
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "1 deleted mapped file(s) kept"), "%s", r.err);
	tu_result_free(&r);
	check("w.data", 1);
}

/* The cache refuses the deleted library (a symlink planted where its first directory would
 * go): the recording is still written, exit 0, and the summary says which file was not kept
 * and why; the report cannot name it. */
Test(record_deleted, workload_keep_refused_says_so)
{
	char cmd[4096], jp[600];
	struct tu_result r;
	build();
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p h/.debug && "
		 "ln -s \"$PWD\" \"h/.debug/$(echo \"$PWD\" | cut -d/ -f2)\" && HOME=$PWD/h '%s' "
		 "record --keep-deleted -o w.data -- ./m \"$PWD/libdx.so\" 500 >/dev/null", dir,
		 realpath(tu_build("jitprof"), jp));
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "1 deleted mapped file(s) not kept: 1 not written to the cache; "
			 "the first, "), "%s", r.err);
	cr_assert(strstr(r.err, "/libdx.so: not written to the cache"), "%s", r.err);
	cr_assert(!strstr(r.err, "kept in"), "%s", r.err);
	tu_result_free(&r);
	check("w.data", 0);
}
