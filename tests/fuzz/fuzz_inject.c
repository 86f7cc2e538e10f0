/* fuzz_inject.c - libFuzzer target: `jitprof inject --jit` on a hostile recording and a hostile
 * dump. Input: u32 (little-endian) length of a perf.data, the perf.data, then the dump (and,
 * from its magic on, a companion file). The dump is placed under --jit-dir with the name every
 * marker in the recording asks for. Promise checked: when inject succeeds, what it wrote is a
 * perf.data our reader reads to the end without an error.
 * fuzz-srcs: lib/ recorder/inject/ recorder/symbols/ recorder/perfdata/ synth/ jitdump/ tests/lib/testutil.c
 * fuzz-libs: -lelf -ldw -ldebuginfod -larchive -lcrypto -lzstd -liberty -lpthread */
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
#include "tests/lib/testutil.h"

static char dir[200], in_path[300], out_path[300], jit_dir[300];
static volatile uint64_t sink;

static void cleanup(void)
{
	tu_rmtree(dir);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/fuzz-inject.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(in_path, sizeof(in_path), "%s/perf.data", dir);
	snprintf(out_path, sizeof(out_path), "%s/perf.jit.data", dir);
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

static size_t companion_start(const uint8_t *p, size_t n)
{
	static const uint8_t le[4] = { 0x31, 0x58, 0x50, 0x4a }, be[4] = { 0x4a, 0x50, 0x58, 0x31 };
	for (size_t i = JD_HEADER_SIZE; i + 4 <= n; i++)
		if (!memcmp(p + i, le, 4) || !memcmp(p + i, be, 4))
			return i;
	return n;
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
	tu_rmtree(jit_dir);
	mkdir(jit_dir, 0700);
	put_file(in_path, data + 4, perf_len);
	place_dumps(data + 4 + perf_len, size - 4 - perf_len);

	int fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		abort();
	struct inj_opts o = {
		.input = in_path, .output = out_path, .out_fd = fd, .jit_dir = jit_dir,
		.all = 1, .threads = 1, .log = { quiet, NULL },
	};
	struct inj_stats st;
	char err[512];
	int rc = inj_run(&o, &st, err, sizeof(err));
	close(fd);
	if (rc == 0)
		read_back();
	else
		sink += strlen(err);
	return 0;
}
