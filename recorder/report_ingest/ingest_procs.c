/* ingest_procs.c - the process events of a replay (MMAP, MMAP2, COMM exec, FORK) as the
 * model's notes of which program each process runs (procs.c). */
#include <sys/mman.h>

#include "recorder/report_ingest/ingest_int.h"

void rp_note_process_event(struct rp_session *s, const struct pd_event *ev)
{
	const struct pd_mmap *m = &ev->u.mmap;
	if (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2)
		rp_note_mapping(s, m->pid, m->filename, m->is_mmap2 ? (m->prot & PROT_EXEC) != 0
				: !(ev->misc & PERF_RECORD_MISC_MMAP_DATA));
	else if (ev->type == PERF_RECORD_COMM && ev->u.comm.exec)
		rp_note_exec(s, ev->u.comm.pid);
	else if (ev->type == PERF_RECORD_FORK && ev->u.task.pid != ev->u.task.ppid)
		rp_note_fork(s, ev->u.task.ppid, ev->u.task.pid);
}
