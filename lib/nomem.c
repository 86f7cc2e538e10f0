/* nomem.c - the stop for a resource error with no path back to its command (nomem.h): one
 * line on stderr, written without allocating, then exit(1) so outputs still being written
 * (sio_out temp files) are never committed. */
#include "lib/nomem.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prefix = "jitprof";

void jp_nomem_prefix(const char *p)
{
	prefix = p;
}

void jp_put_stderr(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static _Noreturn void stop(const char *head, const char *what, const char *tail)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;
	if (atomic_flag_test_and_set(&said))
		for (;;)
			pause();	/* the first thread is exiting the process */
	jp_put_stderr(prefix);
	jp_put_stderr(head);
	jp_put_stderr(what);
	jp_put_stderr(tail);
	exit(1);
}

_Noreturn void jp_nomem(const char *what)
{
	stop(": error: out of memory (", what, ")\n");
}

_Noreturn void jp_fatal(const char *what)
{
	stop(": error: ", what, "\n");
}
