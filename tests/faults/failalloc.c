/* failalloc.c - an LD_PRELOAD shim that fails one allocation: the Nth call (1-based) of the
 * malloc family in the process, N from JITPROF_FAIL_ALLOC, returns NULL with ENOMEM; every
 * other call goes to the next allocator (glibc's, or a sanitizer's). tests/faults/alloc_sweep.sh
 * runs a command for every N to prove a failed allocation never changes its answer.
 *   JITPROF_FAIL_ALLOC=N        arm (0 or unset: count only)
 *   JITPROF_FAIL_ALLOC_LOG=F    at exit, write "<calls> <fired N or 0>" to F
 *   JITPROF_FAIL_ALLOC_TRACE=1  print a backtrace to stderr when the failure fires
 *   JITPROF_FAIL_ALLOC_SPARE=S,T calls made from a library whose path contains S or T are
 *                               neither counted nor failed (a library that crashes on its own
 *                               failed allocations, which no caller can help)
 *   JITPROF_FAIL_ALLOC_ONLY=LO-HI,... only calls made from code at these offsets of the
 *                               program (hex, as nm prints them), or from a function such
 *                               code called (up to four frames up), are counted and failed:
 *                               a sweep of the few allocations of the functions under test
 * glibc's own allocating functions (strdup, asprintf, fopen, ...) call malloc through the
 * interposable symbol, so the family below covers them. */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int (*next_memalign)(void **, size_t, size_t);

static atomic_ulong calls;
static unsigned long fail_at, fired;
static int trace;
static const char *spare;
/* JITPROF_FAIL_ALLOC_ONLY: the program's load address and the offset ranges */
static uintptr_t prog_base;
static struct { uintptr_t lo, hi; } only[16];
static int nr_only;

/* dlsym may allocate before next_calloc is known: such calls are served from here. */
static _Alignas(max_align_t) char boot[8192];
static size_t boot_used;

static int in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static void *boot_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > sizeof(boot) - boot_used)
		return NULL;
	boot_used += n;
	return memset(boot + boot_used - n, 0, n);
}

static void resolve(void)
{
	static int resolving;
	if (next_free || resolving)
		return;
	resolving = 1;
	next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	next_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	resolving = 0;
}

static int spared(const void *caller)
{
	Dl_info di;
	if (!spare || !dladdr(caller, &di) || !di.dli_fname)
		return 0;
	for (const char *s = spare; *s;) {
		size_t len = strcspn(s, ",");
		if (len && memmem(di.dli_fname, strlen(di.dli_fname), s, len))
			return 1;
		s += len + (s[len] == ',');
	}
	return 0;
}

/* The first object dl_iterate_phdr reports is the program. */
static int first_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
	return 1;
}

/* With JITPROF_FAIL_ALLOC_ONLY: whether the allocation comes from one of the ranges, the
 * four frames above the shim's own looked at. */
static int from_only(void)
{
	static _Thread_local int inside;	/* backtrace's own allocations (libgcc loaded) */
	void *pcs[12];
	Dl_info self, di;
	if (inside)
		return 0;
	inside = 1;
	int n = backtrace(pcs, 12), seen = 0;
	inside = 0;
	if (!dladdr((void *)from_only, &self))
		return 0;
	for (int i = 0; i < n && seen < 4; i++) {
		if (dladdr(pcs[i], &di) && di.dli_fbase == self.dli_fbase)
			continue;	/* the shim's frames */
		seen++;
		uintptr_t off = (uintptr_t)pcs[i] - prog_base;
		for (int k = 0; k < nr_only; k++)
			if (off >= only[k].lo && off < only[k].hi)
				return 1;
	}
	return 0;
}

/* Whether this call, from caller, is the one to fail (and say where, when asked). */
static int fail_now(const void *caller)
{
	if (spared(caller) || (nr_only && !from_only()))
		return 0;
	unsigned long n = atomic_fetch_add(&calls, 1) + 1;
	if (!fail_at || n != fail_at)
		return 0;
	fired = n;
	if (trace) {
		void *pcs[64];
		static const char head[] = "failalloc: this allocation fails:\n";
		if (write(2, head, sizeof(head) - 1) < 0)
			return 1;
		backtrace_symbols_fd(pcs, backtrace(pcs, 64), 2);
	}
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	resolve();
	if (!next_malloc)
		return boot_alloc(n);
	return fail_now(__builtin_return_address(0)) ? NULL : next_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	resolve();
	if (!next_calloc)
		return n && k > SIZE_MAX / n ? NULL : boot_alloc(k * n);
	return fail_now(__builtin_return_address(0)) ? NULL : next_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	resolve();
	if (in_boot(p)) {	/* moved out of the boot buffer, never freed into it */
		void *q = malloc(n);
		if (q)
			memcpy(q, p, n < (size_t)(boot + sizeof(boot) - (char *)p) ? n
				: (size_t)(boot + sizeof(boot) - (char *)p));
		return q;
	}
	return fail_now(__builtin_return_address(0)) ? NULL : next_realloc(p, n);
}

void *reallocarray(void *p, size_t k, size_t n)
{
	if (n && k > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, k * n);
}

void free(void *p)
{
	if (!p || in_boot(p))
		return;
	resolve();
	next_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	resolve();
	return fail_now(__builtin_return_address(0)) ? ENOMEM : next_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	void *p = NULL;
	return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n) ? NULL : p;
}

void *memalign(size_t align, size_t n)
{
	return aligned_alloc(align, n);
}

void *valloc(size_t n)
{
	return aligned_alloc((size_t)sysconf(_SC_PAGESIZE), n);
}

__attribute__((constructor)) static void failalloc_init(void)
{
	const char *at = getenv("JITPROF_FAIL_ALLOC");
	const char *tr = getenv("JITPROF_FAIL_ALLOC_TRACE");
	trace = tr && *tr == '1';
	if (trace) {	/* backtrace() loads libgcc on first use: not while failing */
		void *pc;
		backtrace(&pc, 1);
	}
	resolve();
	atomic_store(&calls, 0);
	fail_at = at ? strtoul(at, NULL, 10) : 0;
	spare = getenv("JITPROF_FAIL_ALLOC_SPARE");
	if (spare && !*spare)
		spare = NULL;
	const char *o = getenv("JITPROF_FAIL_ALLOC_ONLY");
	if (o && *o) {
		void *pc;
		backtrace(&pc, 1);	/* libgcc loaded now, not while counting */
		dl_iterate_phdr(first_base, &prog_base);
		for (char *end; *o && nr_only < 16; o = *end ? end + 1 : end) {
			only[nr_only].lo = strtoul(o, &end, 16);
			if (*end != '-')
				break;
			only[nr_only].hi = strtoul(end + 1, &end, 16);
			nr_only++;
		}
	}
}

__attribute__((destructor)) static void failalloc_fini(void)
{
	const char *log = getenv("JITPROF_FAIL_ALLOC_LOG");
	if (!log || !*log)
		return;
	unsigned long total = atomic_load(&calls);
	fail_at = 0;	/* fopen allocates: after the total, never failed */
	FILE *f = fopen(log, "w");
	if (f) {
		fprintf(f, "%lu %lu\n", total, fired);
		fclose(f);
	}
}
