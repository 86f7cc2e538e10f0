/* formats.c - the one table of `jitprof report`'s output formats: each one's extension (what
 * `profile -o OUT` picks it by), what it is called in messages, report's option that asks for
 * it, whether that option takes the file to write, and the view that writes the file. report's
 * options for the files and their writing order come from this table (cmd_report.c,
 * cmd_report_files.c), as profile's choice by extension does (cmd_profile.c): the two commands
 * cannot drift apart. */
#include <stdio.h>
#include <string.h>

#include "recorder/report/report.h"

static int write_flame(FILE *out, const struct rp_format_job *j)
{
	struct rp_flame_opts fo = { .title = j->title, .min_width = j->min_width,
				    .reverse = j->reverse, .base = j->base, .log = j->log };
	return rp_write_flamegraph(out, j->ev[0], &fo);
}

static int write_html(FILE *out, const struct rp_format_job *j)
{
	struct rp_html_opts ho = { .title = j->title, .keys = j->keys, .nr_keys = j->nr_keys,
				   .max_rows = j->max_rows, .min_width = j->min_width,
				   .base = j->base, .log = j->log };
	return rp_write_html_events(out, j->ev, j->nr_ev, &ho);
}

static int write_speedscope(FILE *out, const struct rp_format_job *j)
{
	return rp_write_speedscope(out, j->ev[0], j->title);
}

static int write_pprof(FILE *out, const struct rp_format_job *j)
{
	return rp_write_pprof_events(out, j->ev, j->nr_ev);
}

static int write_jfr(FILE *out, const struct rp_format_job *j)
{
	return rp_write_jfr(out, j->ev[0]);
}

/* The files in the order report writes them, then the views on stdout (no writer here: their
 * options shape report's run). The HTML page and pprof carry every event of the recording. */
static const struct rp_format formats[RP_FMT__MAX] = {
	{ RP_FMT_SVG, ".svg", "flame graph SVG", "--flamegraph", 1, 0, write_flame },
	{ RP_FMT_HTML, ".html", "HTML report", "--html", 1, 1, write_html },
	{ RP_FMT_SPEEDSCOPE, ".speedscope.json", "speedscope profile", "--speedscope", 1, 0,
	  write_speedscope },
	{ RP_FMT_PPROF, ".pb.gz", "pprof profile", "--pprof", 1, 1, write_pprof },
	{ RP_FMT_JFR, ".jfr", "Java Flight Recorder file", "--jfr", 1, 0, write_jfr },
	{ RP_FMT_TEXT, ".txt", "text report", NULL, 0, 0, NULL },
	{ RP_FMT_JSON, ".json", "JSON report", "--json", 0, 0, NULL },
	{ RP_FMT_COLLAPSED, ".collapsed", "folded stacks", "--collapsed", 0, 0, NULL },
};

const struct rp_format *rp_format_at(size_t i)
{
	return i < RP_FMT__MAX ? &formats[i] : NULL;
}

const struct rp_format *rp_format_get(enum rp_format_id id)
{
	for (size_t i = 0; i < RP_FMT__MAX; i++)
		if (formats[i].id == id)
			return &formats[i];
	return NULL;
}

/* The longest extension that ends path wins wherever it is in the table: p.speedscope.json is
 * speedscope's, not JSON's. */
const struct rp_format *rp_format_of(const char *path)
{
	const struct rp_format *best = NULL;
	size_t n = strlen(path);
	for (size_t i = 0; i < RP_FMT__MAX; i++) {
		size_t m = strlen(formats[i].ext);
		if (n > m && !strcmp(path + n - m, formats[i].ext) &&
		    (!best || m > strlen(best->ext)))
			best = &formats[i];
	}
	return best;
}

const char *rp_formats_list(void)
{
	static char list[256];
	if (list[0])
		return list;
	size_t len = 0;
	for (size_t i = 0; i < RP_FMT__MAX && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					formats[i].ext);
	return list;
}
