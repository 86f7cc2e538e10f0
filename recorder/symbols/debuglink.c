/* debuglink.c - a separate debug file named by the ELF's own .gnu_debuglink (name + CRC32),
 * for files that carry no build-id to look one up by: gdb's places, <dir>/NAME and
 * <dir>/.debug/NAME beside the file found, /usr/lib/debug/<recorded dir>/NAME (under
 * --symfs), and only a file whose CRC32 is the one the link names. */
#include "recorder/symbols/symbols_int.h"
#include "safeio/safeio.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* CRC-32 as gdb and objcopy compute it for debug links (IEEE 802.3, reflected). */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* Read in pieces, not mapped: a map that fails for want of memory would read as another
 * CRC, and the debug file would be passed over with nothing said. A regular file only, never
 * blocking on a FIFO at the name. */
static int crc_matches(const char *path, uint32_t want)
{
	unsigned char buf[1 << 16];
	uint32_t crc = 0;
	ssize_t n;
	int fd = sio_open_regular(path);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			crc = crc32_update(crc, buf, (size_t)n);
	close(fd);
	return n == 0 && crc == want;
}

int debuglink_find(Elf *elf, const char *found, const char *recorded, const char *symfs,
		   char *out, size_t len)
{
	GElf_Word crc;
	const char *name = dwelf_elf_gnu_debuglink(elf, &crc);
	if (!name || !*name || strchr(name, '/') || !found || !strchr(found, '/'))
		return -ENOENT;
	const char *fs = strrchr(found, '/'), *rs = recorded ? strrchr(recorded, '/') : NULL;
	int fdir = (int)(fs - found), rdir = rs && recorded[0] == '/' ? (int)(rs - recorded) : -1;
	for (int i = 0; i < 3; i++) {
		int n = i == 0 ? snprintf(out, len, "%.*s/%s", fdir, found, name)
		      : i == 1 ? snprintf(out, len, "%.*s/.debug/%s", fdir, found, name)
		      : rdir < 0 ? -1
		      : snprintf(out, len, "%s/usr/lib/debug%.*s/%s", symfs ? symfs : "", rdir,
				 recorded, name);
		if (n > 0 && (size_t)n < len && strcmp(out, found) && crc_matches(out, crc))
			return 0;
	}
	return -ENOENT;
}
