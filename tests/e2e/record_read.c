/* record_read.c - end to end, perf as the oracle for our reader: recordings `perf record
 * -k mono -g` makes (file mode, pipe mode through a real pipe, system-wide) are read with
 * recorder/perfdata and every record type is counted exactly as `perf report -D` counts it;
 * samples popped from our ordered-events queue come in perf script's order. */
#include "tests/e2e/record_util.h"

#include <stdio.h>
#include <unistd.h>

static const struct { const char *name; unsigned type; } perf_names[] = {
	{ "MMAP", 1 }, { "LOST", 2 }, { "COMM", 3 }, { "EXIT", 4 }, { "THROTTLE", 5 },
	{ "UNTHROTTLE", 6 }, { "FORK", 7 }, { "READ", 8 }, { "SAMPLE", 9 }, { "MMAP2", 10 },
	{ "AUX", 11 }, { "ITRACE_START", 12 }, { "LOST_SAMPLES", 13 }, { "SWITCH", 14 },
	{ "SWITCH_CPU_WIDE", 15 }, { "NAMESPACES", 16 }, { "KSYMBOL", 17 }, { "BPF_EVENT", 18 },
	{ "CGROUP", 19 }, { "TEXT_POKE", 20 }, { "AUX_OUTPUT_HW_ID", 21 }, { "ATTR", 64 },
	{ "EVENT_TYPE", 65 }, { "TRACING_DATA", 66 }, { "BUILD_ID", 67 },
	{ "FINISHED_ROUND", 68 }, { "ID_INDEX", 69 }, { "AUXTRACE_INFO", 70 },
	{ "AUXTRACE", 71 }, { "AUXTRACE_ERROR", 72 }, { "THREAD_MAP", 73 }, { "CPU_MAP", 74 },
	{ "STAT_CONFIG", 75 }, { "STAT", 76 }, { "STAT_ROUND", 77 }, { "EVENT_UPDATE", 78 },
	{ "TIME_CONV", 79 }, { "FEATURE", 80 }, { "COMPRESSED", 81 }, { "FINISHED_INIT", 82 },
};

TestSuite(record_read, .init = setup, .fini = teardown, .timeout = 120);

/* perf report -D's "Aggregated stats" block against our per-type counts. */
static void compare_with_perf(const char *path, const struct ru_types *t)
{
	struct tu_result r;
	char *argv[] = { "perf", "report", "-D", "-i", (char *)path, NULL };
	size_t checked = 0;

	ru_ok(&r, argv, 120);
	const char *agg = strstr(r.out, "Aggregated stats:");
	cr_assert_not_null(agg, "no stats from perf report -D");
	unsigned long total = 0;
	cr_assert_eq(sscanf(strstr(agg, "TOTAL events:"), "TOTAL events: %lu", &total), 1);
	cr_assert_eq(total, t->total, "perf counts %lu records, we read %zu", total, t->total);
	const char *end = strstr(agg + 17, " stats:\n");	/* the per-evsel block that follows */
	for (size_t i = 0; i < sizeof(perf_names) / sizeof(perf_names[0]); i++) {
		char key[64];
		snprintf(key, sizeof(key), " %s events:", perf_names[i].name);
		const char *at = strstr(agg, key);
		unsigned long n = 0;
		if (at && (!end || at < end)) {
			cr_assert_eq(sscanf(at + strlen(key), "%lu", &n), 1);
			checked++;
		}
		cr_assert_eq(n, t->n[perf_names[i].type], "%s: perf %lu, ours %zu",
			     perf_names[i].name, n, t->n[perf_names[i].type]);
	}
	cr_assert_geq(checked, 3);
	tu_result_free(&r);
}

/* Runs a perf record command line, then reads its output whole with our reader. */
static struct pd_reader *record_and_count(char *const argv[], struct ru_types *t)
{
	struct tu_result r;
	struct pd_reader *rd;

	ru_require_perf();
	ru_ok(&r, argv, 60);
	tu_result_free(&r);
	cr_assert_eq(pd_reader_open(&rd, data, NULL), 0);
	ru_count_types(rd, t);
	cr_assert_eq(t->end, 0, "%s", pd_reader_error(rd));
	return rd;
}

Test(record_read, perf_file_counts_match)
{
	struct ru_types t;
	char *argv[] = { "perf", "record", "-q", "-N", "-k", "mono", "-g", "-o", data, "--",
			 "sh", "-c", RU_LOOP, NULL };
	struct pd_reader *rd = record_and_count(argv, &t);

	cr_assert(pd_reader_evsel(rd, 0)->attr.use_clockid);
	cr_assert_eq(pd_reader_evsel(rd, 0)->attr.clockid, 1);
	struct pd_clock_data cd;
	cr_assert_eq(pd_reader_feat_clock_data(rd, &cd), 0);
	cr_assert_eq(cd.clockid, 1);
	pd_reader_close(rd);
	compare_with_perf(data, &t);
}

