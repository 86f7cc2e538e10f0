/* test_writer.c - recorder/perfdata/writer.c: files and pipe streams the writer makes read
 * back with every record, attr, feature and build-id intact. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"
#include "tests/unit/perfdata/pdtest.h"

static char *dir;
static char path[512];

static void setup(void)
{
	dir = tu_tmpdir("pdwriter");
	snprintf(path, sizeof(path), "%s/out.data", dir);
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(writer, .init = setup, .fini = teardown);

Test(writer, file_mode_round_trip)
{
	struct pdt_expect e;
	struct pdt_counts c;

	pdt_write(path, 0, 100, &e);
	cr_assert_eq(pdt_count(path, &c), 0, "%s", c.err);
	cr_assert_eq(c.end, 0, "%s", c.err);
	cr_assert_eq(c.samples, e.samples);
	cr_assert_eq(c.mmap2, e.mmap2);
	cr_assert_eq(c.comm, e.comm);
	cr_assert_eq(c.fork, e.fork);
	cr_assert_eq(c.rounds, e.rounds);
	cr_assert_eq(c.first_ip, e.first_ip);
	cr_assert_eq(c.last_time, e.last_time);
	cr_assert_eq(c.attrs, 0, "file mode has no HEADER_ATTR records");
}

Test(writer, file_mode_features_and_attrs)
{
	struct pdt_expect e;
	struct pd_reader *r;
	const char *s;
	size_t argc;
	const char *const *argv;
	struct pd_clock_data cd;
	uint64_t first, last, res;

	pdt_write(path, 0, 10, &e);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert_not(pd_reader_is_pipe(r));
	cr_assert_eq(pd_reader_nr_evsels(r), 1);
	const struct pd_evsel *es = pd_reader_evsel(r, 0);
	cr_assert_eq(es->attr_size, PD_ATTR_SIZE_FILE);
	cr_assert_eq(es->nr_ids, 2);
	cr_assert_eq(es->ids[1], 102);
	cr_assert_str_eq(es->name, "cpu-clock");
	cr_assert_eq(pd_reader_evsel_by_id(r, 102), es);
	cr_assert_null(pd_reader_evsel_by_id(r, 7));
	cr_assert_eq(pd_reader_id_hdr_size(r), 32);
	cr_assert_eq(pd_reader_feat_string(r, PD_FEAT_HOSTNAME, &s), 0);
	cr_assert_gt(strlen(s), 0);
	cr_assert_eq(pd_reader_feat_cmdline(r, &argc, &argv), 0);
	cr_assert_eq(argc, 4);
	cr_assert_str_eq(argv[3], "x");
	cr_assert_eq(pd_reader_feat_clock_data(r, &cd), 0);
	cr_assert_eq(cd.clockid, 1);
	cr_assert_eq(cd.tod_ns, 1700000000000000000ull);
	cr_assert_eq(cd.clockid_ns, 5000);
	cr_assert_eq(pd_reader_feat_clockid(r, &res), 0);
	cr_assert_eq(res, 1);
	cr_assert_eq(pd_reader_feat_sample_time(r, &first, &last), 0);
	cr_assert_eq(first, 2000);
	cr_assert_eq(last, e.last_time);
	cr_assert(pd_reader_has_feature(r, PD_FEAT_EVENT_DESC));
	cr_assert_eq(pd_reader_nr_build_ids(r), 2);
	const struct pd_build_id_ev *b = pd_reader_build_id(r, 0);
	cr_assert_str_eq(b->filename, "/usr/lib/libfoo.so");
	cr_assert_eq(b->pid, -1);
	cr_assert_eq(b->size, 20);
	cr_assert_eq(b->build_id[0], 0xde);
	cr_assert_eq(b->cpumode, PERF_RECORD_MISC_USER);
	pd_reader_close(r);
}

Test(writer, decoded_fields)
{
	struct pdt_expect e;
	struct pd_reader *r;
	struct pd_event ev;
	int seen_bid_mmap = 0, seen_comm = 0, seen_sample = 0;

	pdt_write(path, 0, 2, &e);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	while (pd_reader_next(r, &ev) > 0) {
		if (ev.type == PERF_RECORD_MMAP2 && ev.u.mmap.has_build_id) {
			cr_assert_str_eq(ev.u.mmap.filename, "/usr/lib/libfoo.so");
			cr_assert_eq(ev.u.mmap.build_id_size, 20);
			cr_assert_eq(ev.u.mmap.build_id[1], 0xad);
			cr_assert_eq(ev.u.mmap.start, 0x7f0000000000);
			cr_assert_eq(ev.u.mmap.prot, 5);
			cr_assert(ev.has_sid);
			cr_assert_eq(ev.sid.time, 1000);
			cr_assert_eq(ev.sid.pid, 42);
			cr_assert_eq(ev.sid.cpu, 1);
			seen_bid_mmap++;
		} else if (ev.type == PERF_RECORD_MMAP2) {
			cr_assert_eq(ev.u.mmap.ino, 1234);
			cr_assert_eq(ev.u.mmap.maj, 8);
		} else if (ev.type == PERF_RECORD_COMM) {
			cr_assert_str_eq(ev.u.comm.comm, "workload");
			cr_assert(ev.u.comm.exec);
			seen_comm++;
		} else if (ev.type == PERF_RECORD_SAMPLE) {
			cr_assert_eq(ev.u.sample.pid, 42);
			cr_assert_eq(ev.u.sample.period, 250000);
			cr_assert_eq(ev.u.sample.cpu, 1);
			cr_assert_eq(ev.u.sample.nr_callchain, 3);
			cr_assert_eq(ev.u.sample.callchain[0], PERF_CONTEXT_USER);
			cr_assert_eq(ev.u.sample.callchain[1], ev.u.sample.ip);
			cr_assert_not_null(ev.evsel);
			cr_assert_eq(ev.evsel->idx, 0);
			seen_sample++;
		}
	}
	cr_assert_eq(seen_bid_mmap, 1);
	cr_assert_eq(seen_comm, 1);
	cr_assert_eq(seen_sample, 2);
	pd_reader_close(r);
}

Test(writer, pipe_mode_round_trip)
{
	struct pdt_expect e;
	struct pdt_counts c;
	struct pd_reader *r;
	const char *s;

	pdt_write(path, 1, 50, &e);
	cr_assert_eq(pdt_count(path, &c), 0, "%s", c.err);
	cr_assert_eq(c.end, 0, "%s", c.err);
	cr_assert_eq(c.attrs, 1);
	cr_assert_eq(c.samples, e.samples);
	cr_assert_eq(c.mmap2, e.mmap2);
	cr_assert_eq(c.build_id_recs, e.build_ids, "pipe mode carries build-ids as type 67");
	cr_assert_geq(c.features, 5);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert(pd_reader_is_pipe(r));
	struct pd_event ev;
	while (pd_reader_next(r, &ev) > 0)
		;
	cr_assert_eq(pd_reader_nr_evsels(r), 1);
	cr_assert_str_eq(pd_reader_evsel(r, 0)->name, "cpu-clock", "name from EVENT_UPDATE");
	cr_assert_eq(pd_reader_feat_string(r, PD_FEAT_OSRELEASE, &s), 0);
	cr_assert_eq(pd_reader_nr_build_ids(r), 2);
	pd_reader_close(r);
}

/* A reader -> writer copy (what inject does) keeps every record and feature byte. */
Test(writer, copy_keeps_records_and_features)
{
	struct pdt_expect e;
	struct pd_reader *r, *r2;
	struct pd_writer *w;
	struct pd_event ev;
	char out[600];
	size_t sz1, sz2;

	pdt_write(path, 0, 40, &e);
	snprintf(out, sizeof(out), "%s/copy.data", dir);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert_eq(pd_writer_open(&w, out, 0), 0);
	cr_assert_eq(pd_writer_copy_attrs(w, r), 0);
	cr_assert_eq(pd_writer_copy_features(w, r), 0);
	while (pd_reader_next(r, &ev) > 0)
		cr_assert_eq(pd_writer_write_event(w, &ev), 0);
	cr_assert_eq(pd_writer_close(w), 0);
	cr_assert_eq(pd_reader_open(&r2, out, NULL), 0);
	for (unsigned f = 1; f < 64; f++) {
		const void *a = pd_reader_feature(r, f, &sz1), *b = pd_reader_feature(r2, f, &sz2);
		cr_assert_eq(!a, !b, "feature %u", f);
		if (a && f != PD_FEAT_BUILD_ID) {
			cr_assert_eq(sz1, sz2, "feature %u", f);
			cr_assert_eq(memcmp(a, b, sz1), 0, "feature %u", f);
		}
	}
	cr_assert_eq(pd_reader_nr_build_ids(r2), 2);
	pd_reader_close(r);
	pd_reader_close(r2);
	struct pdt_counts c;
	cr_assert_eq(pdt_count(out, &c), 0);
	cr_assert_eq(c.samples, e.samples);
	cr_assert_eq(c.records, e.samples + e.mmap2 + e.comm + e.fork + e.rounds);
}

