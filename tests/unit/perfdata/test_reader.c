/* test_reader.c - recorder/perfdata/reader.c: perf's own recording (the shared fixture),
 * damaged files (every truncation point, flipped bytes: a clean error after the intact
 * prefix, never a crash), pipe input from a real pipe, and constant memory windows. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "tests/unit/perfdata/pdtest.h"

#define FIXTURE "../shared/fixtures/perf-jvmti/perf.data"

static char *dir;
static char path[512], cut[600];

static void setup(void)
{
	dir = tu_tmpdir("pdreader");
	snprintf(path, sizeof(path), "%s/in.data", dir);
	snprintf(cut, sizeof(cut), "%s/cut.data", dir);
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(reader, .init = setup, .fini = teardown);

Test(reader, perf_fixture)
{
	struct pdt_counts c;
	struct pd_reader *r;
	struct pd_clock_data cd;

	if (access(FIXTURE, R_OK)) {
		cr_skip_test("fixture %s absent (no ../shared here)", FIXTURE);
		return;
	}
	cr_assert_eq(pdt_count(FIXTURE, &c), 0, "%s", c.err);
	cr_assert_eq(c.end, 0, "%s", c.err);
	cr_assert_eq(c.samples, 306, "the fixture README says 306 samples");
	cr_assert_eq(pd_reader_open(&r, FIXTURE, NULL), 0);
	cr_assert_eq(pd_reader_nr_evsels(r), 1);
	cr_assert_eq(pd_reader_evsel(r, 0)->attr_size, 128);
	cr_assert_str_eq(pd_reader_evsel(r, 0)->name, "cpu-clock:pppH");
	cr_assert(pd_reader_evsel(r, 0)->attr.use_clockid);
	cr_assert_eq(pd_reader_feat_clock_data(r, &cd), 0);
	cr_assert_eq(cd.clockid, 1);
	cr_assert_geq(pd_reader_nr_build_ids(r), 1);
	pd_reader_close(r);
}

/* Every prefix of a file: the reader delivers what is whole and then stops cleanly. */
static void truncations(int pipe)
{
	struct pdt_expect e;
	size_t len;
	uint8_t *buf;

	struct pd_reader *r;
	uint64_t data_end;

	pdt_write(path, pipe, 24, &e);
	buf = tu_read_file(path, &len);
	cr_assert_not_null(buf);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	data_end = pd_reader_data_offset(r) + pd_reader_data_size(r);
	pd_reader_close(r);
	for (size_t n = 0; n < len; n += (n < 400 ? 1 : 7)) {
		struct pdt_counts c;
		cr_assert_eq(tu_write_file(cut, buf, n), 0);
		int err = pdt_count(cut, &c);
		if (err) {
			cr_assert_lt(err, 0);
			continue;
		}
		cr_assert_leq(c.samples, e.samples, "at %zu", n);
		/* Damage after the data (the features) spoils only the features. */
		if (!pipe && n < data_end)
			cr_assert_lt(c.end, 0, "truncated at %zu of %zu must be an error", n, len);
		if (c.end < 0)
			cr_assert_not_null(strstr(c.err, "offset"), "error names the offset: %s",
					   c.err);
		/* ... and says how many features it lost */
		if (!pipe && n >= data_end && pd_reader_open(&r, cut, NULL) == 0) {
			cr_assert_eq(pd_reader_nr_features_dropped(r) > 0, n < len,
				     "cut at %zu of %zu: %u features dropped", n, len,
				     pd_reader_nr_features_dropped(r));
			pd_reader_close(r);
		}
	}
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert_eq(pd_reader_nr_features_dropped(r), 0, "the whole file lost a feature");
	pd_reader_close(r);
	free(buf);
}

Test(reader, truncated_file_mode)
{
	truncations(0);
}

Test(reader, truncated_pipe_mode)
{
	truncations(1);
}

/* Writes to: the recording from, cut 20 bytes into its last sample. Returns that sample's
 * offset. */
