/* methods_view.h - what the files of `report --methods` share (methods_view.c prints, the
 * groups and the hot lines are methods_groups.c and methods_lines.c). Internal to report. */
#ifndef JITPROF_REPORT_METHODS_VIEW_H
#define JITPROF_REPORT_METHODS_VIEW_H

#include <stdio.h>

#include "recorder/report_views/views_int.h"

struct mv_ctx {
	const struct rp_session *s;
	uint64_t total;			/* all samples' period */
	int clock;			/* the period is nanoseconds (cpu-clock, task-clock) */
	uint64_t jitted;		/* samples in jitted methods */
	const struct rp_entry *top;	/* the hottest method's row, or NULL */
	unsigned marks;			/* MV_MARK_*: the marks printed, for the legend */
	struct jp_str name;		/* a method's name being printed */
};

#define MV_MARK_INLINED 1u
#define MV_MARK_INTERP 2u
#define MV_MARK_V8_SHIFT 2
struct mv_v8_mark { const char *prefix, *meaning; };
#define MV_NR_V8 4
extern const struct mv_v8_mark mv_v8_marks[MV_NR_V8];

/* What is not a jitted method, one group per kind of code: its samples, and its heaviest
 * rows of the sym hist (pointers into it). */
struct mv_group {
	const char *label;
	const char *key;		/* the dso, or a fixed string for a kind */
	uint64_t period, samples;
	const struct rp_entry *top[3];
	size_t nr_top;
	int owned;			/* label strdup-ed */
};
struct mv_groups { struct mv_group *v; size_t n; };
int mv_groups_build(struct mv_groups *g, const struct rp_session *s, const struct rp_hist *h);
void mv_groups_free(struct mv_groups *g);

/* A frame that is a method's row: a jitted method's (rp_frame_jitted) whose name is not one
 * of V8's own code kinds ("Builtin:", "BytecodeHandler:", ...: grouped as runtime code). */
int mv_is_method(const struct rp_session *s, const struct rp_frame *f);
/* "Java method", "JavaScript function" or "jitted method", from the frame's runtime. */
const char *mv_runtime_noun(const struct rp_session *s, const struct rp_frame *f);
/* The name tag of a method row: inlined marked, " [gen N]" when generations are split. */
unsigned mv_name_tag(const struct rp_session *s);

/* The hottest source lines (at most max), each with its method; the samples without a line
 * counted apart. 0, -ENOMEM or -EIO. */
int mv_print_lines(FILE *out, struct mv_ctx *c, size_t max);
void mv_put_numbers(FILE *out, const struct mv_ctx *c, uint64_t period, uint64_t samples);
void mv_put_head(FILE *out, const struct mv_ctx *c, const char *what);

#endif
