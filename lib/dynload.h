/* dynload.h - a shared library loaded on first use (dlopen) instead of at every start: each
 * library jitprof links costs every run its loading and relocation, twice with the malloc
 * re-execution (lib/malloc_tune.h), and capstone, libarchive and libxml2 (with ICU) cost
 * 4-6 ms each per start (docs/PERFORMANCE.md) for commands most runs never reach. */
#ifndef JITPROF_LIB_DYNLOAD_H
#define JITPROF_LIB_DYNLOAD_H

#include <stddef.h>

/* One library and the symbols a module takes from it. Define it static and zeroed but for
 * soname, names and slots; jp_dynload fills slots[i] with the address of names[i]. */
struct jp_dynlib {
	const char *soname;		/* e.g. "libcapstone.so.4" */
	const char *const *names;	/* n of them */
	void **slots;
	size_t n;
	int state;			/* 0 untried, 1 loaded, -1 failed (err says why) */
	char err[512];
};

/* Loads l once (later calls return the first answer): 0 when every symbol was found, else -1
 * with l->err naming the library and what failed. Not for concurrent first calls: each user
 * calls it from the main thread. */
int jp_dynload(struct jp_dynlib *l);

#endif
