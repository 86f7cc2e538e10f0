/* fuzz_report.c - libFuzzer target: `jitprof report` end to end on a hostile perf.data: ingest
 * through recorder/symbols (lines, call chains, inline frames, jitted loads, code bytes), then
 * every output: table with call graph, JSON, folded stacks, flame graph, generations view.
 * The ELFs of the minijit seeds sit in a private build-id cache, so injected recordings
 * resolve their jitted generations; nothing is looked up on the host (empty --symfs).
 * fuzz-srcs: lib/ recorder/report/ recorder/inject/ recorder/symbols/ recorder/perfdata/ synth/ jitdump/ tests/lib/testutil.c
 * fuzz-libs: -lelf -ldw -ldebuginfod -larchive -lcrypto -lzstd -lcapstone -liberty -lxml2 -lm -lpthread */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/report/report.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"
#include "tests/lib/testutil.h"

static char dir[200], data_path[300], symfs[300], cache[300];
static FILE *devnull;
static volatile uint64_t sink;

static void quiet(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	sink += (uint64_t)level + strlen(msg);
}

static void cleanup(void)
{
	tu_rmtree(dir);
}

/* Files the seeds' jitted generations by build-id, as inject would have. */
static void fill_cache(void)
{
	DIR *d = opendir("tests/fuzz/corpus/symbols");
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, "minijit-", 8) != 0)
			continue;
		char path[600], abs[300], err[256];
		snprintf(path, sizeof(path), "tests/fuzz/corpus/symbols/%s", e->d_name);
		struct sym_build_id id;
		if (sym_elf_build_id(path, &id, err, sizeof(err)) || id.size != SYNTH_BUILD_ID_SIZE)
			continue;
		FILE *f = fopen(path, "rb");
		static uint8_t buf[1 << 16];
		size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		struct synth_elf elf = { .data = buf, .size = n };
		memcpy(elf.build_id, id.data, SYNTH_BUILD_ID_SIZE);
		snprintf(abs, sizeof(abs), "/fuzz/%s", e->d_name);
		synth_cache_add(&elf, cache, abs, err, sizeof(err));
	}
	if (d)
		closedir(d);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/fuzz-report.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(data_path, sizeof(data_path), "%s/perf.data", dir);
	snprintf(symfs, sizeof(symfs), "%s/symfs", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	mkdir(symfs, 0700);
	mkdir(cache, 0700);
	atexit(cleanup);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	fill_cache();
}

static void outputs(struct rp_session *s)
{
	enum rp_key keys[RP_MAX_KEYS];
	int nr = 0;
	char err[256];
	if (rp_parse_sort("comm,dso,sym,srcline,generation", keys, &nr, err, sizeof(err)))
		abort();
	struct rp_hist h;
	if (rp_hist_build(&h, s, keys, nr, 1) == 0) {
		struct rp_table_opts t = { .graph = RP_GRAPH_CALLEE, .graph_min_percent = 0.5 };
		rp_print_table(devnull, &h, &t);
		rp_print_json(devnull, &h, s, NULL, 1);
		rp_hist_free(&h);
	}
	rp_print_collapsed(devnull, s);
	rp_write_flamegraph(devnull, s, "fuzz");
	rp_print_generations(devnull, s, NULL, err, sizeof(err));
	struct rp_gen_view v;
	if (rp_gen_view_build(&v, s, NULL, err, sizeof(err)) == 0) {
		for (size_t m = 0; m < v.nr_methods; m++)
			if (v.methods[m].nr_rows >= 2)
				rp_print_compare(devnull, s, v.methods[m].method, 1, 2, err,
						 sizeof(err));
		rp_gen_view_free(&v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	int fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);

	struct rp_session *s;
	if (rp_session_new(&s))
		abort();
	struct rp_ingest_opts o = {
		.input = data_path, .symfs = symfs, .buildid_dir = cache,
		.want_lines = 1, .want_callchain = 1, .want_inline = 1, .want_loads = 1,
		.want_code = 1, .log = { quiet, NULL },
	};
	char err[512];
	if (rp_ingest(s, &o, err, sizeof(err)) == 0)
		outputs(s);
	else
		sink += strlen(err);
	rp_session_free(s);
	return 0;
}
