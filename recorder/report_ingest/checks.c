/* checks.c - the prerequisites a report can see were forgotten, said instead of silently
 * giving a poorer report: call graphs asked of a recording without call chains, jitted code
 * sampled with no callers in frame-pointer chains (HotSpot without
 * -XX:+PreserveFramePointer), JIT code sampled while no jitdump was injected (no agent,
 * or inject not run), or in one process while others had theirs (a JVM the profiled one
 * started). Fed by ingest.c. */
#include "recorder/report_ingest/ingest_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "lib/nomem.h"
#include "recorder/perfdata/perfdata.h"

/* Worth a warning from this many samples on: a handful proves nothing. */
#define CHECK_MIN_SAMPLES 20

static int is_anon_code(const char *dso)
{
	return dso && (!strncmp(dso, "//anon", 6) || !strncmp(dso, "[anon", 5) ||
		       !strncmp(dso, "[JIT] tid ", 10) || !strncmp(dso, "/memfd:", 7));
}

static int is_jitted(struct rp_checks *c, const char *dso)
{
	/* dso strings are interned: one remembered answer spares a parse per sample. */
	if (dso != c->last_dso) {
		c->last_dso = dso;
		c->last_jitted = dso && rp_is_jitted_name(dso, NULL, NULL);
	}
	return c->last_jitted;
}

void rp_checks_mmap(struct rp_checks *c, uint32_t pid, const char *filename)
{
	uint32_t dump_pid;

	if (!filename)
		return;
	if (rp_is_jitted_name(filename, NULL, NULL)) {
		c->jitted_maps++;
		if (rp_map_put(&c->jitted_pids, (uint64_t)pid + 1, 1))
			jp_nomem("the processes with a jitdump");
	} else if (jd_is_marker_name(filename, &dump_pid) == 1) {
		if (!c->markers++ && !(c->marker = strdup(filename)))
			jp_nomem("the path of a recording's jitdump");
	}
}

void rp_checks_sample(struct rp_checks *c, uint32_t pid, uint64_t sample_type, int user,
		      const struct rp_frame *f, uint32_t leaf_frames, uint32_t nr)
{
	const struct rp_frame *leaf = &f[leaf_frames ? leaf_frames - 1 : 0];

	c->samples++;
	c->chains |= (sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
	c->stack_user += (sample_type & PERF_SAMPLE_STACK_USER) != 0;
	if (!user || !nr)
		return;
	if (f[0].load || (leaf->flags & RP_FRAME_JITTED_DSO) || is_jitted(c, leaf->dso)) {
		c->jit_leaf++;
		/* No caller, or one the walk could not place: the frame-pointer chain broke at
		 * the jitted frame. */
		if (nr == leaf_frames ||
		    (nr == leaf_frames + 1 && (f[nr - 1].flags & RP_FRAME_UNKNOWN) &&
		     !is_anon_code(f[nr - 1].dso) && !is_jitted(c, f[nr - 1].dso)))
			c->jit_leaf_alone++;
	} else if (is_anon_code(leaf->dso)) {
		if (!c->anon_leaf++)
			c->anon_pid = pid;
		if (!leaf->sym) {
			uint32_t n = 0;
			c->anon_unnamed++;
			rp_map_get(&c->anon_by_pid, (uint64_t)pid + 1, &n);
			if (rp_map_put(&c->anon_by_pid, (uint64_t)pid + 1, n + 1))
				jp_nomem("the samples in JIT code per process");
		}
	}
}

void rp_checks_free(struct rp_checks *c)
{
	rp_map_free(&c->anon_by_pid);
	rp_map_free(&c->jitted_pids);
	free(c->marker);
	c->marker = NULL;
}

/* Some processes had a jitdump and one with nameless JIT code had none: a process the
 * profiled one started (a JVM launching JVMs, node forking node) did not inherit flags given
 * on the command line. The one with the most such samples, or 0. */
static uint32_t process_without_dump(const struct rp_checks *c, uint64_t *samples)
{
	uint32_t worst = 0, one;

	*samples = 0;
	for (size_t i = 0; c->jitted_maps && i < c->anon_by_pid.cap; i++) {
		uint64_t key = c->anon_by_pid.slot[i].k;
		uint32_t n = c->anon_by_pid.slot[i].v;
		/* the slots' order is the seeded hash's: a tie goes to the lowest pid */
		if (key && !rp_map_get(&c->jitted_pids, key, &one) &&
		    (n > *samples || (n == *samples && n && key - 1 < worst))) {
			*samples = n;
			worst = (uint32_t)(key - 1);
		}
	}
	return worst;
}

void rp_checks_report(const struct rp_checks *c, const struct rp_ingest_opts *o)
{
	const struct jp_log *log = &o->log;

	if (o->want_callchain && c->samples && !c->chains)
		jp_logf(log, JP_LOG_WARN, "call chains asked for (-g, --collapsed, --flamegraph) "
			"but %s was recorded without them: record with -g (jitprof record -g, "
			"perf record -g); only the sampled functions are shown", o->input);
	if (o->want_callchain && c->chains && !c->stack_user && c->jit_leaf >= CHECK_MIN_SAMPLES &&
	    c->jit_leaf_alone * 2 > c->jit_leaf)
		jp_logf(log, JP_LOG_WARN, "%llu of %llu samples in jitted code have no caller: "
			"Java frames have no frame pointers: record with --call-graph dwarf "
			"(jitprof profile's default for a JVM, launched or -p), or start the JVM "
			"with -XX:+PreserveFramePointer",
			(unsigned long long)c->jit_leaf_alone, (unsigned long long)c->jit_leaf);
	/* Without a jitdump, code a /tmp/perf-PID.map names (node --perf-basic-prof) is no
	 * forgotten step: only nameless code is worth the warning then. */
	uint64_t n = c->markers ? c->anon_leaf : c->anon_unnamed;
	if (n >= CHECK_MIN_SAMPLES && n * 20 >= c->samples && !c->jitted_maps) {
		double pct = 100.0 * (double)n / (double)c->samples;
		if (c->markers)
			jp_logf(log, JP_LOG_WARN, "%llu samples (%.1f%%) are in JIT code and %s "
				"names %llu jitdump(s) (%s) but was not injected: run 'jitprof "
				"inject -i %s' and report its output (perf.jit.data)",
				(unsigned long long)n, pct, o->input,
				(unsigned long long)c->markers, c->marker, o->input);
		else
			jp_logf(log, JP_LOG_WARN, "%llu samples (%.1f%%) are in JIT code "
				"(anonymous executable memory) and no jitdump was injected: no "
				"process of %s mapped one (expected jit-%u.dump in libagent.so's "
				"dir=, default $JITDUMPDIR or ~/.debug/jit, or in node's working "
				"directory with --perf-prof): start java with "
				"-agentpath:libagent.so, or use 'jitprof profile'",
				(unsigned long long)n, pct, o->input, c->anon_pid);
	}
	uint64_t alone;
	uint32_t pid = process_without_dump(c, &alone);
	if (alone >= CHECK_MIN_SAMPLES && alone * 20 >= c->samples)
		jp_logf(log, JP_LOG_WARN, "process %u: %llu samples (%.1f%%) in JIT code that no "
			"jitdump describes, while other processes of %s have one; if the profiled "
			"program started it (a JVM that starts JVMs, node forking node), it did "
			"not inherit flags given on a command line: jitprof profile --java (or "
			"--node) puts them in JAVA_TOOL_OPTIONS (NODE_OPTIONS), which every child "
			"inherits",
			pid, (unsigned long long)alone, 100.0 * (double)alone / (double)c->samples,
			o->input);
}
