/* javac.c - see javac.h. The cache entry appears whole or not at all: compiled in a fresh
 * directory beside it and renamed into place, so a run that stops midway or two test
 * binaries compiling the same source at once leave no half entry. */
#include "tests/lib/javac.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static const char *const javacs[] = {
	"/usr/lib/jvm/java-17-openjdk-amd64/bin/javac",
	"/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac",
};

/* FNV-1a over the parts: a cache key, not a defence (the build tree is the tester's own). */
static uint64_t key_of(const char *const *parts, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		for (const char *p = parts[i];; p++) {
			h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
			if (!*p)
				break;
		}
	return h;
}

static void write_source(const char *dir, const char *cls, const char *src)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s.java", dir, cls);
	cr_assert_eq(tu_write_file(path, src, strlen(src)), 0, "%s", path);
}

int tu_javac(const char *dir, const char *cls, const char *src, const char *flags)
{
	const char *javac = NULL;
	for (size_t i = 0; i < sizeof(javacs) / sizeof(javacs[0]) && !javac; i++)
		if (!access(javacs[i], X_OK))
			javac = javacs[i];
	if (!javac)
		return -1;

	char root[PATH_MAX], entry[PATH_MAX + 32], tmp[PATH_MAX + 32], done[PATH_MAX + 64];
	const char *parts[] = { javac, flags, cls, src };
	struct tu_result r;
	struct stat st;

	cr_assert_not_null(realpath(tu_build("tests"), root), "%s: %s", tu_build("tests"),
			   strerror(errno));
	snprintf(root + strlen(root), sizeof(root) - strlen(root), "/javac-cache");
	snprintf(entry, sizeof(entry), "%s/%016llx", root,
		 (unsigned long long)key_of(parts, sizeof(parts) / sizeof(parts[0])));
	snprintf(done, sizeof(done), "%s/%s.class", entry, cls);
	if (stat(done, &st)) {
		cr_assert(!mkdir(root, 0755) || errno == EEXIST, "%s: %s", root, strerror(errno));
		snprintf(tmp, sizeof(tmp), "%s/new.XXXXXX", root);
		cr_assert_not_null(mkdtemp(tmp), "%s: %s", tmp, strerror(errno));
		write_source(tmp, cls, src);
		char cmd[3 * PATH_MAX];
		snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s %s.java", tmp, javac, flags, cls);
		cr_assert_eq(tu_sh(&r, cmd, 300), 0);
		cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
		tu_result_free(&r);
		/* another binary's entry may have come first: same bytes, keep that one */
		if (rename(tmp, entry))
			tu_rmtree(tmp);
	}
	write_source(dir, cls, src);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "cp '%s'/*.class '%s'/", entry, dir);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	tu_result_free(&r);
	return 0;
}
