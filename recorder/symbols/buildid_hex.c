/* buildid_hex.c - build-ids as bytes and as the lowercase hex perf prints and files by, and
 * reading the GNU build-id note of an ELF file. */
#include "recorder/symbols/symbols_int.h"

#include "safeio/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *sym_build_id_hex(const struct sym_build_id *id, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = id->size > SYM_BUILD_ID_MAX ? SYM_BUILD_ID_MAX : id->size;
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id->data[i] >> 4];
		hex[2 * i + 1] = digits[id->data[i] & 15];
	}
	hex[2 * n] = 0;
	return hex;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sym_build_id_parse(const char *hex, struct sym_build_id *id)
{
	size_t n = strlen(hex);
	if (n < 2 || n % 2 || n > 2 * SYM_BUILD_ID_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		id->data[i] = (uint8_t)(hi << 4 | lo);
	}
	id->size = (uint8_t)(n / 2);
	return 0;
}

int sym_build_id_equal(const struct sym_build_id *a, const struct sym_build_id *b)
{
	return a->size == b->size && !memcmp(a->data, b->data, a->size);
}

int sym_elf_build_id(const char *path, struct sym_build_id *id, const struct jp_log *log)
{
	elf_version(EV_CURRENT);
	/* Regular files only, never blocking; read, not mapped: a recorded path may be a FIFO,
	 * or another user's file that shrinks under a mapping. */
	int fd = sio_open_regular(path);
	if (fd < 0) {
		jp_logf(log, JP_LOG_ERROR, "%s: %s", path, sio_strerror(fd));
		return fd;
	}
	int rc;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		jp_logf(log, JP_LOG_ERROR, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
		rc = -EINVAL;
	} else if ((rc = dso_elf_build_id(elf, id))) {
		jp_logf(log, JP_LOG_ERROR, "%s: no GNU build-id note", path);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
