/* create.c - a new file written in one go beneath a directory fd: the cheap path for a name
 * that does not exist yet (inject writes thousands of these). O_CREAT|O_EXCL|O_NOFOLLOW
 * never opens what is already at the name, so a planted link, FIFO or file of someone else
 * is neither followed nor written: the caller hears -EEXIST and decides (sio_out replaces). */
#include "safeio/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* The process umask from /proc/self/status (umask() itself cannot be read without writing
 * it, a race with other threads creating files); -1 when unknown. Read once. */
static int current_umask(void)
{
	static int cached = -2;	/* racy but idempotent: every thread reads the same */
	int m = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (m != -2)
		return m;
	m = -1;
	FILE *f = fopen("/proc/self/status", "re");
	if (f) {
		char line[128];
		unsigned v;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Umask: %o", &v) == 1) {
				m = (int)(v & 0777);
				break;
			}
		fclose(f);
	}
	__atomic_store_n(&cached, m, __ATOMIC_RELAXED);
	return m;
}

static int write_iov(int fd, struct iovec *iov, int n)
{
	for (;;) {
		while (n > 0 && !iov->iov_len)
			iov++, n--;
		if (!n)
			return 0;
		ssize_t w = writev(fd, iov, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		size_t left = (size_t)w;
		for (; n > 0 && left >= iov->iov_len; iov++, n--)
			left -= iov->iov_len;
		if (n > 0) {	/* a short write ended inside *iov */
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
}

int sio_create_new(int dirfd, const char *name, const struct iovec *iov, int iovcnt,
		   mode_t mode)
{
	struct iovec v[SIO_CREATE_IOV_MAX];
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (iovcnt < 0 || iovcnt > SIO_CREATE_IOV_MAX)
		return -EINVAL;
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
			O_NOCTTY, mode);
	if (fd < 0)
		return -errno;
	memcpy(v, iov, sizeof(v[0]) * (size_t)iovcnt);
	int rc = write_iov(fd, v, iovcnt);
	int um = current_umask();
	/* The mode whatever the umask (readers such as perf and debuginfod need it); one call
	 * saved per file when the umask takes nothing away. */
	if (!rc && (um < 0 || (um & (int)mode)) && fchmod(fd, mode))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	/* O_EXCL made the name ours, in a directory the caller trusts: take it back rather than
	 * leave a part of the bytes under it. */
	if (rc)
		unlinkat(dirfd, name, 0);
	return rc;
}