static uint64_t cut_in_last_sample(const char *from, const char *to)
{
	struct pd_reader *r;
	struct pd_event ev;
	uint64_t last = 0;
	size_t len;
	uint8_t *buf = tu_read_file(from, &len);

	cr_assert_eq(pd_reader_open(&r, from, NULL), 0);
	while (pd_reader_next(r, &ev) > 0)
		if (ev.type == PERF_RECORD_SAMPLE)
			last = ev.offset;
	pd_reader_close(r);
	cr_assert_eq(tu_write_file(to, buf, last + 20), 0);
	free(buf);
	return last;
}

Test(reader, truncated_keeps_prefix)
{
	struct pdt_expect e;
	struct pdt_counts full, c;

	pdt_write(path, 1, 64, &e);
	cr_assert_eq(pdt_count(path, &full), 0);
	/* Cut inside the last sample: everything before it must come through. */
	cut_in_last_sample(path, cut);
	cr_assert_eq(pdt_count(cut, &c), 0);
	cr_assert_lt(c.end, 0);
	cr_assert_eq(c.samples, full.samples - 1);
}

Test(reader, corrupted_bytes_never_crash)
{
	struct pdt_expect e;
	size_t len;
	uint8_t *buf;
	unsigned seed = 12345;

	for (int pipe = 0; pipe < 2; pipe++) {
		pdt_write(path, pipe, 32, &e);
		buf = tu_read_file(path, &len);
		for (int round = 0; round < 300; round++) {
			uint8_t *m = malloc(len);
			memcpy(m, buf, len);
			for (int k = 0; k < 1 + round % 5; k++) {
				seed = seed * 1103515245u + 12345u;
				size_t at = (seed >> 8) % len;
				m[at] = (uint8_t)(seed >> 3);
			}
			cr_assert_eq(tu_write_file(cut, m, len), 0);
			struct pdt_counts c;
			pdt_count(cut, &c);	/* any outcome but a crash or a hang */
			free(m);
		}
		free(buf);
	}
}

Test(reader, bad_magic_and_empty)
{
	struct pd_reader *r;
	char err[512] = "";
	struct jp_errbuf eb = { err, sizeof(err) };
	struct pd_reader_opts o = { .sz = sizeof(o), .log = { jp_log_errbuf, &eb } };

	cr_assert_eq(tu_write_file(cut, "NOTPERF!........", 16), 0);
	cr_assert_eq(pd_reader_open(&r, cut, &o), -EINVAL);
	cr_assert_not_null(strstr(err, "magic"));
	cr_assert_eq(tu_write_file(cut, "", 0), 0);
	cr_assert_eq(pd_reader_open(&r, cut, NULL), -EINVAL);
	cr_assert_eq(pd_reader_open(&r, "/nonexistent/perf.data", NULL), -ENOENT);
}

/* A failed open hands back nothing (no half-open reader to close) and says why, with the
 * file and the byte offset, through the log it was given. */
Test(reader, failed_open_releases_everything_and_logs_file_and_offset)
{
	struct pd_reader *r = (struct pd_reader *)&r;	/* any non-NULL garbage */
	char err[512] = "";
	struct jp_errbuf eb = { err, sizeof(err) };
	struct pd_reader_opts o = { .sz = sizeof(o), .log = { jp_log_errbuf, &eb } };
	char want[800];

	cr_assert_eq(tu_write_file(cut, "NOTPERF!........", 16), 0);
	cr_assert_eq(pd_reader_open(&r, cut, &o), -EINVAL);
	cr_assert_null(r);
	snprintf(want, sizeof(want), "%s: offset 0: not a perf.data file (bad magic)", cut);
	cr_assert_str_eq(err, want);

	err[0] = 0;
	r = (struct pd_reader *)&r;
	cr_assert_eq(tu_write_file(cut, "PERFILE2", 8), 0);
	cr_assert_eq(pd_reader_open(&r, cut, &o), -EINVAL);
	cr_assert_null(r);
	cr_assert_not_null(strstr(err, "offset 0: too short"), "%s", err);

	err[0] = 0;
	r = (struct pd_reader *)&r;
	cr_assert_eq(pd_reader_open(&r, "/nonexistent/perf.data", &o), -ENOENT);
	cr_assert_null(r);
	cr_assert_str_eq(err, "/nonexistent/perf.data: No such file or directory");
}

