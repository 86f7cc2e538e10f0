/* fuzz_agent_options.c - libFuzzer target: the JVMTI agent's option string parser (text the
 * user types after -agentpath:...=). Checks what options.h promises: a result within bounds on
 * success, a NUL-terminated one-line message on failure, with every error buffer size.
 * fuzz-srcs: agent/options.c
 * fuzz-libs: */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/options.h"

#define PROMISE(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "agent option parser broke a promise: %s\n", what); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The JVM hands the agent a C string: stop at the first NUL, as it would. */
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;

	struct agent_options o, again;
	char err[160];
	int rc = agent_options_parse(&o, s, err, sizeof(err));
	PROMISE(rc == 0 || rc == -EINVAL, "returned neither 0 nor -EINVAL");
	PROMISE(memchr(err, 0, sizeof(err)), "message not NUL-terminated");
	PROMISE(!strchr(err, '\n'), "message is more than one line");
	PROMISE(rc == 0 || err[0], "refused without a message");
	PROMISE(memchr(o.dir, 0, sizeof(o.dir)), "dir not NUL-terminated");
	PROMISE(o.flush_ms <= AGENT_FLUSH_MS_MAX, "flush_ms above the maximum");
	PROMISE(o.clock == JD_CLOCK_MONOTONIC || o.clock == JD_CLOCK_MONOTONIC_RAW ||
		o.clock == JD_CLOCK_ARCH, "clock outside the enum");

	/* Deterministic, and the error buffer's size changes nothing but the message length. */
	char tiny[7];
	PROMISE(agent_options_parse(&again, s, tiny, sizeof(tiny)) == rc, "result depends on errlen");
	PROMISE(memchr(tiny, 0, sizeof(tiny)), "short message not NUL-terminated");
	PROMISE(!memcmp(&o, &again, sizeof(o)), "same string, different options");
	PROMISE(agent_options_parse(&again, s, NULL, 0) == rc, "result differs without a buffer");
	free(s);
	return 0;
}
