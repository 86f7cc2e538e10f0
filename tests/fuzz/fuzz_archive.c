/* fuzz_archive.c - libFuzzer target: `report --archive FILE` (and `sym_session_add_source` on
 * an archive): the input is taken as an archive of any format libarchive reads (tar, zstd, gzip,
 * xz, cpio...), unpacked into the session's private directory within its budgets (bytes,
 * members, depth), then a build-id is looked up through it as a report would. What the header
 * promises is checked: nothing the archive held is left once the session is freed.
 * fuzz-srcs: lib/ recorder/symbols/ recorder/perfdata/ safeio/
 * fuzz-libs: -lelf -ldw -ldebuginfod -larchive -lcrypto -lzstd -liberty -lpthread */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/symbols/symbols.h"
#include "tests/fuzz/memfd.h"

static char path[64], tmp[256];
static int fd = -1;
static volatile size_t sink;

static void touch(const char *str)
{
	sink += strlen(str);
}

/* Entries of tmp other than . and .. */
static size_t left_in_tmp(void)
{
	DIR *d = opendir(tmp);
	size_t n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void remove_tmp(void)
{
	rmdir(tmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		fd = fz_memfd("archive", path, sizeof(path));
		snprintf(tmp, sizeof(tmp), "%s/jitprof-fuzz-archive-%d", fz_tmp_base(), (int)getpid());
		if (mkdir(tmp, 0700) && errno != EEXIST)
			abort();
		setenv("TMPDIR", tmp, 1);	/* where the session unpacks */
		atexit(remove_tmp);
	}
	fz_fill(fd, data, size);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent",
			      .no_debuginfod = 1, .archive_budget = 64u << 20,
			      .archive_max_entries = 4096 };
	struct sym_session *s = sym_session_new(&o);
	if (!s)
		abort();
	if (sym_session_add_source(s, path) == 0) {
		/* A library known by build-id only, as in a recording from another machine: its
		 * ELF is looked for in the archive (the seeds hold one under this id). */
		static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
						7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
		struct sym_result r;
		if (sym_mmap(s, 1, 1, 0x400000, 0x10000, 0, "/nonexistent/libfuzz.so", id,
			     sizeof(id), 2, 1) == 0 &&
		    sym_resolve(s, 1, 0x401000, 2, 2, SYM_RES_LINES, &r) == 0 && r.sym)
			touch(r.sym);
	}
	sym_session_free(s);
	if (left_in_tmp()) {
		fprintf(stderr, "fuzz_archive: the session left files in %s\n", tmp);
		abort();
	}
	return 0;
}
