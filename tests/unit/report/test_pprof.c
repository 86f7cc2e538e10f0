/* test_pprof.c - recorder/report/pprof.c: the gzipped profile unpacks with libprotobuf-c; an
 * inlined frame and the frame of its pc are one location whose lines go innermost first;
 * jitted code's mapping carries its build-id; values are samples and period, summed over the
 * samples of one stack in one thread (one Sample each), never across stacks or threads, and
 * held at INT64_MAX; the first mapping is the busiest process's program. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <profile.pb-c.h>	/* protoc-c output, build/gen/ (module.mk) */
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/unit/report/rptest.h"

static int pprof(FILE *fp, void *arg)
{
	return rp_write_pprof(fp, arg);
}

/* The capture is gzip: inflate it (zlib, gzip header). */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *out_len)
{
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	z_stream z = { .next_in = (uint8_t *)in, .avail_in = (uInt)len, .next_out = out,
		       .avail_out = (uInt)cap };
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	inflateEnd(&z);
	return out;
}

Test(pprof, inline_chain_one_location)
{
	struct rp_session *s = rt_session();
	uint32_t g = rt_load(s, 7, "hot", 1, 10, 0, 0x1000, 0x100);
	rp_load_at(s, g)->build_id = rp_intern(s, "00112233445566778899aabbccddeeff00112233");
	struct rt_frame f[] = { { .dso = "jitted-7-1.so", .sym = "area", .file = "S.java",
				  .line = 27, .flags = RP_FRAME_INLINED, .ip = 0x1010 },
				{ .dso = "jitted-7-1.so", .sym = "hot", .file = "S.java", .line = 49,
				  .load = g, .ip = 0x1010 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	for (int i = 0; i < 3; i++)
		rt_sample(s, "java", 7, 100 + i, 1000, f);
	rp_set_span(s, 100, 200);
	rp_session_finish(s);
	cr_assert_eq(rp_set_dso_build_id(s, rp_intern(s, "app"),
					 "abcdef0123456789abcdef0123456789abcdef01"), 0);

	char *gz = NULL;
	size_t gzlen = 0;
	FILE *fp = open_memstream(&gz, &gzlen);
	cr_assert_eq(pprof(fp, s), 0);
	fclose(fp);
	size_t len;
	uint8_t *raw = gunzip((uint8_t *)gz, gzlen, &len);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, raw);
	cr_assert_not_null(p, "libprotobuf-c cannot unpack it");
	cr_assert_eq(p->n_sample, 1, "three samples of one stack in one thread are one Sample");
	cr_assert_eq(p->n_location, 2, "the inlined frame shares its pc's location");
	cr_assert_eq(p->sample[0]->n_location_id, 2);
	cr_assert_eq(p->sample[0]->value[0], 3);
	cr_assert_eq(p->sample[0]->value[1], 3000);
	const Perftools__Profiles__Location *leaf = p->location[p->sample[0]->location_id[0] - 1];
	cr_assert_eq(leaf->address, 0x1010);
	cr_assert_eq(leaf->n_line, 2);
	const char *inner = p->string_table[p->function[leaf->line[0]->function_id - 1]->name];
	const char *outer = p->string_table[p->function[leaf->line[1]->function_id - 1]->name];
	cr_assert_str_eq(inner, "area");
	cr_assert_str_eq(outer, "hot");
	cr_assert_eq(leaf->line[0]->line, 27);
	const Perftools__Profiles__Mapping *m = p->mapping[leaf->mapping_id - 1];
	cr_assert_str_eq(p->string_table[m->filename], "jitted-7-1.so");
	cr_assert_str_eq(p->string_table[m->build_id], "00112233445566778899aabbccddeeff00112233");
	cr_assert_str_eq(p->string_table[p->sample_type[1]->unit], "nanoseconds");
	/* A native DSO's mapping carries the build-id the session was given for it. */
	const Perftools__Profiles__Location *root =
		p->location[p->sample[0]->location_id[1] - 1];
	m = p->mapping[root->mapping_id - 1];
	cr_assert_str_eq(p->string_table[m->filename], "app");
	cr_assert_str_eq(p->string_table[m->build_id], "abcdef0123456789abcdef0123456789abcdef01");
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(raw);
	free(gz);
	rp_session_free(s);
}

/* The unpacked profile of s (freed by the caller with free_unpacked). */
static Perftools__Profiles__Profile *unpacked(struct rp_session *s)
{
	char *gz = NULL;
	size_t gzlen = 0, len;
	FILE *fp = open_memstream(&gz, &gzlen);
	cr_assert_eq(pprof(fp, s), 0);
	fclose(fp);
	uint8_t *raw = gunzip((uint8_t *)gz, gzlen, &len);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, raw);
	cr_assert_not_null(p);
	free(raw);
	free(gz);
	return p;
}

