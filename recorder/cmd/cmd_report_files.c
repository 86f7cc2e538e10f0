/* cmd_report_files.c - the files `jitprof report` writes beside (or instead of) its stdout
 * views: flame graph, HTML page, speedscope, pprof and JFR exports (the formats whose option
 * takes a file, recorder/report/formats.c, in its order), each to a temporary name renamed
 * when complete. The HTML page and pprof carry every event of the recording (a tab, a pair of
 * sample types each; all_events in the table): the others are read into sessions of their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nomem.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_report.h"
#include "recorder/report/report.h"

struct file_job {
	struct report_args *a;
	struct rp_session *s;
	const struct rp_session **ev;	/* s, then the recording's other events */
	size_t nr_ev;
	const enum rp_key *keys;
	int nr_keys;
	char title[512];
};

/* Written to a temporary name and renamed: a failed run leaves no half file. */
static int write_file(const char *path, const struct rp_format *f,
		      const struct rp_format_job *j)
{
	struct cli_outfile o;
	int rc;
	if ((rc = cli_outfile_open(&o, path)))
		return cli_error("%s: %s", path, sio_strerror(rc));
	if ((rc = f->write(o.fp, j))) {
		cli_outfile_abort(&o);
		return cli_error("%s: %s", path, sio_strerror(rc));
	}
	if ((rc = cli_outfile_commit(&o)))
		return cli_error("%s: %s", path, sio_strerror(rc));
	return 0;
}

/* An event's ingest keeps its first error whole (jp_held); its warnings are the page's (the
 * reported event's said them on stderr already). The held message, or strerror(-rc); out of
 * memory to hold it, jp_nomem. */
static const char *held_or(const struct jp_held *h, int rc)
{
	if (h->nomem)
		jp_nomem("an error message");
	return h->msg ? h->msg : strerror(-rc);
}

static void held_clear(struct jp_held *h)
{
	free(h->msg);
	*h = (struct jp_held){ 0 };
}

/* The recording's events other than the reported one, each read as --event NAME would and
 * filtered as the shown one, into job->ev after s. One that cannot be read is said and left
 * out; running out of memory is fatal. */
static int other_events(struct report_args *a, struct file_job *job)
{
	struct rp_events ev;
	struct jp_held why = { 0 };
	/* read once already: its damage said, only the error is new */
	struct cli_log log = { .fn = cli_log_drop };
	int rc = rp_recording_events(a->in.input, job->s, &ev, &CLI_LOG(&log));
	if (cli_log_done(&log, rc))
		return 1;
	if (!(job->ev = calloc(ev.n + 1, sizeof(*job->ev)))) {
		rp_events_free(&ev);
		return cli_error("out of memory");
	}
	job->ev[job->nr_ev++] = job->s;
	for (size_t i = 0; i < ev.n && !rc; i++) {
		const char *ours = rp_session_event(job->s);
		struct rp_session *o;
		if (ours && !strcmp(ours, ev.name[i]))
			continue;
		struct rp_ingest_opts in = a->in;
		in.event = ev.name[i];
		in.fast_exit = 0;
		in.progress = NULL;
		held_clear(&why);
		in.log = (struct jp_log){ jp_log_hold, &why };
		if (rp_session_new(&o)) {
			rc = cli_error("out of memory");
			break;
		}
		if ((rc = rp_ingest(o, &in)) < 0) {
			rp_session_free(o);
			if (rc == -ENOMEM) {
				rc = cli_error("%s: %s", ev.name[i], held_or(&why, rc));
				held_clear(&why);
				return rp_events_free(&ev), rc;
			}
			cli_warn("--html/--pprof: event %s left out: %s", ev.name[i],
				 held_or(&why, rc));
			rc = 0;
			continue;
		}
		/* its timeline's generations end as the shown one's, for the log's reasons */
		held_clear(&why);
		int jrc;
		if (a->jl && (jrc = rp_session_join_jvmlog(o, a->jl, &in.log)))
			cli_warn("--jvm-log, event %s: %s", ev.name[i], held_or(&why, jrc));
		rp_set_split_generations(o, a->split_gens);
		rp_session_filter(o, &a->filter);
		job->ev[job->nr_ev++] = o;
	}
	held_clear(&why);
	rp_events_free(&ev);
	return rc;
}

static void free_events(struct file_job *job)
{
	for (size_t i = 1; i < job->nr_ev; i++)
		rp_session_free((struct rp_session *)job->ev[i]);
	free(job->ev);
}

static int write_files(struct report_args *a, struct file_job *job)
{
	int rc = 0;
	if (a->diff_method)
		snprintf(job->title, sizeof(job->title), "jitprof: %s, generation %u of %s against "
			 "generation %u", a->in.input, a->diff_gen_b, a->diff_method, a->diff_gen_a);
	else if (a->diff_base)
		snprintf(job->title, sizeof(job->title), "jitprof: %s against %s", a->in.input,
			 a->diff_base);
	else
		snprintf(job->title, sizeof(job->title), "jitprof: %s", a->in.input);
	struct rp_format_job fj = { .ev = job->ev, .nr_ev = job->nr_ev, .title = job->title,
				    .keys = job->keys, .nr_keys = job->nr_keys,
				    .max_rows = a->rows, .min_width = a->min_width,
				    .reverse = a->reverse, .base = a->base, .log = &a->in.log };
	for (size_t i = 0; rp_format_at(i); i++) {
		const struct rp_format *f = rp_format_at(i);
		if (!f->flag_takes_file || !a->file[f->id])
			continue;
		/* one event's formats are given the reported one alone */
		fj.nr_ev = f->all_events ? job->nr_ev : 1;
		if ((rc = write_file(a->file[f->id], f, &fj)))
			return rc;
	}
	return 0;
}

int report_write_files(struct report_args *a, struct rp_session *s, const enum rp_key *keys,
		       int nr_keys)
{
	const struct rp_session *only[1] = { s };
	struct file_job job = { .a = a, .s = s, .keys = keys, .nr_keys = nr_keys, .ev = only,
				.nr_ev = 1 };
	/* --diff's page compares two recordings of one event */
	int all = 0, rc = 0;
	for (size_t i = 0; rp_format_at(i); i++)
		all |= rp_format_at(i)->all_events && a->file[rp_format_at(i)->id];
	all &= !a->diff_base && !a->diff_method;
	if (all) {
		job.ev = NULL;
		job.nr_ev = 0;
		rc = other_events(a, &job);
	}
	if (!rc)
		rc = write_files(a, &job);
	if (all)
		free_events(&job);
	return rc;
}
