/* failnext.h - a failed allocation inside a unit test, for the code the test calls directly
 * (tests/faults/failalloc.c does the same to a whole command through LD_PRELOAD): the test
 * binary's own malloc, calloc and realloc (tests/lib/failnext.c) count their calls once
 * armed and fail the Nth with ENOMEM; glibc's allocating functions (strdup, asprintf) call
 * them too. Calls made from a library whose path contains "libxml2" are neither counted nor
 * failed (its own failed allocations are its own errors, not the caller's). A sanitized
 * build interposes its own allocator: there tu_failnext_works() is 0 and nothing fails. */
#ifndef JITPROF_TESTS_FAILNEXT_H
#define JITPROF_TESTS_FAILNEXT_H

#include <stddef.h>

/* Arms: the nth allocation from now (1-based) fails; 0 only counts. */
void tu_failnext_arm(unsigned long n);
/* Disarms; returns the allocations counted since tu_failnext_arm, and *fired (if not NULL)
 * says whether the one to fail was reached. */
unsigned long tu_failnext_disarm(int *fired);
/* 1 where the allocator is this file's (not a sanitizer's). */
int tu_failnext_works(void);
/* For code that stops the process out of memory (lib/nomem.h): fn(arg) in a child with its
 * nth allocation failing; its stderr into err (len bytes, NUL-terminated). Returns its exit
 * status (0: fn returned), 128 + signal if killed, -1 if it could not run. */
int tu_failnext_child(void (*fn)(void *), void *arg, unsigned long n, char *err, size_t len);

#endif
