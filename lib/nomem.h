/* nomem.h - a resource error where the code has no path to return it (a lookup whose NULL
 * means "not found", a loader whose failure means "not an ELF"): the process stops with one
 * line saying what failed and exit status 1, rather than go on with a smaller table or a
 * different answer (shared/design/ARCHITECTURE.md, point 15). Code with an error path returns
 * -ENOMEM to its command instead. */
#ifndef JITPROF_LIB_NOMEM_H
#define JITPROF_LIB_NOMEM_H

#include <errno.h>

/* Writes "<prefix>: error: out of memory (<what>)" to stderr and exits 1; when several
 * threads fail at once, one says it and the others wait for the exit. */
_Noreturn void jp_nomem(const char *what);

/* The same for a library that failed without saying why in errno terms (libcrypto has no
 * SHA-1, a digest update failed): "<prefix>: error: <what>", exit 1. */
_Noreturn void jp_fatal(const char *what);

/* The command's name for the message ("jitprof report"); default "jitprof". The string must
 * outlive the process's last jp_nomem. */
void jp_nomem_prefix(const char *prefix);

/* s written whole to stderr with write(2), no stdio, no allocation: fit for a signal handler
 * (a write that fails ends it). */
void jp_put_stderr(const char *s);

/* rc as it is, unless it is -ENOMEM: then jp_nomem(what). For a result about to be read as
 * "absent" or "damaged". */
static inline int jp_nomem_check(int rc, const char *what)
{
	if (rc == -ENOMEM)
		jp_nomem(what);
	return rc;
}

/* After a library call failed in its own terms (libelf's NULL, zstd's error code): errno,
 * cleared before the call, is ENOMEM when an allocation inside it failed. */
static inline void jp_nomem_if_errno(const char *what)
{
	if (errno == ENOMEM)
		jp_nomem(what);
}

#endif
