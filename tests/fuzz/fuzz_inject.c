/* fuzz_inject.c - libFuzzer target: `jitprof inject --jit` on a hostile recording and a hostile
 * dump. Input: u32 (little-endian) length of a perf.data, the perf.data, then the dump (and,
 * from its magic on, a companion file). The dump is placed under --jit-dir with the name every
 * marker in the recording asks for. Promise checked: when inject succeeds, what it wrote is a
 * perf.data our reader reads to the end without an error.
 * fuzz-srcs: lib/ recorder/inject/ recorder/origins/ recorder/unwind/ recorder/symbols/ recorder/perfdata/ safeio/ synth/ jitdump/ tests/lib/testutil.c
 * fuzz-libs: -lelf -ldw -ldebuginfod -larchive -lcrypto -lzstd -liberty -lpthread */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "recorder/inject/inject.h"
#include "recorder/perfdata/perfdata.h"
#include "tests/fuzz/memfd.h"
#include "tests/lib/testutil.h"

static char dir[200], in_path[300], out_path[300], jit_dir[300];
static int in_fd = -1, out_fd = -1;
static volatile uint64_t sink;

static void cleanup(void)
{
	tu_rmtree(dir);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/fuzz-inject.XXXXXX", fz_tmp_base());
	if (!mkdtemp(dir))
		abort();
	in_fd = fz_memfd("perf.data", in_path, sizeof(in_path));
	out_fd = fz_memfd("perf.jit.data", out_path, sizeof(out_path));
	snprintf(jit_dir, sizeof(jit_dir), "%s/jit", dir);
	atexit(cleanup);
}

static void put_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n))
		abort();
	close(fd);
}

/* memmem, not a memcmp per byte: libFuzzer hooks every memcmp (a comparison recorded per
 * call), which made this scan a tenth of an execution. The magic still reaches libFuzzer's
 * table of searched-for words through its memmem hook. */
static size_t companion_start(const uint8_t *p, size_t n)
{
	static const uint8_t le[4] = { 0x31, 0x58, 0x50, 0x4a }, be[4] = { 0x4a, 0x50, 0x58, 0x31 };
	if (n <= JD_HEADER_SIZE)
		return n;
	const uint8_t *a = memmem(p + JD_HEADER_SIZE, n - JD_HEADER_SIZE, le, 4);
	const uint8_t *b = memmem(p + JD_HEADER_SIZE, n - JD_HEADER_SIZE, be, 4);
	if (!a || (b && b < a))
		a = b;
	return a ? (size_t)(a - p) : n;
}

/* Empties jit_dir for the next execution: the dumps placed and the ELFs inject wrote beside
 * them. An unlink per entry through a directory stream kept open, not nftw's open, stat and
 * walk per execution; a subdirectory (none expected) falls back to the whole tree. */
static void empty_jit_dir(void)
{
	static DIR *d;
	if (!d && !(d = opendir(jit_dir))) {
		mkdir(jit_dir, 0700);
		return;
	}
	rewinddir(d);
	struct dirent *e;
	int nested = 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    unlinkat(dirfd(d), e->d_name, 0))
			nested = 1;
	if (nested) {
		closedir(d);
		d = NULL;
		tu_rmtree(jit_dir);
		mkdir(jit_dir, 0700);
	}
}

/* Every marker the recording names gets the input's dump (and companion) under jit_dir. */
static void place_dumps(const uint8_t *dump, size_t n)
{
	struct pd_reader *r = NULL;
	if (pd_reader_open(&r, in_path, NULL) < 0)
		return;
	struct pd_event ev;
	size_t split = companion_start(dump, n), placed = 0;
	while (placed < 8 && pd_reader_next(r, &ev) == 1) {
		if (ev.type != PERF_RECORD_MMAP && ev.type != PERF_RECORD_MMAP2)
			continue;
		const char *f = ev.u.mmap.filename, *base = f ? strrchr(f, '/') : NULL;
		uint32_t pid;
		base = base ? base + 1 : f;
		if (!base || jd_is_marker_name(base, &pid) != 1)
			continue;
		char path[600];
		snprintf(path, sizeof(path), "%s/%s", jit_dir, base);
		put_file(path, dump, split);
		snprintf(path, sizeof(path), "%s/%s%s", jit_dir, base, JD_EXT_SUFFIX);
		if (split < n)
			put_file(path, dump + split, n - split);
		placed++;
	}
	pd_reader_close(r);
}

static void quiet(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	if (msg)
		sink += strlen(msg);
}

static void read_back(void)
{
	struct pd_reader *r = NULL;
	int rc = pd_reader_open(&r, out_path, NULL);
	if (rc < 0) {
		fprintf(stderr, "inject's output does not open: %s\n", strerror(-rc));
		abort();
	}
	struct pd_event ev;
	while ((rc = pd_reader_next(r, &ev)) == 1)
		sink += ev.type;
	if (rc < 0) {
		fprintf(stderr, "inject's output is damaged: %s\n", pd_reader_error(r));
		abort();
	}
	pd_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	if (size < 4)
		return 0;
	uint32_t len;
	memcpy(&len, data, 4);
	size_t perf_len = len < size - 4 ? len : size - 4;
	empty_jit_dir();
	fz_fill(in_fd, data + 4, perf_len);
	place_dumps(data + 4 + perf_len, size - 4 - perf_len);

	/* the writer gets a descriptor of its own (it may close it), at offset 0 of the memfd */
	fz_fill(out_fd, NULL, 0);
	int fd = open(out_path, O_RDWR);
	if (fd < 0)
		abort();
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = in_path, .output = out_path, .out_fd = fd, .jit_dir = jit_dir,
		.all = 1, .threads = 1, .log = { quiet, NULL },
	};
	struct inj_stats st;
	int rc = inj_run(&o, &st);	/* a failure's message reaches quiet */
	close(fd);
	if (rc == 0)
		read_back();
	return 0;
}
