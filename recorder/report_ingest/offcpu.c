/* offcpu.c - report --event offcpu|wall: a recording made with `record --off-cpu` has a
 * context-switches sample (time, call chain) at each switch-out of a profiled thread and a
 * PERF_RECORD_SWITCH at each switch-in. Each thread's off-CPU intervals run from its
 * switch-out sample to its next switch-in, and become samples weighing their nanoseconds
 * under the switch-out's stack; wall adds the on-CPU cpu-clock samples (period in ns), so a
 * thread's samples add up to its wall time. offcpu counts the waits only: an interval that
 * began with a preemption (the thread still runnable, waiting for a CPU, as perf's own
 * --off-cpu leaves out) counts in wall alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nomem.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/report_ingest/ingest_int.h"

#ifndef PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
#define PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#endif

struct rp_offcpu_thread {
	struct rp_sample smp;		/* the switch-out: time, pid, tid, comm */
	struct rp_frame *frames;	/* its stack (nr of smp) */
	size_t cap;
	uint64_t seen;			/* first time the recording names the thread */
	const char *comm;		/* its command, for the never-ran list */
	uint8_t out;			/* switched out, no switch-in yet */
	uint8_t preempt;		/* ... by a preemption */
	uint8_t ran;			/* any sample or switch of it */
};

/* Every switch sampled: ours, or perf's -e context-switches/period=1/ (whose switch records
 * come from whichever event --switch-events put them on). */
static int is_switches(const struct pd_evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE &&
	       e->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES && !e->attr.freq &&
	       e->attr.sample_period == 1;
}

static int is_clock(const struct pd_evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						      e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

int rp_offcpu_wanted(const char *event)
{
	return event && (!strcmp(event, "offcpu") || !strcmp(event, "wall"));
}

/* The recording's context-switches evsel (NULL: none), whether any event has switch records,
 * and its first other event (perf's dummy left out): the on-CPU one wall adds. */
static const struct pd_evsel *scan(const struct pd_reader *r, int *switch_records,
				   const struct pd_evsel **oncpu)
{
	const struct pd_evsel *cs = NULL;

	*switch_records = 0;
	*oncpu = NULL;
	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		*switch_records |= e->attr.context_switch;
		if (is_switches(e) && !cs)
			cs = e;
		else if (!*oncpu && !(e->attr.type == PERF_TYPE_SOFTWARE &&
				      e->attr.config == PERF_COUNT_SW_DUMMY))
			*oncpu = e;
	}
	return cs;
}

int rp_offcpu_views(const struct pd_reader *r, const struct pd_evsel **cs)
{
	const struct pd_evsel *oncpu;
	int switch_records;

	*cs = scan(r, &switch_records, &oncpu);
	if (!*cs || !switch_records)
		return *cs = NULL, 0;
	return oncpu && is_clock(oncpu) ? 2 : 1;
}

int rp_offcpu_pick(struct ingest *in, const char *event)
{
	const struct jp_log *log = &in->o->log;
	struct rp_offcpu *oc = &in->offcpu;
	const struct pd_evsel *oncpu = NULL;
	const char *file = in->o->input;
	int switch_records = 0;

	oc->cs = scan(in->r, &switch_records, &oncpu);
	if (!pd_reader_nr_evsels(in->r))	/* a pipe names its events as they come */
		return jp_logf(log, JP_LOG_ERROR, "%s: --event %s reads a recording's events "
			       "before its samples, which a pipe does not list: write it to a "
			       "file", file, event), -EINVAL;
	if (!oc->cs || !switch_records)
		return jp_logf(log, JP_LOG_ERROR, "%s has no off-CPU records (context-switches "
			       "with switch records): record it with `jitprof record --off-cpu`",
			       file), -ENOENT;
	oc->wall = !strcmp(event, "wall");
	if (oc->wall && (!oncpu || !is_clock(oncpu)))
		return jp_logf(log, JP_LOG_ERROR, "%s: --event wall needs on-CPU samples worth "
			       "time (cpu-clock or task-clock), and its on-CPU event is %s: record "
			       "--off-cpu without -e, or with -e cpu-clock", file,
			       !oncpu ? "missing" : oncpu->name ? oncpu->name : "another"), -ENOENT;
	in->evsel = oc->wall ? oncpu : oc->cs;
	in->s->weigh_time = 1;
	return 0;
}

/* The thread's record (made at first sight). NULL: out of memory. */
static struct rp_offcpu_thread *thread_of(struct rp_offcpu *oc, uint32_t tid, uint64_t time)
{
	uint32_t v;

	if (rp_map_get(&oc->by_tid, (uint64_t)tid + 1, &v))
		return &oc->th[v - 1];
	if (rp_grow(&oc->th, &oc->cap, oc->n + 1, sizeof(*oc->th)) ||
	    rp_map_put(&oc->by_tid, (uint64_t)tid + 1, (uint32_t)oc->n + 1))
		return NULL;
	struct rp_offcpu_thread *t = &oc->th[oc->n++];
	memset(t, 0, sizeof(*t));
	t->smp.tid = tid;
	t->seen = time;
	return t;
}

int rp_offcpu_ran(struct ingest *in, uint32_t tid, uint64_t time)
{
	struct rp_offcpu_thread *t = thread_of(&in->offcpu, tid, time);

	if (!t)
		return -ENOMEM;
	t->ran = 1;
	return 0;
}

