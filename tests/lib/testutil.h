/* testutil.h - small helpers the tests share: running a command and capturing its output,
 * temporary directories, locating built artifacts and optional tools (perf, java, node). */
#ifndef JITPROF_TESTUTIL_H
#define JITPROF_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

struct tu_result {
	int status;	/* exit code, or 128+signal */
	char *out;	/* NUL-terminated stdout */
	size_t out_len;
	char *err;	/* NUL-terminated stderr */
	size_t err_len;
};

/* Runs argv (no shell) with optional stdin bytes, waits at most timeout_s (0 = 600 s).
 * env_extra: NULL or a NULL-terminated list of "NAME=value" added to the environment. */
int tu_run(struct tu_result *r, char *const argv[], const char *const *env_extra,
	   const void *in, size_t in_len, unsigned timeout_s);
/* Same, through `sh -c` for pipelines in e2e tests (the command line is the test's own). */
int tu_sh(struct tu_result *r, const char *cmdline, unsigned timeout_s);
/* src (len bytes) written to dir/NAME.c and built as dir/NAME with cc and flags; r holds
 * the compiler's result (status 0: built). */
int tu_cc_in(struct tu_result *r, const char *dir, const char *name, const char *src, size_t len,
	     const char *flags);
/* tu_sh in dir, with $J the built jitprof (absolute) and no debuginfod servers. */
int tu_sh_in(struct tu_result *r, const char *dir, const char *cmdline, unsigned timeout_s);
void tu_result_free(struct tu_result *r);

/* A fresh directory under $TMPDIR (mkdtemp); removed by tu_rmtree. Returned string is malloc'd. */
char *tu_tmpdir(const char *tag);
void tu_rmtree(const char *dir);

/* Path of a built artifact: $JITPROF_BUILD (default "build") + "/" + name. Static buffer. */
const char *tu_build(const char *name);
/* 1 if the program is on PATH. */
int tu_have(const char *prog);

/* For a JVM that loads agent_so: "" for a normal build; for a SANITIZE=1 agent the prefix
 * "env LD_PRELOAD=<libasan> ASAN_OPTIONS=... " that a shell command line needs (ASan's runtime
 * must come first, and HotSpot's own SIGSEGV handling must be left alone). Static buffer. */
const char *tu_java_env_sh(const char *agent_so);

/* Whole-file helpers. */
void *tu_read_file(const char *path, size_t *len);
int tu_write_file(const char *path, const void *buf, size_t len);
/* parts directories of 250 'p's made one in another under base (a path of 251 * parts
 * bytes past base, for messages that must name a long path whole): the path into buf, its
 * length returned. */
size_t tu_long_dir(char *buf, size_t len, const char *base, int parts);
/* The path of the first file in this process's maps whose path contains needle (such as
 * "/libc.so.6": the libc every program here maps), or "" . Returns buf. */
const char *tu_self_map_path(const char *needle, char *buf, size_t len);
/* Says that part of the running test could not be done on this machine, and why (printf
 * format): "[SKIP-PART] suite::test: why" on stderr, counted by scripts/run-tests.sh. A test
 * that cannot run at all calls cr_skip_test instead, which tests/lib/skips.c reports. */
void tu_skip_part(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Count of non-overlapping occurrences of needle in hay. */
size_t tu_count(const char *hay, const char *needle);
/* `jitprof report -q -i data --check-generations extra` (gencheck.c): 0 when every sample is
 * inside its generation's active period and no generation is inconsistent; msg gets the
 * command's output either way. */
int tu_check_generations(const char *data, const char *extra, char *msg, size_t len);

/* For the hash-flooding tests, which craft keys by running an old, unseeded hash backwards:
 * the inverse of an odd multiplier mod 2^64, and the inverse of y ^= y >> s. */
uint64_t tu_mul_inverse(uint64_t odd);
uint64_t tu_unxorshift(uint64_t y, unsigned s);
/* The 16-byte name of two words, 1 when neither has a NUL byte (else 0, nothing made). */
int tu_name_of_words(uint64_t w0, uint64_t w1, char out[17]);
/* out[0..n): make(i, ...) for i = 0, 1, ... keeping the names it made. */
void tu_crafted_names(char (*out)[17], size_t n, int (*make)(uint64_t i, char out[17]));
/* out[0..n): prefix, then random lowercase letters to 16 bytes (the same for one seed). */
void tu_random_names(char (*out)[17], size_t n, const char *prefix, unsigned seed);
/* The hash-flooding check every keyed table shares: n names made by collider (crafted to
 * share one value under a table's old, unseeded hash) and n random ones after prefix, each set
 * put in a fresh table by probes(), which returns the probes (or chain steps) it counted.
 * Fails unless the crafted names cost at most twice the random ones (+64 for small tables). */
void tu_assert_no_flood(size_t n, int (*collider)(uint64_t i, char out[17]), const char *prefix,
			size_t (*probes)(const char (*names)[17], size_t n));

#endif
