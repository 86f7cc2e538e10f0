/* fuzz_jfr.c - libFuzzer target: the JFR reader (recorder/jfr) on a file of any bytes, as a
 * recording the profiled JVM wrote reaches it. Promises: opening gives 0, -EINVAL or -ENOTSUP
 * (never a crash, never unbounded work); on an opened file every event of every type the
 * reader knows of can be read by the paths the report uses, each answer 0, -ENOENT or
 * -EINVAL, strings NUL-terminated within their buffer.
 * fuzz-srcs: recorder/jfr/ safeio/ lib/grow.c lib/hindex.c lib/hash_seed.c
 * fuzz-libs: -lpthread */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/jfr/jfr.h"

#define PROMISE(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "JFR reader broke a promise: %s\n", what); abort(); } } while (0)

static const char *const paths[] = {
	"startTime", "compileId", "reason", "action", "compiler", "method.name",
	"method.type.name", "method.descriptor", "note", "method.line", "tags", "compileLevel",
};

static int read_event(const struct jfr_event *ev, void *arg)
{
	char buf[24];
	int64_t v;
	(void)arg;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int rc = jfr_get_int(ev, paths[i], &v);
		PROMISE(rc == 0 || rc == -ENOENT || rc == -EINVAL, "an int read's answer");
		memset(buf, 'x', sizeof(buf));
		rc = jfr_get_str(ev, paths[i], buf, sizeof(buf), NULL);
		PROMISE(rc == 0 || rc == -ENOENT || rc == -EINVAL, "a string read's answer");
		if (!rc)
			PROMISE(memchr(buf, 0, sizeof(buf)), "a string not NUL-terminated");
	}
	jfr_event_time_ns(ev);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "jdk.Deoptimization", "jdk.Compilation",
					     "test.Deopt" };
	struct jfr_file *f;
	const struct jp_log quiet = { 0 };
	int rc = jfr_open_mem(data, size, "fuzz.jfr", &quiet, &f);

	PROMISE(rc == 0 || rc == -EINVAL || rc == -ENOTSUP || rc == -ENOMEM, "an open's answer");
	if (rc)
		return 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		jfr_each_event(f, types[i], read_event, NULL);
	jfr_close(f);
	return 0;
}
