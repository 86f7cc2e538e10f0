/* memfd.h - what the fuzz targets that read a file by name share: the input lives in a memfd
 * named by its /proc/self/fd path, refilled for every execution, so a run writes no temp
 * file per input (the disk was the bottleneck of inject and report). */
#ifndef JITPROF_FUZZ_MEMFD_H
#define JITPROF_FUZZ_MEMFD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A memfd, its path into path (openable again, at offset 0, by any reader). */
static inline int fz_memfd(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* fd now holds exactly these bytes. */
static inline void fz_fill(int fd, const uint8_t *p, size_t n)
{
	if (ftruncate(fd, 0) || (n && pwrite(fd, p, n, 0) != (ssize_t)n))
		abort();
}

/* A directory in memory when /dev/shm is there (the dumps inject reads by name), else
 * $TMPDIR. */
static inline const char *fz_tmp_base(void)
{
	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	const char *tmp = getenv("TMPDIR");
	return tmp && *tmp ? tmp : "/tmp";
}

#endif
