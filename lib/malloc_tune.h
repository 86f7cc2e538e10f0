/* malloc_tune.h - glibc's allocator set up for one batch pass over a big recording: the
 * commands that replay a perf.data or index a jitdump allocate a few hundred MB in many
 * growing arrays, and with glibc's defaults a third of their time went to page faults
 * (28k minor faults and a TLB-flush IPI per copy-on-write of the zero page, for a call-graph
 * report of a Java start-up; 5.4k with transparent huge pages). glibc reads its tunables
 * only when a program starts, so the command re-executes itself once with them set. */
#ifndef JITPROF_LIB_MALLOC_TUNE_H
#define JITPROF_LIB_MALLOC_TUNE_H

#include <stddef.h>

/* The tunables this module asks of glibc's malloc. */
#define JP_MALLOC_TUNABLES                                                                   \
	"glibc.malloc.hugetlb=1:glibc.malloc.top_pad=16777216:"                              \
	"glibc.malloc.trim_threshold=4294967296:glibc.malloc.mmap_threshold=33554432"
#define JP_MALLOC_TOP_PAD (16 << 20)
#define JP_MALLOC_MMAP_THRESHOLD (32 << 20)
/* What jp_malloc_tune_here grows the heap by at once and advises for huge pages: address
 * space only until used. A run that needs more heap gets the rest in ordinary pages. */
#define JP_MALLOC_HERE_RESERVE (512 << 20)

/* 1 where jp_malloc_tune re-executes: not in a sanitized build, whose allocator is not
 * glibc's (the tests expect what the build does). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define JP_MALLOC_TUNE_ACTIVE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                  \
	__has_feature(memory_sanitizer)
#define JP_MALLOC_TUNE_ACTIVE 0
#endif
#endif
#ifndef JP_MALLOC_TUNE_ACTIVE
#define JP_MALLOC_TUNE_ACTIVE 1
#endif

/* Environment variable that turns the re-execution off ("0"). */
#define JP_MALLOC_TUNE_ENV "JITPROF_MALLOC_TUNE"

/* Set for the re-executed image only: "-" when the caller had no GLIBC_TUNABLES, else "=" and
 * the caller's value, which jp_malloc_tune puts back. */
#define JP_MALLOC_TUNED_FROM_ENV "JITPROF_MALLOC_TUNED_FROM"

/* The GLIBC_TUNABLES value to re-execute with, given the caller's own value (NULL: unset)
 * and the JP_MALLOC_TUNE_ENV value: ours appended to the caller's. 0 and out filled, or
 * -EEXIST (the caller already sets a glibc.malloc tunable: theirs rule), -ECANCELED (turned
 * off), -ENAMETOOLONG (out too small). */
int jp_malloc_tunables(const char *user_tunables, const char *tune_env, char *out, size_t len);

/* Called first thing in main() by a batch command: re-executes its own binary with argv and
 * JP_MALLOC_TUNABLES once, unless jp_malloc_tunables says not to, the build is sanitized
 * (glibc's malloc is not the one in use), or exec fails (then it returns and the run goes on
 * untuned). In the re-executed image it puts the caller's GLIBC_TUNABLES back, so that no
 * program this one starts sees ours. */
void jp_malloc_tune(char **argv);

/* The same tuning in this process, without the re-execution (8-12 ms a run), for a command
 * whose threads allocate little: mallopt for the heap step, trim and mmap thresholds, one
 * arena for every thread, and the heap's next JP_MALLOC_HERE_RESERVE bytes advised for huge
 * pages (madvise). A command whose threads allocate much (report's read-ahead of DWARF) would
 * contend for the one arena, and re-executes instead: the tunable advises each thread's
 * arena too. Skipped in the same cases as jp_malloc_tune. inject uses it. */
void jp_malloc_tune_here(void);

#endif
