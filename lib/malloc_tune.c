/* malloc_tune.c - one re-execution with glibc's malloc tunables set, or the same tuning done
 * in the running process where its threads allocate little (see malloc_tune.h for the
 * measurements behind it). Why each tunable: hugetlb=1 makes malloc advise transparent
 * huge pages for what it takes from the kernel (a fault per 2 MiB instead of per 4 KiB);
 * top_pad grows the heap 16 MiB at a time; trim_threshold keeps freed memory for the next
 * array instead of returning it and faulting it back in; mmap_threshold keeps arrays under
 * 32 MiB on the (huge-page) heap. */
#include "lib/malloc_tune.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TUNED_FROM_ENV JP_MALLOC_TUNED_FROM_ENV

int jp_malloc_tunables(const char *user_tunables, const char *tune_env, char *out, size_t len)
{
	if (tune_env && !strcmp(tune_env, "0"))
		return -ECANCELED;
	if (user_tunables && strstr(user_tunables, "glibc.malloc."))
		return -EEXIST;
	int n = user_tunables && *user_tunables
			? snprintf(out, len, "%s:%s", user_tunables, JP_MALLOC_TUNABLES)
			: snprintf(out, len, "%s", JP_MALLOC_TUNABLES);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* In the re-executed image: the caller's environment back as it was. */
static void restore_caller_env(const char *from)
{
	if (from[0] == '=')
		setenv("GLIBC_TUNABLES", from + 1, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	unsetenv(TUNED_FROM_ENV);
}

void jp_malloc_tune(char **argv)
{
	const char *from = getenv(TUNED_FROM_ENV);
	if (from) {
		restore_caller_env(from);
		return;
	}
	if (!JP_MALLOC_TUNE_ACTIVE)
		return;
	const char *user = getenv("GLIBC_TUNABLES");
	char value[4096], *saved = NULL;
	if (jp_malloc_tunables(user, getenv(JP_MALLOC_TUNE_ENV), value, sizeof(value)))
		return;
	if (user && asprintf(&saved, "=%s", user) < 0)
		return;
	/* The binary's own path, not /proc/self/exe: the kernel names the process after what
	 * exec was given, and `ps`, `top` and perf should go on seeing "jitprof". */
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0 && setenv(TUNED_FROM_ENV, saved ? saved : "-", 1) == 0 &&
	    setenv("GLIBC_TUNABLES", value, 1) == 0) {
		self[n] = 0;
		execv(self, argv);
	}
	/* No exec (no /proc, say): run on untuned, with the environment as it came. */
	restore_caller_env(saved ? saved : "-");
	free(saved);
}

void jp_malloc_tune_here(void)
{
	char unused[4096];
	if (!JP_MALLOC_TUNE_ACTIVE ||
	    jp_malloc_tunables(getenv("GLIBC_TUNABLES"), getenv(JP_MALLOC_TUNE_ENV), unused,
			       sizeof(unused)))
		return;	/* sanitized, switched off, or the user's own malloc tunables rule */
	mallopt(M_MMAP_THRESHOLD, JP_MALLOC_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	/* Every thread allocates from the one heap advised below: another thread's own arena
	 * would get 4 KiB pages (the companion's reader thread, jitdump/index_ext.c, took 40 ms
	 * more on javac's 12 MB companion). inject's threads allocate little and seldom. */
	mallopt(M_ARENA_MAX, 1);
	/* The heap grown once by JP_MALLOC_HERE_RESERVE, untouched (its pages cost nothing
	 * until used), and that range advised for huge pages: glibc.malloc.hugetlb=1 advises
	 * each growth as it comes, which no call can ask of a running malloc. One allocation
	 * past what the heap holds, with the pad set that large, makes the growth; freed, it
	 * stays the heap's top for later allocations (no trim below INT_MAX). */
	uintptr_t from = (uintptr_t)sbrk(0);
	mallopt(M_TOP_PAD, JP_MALLOC_HERE_RESERVE);
	void *volatile grow = malloc(1u << 20);	/* volatile: the pair is not optimized away */
	free(grow);
	mallopt(M_TOP_PAD, JP_MALLOC_TOP_PAD);
	uintptr_t to = (uintptr_t)sbrk(0);
	long page = sysconf(_SC_PAGESIZE);
	if (from == (uintptr_t)-1 || to == (uintptr_t)-1 || page <= 0)
		return;
	from = (from + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE);	/* a hint: refused is fine */
}