Test(record_read, perf_pipe_through_a_real_pipe)
{
	struct pd_reader *rd;
	struct ru_types t;
	char cmd[1024];

	ru_require_perf();
	snprintf(cmd, sizeof(cmd), "perf record -q -N -k mono -g -o - -- sh -c '%s' | tee %s",
		 RU_LOOP, data);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(pd_reader_open_fd(&rd, dup(fileno(p)), "perf-pipe", NULL), 0);
	cr_assert(pd_reader_is_pipe(rd));
	ru_count_types(rd, &t);
	cr_assert_eq(t.end, 0, "%s", pd_reader_error(rd));
	cr_assert_eq(pd_reader_nr_evsels(rd), 1, "HEADER_ATTR seen");
	cr_assert_not_null(pd_reader_evsel(rd, 0)->name, "EVENT_UPDATE name seen");
	cr_assert(pd_reader_has_feature(rd, PD_FEAT_HOSTNAME), "HEADER_FEATURE seen");
	cr_assert_gt(t.n[PERF_RECORD_SAMPLE], 20);
	pd_reader_close(rd);
	cr_assert_eq(pclose(p), 0);
	compare_with_perf(data, &t);
}

/* perf record -z: zstd-compressed records unpack into the same records perf counts. */
Test(record_read, perf_compressed_counts_match)
{
	struct ru_types t;
	char *argv[] = { "perf", "record", "-q", "-N", "-z", "-k", "mono", "-g", "-o", data, "--",
			 "sh", "-c", RU_LOOP, NULL };
	struct pd_reader *rd = record_and_count(argv, &t);

	cr_assert_gt(pd_reader_nr_compressed(rd), 0);
	cr_assert_gt(t.n[PERF_RECORD_SAMPLE], 10);
	pd_reader_close(rd);
	compare_with_perf(data, &t);
}

Test(record_read, perf_system_wide_counts_match)
{
	struct ru_types t;
	char *argv[] = { "perf", "record", "-q", "-N", "-a", "-k", "mono", "-g", "-o", data, "--",
			 "sleep", "0.3", NULL };
	struct pd_reader *rd = record_and_count(argv, &t);

	pd_reader_close(rd);
	compare_with_perf(data, &t);
}

struct print_ctx { FILE *out; size_t n; };

static int print_sample(void *ctx, const struct pd_event *ev)
{
	struct print_ctx *pc = ctx;
	fprintf(pc->out, "%u %lx\n", ev->u.sample.tid, (unsigned long)ev->u.sample.ip);
	pc->n++;
	return 0;
}

/* Our replay driver (its ordered-events queue) gives samples in the order perf script
 * prints them. */
Test(record_read, ordered_samples_match_perf_script)
{
	struct tu_result r;
	struct pd_reader *rd;
	char line[128];
	size_t n = 0;
	FILE *ours;

	ru_require_perf();
	char *argv[] = { "perf", "record", "-q", "-N", "-k", "mono", "-o", data, "--", "sh", "-c",
			 RU_LOOP, NULL };
	ru_ok(&r, argv, 60);
	tu_result_free(&r);
	char *scr[] = { "perf", "script", "-i", data, "-F", "tid,ip", "-G", NULL };
	ru_ok(&r, scr, 60);
	cr_assert_eq(pd_reader_open(&rd, data, NULL), 0);
	char *buf = NULL;
	size_t blen = 0;
	ours = open_memstream(&buf, &blen);
	struct print_ctx pc = { ours, 0 };
	const struct pd_tool tool = { .sz = sizeof(struct pd_tool),
		.sample = print_sample, .ctx = &pc };
	cr_assert_eq(pd_replay(rd, &tool, NULL), 0);
	n = pc.n;
	fclose(ours);
	/* perf script: "<tid>  <ip>" with padding; normalize to "tid ip". */
	char *norm = NULL;
	size_t nlen = 0;
	FILE *pn = open_memstream(&norm, &nlen);
	FILE *in = fmemopen(r.out, r.out_len, "r");
	while (fgets(line, sizeof(line), in)) {
		unsigned tid;
		unsigned long ip;
		if (sscanf(line, " %u %lx", &tid, &ip) == 2)
			fprintf(pn, "%u %lx\n", tid, ip);
	}
	fclose(in);
	fclose(pn);
	cr_assert_gt(n, 20);
	cr_assert_str_eq(buf, norm, "sample order differs from perf script");
	free(buf);
	free(norm);
	pd_reader_close(rd);
	tu_result_free(&r);
}
