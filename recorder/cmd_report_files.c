/* cmd_report_files.c - the files `jitprof report` writes beside (or instead of) its stdout
 * views: flame graph, HTML page, speedscope, pprof and JFR exports, each to a temporary name
 * renamed when complete. */
#include <stdio.h>

#include "recorder/cli.h"
#include "recorder/cmd_report.h"
#include "recorder/report/report.h"

struct file_job {
	struct report_args *a;
	struct rp_session *s;
	const enum rp_key *keys;
	int nr_keys;
	char title[512];
};

static int write_flame(FILE *fp, struct file_job *j)
{
	struct rp_flame_opts fo = { .title = j->title, .min_width = j->a->min_width,
				    .reverse = j->a->reverse, .base = j->a->base,
				    .log = &j->a->in.log };
	return rp_write_flamegraph(fp, j->s, &fo);
}

static int write_html(FILE *fp, struct file_job *j)
{
	struct rp_html_opts ho = { .title = j->title, .keys = j->keys, .nr_keys = j->nr_keys,
				   .max_rows = j->a->rows, .min_width = j->a->min_width,
				   .base = j->a->base, .log = &j->a->in.log };
	return rp_write_html(fp, j->s, &ho);
}

static int write_speedscope(FILE *fp, struct file_job *j)
{
	return rp_write_speedscope(fp, j->s, j->title);
}

static int write_pprof(FILE *fp, struct file_job *j)
{
	return rp_write_pprof(fp, j->s);
}

static int write_jfr(FILE *fp, struct file_job *j)
{
	return rp_write_jfr(fp, j->s);
}

/* Written to a temporary name and renamed: a failed run leaves no half file. */
static int write_file(const char *path, int (*fn)(FILE *, struct file_job *),
		      struct file_job *j)
{
	struct cli_outfile o;
	int rc;
	if ((rc = cli_outfile_open(&o, path)))
		return cli_error("%s: %s", path, sio_strerror(rc));
	if ((rc = fn(o.fp, j))) {
		cli_outfile_abort(&o);
		return cli_error("%s: %s", path, sio_strerror(rc));
	}
	if ((rc = cli_outfile_commit(&o)))
		return cli_error("%s: %s", path, sio_strerror(rc));
	return 0;
}

int report_write_files(struct report_args *a, struct rp_session *s, const enum rp_key *keys,
		       int nr_keys)
{
	int rc = 0;
	struct file_job job = { .a = a, .s = s, .keys = keys, .nr_keys = nr_keys };
	if (a->diff_method)
		snprintf(job.title, sizeof(job.title), "jitprof: %s, generation %u of %s against "
			 "generation %u", a->in.input, a->diff_gen_b, a->diff_method, a->diff_gen_a);
	else if (a->diff_base)
		snprintf(job.title, sizeof(job.title), "jitprof: %s against %s", a->in.input,
			 a->diff_base);
	else
		snprintf(job.title, sizeof(job.title), "jitprof: %s", a->in.input);
	if (a->flame && (rc = write_file(a->flame, write_flame, &job)))
		return rc;
	if (a->html && (rc = write_file(a->html, write_html, &job)))
		return rc;
	if (a->speedscope && (rc = write_file(a->speedscope, write_speedscope, &job)))
		return rc;
	if (a->pprof && (rc = write_file(a->pprof, write_pprof, &job)))
		return rc;
	if (a->jfr && (rc = write_file(a->jfr, write_jfr, &job)))
		return rc;
	return 0;
}
