/* fuzz_jvmlog.c - libFuzzer target: HotSpot's compilation log (`report --jvm-log`) read by
 * recorder/report_analysis/jvmlog.c with libxml2's streaming reader from a hostile file, then joined
 * to a small hand-made session (compile ids and addresses the seeds use) and the generations
 * view built, so every field the reader fills is used.
 * fuzz-srcs: lib/ recorder/report_views/ recorder/report_analysis/ recorder/report_ingest/ recorder/report_model/ recorder/jfr/ recorder/origins/ recorder/unwind/ recorder/symbols/ recorder/perfdata/ safeio/ synth/ jitdump/ tests/lib/testutil.c build/gen/recorder/report_views/html_assets.c build/gen/recorder/report_views/pprof/profile.pb-c.c
 * fuzz-libs: -Ibuild/gen/recorder/report_views/pprof -lelf -ldw -ldebuginfod -larchive -lcrypto -lzstd -lcapstone -liberty -lxml2 -lprotobuf-c -lz -lm -lpthread */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/report/report.h"
#include "tests/fuzz/memfd.h"

static char path[64];
static int log_fd = -1;
static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_jvmlog *jl;
	struct rp_session *s;
	char err[512];

	if (log_fd < 0) {	/* the log is a memfd refilled per execution, read by its path */
		log_fd = fz_memfd("jvm.log", path, sizeof(path));
		devnull = fopen("/dev/null", "w");
	}
	fz_fill(log_fd, data, size);
	if (rp_jvmlog_open(&jl, path, JP_ERRBUF_LOG(err)))
		return 0;
	if (rp_session_new(&s) == 0) {
		rp_set_span(s, 0, 2000000000ull);
		for (int i = 1; i <= 4; i++) {
			struct rp_load l = { .pid = 4242, .method = rp_intern(s, "A.m()"),
					     .generation = (uint32_t)i, .load_time = 100000000ull * i,
					     .code_addr = 0x1000u * (unsigned)i, .code_size = 100,
					     .compile_id = i % 2 ? i : -1, .level = 4, .osr_bci = -1 };
			rp_add_load(s, &l);
		}
		rp_session_finish(s);
		if (rp_session_join_jvmlog(s, jl, JP_ERRBUF_LOG(err)) == 0 && devnull)
			rp_print_generations(devnull, s, "A");
		rp_session_free(s);
	}
	rp_jvmlog_free(jl);
	return 0;
}
