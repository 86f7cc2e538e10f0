/* failnext.c - the test binary's malloc, calloc and realloc (tests/lib/failnext.h): glibc's
 * (__libc_malloc ...), with the Nth call after tu_failnext_arm failing. free, memalign and
 * the rest stay glibc's, on the same heap. */
#include "tests/lib/failnext.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define TU_SANITIZED 1
#endif
#endif

static atomic_int armed;
static atomic_ulong calls, fail_at;
static atomic_int fired_once;

void tu_failnext_arm(unsigned long n)
{
	atomic_store(&calls, 0);
	atomic_store(&fired_once, 0);
	atomic_store(&fail_at, n);
	atomic_store(&armed, 1);
}

unsigned long tu_failnext_disarm(int *fired)
{
	atomic_store(&armed, 0);
	if (fired)
		*fired = atomic_load(&fired_once);
	return atomic_load(&calls);
}

int tu_failnext_child(void (*fn)(void *), void *arg, unsigned long n, char *err, size_t len)
{
	int fd[2], status;
	size_t got = 0;
	ssize_t r;
	if (pipe(fd))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		tu_failnext_arm(n);
		fn(arg);
		tu_failnext_disarm(NULL);
		_exit(0);
	}
	close(fd[1]);
	while (len && got < len - 1 && (r = read(fd[0], err + got, len - 1 - got)) > 0)
		got += (size_t)r;
	if (len)
		err[got] = 0;
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#ifdef TU_SANITIZED
int tu_failnext_works(void)
{
	return 0;
}
#else
int tu_failnext_works(void)
{
	return 1;
}

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int spared(const void *caller)
{
	Dl_info di;
	return dladdr(caller, &di) && di.dli_fname && strstr(di.dli_fname, "libxml2");
}

/* 1 if this call is the one to fail. */
static int fail_now(const void *caller)
{
	if (!atomic_load_explicit(&armed, memory_order_relaxed) || spared(caller))
		return 0;
	unsigned long c = atomic_fetch_add(&calls, 1) + 1;
	if (c != atomic_load(&fail_at))
		return 0;
	atomic_store(&fired_once, 1);
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}
#endif
