/* replay.c - the one read-order-dispatch loop (perf's perf_tool + ordered events): records
 * are queued and handed to the tool's callback for their type in time order, round by round
 * (FINISHED_ROUND), HEADER_BUILD_ID at once; or, for a tool that copies the recording, every
 * record at once in file order. Consumers write callbacks, never the loop. */
#include <errno.h>

#include "lib/opts.h"
#include "recorder/perfdata/perfdata_int.h"

static int deliver(const struct pd_tool *t, const struct pd_event *ev)
{
	int (*fn)(void *, const struct pd_event *);

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		fn = t->sample;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		fn = t->mmap;
		break;
	case PERF_RECORD_COMM:
		fn = t->comm;
		break;
	case PERF_RECORD_FORK:
		fn = t->fork;
		break;
	case PERF_RECORD_EXIT:
		fn = t->exit;
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		fn = t->lost;
		break;
	case PD_RECORD_HEADER_BUILD_ID:
		fn = t->build_id;
		break;
	default:
		fn = t->other;
		break;
	}
	return fn ? fn(t->ctx, ev) : 0;
}

static int drain(const struct pd_tool *t, struct pd_ordered *q)
{
	struct pd_event ev;
	int rc;

	while ((rc = pd_ordered_pop(q, &ev)) == 1)
		if ((rc = deliver(t, &ev)) < 0)
			return rc;
	return rc;
}

static int replay(struct pd_reader *r, const struct pd_tool *t, struct pd_ordered *q,
		  int *damage)
{
	struct pd_event ev;
	uint64_t n = 0;
	int got, rc = 0;

	while ((got = pd_reader_next(r, &ev)) == 1) {
		if (ev.type == PD_RECORD_FINISHED_ROUND) {
			pd_ordered_round(q);
			if ((rc = drain(t, q)) < 0)
				return rc;
			if (t->finished_round && (rc = t->finished_round(t->ctx)) < 0)
				return rc;
			continue;
		}
		if (ev.type == PD_RECORD_HEADER_BUILD_ID) {
			/* Applies regardless of time: hand it over at once. */
			if ((rc = deliver(t, &ev)) < 0)
				return rc;
			continue;
		}
		if ((rc = pd_ordered_push(q, &ev, pd_event_time(&ev))) < 0)
			return rc;
		/* over PD_ORDERED_MAX_BYTES without a round: the oldest half goes now (issue 16) */
		if (pd_ordered_must_drain(q) && (rc = drain(t, q)) < 0)
			return rc;
		if (t->progress && !(++n & 0xffff))
			t->progress(t->ctx, pd_reader_data_size(r) ?
					    ev.offset - pd_reader_data_offset(r) : 0,
				    pd_reader_data_size(r));
	}
	*damage = got < 0 ? got : 0;
	/* Everything before damage is delivered, as at a clean end. */
	pd_ordered_flush(q);
	return drain(t, q);
}

/* PD_TOOL_FILE_ORDER: perf_tool's ordered_events = false. A consumer that copies the
 * recording (inject) must write records where the file has them: sorting them would change
 * its output, and its own merge needs each round mark where it stands. */
static int replay_file_order(struct pd_reader *r, const struct pd_tool *t, int *damage)
{
	struct pd_event ev;
	uint64_t n = 0;
	int got, rc;

	r->skip_samples = (t->flags & PD_TOOL_SKIP_SAMPLES) && !t->sample;
	while ((got = pd_reader_next(r, &ev)) == 1) {
		if (ev.type == PD_RECORD_FINISHED_ROUND)
			rc = t->finished_round ? t->finished_round(t->ctx) : 0;
		else
			rc = deliver(t, &ev);
		if (rc < 0) {
			r->skip_samples = false;
			return rc;
		}
		if (t->progress && !(++n & 0xffff))
			t->progress(t->ctx, pd_reader_data_size(r) ?
					    ev.offset - pd_reader_data_offset(r) : 0,
				    pd_reader_data_size(r));
	}
	r->skip_samples = false;
	*damage = got < 0 ? got : 0;
	return 0;
}

int pd_replay(struct pd_reader *r, const struct pd_tool *tool, int *damage)
{
	struct pd_tool t;
	int dummy;

	if (!damage)
		damage = &dummy;
	*damage = 0;
	if (JP_OPTS_TAKE(&t, tool))
		return -EINVAL;
	if (t.flags & PD_TOOL_FILE_ORDER)
		return replay_file_order(r, &t, damage);
	struct pd_ordered *q = pd_ordered_new(r);
	if (!q)
		return -ENOMEM;
	int rc = replay(r, &t, q, damage);
	pd_ordered_free(q);
	return rc < 0 ? rc : 0;
}
