/* stats.c - the agent's self-accounting: time inside callbacks, records and bytes written.
 * Written into the companion file (JD_EXT_AGENT_STATS) so `jitprof report` can show what
 * profiling cost, and printed with `verbose`. */
#include "agent/agent_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t file_size(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

void agent_stats_finish(void)
{
	struct jd_ext_agent_stats s = { 0 };
	char ext[4096];
	const char *path = jd_writer_path(agent_g.w);
	int rc;

	/* Bytes on disk before this record: the dump plus its companion file. */
	if (jd_writer_flush(agent_g.w) == 0) {
		s.bytes = file_size(path);
		if (jd_ext_path(path, ext, sizeof(ext)) == 0)
			s.bytes += file_size(ext);
	}
	s.callback_ns = atomic_load(&agent_g.st.callback_ns);
	s.records = atomic_load(&agent_g.st.records) + 1;
	s.loads = atomic_load(&agent_g.st.loads);
	s.unloads = atomic_load(&agent_g.st.unloads);
	s.dropped = atomic_load(&agent_g.st.dropped);
	rc = jd_write_stats(agent_g.w, &s);
	if (rc < 0)
		agent_fail("cannot write the stats record to %s: %s", path, strerror(-rc));
	if (agent_g.opt.verbose)
		agent_warn("%s: %llu loads, %llu unloads, %llu dropped, %llu records, %llu bytes, "
			   "%.3f ms in callbacks", path, (unsigned long long)s.loads,
			   (unsigned long long)s.unloads, (unsigned long long)s.dropped,
			   (unsigned long long)s.records, (unsigned long long)s.bytes,
			   (double)s.callback_ns / 1e6);
}
