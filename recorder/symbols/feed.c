/* feed.c - a perf.data event stream into the session: the one place that maps the
 * perfdata reader's records onto sym_mmap/sym_comm/sym_fork/sym_exit/sym_add_build_id
 * (report's ingest, buildid-list, the bench and the tests all feed through here). Every
 * record takes effect at its ordering time (pd_event_time, perf's sample->time), the cpumode
 * is the misc field's CPUMODE bits. */
#include <errno.h>

#include "lib/nomem.h"
#include "recorder/symbols/symbols_int.h"

#include "recorder/perfdata/perfdata.h"

int sym_feed_mmap(struct sym_session *s, const struct pd_event *ev, struct sym_dso **dso)
{
	const struct pd_mmap *m = &ev->u.mmap;
	*dso = NULL;
	if (ev->type != PERF_RECORD_MMAP && ev->type != PERF_RECORD_MMAP2)
		return -EINVAL;
	/* callers go on past a map they could not use: one lost to memory is no such map */
	return jp_nomem_check(mmap_dso(s, m->pid, m->tid, m->start, m->len, m->pgoff, m->filename,
				       m->has_build_id ? m->build_id : NULL,
				       m->has_build_id ? m->build_id_size : 0,
				       ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, pd_event_time(ev),
				       dso),
			      "the recorded maps");
}

static int feed_event(struct sym_session *s, const struct pd_event *ev)
{
	uint64_t t = pd_event_time(ev);
	struct sym_dso *unused;
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return sym_feed_mmap(s, ev, &unused);
	case PERF_RECORD_COMM:
		return sym_comm(s, ev->u.comm.pid, ev->u.comm.tid, ev->u.comm.comm, t);
	case PERF_RECORD_FORK:
		return sym_fork(s, ev->u.task.pid, ev->u.task.ppid, ev->u.task.tid,
				ev->u.task.ptid, t);
	case PERF_RECORD_EXIT:
		return sym_exit(s, ev->u.task.pid, ev->u.task.ppid, ev->u.task.tid,
				ev->u.task.ptid, t);
	case PD_RECORD_HEADER_BUILD_ID:
		return sym_add_build_id(s, ev->u.build_id.filename, ev->u.build_id.build_id,
					ev->u.build_id.size,
					ev->u.build_id.cpumode & PERF_RECORD_MISC_CPUMODE_MASK);
	case PERF_RECORD_SAMPLE:
		return 1;
	}
	return 0;
}

int sym_feed_event(struct sym_session *s, const struct pd_event *ev)
{
	return jp_nomem_check(feed_event(s, ev), "the recorded processes");
}

int sym_feed_build_ids(struct sym_session *s, const struct pd_reader *r)
{
	for (size_t i = 0; i < pd_reader_nr_build_ids(r); i++) {
		const struct pd_build_id_ev *b = pd_reader_build_id(r, i);
		int rc = sym_add_build_id(s, b->filename, b->build_id, b->size,
					  b->cpumode & PERF_RECORD_MISC_CPUMODE_MASK);
		if (rc == -ENOMEM)
			return rc;	/* an unusable entry (no id) loses itself only */
	}
	return 0;
}