int rp_offcpu_take(struct ingest *in, const struct pd_event *ev, const struct rp_sample *smp,
		   const struct rp_frame *frames, uint32_t nr)
{
	struct rp_offcpu *oc = &in->offcpu;
	struct rp_offcpu_thread *t = thread_of(oc, smp->tid, smp->time);

	if (!t)
		return -ENOMEM;
	if (ev->evsel != oc->cs)	/* wall's on-CPU sample */
		return rp_add_sample(in->s, smp, frames, nr);
	if (nr > t->cap) {
		struct rp_frame *f = realloc(t->frames, nr * sizeof(*f));
		if (!f)
			return -ENOMEM;
		t->frames = f;
		t->cap = nr;
	}
	memcpy(t->frames, frames, nr * sizeof(*frames));
	t->smp = *smp;
	t->smp.nr = nr;
	t->out = 1;
	t->preempt = 0;
	return 0;
}

/* The interval of t that ends at end, as a sample (offcpu leaves preemptions out). */
static int interval(struct ingest *in, struct rp_offcpu_thread *t, uint64_t end)
{
	struct rp_offcpu *oc = &in->offcpu;

	t->out = 0;
	if ((t->preempt && !oc->wall) || end <= t->smp.time)
		return 0;
	t->smp.period = end - t->smp.time;
	oc->intervals++;
	return rp_add_sample(in->s, &t->smp, t->frames, t->smp.nr);
}

int rp_offcpu_event(struct ingest *in, const struct pd_event *ev)
{
	struct rp_offcpu *oc = &in->offcpu;
	struct rp_offcpu_thread *t;

	if (!oc->cs)
		return 0;
	if (ev->type == PERF_RECORD_COMM) {
		if (!(t = thread_of(oc, ev->u.comm.tid, pd_event_time(ev))))
			return -ENOMEM;
		t->comm = rp_intern(in->s, ev->u.comm.comm);
		t->smp.pid = ev->u.comm.pid;
		return t->comm ? 0 : -ENOMEM;
	}
	if (ev->type == PERF_RECORD_EXIT) {
		/* Its last switch-out was its end, not a wait. */
		if ((t = thread_of(oc, ev->u.task.tid, ev->u.task.time)))
			t->out = 0;
		return t ? 0 : -ENOMEM;
	}
	if (ev->type != PERF_RECORD_SWITCH || !ev->has_sid || !(ev->sid.present & PD_SID_TID))
		return 0;
	if (!(t = thread_of(oc, ev->sid.tid, ev->sid.time)))
		return -ENOMEM;
	t->ran = 1;
	if (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if (t->out && (ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
			t->preempt = 1;
		return 0;
	}
	return t->out ? interval(in, t, ev->sid.time) : 0;
}

/* The frame a thread blocked throughout the recording stands under (its stack is unknown:
 * it switched out before the recording began). */
static int never_ran(struct ingest *in, struct rp_offcpu_thread *t, uint64_t end)
{
	struct rp_frame f = { .dso = rp_intern(in->s, "[unknown]"),
			      .sym = rp_intern(in->s, "[off-CPU throughout the recording]") };
	struct rp_sample smp = { .time = t->seen, .period = end - t->seen, .pid = t->smp.pid,
				 .tid = t->smp.tid, .comm = t->comm };

	if (!f.dso || !f.sym)
		return -ENOMEM;
	return rp_add_sample(in->s, &smp, &f, 1);
}

/* Whether some thread of pid ran: only the profiled processes' threads are listed. */
static int process_ran(const struct rp_offcpu *oc, uint32_t pid)
{
	for (size_t i = 0; i < oc->n; i++)
		if (oc->th[i].ran && oc->th[i].smp.pid == pid)
			return 1;
	return 0;
}

int rp_offcpu_finish(struct ingest *in, uint64_t start, uint64_t end)
{
	struct rp_offcpu *oc = &in->offcpu;
	char *list = NULL;
	size_t len, never = 0;
	int rc = 0;
	FILE *f = open_memstream(&list, &len);

	if (!f)
		jp_nomem("the list of threads that never ran");
	for (size_t i = 0; i < oc->n && !rc; i++) {
		struct rp_offcpu_thread *t = &oc->th[i];
		if (t->out) {	/* still waiting when the recording stopped */
			rc = interval(in, t, end);
			continue;
		}
		if (t->ran || !t->comm || !process_ran(oc, t->smp.pid))
			continue;
		if (t->seen < start)
			t->seen = start;
		if (end > t->seen)
			rc = never_ran(in, t, end);
		fprintf(f, "%s%u (%s)", never++ ? ", " : "", t->smp.tid, t->comm);
	}
	int bad = ferror(f);
	if (fclose(f) || bad)
		jp_nomem("the list of threads that never ran");
	if (never)
		jp_logf(&in->o->log, JP_LOG_WARN, "%zu thread(s) never ran while recording, off-CPU "
			"throughout under [off-CPU throughout the recording] (their stack is "
			"unknown): %s", never, list);
	free(list);
	return rc;
}

void rp_offcpu_free(struct rp_offcpu *oc)
{
	for (size_t i = 0; i < oc->n; i++)
		free(oc->th[i].frames);
	free(oc->th);
	rp_map_free(&oc->by_tid);
}
