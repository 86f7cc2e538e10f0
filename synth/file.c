/* file.c - putting synthesized ELFs on disk: whole-or-nothing files (O_TMPFILE + linkat, or
 * temp + rename to replace a file) and perf's build-id cache layout (<root>/<abs path>/<hex>/elf
 * plus <root>/.build-id/xx/rest links). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeio/safeio.h"
#include "synth/synth_int.h"

static int tmp_name(char *buf, size_t len, const char *path)
{
	int n = snprintf(buf, len, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)gettid());
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int write_all(int fd, const struct synth_elf *e, const char *what, const struct jp_log *log)
{
	size_t done = 0;
	while (done < e->size) {
		ssize_t w = write(fd, e->data + done, e->size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return synth_err(log, w < 0 ? -errno : -EIO,
					 "%s: write at byte %zu: %s", what, done,
					 w < 0 ? strerror(errno) : "short write");
		done += (size_t)w;
	}
	/* 0644 whatever the umask: perf and debuginfod servers read these files. */
	if (fchmod(fd, 0644))
		return synth_err(log, -errno, "%s: chmod: %s", what, strerror(errno));
	return 0;
}

/* An unnamed file in path's directory (O_TMPFILE), written whole, then given its name with
 * one linkat: half the directory operations of temp + rename, which is what a new file
 * costs on ext4. Returns 1 when this is not possible (no O_TMPFILE, no /proc, or the name
 * exists: replacing a file needs the rename), and the caller falls back. */
static int write_tmpfile(const struct synth_elf *e, const char *path, const struct jp_log *log)
{
	char dir[PATH_MAX], proc[64];
	const char *slash = strrchr(path, '/');
	int n = slash ? snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path)
		      : snprintf(dir, sizeof(dir), ".");
	if (n <= 0 || (size_t)n >= sizeof(dir) || !dir[0])
		return 1;
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	int rc = write_all(fd, e, path, log);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!rc && linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
		rc = 1;
	close(fd);
	return rc;
}

