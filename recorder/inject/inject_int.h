/* inject_int.h - the state of one inject run, shared by the stream driver (run.c) and the
 * emitter of synthetic records (emit.c). Not part of the module's face. */
#ifndef JITPROF_INJECT_INT_H
#define JITPROF_INJECT_INT_H

#include "recorder/inject/inject.h"
#include "recorder/perfdata/perfdata.h"

struct inj_run_state {
	const struct inj_opts *o;
	struct inj_stats *st;
	struct pd_reader *r;
	struct pd_writer *w;
	int w_started;
	struct inj_sim *sim;
	struct inj_pool *pool;
	struct inj_dump **dumps;
	size_t nr_dumps;
	struct inj_time_conv tc;
	uint64_t max_seen;	/* newest timestamp read so far */
	int prescanned;		/* file input: every dump was found before streaming */
	char *err;
	size_t errlen;
};

void inj_warnf(struct inj_run_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A marker MMAP: 1 consumed (its dump is merged), 0 keep the record (not a marker, or its dump
 * is unusable: warned), <0 refuse the run (foreign clock). open_new 0: only recognise dumps
 * already found (the prescan said what it had to about the others). */
int inj_marker_take(struct inj_run_state *s, const struct pd_reader *r,
		    const struct pd_event *ev, int open_new);
/* 1 if the record is a runtime's anonymous code mapping perf would drop. */
int inj_marker_drop_anon(struct inj_run_state *s, const struct pd_event *ev);
/* File input: finds every marker (and TIME_CONV) before the main pass. */
int inj_prescan(struct inj_run_state *s);

/* Emits, in time order across dumps, every pending synthetic record not newer than limit
 * (all of them when all is set), feeding the replay as it goes. */
int inj_emit_pending(struct inj_run_state *s, uint64_t limit, int all);
/* Adds the BUILD_ID entries of every sampled generation (file mode). */
int inj_emit_build_ids(struct inj_run_state *s);
/* --no-elfs: the origins section of every ELF the file-writing path would write (noelfs.c). */
int inj_emit_origins(struct inj_run_state *s);

#endif
