/* analysis_int.h - what the analyses' own files share beyond analysis.h: the compilation
 * log's input guard. Not for other modules. */
#ifndef JITPROF_REPORT_ANALYSIS_INT_H
#define JITPROF_REPORT_ANALYSIS_INT_H

#include "recorder/report_analysis/analysis.h"

/* jvmlog_guard.c: a compilation log's bytes as libxml2 reads them (xmlInputReadCallback),
 * in one linear pass: a DOCTYPE declaration blanked (so no entity but XML's predefined ones
 * exists), the '&' of a reference to any other made '?', attributes of one start tag past
 * RP_JVMLOG_MAX_ATTRS blanked; the same length, so libxml2's byte offsets are the file's.
 * HotSpot writes no DOCTYPE, and elements of at most about 20 attributes. */
#define RP_JVMLOG_MAX_ATTRS 256
struct rp_jvmlog_guard {
	int fd;
	size_t pos, ready, end;		/* buf[pos, ready) handed on next, [ready, end) held */
	uint64_t base;			/* the file offset of buf[0] */
	int eof, state, quote, depth, dropping, in_comment;
	uint32_t hist;			/* the last 4 bytes of a DOCTYPE, to find its comments */
	unsigned n, attrs;		/* the state's counter; attributes in this start tag */
	char word[8];			/* the letters after "<!" */
	int amp;			/* the last byte was a '&' of content or a value */
	unsigned nref;			/* bytes of ref: what follows that '&' */
	char ref[8];
	uint64_t refs_dropped, refs_off;	/* references made text, the first's offset */
	uint64_t doctypes, doctype_off;		/* declarations blanked, the first's offset */
	uint64_t attrs_dropped, attrs_off;	/* attributes blanked, the first's offset */
	unsigned char buf[64 * 1024];
};
void rp_jvmlog_guard_init(struct rp_jvmlog_guard *g, int fd);
int rp_jvmlog_guard_read(void *ctx, char *out, int len);

#endif
