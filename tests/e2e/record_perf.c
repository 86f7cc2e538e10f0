/* record_perf.c - end to end, perf as the oracle for what `jitprof record` writes: the file
 * (and the pipe stream) opens in perf report, perf script and perf buildid-list without a
 * warning; perf counts the samples our reader counts and puts the same DSO on top; the
 * build-ids agree with the ones perf record itself stores for the same programs. */
#include "tests/e2e/record_util.h"

TestSuite(record_perf, .init = setup, .fini = teardown, .timeout = 120);

static void record(const char *out, bool callchain)
{
	struct tu_result r;
	char *argv[] = { (char *)tu_build("jitprof"), "record", "-q", "-k", "mono",
			 callchain ? "-g" : "-F", callchain ? "-F" : "4000",
			 callchain ? "4000" : "-o", callchain ? "-o" : (char *)out,
			 callchain ? (char *)out : "--", callchain ? "--" : "sh",
			 callchain ? "sh" : "-c", callchain ? "-c" : RU_LOOP,
			 callchain ? RU_LOOP : NULL, NULL };
	ru_ok(&r, argv, 60);
	tu_result_free(&r);
}

Test(record_perf, file_opens_in_perf_without_warnings)
{
	struct tu_result r;
	struct ru_dsos d;

	ru_require_perf();
	record(data, true);
	char *rep[] = { "perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso",
			"-F", "sample,dso", "-g", "none", NULL };
	ru_ok(&r, rep, 60);
	ru_no_warnings("perf report", r.err);
	ru_count_dsos(data, &d, NULL);
	cr_assert_gt(d.samples, 10, "a half-second loop at 4 kHz");
	/* Rows "<samples>  <dso>" (sorted by name): every DSO's count equals ours. */
	size_t rows = 0, total = 0;
	char *save = NULL, *copy = strdup(r.out);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long n;
		char dso[256];
		size_t i;
		if (l[0] == '#' || sscanf(l, " %lu %255s", &n, dso) != 2)
			continue;
		for (i = 0; i < d.ndsos && strcmp(d.names[i], dso); i++)
			;
		cr_assert_lt(i, d.ndsos, "perf has %s (%lu samples), we do not", dso, n);
		cr_assert_eq(n, d.counts[i], "%s: perf %lu samples, ours %zu", dso, n, d.counts[i]);
		rows++;
		total += n;
	}
	free(copy);
	cr_assert_eq(rows, d.ndsos);
	cr_assert_eq(total, d.samples);
	/* The loop lives in the shell and libc; which of them leads depends on the shell. */
	char shell[PATH_MAX], libc[PATH_MAX];
	ru_loop_files(shell, sizeof(shell), libc, sizeof(libc));
	const char *top = d.names[ru_top(&d)];
	cr_assert(!strcmp(top, "libc.so.6") || !strcmp(top, strrchr(shell, '/') + 1),
		  "top DSO %s, neither libc.so.6 nor %s", top, shell);
	tu_result_free(&r);

	char *scr[] = { "perf", "script", "-i", data, "-F", "ip,dso", "-G", NULL };
	ru_ok(&r, scr, 60);
	ru_no_warnings("perf script", r.err);
	cr_assert_eq(tu_count(r.out, "\n"), d.samples, "perf script lines = our samples");
	tu_result_free(&r);

	char *bl[] = { "perf", "buildid-list", "-i", data, NULL };
	ru_ok(&r, bl, 60);
	ru_no_warnings("perf buildid-list", r.err);
	cr_assert_not_null(strstr(r.out, "libc.so.6"), "%s", r.out);
	/* perf lists DSOs with samples: the kernel only when the loop was sampled in it */
	bool kernel_hit = false;
	for (size_t i = 0; i < d.ndsos; i++)
		kernel_hit |= !strcmp(d.names[i], "[kernel.kallsyms]");
	cr_assert_eq(strstr(r.out, "[kernel.kallsyms]") != NULL, kernel_hit, "%s", r.out);
	tu_result_free(&r);
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of text in place (perf script prints in time order, we in file order). */
static char *sorted_lines(char *text, size_t *n)
{
	size_t cap = 1024, k = 0, len = 0;
	char **v = malloc(cap * sizeof(char *)), *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (k == cap)
			v = realloc(v, (cap *= 2) * sizeof(char *));
		v[k++] = l;
		len += strlen(l) + 1;
	}
	qsort(v, k, sizeof(char *), line_cmp);
	char *out = malloc(len + 1), *p = out;
	for (size_t i = 0; i < k; i++)
		p += sprintf(p, "%s\n", v[i]);
	*p = 0;
	free(v);
	*n = k;
	return out;
}