Test(pprof, samples_summed_per_stack_and_thread_only)
{
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { { .dso = "app", .sym = "leaf", .ip = 0x10 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	struct rt_frame b[] = { { .dso = "app", .sym = "other", .ip = 0x20 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	rt_sample(s, "app", 7, 100, 10, a);
	rt_sample(s, "app", 7, 101, 20, b);
	rt_sample(s, "app", 8, 102, 40, a);	/* the same stack in another process */
	rt_sample(s, "app", 7, 103, 80, a);
	rt_sample(s, "app", 8, 104, 160, a);
	rt_sample(s, "app", 7, 105, 320, a);
	rp_set_span(s, 100, 200);
	rp_session_finish(s);
	Perftools__Profiles__Profile *p = unpacked(s);
	cr_assert_eq(p->n_sample, 3);
	/* in order of first appearance: (a, 7), (b, 7), (a, 8) */
	static const int64_t want[3][3] = { { 7, 3, 10 + 80 + 320 }, { 7, 1, 20 },
					    { 8, 2, 40 + 160 } };
	int64_t total = 0;
	for (int i = 0; i < 3; i++) {
		const Perftools__Profiles__Sample *sm = p->sample[i];
		cr_assert_eq(sm->n_label, 2);
		cr_assert_eq(sm->label[0]->num, want[i][0], "sample %d pid", i);
		cr_assert_eq(sm->value[0], want[i][1], "sample %d count", i);
		cr_assert_eq(sm->value[1], want[i][2], "sample %d period", i);
		total += sm->value[0];
	}
	cr_assert_eq(total, 6, "every sample counted once");
	cr_assert_neq(p->sample[0]->location_id[0], p->sample[1]->location_id[0]);
	cr_assert_eq(p->sample[0]->location_id[0], p->sample[2]->location_id[0]);
	perftools__profiles__profile__free_unpacked(p, NULL);
	rp_session_free(s);
}

/* Periods are u64s from the recording: a damaged one must not wrap pprof's int64 values
 * (found by fuzzing): a lone huge period and a sum past INT64_MAX are held there. */
Test(pprof, huge_periods_held_at_int64_max)
{
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { { .dso = "app", .sym = "leaf", .ip = 0x10 }, { 0 } };
	struct rt_frame b[] = { { .dso = "app", .sym = "other", .ip = 0x20 }, { 0 } };
	rt_sample(s, "app", 7, 100, 8430738502437571509ull, a);
	rt_sample(s, "app", 7, 101, 2810246167479190503ull, a);
	rt_sample(s, "app", 7, 102, UINT64_MAX, b);
	rp_set_span(s, 100, 200);
	rp_session_finish(s);
	Perftools__Profiles__Profile *p = unpacked(s);
	cr_assert_eq(p->n_sample, 2);
	cr_expect_eq(p->sample[0]->value[0], 2);
	cr_expect_eq(p->sample[0]->value[1], INT64_MAX);
	cr_expect_eq(p->sample[1]->value[1], INT64_MAX);
	cr_expect_geq(p->period, 0);
	perftools__profiles__profile__free_unpacked(p, NULL);
	rp_session_free(s);
}

/* The first mapping (pprof's "File:") is the program of the process with the most samples,
 * whatever the first sample's leaf is in; pid 0 (the idle task of a system-wide recording)
 * counts like any other. */
Test(pprof, first_mapping_is_the_busiest_program)
{
	struct rp_session *s = rt_session();
	struct rt_frame k[] = { { .dso = "[kernel.kallsyms]", .sym = "idle",
				  .flags = RP_FRAME_KERNEL, .ip = 0xffffffff81000000ull }, { 0 } };
	struct rt_frame a[] = { { .dso = "libc.so.6", .sym = "memcpy", .ip = 0x50 }, { 0 } };
	rp_note_mapping(s, 7, "/usr/bin/app", 1);
	rp_note_mapping(s, 0, "/usr/lib/systemd/idle-thing", 1);
	rt_sample(s, "app", 7, 100, 1, k);	/* the first sample: a kernel leaf */
	for (int i = 0; i < 3; i++)
		rt_sample(s, "app", 7, 101 + i, 1, a);
	rp_set_span(s, 100, 200);
	rp_session_finish(s);
	Perftools__Profiles__Profile *p = unpacked(s);
	cr_assert_geq(p->n_mapping, 1);
	cr_assert_str_eq(p->string_table[p->mapping[0]->filename], "app");
	perftools__profiles__profile__free_unpacked(p, NULL);
	/* Now the idle task has more samples. */
	for (int i = 0; i < 5; i++)
		rt_sample(s, "swapper", 0, 110 + i, 1, k);
	rp_session_finish(s);
	p = unpacked(s);
	cr_assert_str_eq(p->string_table[p->mapping[0]->filename], "idle-thing");
	perftools__profiles__profile__free_unpacked(p, NULL);
	rp_session_free(s);
}

/* Two events (the HTML page's and pprof's several events): a pair of sample types each, the
 * reported one's weight the default; a stack both events sampled in one thread is one Sample
 * with each event's values in its own pair (its locations found by name across the two
 * sessions), a stack only the second one has is a Sample with 0 for the first. */
Test(pprof, one_pair_of_sample_types_per_event)
{
	struct rp_session *cpu = rt_session(), *off = rt_session();
	struct rt_frame a[] = { { .dso = "app", .sym = "work", .ip = 0x40 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	struct rt_frame b[] = { { .dso = "libc.so.6", .sym = "nanosleep", .ip = 0x900 },
				{ .dso = "app", .sym = "main", .ip = 0x58 }, { 0 } };
	rt_sample(cpu, "app", 7, 100, 1000, a);
	rt_sample(cpu, "app", 7, 101, 1000, a);
	rt_sample(off, "app", 7, 102, 5000000, a);
	rt_sample(off, "app", 7, 103, 3000000, b);
	rp_set_event_name(cpu, "cpu-clock");
	rp_set_event_name(off, "offcpu");
	off->weigh_time = 1;	/* as offcpu.c reads them: periods in ns */
	const struct rp_session *ss[] = { cpu, off };
	for (int k = 0; k < 2; k++) {
		rp_set_span((struct rp_session *)ss[k], 100, 200);
		rp_session_finish((struct rp_session *)ss[k]);
	}

	char *gz = NULL;
	size_t gzlen = 0, len;
	FILE *fp = open_memstream(&gz, &gzlen);
	cr_assert_eq(rp_write_pprof_events(fp, ss, 2), 0);
	fclose(fp);
	uint8_t *raw = gunzip((uint8_t *)gz, gzlen, &len);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, raw);
	cr_assert_not_null(p);
	static const char *const want[4][2] = { { "samples", "count" }, { "cpu", "nanoseconds" },
						{ "offcpu_samples", "count" },
						{ "offcpu", "nanoseconds" } };
	cr_assert_eq(p->n_sample_type, 4);
	for (int t = 0; t < 4; t++) {
		cr_assert_str_eq(p->string_table[p->sample_type[t]->type], want[t][0]);
		cr_assert_str_eq(p->string_table[p->sample_type[t]->unit], want[t][1]);
	}
	cr_assert_str_eq(p->string_table[p->default_sample_type], "cpu");
	cr_assert_eq(p->n_sample, 2, "stack a in both events is one Sample, b another");
	cr_assert_eq(p->n_location, 4, "work, main at 0x50, nanosleep, main at 0x58");
	static const int64_t va[4] = { 2, 2000, 1, 5000000 }, vb[4] = { 0, 0, 1, 3000000 };
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *x = p->sample[i];
		const Perftools__Profiles__Location *leaf = p->location[x->location_id[0] - 1];
		const int64_t *v = leaf->address == 0x40 ? va : vb;
		cr_assert_eq(x->n_value, 4);
		for (int t = 0; t < 4; t++)
			cr_assert_eq(x->value[t], v[t], "leaf %#lx value %d: %ld, want %ld",
				     (unsigned long)leaf->address, t, (long)x->value[t], (long)v[t]);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(raw);
	free(gz);
	rp_session_free(cpu);
	rp_session_free(off);
}
