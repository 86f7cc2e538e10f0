/* cache.c - what record puts in the build-id cache (perf's layout, <root>/<name>/<id>/<kind>
 * plus <root>/.build-id/xx/rest -> ../../<name>/<id>): files that exist nowhere else. The vdso
 * image, as perf record does ([vdso] is in no file; the copy is this process's own vdso
 * mapping: the kernel maps the same image everywhere, and the build-id recorded for [vdso]
 * says whether it is the one), and with --keep-deleted the contents of mapped files that were
 * deleted, read back through /proc/PID/map_files while the process lives. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/record/record_int.h"

/* [start, end) of [vdso] in our own maps. */
static int own_vdso(uint64_t *start, uint64_t *end)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int rc = -ENOENT;
	while (f && rc && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) == 2)
			rc = 0;
	if (f)
		fclose(f);
	return rc;
}

/* mkdir -p of path's directory part (0755). */
static int mkdirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		int rc = mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
		*p = '/';
		if (rc)
			return rc;
	}
	return 0;
}

/* path holds exactly len bytes equal to buf. */
static int same_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	char *have = malloc(len + 1);
	ssize_t n = have ? read(fd, have, len + 1) : -1;
	int same = n == (ssize_t)len && !memcmp(have, buf, len);
	free(have);
	close(fd);
	return same;
}

/* Written whole under a temporary name, then renamed: never half there. */
static int put_file(char *path, const void *buf, size_t len)
{
	char tmp[4300];
	int rc = mkdirs(path);
	if (rc || same_bytes(path, buf, len))
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, buf, len);
	rc = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

static int put_link(char *path, const char *target)
{
	char have[4200], tmp[4300];
	ssize_t n = readlink(path, have, sizeof(have) - 1);
	if (n >= 0 && (have[n] = 0, !strcmp(have, target)))
		return 0;
	int rc = mkdirs(path);
	if (rc)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	unlink(tmp);
	if (symlink(target, tmp) || rename(tmp, path)) {
		rc = -errno;
		unlink(tmp);
	}
	return rc;
}

int rec_cache_save(const char *root, const char *name, const uint8_t *id, size_t id_size,
		   const char *kind, const void *buf, size_t len)
{
	char hex[2 * PD_BUILD_ID_MAX + 1], path[4200], target[4200];
	while (*name == '/')
		name++;
	if (!id_size || id_size > PD_BUILD_ID_MAX || !*name || strstr(name, "..") ||
	    strstr(name, "//") || strstr(name, "/./"))
		return -EINVAL;
	for (size_t i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	int n = snprintf(path, sizeof(path), "%s/%s/%s/%s", root, name, hex, kind);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	int rc = put_file(path, buf, len);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", root, hex, hex + 2);
	n = snprintf(target, sizeof(target), "../../%s/%s", name, hex);
	if (n < 0 || (size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	return put_link(path, target);
}

int rec_vdso_save(const char *root, const uint8_t *id, size_t id_size)
{
	uint64_t start, end;
	int rc = own_vdso(&start, &end);
	if (rc)
		return rc;
	if (!id_size || id_size > PD_BUILD_ID_MAX || end <= start || end - start > (1u << 24))
		return -EINVAL;
	uint8_t check[PD_BUILD_ID_MAX];
	size_t check_size = 0;
	/* the image must be the one whose build-id was recorded */
	if (rec_read_build_id("[vdso]", check, &check_size) || check_size != id_size ||
	    memcmp(check, id, id_size))
		return -ESTALE;
	return rec_cache_save(root, "[vdso]", id, id_size, "vdso", (const void *)(uintptr_t)start,
			      (size_t)(end - start));
}