/* Every sample, ip and DSO, as perf script resolves it and as our reader does. */
Test(record_perf, every_sample_ip_and_dso_match_perf_script)
{
	struct tu_result r;
	struct ru_dsos d;
	char *ours = NULL;
	size_t ours_len = 0, n1, n2;

	ru_require_perf();
	record(data, true);
	FILE *f = open_memstream(&ours, &ours_len);
	ru_count_dsos(data, &d, f);
	fclose(f);
	char *scr[] = { "perf", "script", "-i", data, "-F", "ip,dso", "-G", NULL };
	ru_ok(&r, scr, 60);
	/* perf: "    7fac4c63c69e (/usr/lib/x86_64-linux-gnu/libc.so.6)" -> "ip dso". */
	char *norm = malloc(r.out_len + 1), *o = norm, *save = NULL;
	for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long ip;
		char dso[512];
		if (sscanf(l, " %llx (%511[^)])", &ip, dso) == 2)
			o += sprintf(o, "%llx %s\n", ip, dso);
	}
	*o = 0;
	char *a = sorted_lines(ours, &n1), *b = sorted_lines(norm, &n2);
	cr_assert_eq(n1, d.samples);
	cr_assert_eq(n1, n2, "ours %zu samples, perf script %zu", n1, n2);
	cr_assert_str_eq(a, b, "samples resolve to different DSOs");
	free(a);
	free(b);
	free(norm);
	free(ours);
	tu_result_free(&r);
}

/* perf record's BUILD_ID table for the same programs is the reference for ours. */
Test(record_perf, build_ids_match_perf_record)
{
	struct tu_result r, p;
	char ref[600];

	ru_require_perf();
	record(data, false);
	snprintf(ref, sizeof(ref), "%s/perf.data", dir);
	char *prec[] = { "perf", "record", "-q", "-N", "-o", ref, "--", "sh", "-c", RU_LOOP, NULL };
	ru_ok(&p, prec, 60);
	tu_result_free(&p);
	char *bl[] = { "perf", "buildid-list", "-i", data, NULL };
	char *pbl[] = { "perf", "buildid-list", "-i", ref, NULL };
	ru_ok(&r, bl, 60);
	ru_ok(&p, pbl, 60);
	size_t compared = 0;
	char *save = NULL, *copy = strdup(r.out);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char id[64], name[400];
		if (sscanf(l, "%63s %399s", id, name) != 2)
			continue;
		const char *at = strstr(p.out, name);
		if (!at)
			continue;	/* perf had no sample there */
		/* perf's line for the same DSO: "<id> <name>". */
		const char *line = at;
		while (line > p.out && line[-1] != '\n')
			line--;
		cr_assert_eq(strncmp(line, id, strlen(id)), 0, "%s: ours %s, perf %.*s", name, id,
			     (int)(at - line), line);
		compared++;
	}
	cr_assert_geq(compared, 2, "ours:\n%s\nperf:\n%s", r.out, p.out);
	free(copy);
	tu_result_free(&r);
	tu_result_free(&p);
}

Test(record_perf, pipe_mode_into_perf_report)
{
	struct tu_result r;
	char cmd[2048];

	ru_require_perf();
	snprintf(cmd, sizeof(cmd),
		 "%s record -q -k mono -g -o - -- sh -c '%s' | perf report -i - --stdio "
		 "--no-children --sort dso -g none 2>%s/err; cat %s/err >&2",
		 tu_build("jitprof"), RU_LOOP, dir, dir);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
	ru_no_warnings("perf report -i -", r.err);
	cr_assert_not_null(strstr(r.out, "# Samples:"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "libc.so.6"), "%s", r.out);
	tu_result_free(&r);
	/* The same stream saved: perf script reads it and perf buildid-list sees the type-67
	 * build-ids the side thread sent along. */
	snprintf(cmd, sizeof(cmd), "%s record -q -o - -- sh -c '%s' > %s && perf buildid-list "
		 "-i %s", tu_build("jitprof"), RU_LOOP, data, data);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
	char shell[PATH_MAX], libc[PATH_MAX];
	ru_loop_files(shell, sizeof(shell), libc, sizeof(libc));
	cr_assert_not_null(strstr(r.out, libc), "%s not in:\n%s", libc, r.out);
	cr_assert_not_null(strstr(r.out, shell), "%s not in:\n%s", shell, r.out);
	tu_result_free(&r);
}