int synth_write_file(const struct synth_elf *e, const char *path, const struct jp_log *log)
{
	int rc = write_tmpfile(e, path, log);
	if (rc <= 0)
		return rc;
	char tmp[PATH_MAX];
	if (tmp_name(tmp, sizeof(tmp), path))
		return synth_err(log, -ENAMETOOLONG, "%s: path too long", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return synth_err(log, -errno, "%s: %s", tmp, strerror(errno));
	rc = write_all(fd, e, tmp, log);
	if (close(fd) && !rc)
		rc = synth_err(log, -errno, "%s: close: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = synth_err(log, -errno, "rename %s -> %s: %s", tmp, path,
			       strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

int synth_cache_default_root(char *buf, size_t len)
{
	const char *dir = getenv("PERF_BUILDID_DIR");
	const char *home = getenv("HOME");
	int n;
	if (dir && dir[0])
		n = snprintf(buf, len, "%s", dir);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.debug", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* An absolute path without empty, "." or ".." components: it becomes directories under the
 * cache root, so it must never climb out of it. */
static int check_abs_path(const char *p)
{
	if (p[0] != '/' || strlen(p) >= PATH_MAX)
		return -EINVAL;
	for (const char *c = p + 1;;) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		if (!slash)
			return 0;
		c = slash + 1;
	}
}

static int fmt(char *buf, size_t len, const char *f, const char *a, const char *b,
	       const char *c)
{
	int n = snprintf(buf, len, f, a, b, c);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int synth_cache_elf_path(const char *root, const char *abs_path,
			 const uint8_t id[SYNTH_BUILD_ID_SIZE], char *buf, size_t len)
{
	char hex[SYNTH_BUILD_ID_HEX];
	if (check_abs_path(abs_path))
		return -EINVAL;
	synth_build_id_hex(id, hex);
	return fmt(buf, len, "%s%s/%s/elf", root, abs_path, hex);
}

int synth_cache_link_path(const char *root, const uint8_t id[SYNTH_BUILD_ID_SIZE], char *buf,
			  size_t len)
{
	char hex[SYNTH_BUILD_ID_HEX], xx[3] = { 0 };
	synth_build_id_hex(id, hex);
	memcpy(xx, hex, 2);
	return fmt(buf, len, "%s/.build-id/%s/%s", root, xx, hex + 2);
}

/* mkdir -p of the directory part of path, deepest first: in a warm cache the parent exists
 * and one mkdir answers, instead of one per component. */
static int make_parents(char *path)
{
	char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return 0;
	*slash = 0;
	int rc = mkdir(path, 0755) ? -errno : 0;
	if (rc == -ENOENT) {
		rc = make_parents(path);
		if (!rc)
			rc = mkdir(path, 0755) ? -errno : 0;
	}
	*slash = '/';
	return rc == -EEXIST ? 0 : rc;
}

/* fd (closed here) holds exactly e's bytes. */
static int same_fd(int fd, const struct synth_elf *e)
{
	if (fd < 0)
		return 0;
	struct stat st;
	int same = 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size == e->size) {
		uint8_t *b = malloc(e->size ? e->size : 1);
		same = b && pread(fd, b, e->size, 0) == (ssize_t)e->size &&
		       !memcmp(b, e->data, e->size);
		free(b);
	}
	close(fd);
	return same;
}

static int same_file(const char *path, const struct synth_elf *e)
{
	return same_fd(open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), e);
}

/* The link, replaced atomically when it points elsewhere; dirfd is .build-id/xx, walked to
 * without following links. 1 if it was already right. */
static int place_link_at(int dirfd, const char *name, const char *target, const char *what,
			 const struct jp_log *log)
{
	char cur[PATH_MAX], tmp[NAME_MAX + 1];
	ssize_t n = readlinkat(dirfd, name, cur, sizeof(cur) - 1);
	if (n >= 0) {
		cur[n] = 0;
		if (!strcmp(cur, target))
			return 1;
	}
	/* No link yet (the usual case): create it in place; else replace it atomically. */
	if (n < 0 && errno == ENOENT && !symlinkat(target, dirfd, name))
		return 0;
	if (tmp_name(tmp, sizeof(tmp), name))
		return synth_err(log, -ENAMETOOLONG, "%s: name too long", what);
	unlinkat(dirfd, tmp, 0);
	if (symlinkat(target, dirfd, tmp) || renameat(dirfd, tmp, dirfd, name)) {
		int rc = -errno;
		unlinkat(dirfd, tmp, 0);
		return synth_err(log, rc, "%s: symlink: %s", what, strerror(-rc));
	}
	return 0;
}

/* The cache root is followed as the user named it (and made when missing); everything
 * beneath it is walked by safeio and never followed: a symlink planted inside the cache
 * (~/.debug/tmp -> /root/x) must not carry our writes elsewhere. */
static int open_cache_root(const char *root, const struct jp_log *log)
{
	char p[PATH_MAX];
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && !fmt(p, sizeof(p), "%s/%s%s", root, ".", "") &&
	    !make_parents(p))
		fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : synth_err(log, -errno, "%s: build-id cache: %s", root,
					strerror(errno));
}

/* <rel> beneath the cache root, created when missing; a link or non-directory on the way is
 * refused with a message that says so, and nothing is written there. */
static int cache_dir(int rootfd, const char *root, const char *rel, const struct jp_log *log)
{
	int fd = sio_mkdirs_beneath(rootfd, rel, 0755);
	if (fd == -ELOOP)
		return synth_err(log, fd, "%s/%s: a symbolic link inside the build-id "
				 "cache: refused, nothing written there", root, rel);
	if (fd < 0)
		return synth_err(log, fd, "%s/%s: mkdir in the build-id cache: %s", root,
				 rel, fd == -ENOTDIR ? "a component is not a directory"
						     : strerror(-fd));
	return fd;
}

/* e written whole as name in dirfd: an existing symlink there is replaced, not followed; a
 * FIFO or device refused. */
static int write_at(int dirfd, const char *name, const struct synth_elf *e, const char *what,
		    const struct jp_log *log)
{
	struct sio_out o;
	int rc = sio_out_open(&o, dirfd, name, 0644);
	if (rc)
		return synth_err(log, rc, "%s: %s", what, sio_strerror(rc));
	if ((rc = write_all(o.fd, e, what, log))) {
		sio_out_abort(&o);
		return rc;
	}
	rc = sio_out_commit(&o);
	return rc ? synth_err(log, rc, "%s: %s", what, sio_strerror(rc)) : 0;
}

int synth_cache_add(const struct synth_elf *e, const char *root, const char *abs_path,
		    const struct jp_log *log)
{
	char elf[PATH_MAX], rel[PATH_MAX], lnk[PATH_MAX], target[PATH_MAX],
		hex[SYNTH_BUILD_ID_HEX], xx[16];
	if (check_abs_path(abs_path))
		return synth_err(log, -EINVAL,
				 "%s: cache needs an absolute path without ./.. parts", abs_path);
	synth_build_id_hex(e->build_id, hex);
	snprintf(xx, sizeof(xx), ".build-id/%.2s", hex);
	if (synth_cache_elf_path(root, abs_path, e->build_id, elf, sizeof(elf)) ||
	    synth_cache_link_path(root, e->build_id, lnk, sizeof(lnk)) ||
	    fmt(rel, sizeof(rel), "%s/%s%s", abs_path + 1, hex, "") ||
	    fmt(target, sizeof(target), "../..%s/%s%s", abs_path, hex, ""))
		return synth_err(log, -ENAMETOOLONG, "%s: cache path too long", abs_path);
	int rootfd = open_cache_root(root, log), dfd = -1, lfd = -1, rc;
	if (rootfd < 0)
		return rootfd;
	if ((rc = dfd = cache_dir(rootfd, root, rel, log)) < 0 ||
	    (rc = lfd = cache_dir(rootfd, root, xx, log)) < 0)
		goto out;
	int had = same_fd(sio_open_beneath(dfd, "elf"), e);
	/* Always a copy of our own, never a hard link to the file at abs_path as perf makes: that
	 * file's owner could rewrite the cache entry after the fact, and build-ids come from
	 * content, so every later report of the same code would show her bytes. */
	if (!had && (rc = write_at(dfd, "elf", e, elf, log)))
		goto out;
	rc = place_link_at(lfd, hex + 2, target, lnk, log);
	if (rc >= 0)
		rc = had && rc == 1;
out:
	if (dfd >= 0)
		close(dfd);
	if (lfd >= 0)
		close(lfd);
	close(rootfd);
	return rc;
}

int synth_place(const struct synth_elf *e, const char *path, const char *cache_root,
		struct synth_placed *out, const struct jp_log *log)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	if (cache_root) {
		int c = synth_cache_add(e, cache_root, path, log);
		rc = c < 0 ? c : 0;
		out->cached = c == 0;
		out->cache_reused = c == 1;
	}
	if (same_file(path, e)) {
		out->reused = 1;
		return rc;
	}
	/* The first failure is the one logged. */
	int w = synth_write_file(e, path, rc ? NULL : log);
	if (w < 0 && !rc)
		rc = w;
	out->written = w == 0;
	return rc;
}
