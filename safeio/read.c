/* read.c - whole files read into memory with a size limit: bytes another user can truncate
 * under a mapping would fault us with SIGBUS, bytes copied cannot. */
#include "safeio/safeio.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int sio_read_all(int fd, uint64_t max, uint8_t **buf, size_t *len)
{
	struct stat sb;
	*buf = NULL;
	*len = 0;
	if (fstat(fd, &sb))
		return -errno;
	uint64_t want = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
	if ((max && want > max) || want >= SIZE_MAX)
		return -EFBIG;
	size_t cap = (size_t)want + 1, got = 0;
	uint8_t *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (got + 1 == cap) {	/* full: it may have grown since fstat */
			uint8_t probe;
			ssize_t n = pread(fd, &probe, 1, (off_t)got);
			if (n == 0)
				break;
			if (n > 0 && max && got >= max) {
				free(b);
				return -EFBIG;
			}
			size_t ncap = cap * 2 < cap + 65536 ? cap + 65536 : cap * 2;
			uint8_t *nb = n > 0 ? realloc(b, ncap) : NULL;
			if (!nb) {
				int rc = n < 0 ? -errno : -ENOMEM;
				if (rc == -EINTR)
					continue;
				free(b);
				return rc;
			}
			b = nb;
			cap = ncap;
		}
		ssize_t n = pread(fd, b + got, cap - 1 - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = -errno;
			free(b);
			return rc;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (max && got > max) {
		free(b);
		return -EFBIG;
	}
	b[got] = 0;
	*buf = b;
	*len = got;
	return 0;
}