/* A directory path of some 800 bytes under dir (made), for messages that name a long path. */
static char *long_dir(void)
{
	char comp[201];
	size_t len = strlen(dir);
	char *p = malloc(len + 4 * sizeof(comp) + 1);

	memset(comp, 'd', sizeof(comp) - 1);
	comp[sizeof(comp) - 1] = 0;
	strcpy(p, dir);
	for (int i = 0; i < 4; i++) {
		strcat(p, "/");
		strcat(p, comp);
		cr_assert_eq(mkdir(p, 0700), 0, "%s", strerror(errno));
	}
	return p;
}

/* Issue 39: the reader's error names the file and the offset whole, however long the path
 * (it was a 512-byte buffer: a 700-byte path left neither offset nor reason). */
Test(reader, error_naming_a_long_path_is_whole)
{
	char *ld = long_dir(), *bad, *cutp, want[2048];
	struct pdt_expect e;
	struct pd_reader *r;
	struct pd_event ev;
	struct jp_held held = { 0 };
	struct pd_reader_opts o = { .sz = sizeof(o), .log = { jp_log_hold, &held } };
	int k;

	cr_assert(asprintf(&bad, "%s/bad.data", ld) > 0 && asprintf(&cutp, "%s/cut.data", ld) > 0);
	cr_assert_gt(strlen(bad), 700);
	cr_assert_eq(tu_write_file(bad, "NOTPERF!........", 16), 0);
	cr_assert_eq(pd_reader_open(&r, bad, &o), -EINVAL);
	snprintf(want, sizeof(want), "%s: offset 0: not a perf.data file (bad magic)", bad);
	cr_assert_str_eq(held.msg, want);

	/* a recording cut inside its last sample: the error of pd_reader_next, path and offset */
	pdt_write(path, 0, 16, &e);
	uint64_t last = cut_in_last_sample(path, cutp);
	cr_assert_eq(pd_reader_open(&r, cutp, NULL), 0);
	while ((k = pd_reader_next(r, &ev)) > 0)
		;
	cr_assert_lt(k, 0);
	snprintf(want, sizeof(want), "%s: offset %llu: ", cutp, (unsigned long long)last);
	const char *msg = pd_reader_error(r);
	cr_assert_eq(strncmp(msg, want, strlen(want)), 0, "%s", msg);
	cr_assert_not_null(strstr(msg + strlen(want), "truncated"), "%s", msg);
	pd_reader_close(r);
	free(held.msg);
	free(bad);
	free(cutp);
	free(ld);
}

/* lib/opts.h's rule: a smaller struct gets defaults, a larger one with an unknown non-zero
 * tail is refused with -EINVAL (and the fd it was given is not leaked). */
Test(reader, opts_size_rule)
{
	struct pd_reader *r;
	struct pd_reader_opts small;
	struct pdt_expect e;
	pdt_write(path, 0, 10, &e);
	memset(&small, 0xff, sizeof(small));	/* garbage window and log past sz */
	small.sz = offsetof(struct pd_reader_opts, window);
	cr_assert_eq(pd_reader_open(&r, path, &small), 0);
	pd_reader_close(r);

	struct { struct pd_reader_opts o; uint64_t newer; } big;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.newer = 1;
	r = (struct pd_reader *)&big;
	cr_assert_eq(pd_reader_open(&r, path, &big.o), -EINVAL);
	cr_assert_null(r);
	big.newer = 0;
	cr_assert_eq(pd_reader_open(&r, path, &big.o), 0);
	pd_reader_close(r);
}

