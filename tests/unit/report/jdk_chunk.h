/* jdk_chunk.h - a JFR chunk holding HotSpot's jdk.Compilation and jdk.Deoptimization events in
 * the shapes the JDK writes them (methods, classes, symbols and the deoptimization's reason and
 * action in constant pools), assembled byte by byte from the format with build_chunk.h's bb_*
 * helpers, for the tests of recorder/report_analysis/jvmlog_jfr.c. */
#ifndef JITPROF_TEST_JDK_CHUNK_H
#define JITPROF_TEST_JDK_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "tests/unit/jfr/build_chunk.h"

/* The chunk starts at JDK_CHUNK_START_NS (ns since the epoch) and counts 1e9 ticks a second,
 * so an event's ticks are its nanoseconds since the chunk's start. */
#define JDK_CHUNK_START_NS 1700000000000000000ull

/* The methods an event may name (by index). */
enum { JDK_M_LOOP, JDK_M_INNER };
/* "demo/Hot loop (I)I" and "demo/Hot inner ()V": method i as jvmlog_jfr.c names it. */
extern const char *const jdk_method_names[2];

struct jdk_ev {
	int deopt;		/* 0: a jdk.Compilation, 1: a jdk.Deoptimization */
	uint64_t t;		/* start, ns since the chunk's start */
	int32_t compile_id;
	int method;		/* JDK_M_* */
	/* a compile's */
	uint64_t dur;
	int32_t level;
	int osr;
	/* a deoptimization's */
	int32_t bci;
	const char *reason, *action;	/* any of the pool's (see the .c) */
};

/* One chunk (the whole file) holding the n events in the order given. */
void build_jdk_chunk(struct bbuf *out, const struct jdk_ev *evs, size_t n);

#endif