Test(writer, unknown_feature_survives_copy)
{
	struct pd_writer *w;
	struct pd_reader *r;
	struct perf_event_attr a;
	static const uint8_t blob[13] = "opaque-bytes";
	size_t sz;

	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, NULL), 0);
	cr_assert_eq(pd_writer_set_feature(w, 200, blob, sizeof(blob)), 0);
	cr_assert_eq(pd_writer_finished_round(w), 0);
	cr_assert_eq(pd_writer_close(w), 0);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	const void *p = pd_reader_feature(r, 200, &sz);
	cr_assert_not_null(p);
	cr_assert_eq(sz, sizeof(blob));
	cr_assert_eq(memcmp(p, blob, sz), 0);
	pd_reader_close(r);
}

Test(writer, attrs_after_first_record_rejected)
{
	struct pd_writer *w;
	struct perf_event_attr a;

	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, NULL), 0);
	cr_assert_eq(pd_writer_finished_round(w), 0);
	cr_assert_eq(pd_writer_add_attr(w, &a, NULL, 0, NULL), -EBUSY);
	cr_assert_eq(pd_writer_close(w), 0);
}

/* A file-mode header with data.size 0 means "never finalized, read to the end of the file"
 * to perf and to our reader, which then takes the feature table for records: a file without
 * records must still have a data section that is not empty (fuzz finding F5). */
