/* jvmlog_fixture.h - the compilation log the jvmlog tests read (every way a code ends, an
 * inlining tree) and the helpers that write and open one. */
#ifndef JITPROF_TEST_JVMLOG_FIXTURE_H
#define JITPROF_TEST_JVMLOG_FIXTURE_H

#include "recorder/report_analysis/analysis_int.h"

/* Compile 1 (C1) replaced by 3 (C2); 3 deoptimized by an unstable_if trap in thread 9;
 * the OSR compile 2 made not entrant by a broken CHA dependency; 4 still running. The log in
 * two parts: the tty (jl_log_tty) and the rest up to its end (jl_log_rest). */
extern const char *const jl_log_tty, *const jl_log_rest;

/* dir/name holding a then b (b may be NULL); malloc'd path. */
char *jl_write_log(const char *dir, const char *name, const char *a, const char *b);
/* The log at path, opened (the test fails otherwise). */
struct rp_jvmlog *jl_open_ok(const char *path);

#endif
