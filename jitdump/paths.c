/* paths.c - where dumps live and what they are called: the directory a writer uses, perf's
 * marker-name rule, the companion file name, and the e_machine of the running program. */
#include "jitdump/jd_int.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int jd_ext_path(const char *dump_path, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s", dump_path, JD_EXT_SUFFIX);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* perf's jit_detect(): basename "jit-<decimal pid>.dump", nothing before or after. */
int jd_is_marker_name(const char *path, uint32_t *pid)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4))
		return 0;
	const char *p = base + 4;
	uint64_t v = 0;
	const char *digits = p;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return 0;
		p++;
	}
	if (p == digits || strcmp(p, ".dump"))
		return 0;
	if (pid)
		*pid = (uint32_t)v;
	return 1;
}

/* mkdir -p with one mode for every component we create (existing ones are left alone). */
static int mkdir_p(char *path, mode_t mode)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		int rc = mkdir(path, mode);
		*s = '/';
		if (rc && errno != EEXIST)
			return -errno;
	}
	if (mkdir(path, mode) && errno != EEXIST)
		return -errno;
	struct stat st;
	if (stat(path, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int jd_dump_dir(const char *dir, char *buf, size_t len)
{
	int n;
	const char *env = getenv("JITDUMPDIR");
	if (dir && *dir) {
		n = snprintf(buf, len, "%s", dir);
	} else if (env && *env) {
		n = snprintf(buf, len, "%s", env);
	} else {
		const char *home = getenv("HOME");
		n = snprintf(buf, len, "%s/.debug/jit", home && *home ? home : ".");
	}
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return mkdir_p(buf, 0700);
}

/* e_machine as the kernel sees the running program (what perf's agent records too); falls
 * back to the architecture this library was compiled for. */
uint32_t jd_self_elf_mach(void)
{
	unsigned char h[EI_NIDENT + 4];
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = pread(fd, h, sizeof(h), 0);
		close(fd);
		if (n == (ssize_t)sizeof(h) && !memcmp(h, ELFMAG, SELFMAG)) {
			uint16_t m;
			memcpy(&m, h + EI_NIDENT + 2, 2);
			if (h[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
										: ELFDATA2MSB))
				m = __builtin_bswap16(m);
			return m;
		}
	}
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#elif defined(__i386__)
	return EM_386;
#elif defined(__riscv)
	return EM_RISCV;
#elif defined(__powerpc64__)
	return EM_PPC64;
#elif defined(__s390x__)
	return EM_S390;
#else
	return EM_NONE;
#endif
}
