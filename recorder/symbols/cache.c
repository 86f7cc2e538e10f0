/* cache.c - reading perf's build-id cache without following what may be planted in it: the
 * root is followed as the user named it, everything beneath is walked by safeio. The one link
 * the layout has, .build-id/xx/rest -> ../../<path>/<id>, is read as text and its target
 * opened beneath the root again, so it can never lead out of the cache. */
#include "recorder/symbols/symbols_int.h"

#include "safeio/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* target of a .build-id link, as a path relative to the root: "../../<rel>" with no other
 * ".." (sio_open_beneath refuses those too); NULL when it is not of that shape. */
static const char *link_rel(const char *target)
{
	if (strncmp(target, "../../", 6) || !target[6] || target[6] == '/')
		return NULL;
	return target + 6;
}

/* The entry of .build-id/xx (xfd) named rest: perf's link to <path>/<id>, a directory of
 * the kinds, or (the old layout) the ELF itself. */
static int open_entry(int rootfd, int xfd, const char *rest, const char *kind)
{
	char target[PATH_MAX], rel[PATH_MAX + NAME_MAX + 2];
	ssize_t n = readlinkat(xfd, rest, target, sizeof(target) - 1);
	if (n >= 0) {
		target[n] = 0;
		const char *r = link_rel(target);
		if (!r)
			return -EXDEV;
		if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", r, kind) >= sizeof(rel))
			return -ENAMETOOLONG;
		return sio_open_beneath(rootfd, rel);
	}
	if (errno != EINVAL)	/* EINVAL: there, but not a link */
		return -errno;
	snprintf(rel, sizeof(rel), "%s/%s", rest, kind);
	int fd = sio_open_beneath(xfd, rel);
	if ((fd == -ENOTDIR || fd == -ELOOP) && !strcmp(kind, "elf"))
		fd = sio_open_beneath(xfd, rest);
	return fd;
}

int sym_cache_open(const char *root, const struct sym_build_id *id, const char *name,
		   const char *kind)
{
	char hex[SYM_BUILD_ID_HEX], rel[PATH_MAX];
	if (!root || !id->size || strchr(kind, '/'))
		return -EINVAL;
	sym_build_id_hex(id, hex);
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	if (rootfd < 0)
		return -errno;
	if (name) {
		while (*name == '/')
			name++;
		if ((size_t)snprintf(rel, sizeof(rel), "%s/%s/%s", name, hex, kind) >= sizeof(rel))
			fd = -ENAMETOOLONG;
		else
			fd = sio_open_beneath(rootfd, rel);
	} else {
		snprintf(rel, sizeof(rel), ".build-id/%.2s", hex);
		int xfd = sio_opendir_beneath(rootfd, rel);
		fd = xfd < 0 ? xfd : open_entry(rootfd, xfd, hex + 2, kind);
		if (xfd >= 0)
			close(xfd);
	}
	close(rootfd);
	return fd;
}
