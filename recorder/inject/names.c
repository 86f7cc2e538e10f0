/* names.c - the file names inject reasons about: which mappings are a runtime's anonymous
 * code (dropped once a dump describes that code, as perf does), where a marker's dump is read
 * from (--jit-dir), and normalised absolute paths for MMAP2 names and the build-id cache. */
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int inj_is_anon_code(const char *f)
{
	return !strncmp(f, "//anon", 6) || !strncmp(f, "[anon:", 6) || !strncmp(f, "/memfd:", 7);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int inj_dump_path(const char *marker, const char *jit_dir, char *buf, size_t len)
{
	int n = jit_dir ? snprintf(buf, len, "%s/%s", jit_dir, base_of(marker))
			: snprintf(buf, len, "%s", marker);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int inj_dirname(const char *path, char *buf, size_t len)
{
	const char *s = strrchr(path, '/');
	const char *src = s ? path : ".";
	size_t n = !s ? 1 : s == path ? 1 : (size_t)(s - path);	/* "/x" -> "/" */
	if (n + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf, src, n);
	buf[n] = 0;
	return 0;
}

/* Lexical normalisation: the cache layout needs "<root>/<abs path>/<id>" without "." / ".."
 * components, and perf compares MMAP names byte for byte. Symlinks are left alone on purpose:
 * the name is what the user's tools will show. */
int inj_abspath(const char *path, char *buf, size_t len)
{
	char tmp[8192];
	int n;
	if (path[0] == '/') {
		n = snprintf(tmp, sizeof(tmp), "%s", path);
	} else {
		char cwd[4096];
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		n = snprintf(tmp, sizeof(tmp), "%s/%s", cwd, path);
	}
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	if (len < 2)
		return -ENAMETOOLONG;
	size_t o = 0;
	char *save = NULL;
	for (char *c = strtok_r(tmp, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (o > 0 && buf[o - 1] != '/')
				o--;
			if (o > 0)
				o--;	/* the '/' before the dropped component */
			continue;
		}
		size_t cl = strlen(c);
		if (o + 1 + cl + 1 > len)
			return -ENAMETOOLONG;
		buf[o++] = '/';
		memcpy(buf + o, c, cl);
		o += cl;
	}
	if (o == 0)
		buf[o++] = '/';
	buf[o] = 0;
	return 0;
}