Test(writer, file_without_records_reads_clean)
{
	struct pd_writer *w;
	struct perf_event_attr a;
	struct pdt_counts c;
	struct pd_reader *r;
	const char *s;

	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, NULL), 0);
	cr_assert_eq(pd_writer_set_string(w, PD_FEAT_HOSTNAME, "host"), 0);
	cr_assert_eq(pd_writer_close(w), 0);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert_gt(pd_reader_data_size(r), 0);
	cr_assert_eq(pd_reader_feat_string(r, PD_FEAT_HOSTNAME, &s), 0);
	cr_assert_str_eq(s, "host");
	pd_reader_close(r);
	cr_assert_eq(pdt_count(path, &c), 0, "%s", c.err);
	cr_assert_eq(c.end, 0, "%s", c.err);
	cr_assert_eq(c.samples + c.mmap2 + c.comm + c.fork, 0);
}

/* The build-id table: one entry per (pid, filename), a later id for the same pair replacing the
 * earlier in place, in first-added order, for tens of thousands of entries (inject adds one
 * per sampled generation). */
Test(writer, build_id_table_dedupes_by_pid_and_name)
{
	enum { N = 30000 };
	struct pd_writer *w;
	struct perf_event_attr a;
	struct pd_reader *r;
	char name[64];
	uint8_t id[20] = { 0 };

	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, NULL), 0);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < N; i++) {
			snprintf(name, sizeof(name), "/d/jitted-1-%d.so", i);
			id[0] = (uint8_t)pass;
			memcpy(id + 1, &i, sizeof(i));
			/* pass 1 replaces the even ones; the odd ones get a second pid */
			cr_assert_eq(pd_writer_add_build_id(w, i % 2 && pass ? 7 : -1,
							    PERF_RECORD_MISC_USER, id, 20, name), 0);
		}
	cr_assert_eq(pd_writer_close(w), 0);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	cr_assert_eq(pd_reader_nr_build_ids(r), N + N / 2);
	for (int i = 0; i < N; i++) {
		const struct pd_build_id_ev *b = pd_reader_build_id(r, (size_t)i);
		int got;
		snprintf(name, sizeof(name), "/d/jitted-1-%d.so", i);
		cr_assert_str_eq(b->filename, name);
		memcpy(&got, b->build_id + 1, sizeof(got));
		cr_assert_eq(got, i);
		cr_assert_eq(b->build_id[0], i % 2 ? 0 : 1, "entry %d", i);
	}
	pd_reader_close(r);
}