Test(reader, from_a_real_pipe_small_window)
{
	struct pdt_expect e;
	struct pd_reader *r;
	struct pd_event ev;
	struct pd_reader_opts o = { .sz = sizeof(o), .window = 4096 };
	size_t len, samples = 0;
	uint8_t *buf;
	int fds[2], k;

	pdt_write(path, 1, 500, &e);
	buf = tu_read_file(path, &len);
	cr_assert_eq(pipe(fds), 0);
	pid_t child = fork();
	if (child == 0) {
		close(fds[0]);
		for (size_t off = 0; off < len;) {	/* dribble: many short reads */
			size_t n = len - off < 333 ? len - off : 333;
			if (write(fds[1], buf + off, n) != (ssize_t)n)
				_exit(1);
			off += n;
		}
		_exit(0);
	}
	close(fds[1]);
	cr_assert_eq(pd_reader_open_fd(&r, fds[0], "pipe", &o), 0);
	while ((k = pd_reader_next(r, &ev)) > 0)
		samples += ev.type == PERF_RECORD_SAMPLE;
	cr_assert_eq(k, 0, "%s", pd_reader_error(r));
	cr_assert_eq(samples, e.samples);
	pd_reader_close(r);
	free(buf);
}

Test(reader, file_mode_small_window)
{
	struct pdt_expect e;
	struct pd_reader *r;
	struct pd_event ev;
	struct pd_reader_opts o = { .sz = sizeof(o), .window = 4096 };
	size_t samples = 0;
	uint64_t prev_off = 0;

	pdt_write(path, 0, 2000, &e);
	cr_assert_eq(pd_reader_open(&r, path, &o), 0);
	while (pd_reader_next(r, &ev) > 0) {
		cr_assert_geq(ev.offset, prev_off);
		cr_assert_eq(ev.offset % 8, pd_reader_data_offset(r) % 8);
		prev_off = ev.offset;
		samples += ev.type == PERF_RECORD_SAMPLE;
	}
	cr_assert_eq(samples, e.samples);
	pd_reader_close(r);
}

/* Issue 16 finding 7: many attrs sharing one large id area open in one index build (the
 * timeout guards a return of the per-attr rebuild, which took minutes here), every id
 * resolves, and past PD_MAX_IDS the file is refused with the limit named. */
static void write_shared_ids(const char *path, unsigned nattrs, unsigned nids)
{
	size_t len;
	uint8_t *b = pdt_shared_ids_file(nattrs, nids, &len);
	cr_assert_eq(tu_write_file(path, b, len), 0);
	free(b);
}

Test(reader, shared_id_areas_are_bounded, .timeout = 60)
{
	char *dir = tu_tmpdir("pdids"), path[600];
	struct pd_reader *r;
	snprintf(path, sizeof(path), "%s/ids.data", dir);
	write_shared_ids(path, 400, 8192);
	char err[512] = "";
	struct jp_errbuf eb = { err, sizeof(err) };
	struct pd_reader_opts o = { .sz = sizeof(o), .log = { jp_log_errbuf, &eb } };
	cr_assert_eq(pd_reader_open(&r, path, &o), 0, "%s", err);
	cr_assert_eq(pd_reader_nr_evsels(r), 400);
	cr_assert_not_null(pd_reader_evsel_by_id(r, 1));
	cr_assert_not_null(pd_reader_evsel_by_id(r, 8192));
	cr_assert_null(pd_reader_evsel_by_id(r, 8193));
	pd_reader_close(r);

	unsigned nattrs = PD_MAX_IDS / 8192 + 1;
	write_shared_ids(path, nattrs, 8192);
	cr_assert_eq(pd_reader_open(&r, path, &o), -E2BIG);
	cr_assert_null(r);
	cr_assert(strstr(err, "PD_MAX_IDS") && strstr(err, "ids.data"), "%s", err);
	tu_rmtree(dir);
	free(dir);
}

/* A recording perf record never finalized (killed): data size 0 in the header. Its events
 * are read to the end of the file, and the reader says it is unfinished. */
