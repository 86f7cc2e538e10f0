/* rptest.h - what the report unit tests share: sessions built by hand (no perf.data) and
 * the output of a printer captured as a string. */
#ifndef JITPROF_RPTEST_H
#define JITPROF_RPTEST_H

#include "recorder/report/report.h"

struct rt_frame {
	const char *dso, *sym, *file;
	uint32_t line, load, flags;
	uint64_t ip;
};

/* A new session (asserts on failure). */
struct rp_session *rt_session(void);
/* Adds one sample of period with frames leaf first (NULL-terminated by dso == NULL). */
void rt_sample(struct rp_session *s, const char *comm, uint32_t pid, uint64_t time,
	       uint64_t period, const struct rt_frame *frames);
uint32_t rt_load(struct rp_session *s, uint32_t pid, const char *method, uint32_t gen,
		 uint64_t load_time, uint64_t end_time, uint64_t addr, uint64_t size);

/* Ingests the recording data into a new session (event: --event, may be NULL) and returns
 * what it said at level or above, one message a line (malloc'd); *rc gets rp_ingest's
 * result. */
char *rt_ingest_said(const char *data, const char *event, enum jp_level level, int *rc);

/* Runs fn(fp, arg) into memory; returns a malloc'd NUL-terminated string. */
char *rt_capture(int (*fn)(FILE *, void *), void *arg);

#endif
