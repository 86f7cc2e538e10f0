/* test_formats.c - recorder/report/formats.c: the one table of output formats that report's
 * file options (cmd_report.c builds its getopt table from it) and profile's -o by extension
 * both come from. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recorder/cmd/cmd_report.h"
#include "recorder/report/report.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

Test(formats, each_id_once_and_every_file_format_has_its_writer)
{
	int seen[RP_FMT__MAX] = { 0 };
	size_t n = 0;
	for (const struct rp_format *f; (f = rp_format_at(n)); n++) {
		cr_assert_lt((int)f->id, RP_FMT__MAX);
		seen[f->id]++;
		cr_assert_eq(rp_format_get(f->id), f);
		cr_assert_neq(rp_format_of(f->ext), f, "%s alone is no name of it", f->ext);
		cr_assert_eq(!!f->write, f->flag_takes_file, "%s: a writer iff it takes a file",
			     f->ext);
		cr_assert(!f->all_events || f->write, "%s: every event, and no writer", f->ext);
		cr_assert(!f->flag || !strncmp(f->flag, "--", 2), "%s", f->flag);
		cr_assert_not_null(strstr(rp_formats_list(), f->ext), "%s listed", f->ext);
	}
	cr_assert_eq(n, RP_FMT__MAX);
	for (int i = 0; i < RP_FMT__MAX; i++)
		cr_assert_eq(seen[i], 1, "format %d", i);
	cr_assert_null(rp_format_get(RP_FMT__MAX));
	cr_assert_null(rp_format_at(RP_FMT__MAX));
}

/* The table drives report: each format's option is one of report's, with a file argument
 * exactly when the table says (the file options are in no list of report's own); and profile,
 * which picks by OUT's extension (rp_format_of), lands on that same format. */
Test(formats, report_takes_each_option_and_profile_picks_each_extension)
{
	for (size_t i = 0; rp_format_at(i); i++) {
		const struct rp_format *f = rp_format_at(i);
		char out[64];
		snprintf(out, sizeof(out), "dir.x/p%s", f->ext);
		cr_assert_eq(rp_format_of(out), f, "%s", out);
		if (!f->flag)
			continue;
		int takes = -1;
		cr_assert_eq(report_has_option(f->flag, &takes), 1, "report has no %s", f->flag);
		cr_assert_eq(takes, f->flag_takes_file, "%s's argument", f->flag);
	}
	cr_assert_eq(report_has_option("--no-such-output", NULL), 0);
	cr_assert_eq(report_has_option("html", NULL), 0, "long options only");
}

Test(formats, the_longest_extension_wins_wherever_it_is_in_the_table)
{
	cr_assert_eq(rp_format_of("a/p.speedscope.json")->id, RP_FMT_SPEEDSCOPE);
	cr_assert_eq(rp_format_of("a/p.json")->id, RP_FMT_JSON);
	cr_assert_eq(rp_format_of("p.pb.gz")->id, RP_FMT_PPROF);
	cr_assert_null(rp_format_of("x.txt")->flag);
	cr_assert_null(rp_format_of("x.gz"));
	cr_assert_null(rp_format_of("x.docx"));
	cr_assert_null(rp_format_of("x"));
}

/* profile refuses an extension the table does not have, naming it and every one it has. */
Test(formats, profile_refuses_an_unknown_extension_naming_it)
{
	struct stat st;
	if (stat(tu_build("jitprof"), &st)) {
		tu_skip_part("%s is not built: profile's message not checked", tu_build("jitprof"));
		return;
	}
	char *argv[] = { (char *)tu_build("jitprof"), "profile", "-o", "x.docx", "--", "true",
			 NULL };
	struct tu_result r;
	cr_assert_eq(tu_run(&r, argv, NULL, NULL, 0, 30), 0);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "x.docx: unknown output format"), "%s", r.err);
	for (size_t i = 0; rp_format_at(i); i++)
		cr_expect(strstr(r.err, rp_format_at(i)->ext), "%s not named: %s",
			  rp_format_at(i)->ext, r.err);
	tu_result_free(&r);
}

/* The writer a file format names writes that format, given the sessions as report gives
 * them: an SVG, an HTML page, a gzip (pprof), speedscope's JSON and a JFR chunk. */
Test(formats, writers_write_their_format)
{
	struct rp_session *s = rt_session();
	const struct rt_frame fr[] = { { .dso = "a.so", .sym = "f", .ip = 1 }, { 0 } };
	rt_sample(s, "x", 1, 1, 1, fr);
	rp_session_finish(s);
	static const enum rp_key keys[] = { RP_KEY_COMM, RP_KEY_DSO, RP_KEY_SYM };
	const struct rp_session *ev[1] = { s };
	struct rp_format_job fj = { .ev = ev, .nr_ev = 1, .title = "t", .keys = keys,
				    .nr_keys = 3 };
	struct { enum rp_format_id id; const char *starts; size_t len; } want[] = {
		{ RP_FMT_SVG, "<?xml", 5 }, { RP_FMT_HTML, "<!DOCTYPE html>", 15 },
		{ RP_FMT_PPROF, "\x1f\x8b", 2 }, { RP_FMT_SPEEDSCOPE, "{", 1 },
		{ RP_FMT_JFR, "FLR", 4 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		cr_assert_not_null(fp);
		cr_assert_eq(rp_format_get(want[i].id)->write(fp, &fj), 0);
		fclose(fp);
		cr_assert_geq(len, want[i].len);
		cr_assert_eq(memcmp(buf, want[i].starts, want[i].len), 0, "%s: %.20s",
			     rp_format_get(want[i].id)->ext, buf);
		free(buf);
	}
	rp_session_free(s);
}