Test(reader, unfinished_recording_read_to_the_end)
{
	struct pdt_expect e;
	struct pdt_counts full, c;
	struct pd_reader *r;
	size_t len;
	uint8_t *buf;

	pdt_write(path, 0, 64, &e);
	cr_assert_eq(pdt_count(path, &full), 0);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert_eq(pd_reader_unfinished(r), 0);
	pd_reader_close(r);
	buf = tu_read_file(path, &len);
	uint64_t data_off, data_size, zero = 0;
	memcpy(&data_off, buf + 40, 8);	/* struct perf_file_section data: offset, size */
	memcpy(&data_size, buf + 48, 8);
	memcpy(buf + 48, &zero, 8);
	/* What perf leaves: the data, no feature sections after it. */
	cr_assert_leq(data_off + data_size, len);
	cr_assert_eq(tu_write_file(cut, buf, data_off + data_size), 0);
	cr_assert_eq(pd_reader_open(&r, cut, NULL), 0);
	cr_assert_eq(pd_reader_unfinished(r), 1);
	pd_reader_close(r);
	cr_assert_eq(pdt_count(cut, &c), 0, "%s", c.err);
	cr_assert_eq(c.end, 0, "%s", c.err);
	cr_assert_eq(c.samples, full.samples);
	cr_assert_eq(c.samples, 64);
	free(buf);
}

/* The reader fills each event afresh without zeroing all of it first (decode() and the
 * skipped-sample path set what they own): nothing of one record may show in the next. An
 * AUXTRACE's payload, an MMAP2's file name and sid, then samples: each sample reads as
 * written, with no payload, no sid flag, nothing of the MMAP2 in its part of the union. */
Test(reader, no_field_of_a_record_leaks_into_the_next)
{
	struct pd_writer *w;
	struct perf_event_attr a;
	uint64_t ids[1] = { 101 };
	struct pd_sid sid = { .pid = 42, .tid = 42, .time = 1000, .id = 101, .cpu = 1 };
	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, 0), 0);
	cr_assert_eq(pd_writer_add_attr(w, &a, ids, 1, "cpu-clock"), 0);
	uint64_t aux[6] = { 0, 4096, 0, 7, 0, 0 };	/* header, size, offset, ref, idx|tid, cpu */
	struct perf_event_header *h = (void *)aux;
	h->type = PD_RECORD_AUXTRACE;
	h->size = sizeof(aux);
	static uint8_t payload[4096];
	struct pd_event ev = { .type = PD_RECORD_AUXTRACE, .size = sizeof(aux), .raw = aux,
			       .extra = payload, .extra_size = sizeof(payload) };
	cr_assert_eq(pd_writer_write_event(w, &ev), 0);
	pdt_sample(w, 101, 0x400100, 42, 2000);
	struct pd_mmap2_args m = { .pid = 42, .tid = 42, .cpumode = PERF_RECORD_MISC_USER,
				   .start = 0x400000, .len = 0x10000, .prot = 5, .flags = 2,
				   .filename = "/usr/bin/workload" };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	pdt_sample(w, 101, 0x400200, 42, 3000);
	cr_assert_eq(pd_writer_close(w), 0);

	struct pd_reader *r;
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	int kinds = 0;
	size_t samples = 0;
	for (int got; (got = pd_reader_next(r, &ev)) == 1;) {
		if (ev.type == PD_RECORD_AUXTRACE) {
			cr_assert_eq(ev.extra_size, sizeof(payload));
			kinds |= 1;
		} else if (ev.type == PERF_RECORD_MMAP2) {
			cr_assert(ev.has_sid);
			cr_assert_str_eq(ev.u.mmap.filename, "/usr/bin/workload");
			kinds |= 2;
		} else if (ev.type == PERF_RECORD_SAMPLE) {
			const struct pd_sample *s = &ev.u.sample;
			cr_assert_null(ev.extra, "sample %zu has the AUXTRACE's payload", samples);
			cr_assert_eq(ev.extra_size, 0);
			cr_assert(!ev.has_sid);
			cr_assert_not_null(ev.evsel);
			cr_assert_eq(s->ip, samples ? 0x400200 : 0x400100);
			cr_assert_eq(s->time, samples ? 3000u : 2000u);
			cr_assert_eq(s->nr_callchain, 3);
			cr_assert_eq(s->raw_size, 0);
			cr_assert_null(s->raw_data);
			cr_assert_eq(s->addr + s->weight + s->data_src + s->phys_addr + s->cgroup +
				     s->stream_id, 0, "a field this attr has not, nonzero");
			samples++;
		}
	}
	cr_assert_eq(kinds, 3);
	cr_assert_eq(samples, 2);
	pd_reader_close(r);
}
