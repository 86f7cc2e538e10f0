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
#include "safeio/safeio.h"

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

/* The cache root, followed as the user named it (made when missing). */
static int open_root(const char *root)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/", root);
		for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
			*p = 0;
			int bad = mkdir(path, 0755) && errno != EEXIST;
			*p = '/';
			if (bad)
				return -errno;
		}
		fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/* dirfd/name holds exactly len bytes equal to buf (a link there does not count). */
static int same_bytes(int dirfd, const char *name, const void *buf, size_t len)
{
	int fd = sio_open_beneath(dirfd, name);
	if (fd < 0)
		return 0;
	char *have = malloc(len + 1);
	ssize_t n = have ? read(fd, have, len + 1) : -1;
	int same = n == (ssize_t)len && !memcmp(have, buf, len);
	free(have);
	close(fd);
	return same;
}

/* Written whole and named only then (safeio's fresh output: a link or FIFO planted at the
 * name is replaced or refused, never followed). */
static int put_file(int dirfd, const char *name, const void *buf, size_t len)
{
	if (same_bytes(dirfd, name, buf, len))
		return 0;
	struct sio_out o;
	int rc = sio_out_open(&o, dirfd, name, 0644);
	if (rc)
		return rc;
	ssize_t n = write(o.fd, buf, len);
	rc = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
	if (!rc && fchmod(o.fd, 0644))
		rc = -errno;
	if (rc) {
		sio_out_abort(&o);
		return rc;
	}
	return sio_out_commit(&o);
}

static int put_link(int dirfd, const char *name, const char *target)
{
	char have[4200], tmp[300];
	ssize_t n = readlinkat(dirfd, name, have, sizeof(have) - 1);
	if (n >= 0 && (have[n] = 0, !strcmp(have, target)))
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", name, (int)getpid());
	unlinkat(dirfd, tmp, 0);
	int rc = 0;
	if (symlinkat(target, dirfd, tmp) || renameat(dirfd, tmp, dirfd, name)) {
		rc = -errno;
		unlinkat(dirfd, tmp, 0);
	}
	return rc;
}

/* Beneath the root everything is walked, never followed (safeio): a symlink planted inside
 * the cache cannot carry our files elsewhere (-ELOOP). */
int rec_cache_save(const char *root, const char *name, const uint8_t *id, size_t id_size,
		   const char *kind, const void *buf, size_t len)
{
	char hex[2 * PD_BUILD_ID_MAX + 1], rel[4200], target[4200];
	while (*name == '/')
		name++;
	if (!id_size || id_size > PD_BUILD_ID_MAX || !*name || strstr(name, "..") ||
	    strstr(name, "//") || strstr(name, "/./") || strchr(kind, '/'))
		return -EINVAL;
	for (size_t i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	int n = snprintf(rel, sizeof(rel), "%s/%s", name, hex);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	n = snprintf(target, sizeof(target), "../../%s/%s", name, hex);
	if (n < 0 || (size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	int rootfd = open_root(root);
	if (rootfd < 0)
		return rootfd;
	int dfd = sio_mkdirs_beneath(rootfd, rel, 0755), lfd = -1, rc = dfd < 0 ? dfd : 0;
	if (!rc)
		rc = put_file(dfd, kind, buf, len);
	if (!rc) {
		snprintf(rel, sizeof(rel), ".build-id/%.2s", hex);
		lfd = rc = sio_mkdirs_beneath(rootfd, rel, 0755);
	}
	if (rc >= 0)
		rc = put_link(lfd, hex + 2, target);
	if (dfd >= 0)
		close(dfd);
	if (lfd >= 0)
		close(lfd);
	close(rootfd);
	return rc;
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
