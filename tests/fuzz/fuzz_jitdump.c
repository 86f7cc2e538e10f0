/* fuzz_jitdump.c - libFuzzer target: the jitdump reader over memory (jd_reader_open_mem, then
 * jd_reader_next to the end), for dumps and companion files alike, either byte order.
 * fuzz-srcs: jitdump/
 * fuzz-libs: -lpthread */
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>

#include "jitdump/jitdump.h"
#include "tests/fuzz/jd_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jd_reader *r = NULL;
	char err[512];
	if (jd_reader_open_mem(&r, data, size, "fuzz.dump", err, sizeof(err)) < 0) {
		jd_touch_str(err);
		if (r)
			abort();	/* a failed open leaves nothing behind */
		return 0;
	}
	struct jd_record rec;
	uint64_t n = 0;
	int ret;
	while ((ret = jd_reader_next(r, &rec)) == 1) {
		jd_touch_record(&rec, data, data + size);
		/* every delivered record takes at least a prefix: more means the reader looped */
		JD_PROMISE(++n <= size / JD_PREFIX_SIZE, "more records than the input can hold");
	}
	JD_PROMISE(ret <= 0, "jd_reader_next returned a positive value other than 1");
	JD_PROMISE(jd_reader_next(r, &rec) == ret, "the end is not sticky");
	const struct jd_reader_stats *st = jd_reader_stats(r);
	JD_PROMISE(st->records == n, "stats.records differs from what was delivered");
	JD_PROMISE(st->truncated_bytes <= size, "truncated_bytes larger than the input");
	jd_touch_str(jd_reader_error(r));
	jd_touch_str(jd_reader_path(r));
	jd_touch_sink += jd_reader_header(r)->pid + (uint64_t)jd_reader_is_ext(r);
	jd_reader_close(r);
	return 0;
}
