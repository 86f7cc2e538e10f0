/* report_int.h - what the report's own files share beyond report.h: the session layout and
 * small helpers. Not for other modules. */
#ifndef JITPROF_REPORT_INT_H
#define JITPROF_REPORT_INT_H

#include "recorder/report/report.h"

#define RP_CHUNK (1u << 20)

struct rp_chunk {
	struct rp_chunk *next;
	size_t used, cap;
	char data[];
};

struct rp_session {
	struct rp_chunk *arena;
	const char **strs;		/* open-addressing intern table */
	size_t str_cap, nr_strs;
	struct rp_load *loads;
	size_t nr_loads, loads_cap;
	struct rp_sample *samples;
	size_t nr_samples, samples_cap;
	struct rp_frame *frames;
	size_t nr_frames, frames_cap;
	uint64_t start, end, lost;
	const char *event;
};

uint64_t rp_hash_bytes(const void *buf, size_t len, uint64_t h);

static inline const struct rp_frame *rp_leaf(const struct rp_session *s,
					     const struct rp_sample *smp)
{
	static const struct rp_frame none = { .dso = "[unknown]", .flags = RP_FRAME_UNKNOWN };
	/* Inlined-only frames precede the frame of the ip itself, which carries the ELF
	 * symbol (perf's sym) and the innermost source line (perf's srcline). */
	for (uint32_t i = 0; i < smp->nr; i++)
		if (!(s->frames[smp->first + i].flags & RP_FRAME_INLINED))
			return &s->frames[smp->first + i];
	return &none;
}

/* "file:line", "??:0" or "dso[addr]" like perf's srcline column. */
const char *rp_srcline_str(const struct rp_frame *f, char *buf, size_t len);

/* JSON string escaping and XML escaping to a stream. */
void rp_json_str(FILE *out, const char *str);
void rp_xml_str(FILE *out, const char *str);

#endif
