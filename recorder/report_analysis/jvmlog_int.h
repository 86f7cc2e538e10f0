/* jvmlog_int.h - the JVM's account of its compiled code as report keeps it, whichever source
 * it came from: HotSpot's compilation log (jvmlog.c) or a Flight Recording's compilation and
 * deoptimization events (jvmlog_jfr.c); the container and its accessors are jvmlog_codes.c.
 * Not for other modules. */
#ifndef JITPROF_JVMLOG_INT_H
#define JITPROF_JVMLOG_INT_H

#include "recorder/report_analysis/analysis_int.h"

struct rp_jvmlog {
	uint32_t pid;
	int jfr;			/* read from a Flight Recording, not the log */
	struct rp_jvm_code *codes;
	size_t nr, cap;
	struct rp_u64map by_id;		/* compile_id + 1 -> index + 1 */
	char **strs;			/* every string the codes point to */
	size_t nr_strs, strs_cap;
	uint64_t bytes;
	struct jp_str cut;	/* where the log ends early (whole: it names the path) */
	struct jp_str notes;	/* what the guard left out, empty: nothing */
};

/* A copy of s the log owns (control characters escaped, as the recording's names are);
 * NULL for NULL or out of memory. */
const char *rp_jvmlog_keep(struct rp_jvmlog *jl, const char *s);
/* The code with this compile id in *out, made on first mention: 0, -EINVAL for an id no code
 * can have (<= 0 or past int32: the caller skips it, and may count it), -ENOMEM (fatal). *out
 * is NULL unless 0. The two failures differ so that a damaged id is never read as out of
 * memory, nor out of memory as a damaged id. */
int rp_jvmlog_code_of(struct rp_jvmlog *jl, int64_t id, struct rp_jvm_code **out);
/* A HotSpot compilation log read with libxml2 (jvmlog.c), from an open regular file. */
int rp_jvmlog_open_xml(struct rp_jvmlog **out, int fd, const char *path,
		       const struct jp_log *log);
/* A Flight Recording's jdk.Compilation and jdk.Deoptimization events (jvmlog_jfr.c). */
int rp_jvmlog_open_jfr(struct rp_jvmlog **out, int fd, const char *path,
		       const struct jp_log *log);

#endif
