/* map_guard.c - a dump mapped instead of copied, and what happens if it shrinks meanwhile.
 * Copying a 30 MB dump and its companion costs inject more than anything else it does: the
 * kernel zeroes fresh pages for the copy, then copies into them (javac 25: about a third of
 * `inject --no-elfs`). A file mapping costs neither. Its risk is that a file cut short under
 * the mapping faults (SIGBUS) on the next read past the new end. So: only files the running
 * user owns and nobody else may write are mapped (a file from another user is copied, as
 * before), and a SIGBUS handler answers a fault inside one of these mappings by putting zero
 * pages over the rest of it and noting that the file shrank: the reader goes on (zeros read
 * as damage or as zero bytes) and the caller, who asks jd_reader_shrunk before trusting what
 * it read, refuses the result (that call also compares the file's size: a new end inside a
 * large page-cache folio reads as zeros without a fault). A fault anywhere else goes to the
 * handler that was there before. */
#include "jitdump/jd_int.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOTS 64	/* mappings alive at once; more are copied instead */

static struct slot {
	atomic_uintptr_t lo, hi;	/* lo 0: free */
	atomic_int shrunk;
	atomic_int taken;
} slots[SLOTS];

static struct sigaction previous;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int installed;
static uintptr_t page_size;

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < SLOTS; i++) {
		uintptr_t lo = atomic_load(&slots[i].lo), hi = atomic_load(&slots[i].hi);
		if (!lo || a < lo || a >= hi)
			continue;
		uintptr_t pg = a & ~(page_size - 1);
		if (mmap((void *)pg, hi - pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) != MAP_FAILED) {
			atomic_store(&slots[i].shrunk, 1);
			return;	/* the read runs again and finds zeros */
		}
	}
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, si, uctx);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		/* The default action: the faulting access runs again and ends the process. */
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigaction(SIGBUS, &dfl, NULL);
	}
}

static void install(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO | SA_NODEFER };
	sigemptyset(&sa.sa_mask);
	if (ps > 0 && sigaction(SIGBUS, &sa, &previous) == 0) {
		page_size = (uintptr_t)ps;
		installed = 1;
	}
}

const void *jd_map_guarded(int fd, const struct stat *st, int *slot)
{
	*slot = -1;
	if (st->st_uid != geteuid() || (st->st_mode & (S_IWGRP | S_IWOTH)) || st->st_size <= 0 ||
	    (uint64_t)st->st_size >= SIZE_MAX)
		return NULL;
	pthread_once(&install_once, install);
	if (!installed)
		return NULL;
	int s = -1;
	for (int i = 0; i < SLOTS && s < 0; i++) {
		int free_slot = 0;
		if (atomic_compare_exchange_strong(&slots[i].taken, &free_slot, 1))
			s = i;
	}
	if (s < 0)
		return NULL;
	size_t len = (size_t)st->st_size;
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		atomic_store(&slots[s].taken, 0);
		return NULL;
	}
	atomic_store(&slots[s].shrunk, 0);
	atomic_store(&slots[s].hi, (uintptr_t)p + len);
	atomic_store(&slots[s].lo, (uintptr_t)p);
	*slot = s;
	return p;
}

int jd_map_shrunk(int slot)
{
	return slot >= 0 && slot < SLOTS && atomic_load(&slots[slot].shrunk);
}

void jd_map_release(int slot, const void *p, size_t len)
{
	if (slot < 0 || slot >= SLOTS)
		return;
	atomic_store(&slots[slot].lo, 0);
	atomic_store(&slots[slot].hi, 0);
	munmap((void *)p, len);
	atomic_store(&slots[slot].taken, 0);
}