/* The kernel map perf relocates by: "[kernel.kallsyms]_text" with pgoff = runtime _text. */
Test(record_perf, kernel_map_carries_runtime_text)
{
	struct pd_reader *rd;
	struct pd_event ev;
	struct tu_result r;
	bool found = false;

	record(data, false);
	char *ks[] = { "sh", "-c", "grep -m1 ' _text$' /proc/kallsyms", NULL };
	ru_ok(&r, ks, 10);
	unsigned long long text = strtoull(r.out, NULL, 16);
	tu_result_free(&r);
	cr_assert_eq(pd_reader_open(&rd, data, NULL), 0);
	while (pd_reader_next(rd, &ev) > 0)
		if (ev.type == PERF_RECORD_MMAP2 && !strcmp(ev.u.mmap.filename,
							    "[kernel.kallsyms]_text")) {
			cr_assert_eq(ev.misc & 7, PERF_RECORD_MISC_KERNEL);
			cr_assert_eq(ev.u.mmap.pid, UINT32_MAX);
			cr_assert_eq(ev.u.mmap.pgoff, text);
			cr_assert_eq(ev.u.mmap.start, text);
			found = true;
		}
	cr_assert(found);
	pd_reader_close(rd);
}

/* Pipe mode: a DSO whose build-id the recorder reads itself (the kernel gave none in the
 * MMAP2: the vdso always, a file whose page was not cached) gets its type-67 record before the
 * first sample in it, so a pipe reader knows every build-id before it needs one. The workload
 * spends its time in clock_gettime, i.e. in the vdso. */
Test(record_perf, pipe_build_ids_precede_their_samples)
{
	static const char clk[] =
		"#include <time.h>\n"
		"int main(void) { struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);\n"
		" do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000000000L"
		" + b.tv_nsec - a.tv_nsec < 300000000L); return 0; }\n";
	char src[600], cmd[2048];
	struct tu_result r;
	snprintf(src, sizeof(src), "%s/clk.c", dir);
	cr_assert_eq(tu_write_file(src, clk, sizeof(clk) - 1), 0);
	snprintf(cmd, sizeof(cmd), "cc -O1 -o %s/clk %s && %s record -F 4000 -o - -- %s/clk > %s",
		 dir, src, tu_build("jitprof"), dir, data);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);

	struct ru_dsos d = { 0 };
	struct pd_reader *rd;
	struct pd_event ev;
	char with_id[64][256];
	size_t nids = 0, checked = 0, early = 0;
	d.maps = calloc(65536, sizeof(*d.maps));
	/* first pass: the DSOs that got a type-67 record anywhere in the stream */
	cr_assert_eq(pd_reader_open(&rd, data, NULL), 0);
	while (pd_reader_next(rd, &ev) > 0)
		if (ev.type == PD_RECORD_HEADER_BUILD_ID && nids < 64)
			snprintf(with_id[nids++], 256, "%s", ev.u.build_id.filename);
	pd_reader_close(rd);
	/* second pass, in stream order: no sample in such a DSO before its record */
	bool seen[64] = { false };
	cr_assert_eq(pd_reader_open(&rd, data, NULL), 0);
	while (pd_reader_next(rd, &ev) > 0) {
		if (ev.type == PD_RECORD_HEADER_BUILD_ID) {
			for (size_t i = 0; i < nids; i++)
				seen[i] |= !strcmp(with_id[i], ev.u.build_id.filename);
			continue;
		}
		if (ev.type != PERF_RECORD_SAMPLE) {
			ru_dso_event(&d, &ev, NULL);
			continue;
		}
		const char *dso = ru_lookup(&d, (ev.misc & 7) == PERF_RECORD_MISC_KERNEL ?
					    UINT32_MAX : ev.u.sample.pid, ev.u.sample.ip);
		for (size_t i = 0; i < nids; i++)
			if (!strcmp(with_id[i], dso)) {
				cr_assert(seen[i], "a sample in %s at offset %llu comes before its "
					  "build-id record", dso, (unsigned long long)ev.offset);
				checked++;
				early += !strcmp(dso, "[vdso]");
			}
	}
	pd_reader_close(rd);
	free(d.maps);
	cr_assert_gt(nids, 0, "the recorder read no build-id itself (not even the vdso's)");
	if (!early)
		/* clock_gettime goes through the kernel where the clocksource has no vDSO path */
		tu_skip_part("no sample landed in the vdso here (%zu samples in "
			"other DSOs whose build-id the recorder read were checked)", checked);
}
