/* pdtest.c - see pdtest.h. */
#include "tests/unit/perfdata/pdtest.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

void pdt_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN;
	a->sample_id_all = 1;
	a->freq = 1;
	a->sample_freq = 4000;
	a->mmap2 = a->comm = a->task = 1;
	a->use_clockid = 1;
	a->clockid = 1;
}

void pdt_sample(struct pd_writer *w, uint64_t id, uint64_t ip, uint32_t pid, uint64_t t)
{
	uint64_t rec[1 + 6 + 1 + 4];
	struct perf_event_header *h = (void *)rec;
	uint64_t *p = rec + 1;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(rec);
	*p++ = id;				/* IDENTIFIER */
	*p++ = ip;				/* IP */
	*p++ = (uint64_t)pid | (uint64_t)pid << 32;	/* TID */
	*p++ = t;				/* TIME */
	*p++ = 1;				/* CPU */
	*p++ = 250000;				/* PERIOD */
	*p++ = 3;				/* CALLCHAIN nr */
	*p++ = PERF_CONTEXT_USER;
	*p++ = ip;
	*p++ = ip + 0x10;
	cr_assert_eq(pd_writer_write(w, rec, sizeof(rec)), 0);
}

void pdt_write(const char *path, int pipe, size_t nsamples, struct pdt_expect *exp)
{
	struct pd_writer *w;
	struct perf_event_attr a;
	uint64_t ids[2] = { 101, 102 };
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	const char *argv[] = { "jitprof", "record", "--", "x" };
	struct pd_sid sid = { .pid = 42, .tid = 42, .time = 1000, .id = 101, .cpu = 1 };

	memset(exp, 0, sizeof(*exp));
	pdt_attr(&a);
	cr_assert_eq(pd_writer_open(&w, path, pipe ? PD_WRITER_PIPE : 0), 0);
	cr_assert_eq(pd_writer_add_attr(w, &a, ids, 2, "cpu-clock"), 0);
	cr_assert_eq(pd_writer_set_host_features(w), 0);
	cr_assert_eq(pd_writer_set_cmdline(w, 4, argv), 0);
	cr_assert_eq(pd_writer_set_clock(w, 1, 1, 1700000000000000000ull, 5000), 0);
	cr_assert_eq(pd_writer_comm(w, 42, 42, "workload", true, &sid), 0);
	struct pd_task t = { .pid = 43, .ppid = 42, .tid = 43, .ptid = 42, .time = 1100 };
	cr_assert_eq(pd_writer_fork(w, PERF_RECORD_FORK, &t, false, &sid), 0);
	struct pd_mmap2_args m = { .pid = 42, .tid = 42, .cpumode = PERF_RECORD_MISC_USER,
				   .start = 0x400000, .len = 0x10000, .pgoff = 0, .maj = 8,
				   .min = 1, .ino = 1234, .prot = 5, .flags = 2,
				   .filename = "/usr/bin/workload" };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	m.start = 0x7f0000000000;
	m.filename = "/usr/lib/libfoo.so";
	m.build_id = bid;
	m.build_id_size = 20;
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	exp->mmap2 = 2;
	exp->comm = 1;
	exp->fork = 1;
	for (size_t i = 0; i < nsamples; i++) {
		uint64_t ip = (i & 1 ? 0x7f0000000100 : 0x400100) + i;
		pdt_sample(w, ids[i & 1], ip, 42, 2000 + 10 * i);
		if (!i)
			exp->first_ip = ip;
		exp->last_time = 2000 + 10 * i;
		if (i % 16 == 15) {
			cr_assert_eq(pd_writer_finished_round(w), 0);
			exp->rounds++;
		}
	}
	exp->samples = nsamples;
	cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, bid, 20,
					    "/usr/lib/libfoo.so"), 0);
	cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, bid, 20,
					    "/usr/bin/workload"), 0);
	exp->build_ids = 2;
	if (!pipe)
		cr_assert_eq(pd_writer_set_sample_time(w, 2000, exp->last_time), 0);
	cr_assert_eq(pd_writer_close(w), 0);
}

int pdt_count(const char *path, struct pdt_counts *c)
{
	struct pd_reader *r;
	struct pd_event ev;
	int err, k;

	memset(c, 0, sizeof(*c));
	struct jp_errbuf eb = { c->err, sizeof(c->err) };
	struct pd_reader_opts o = { .sz = sizeof(o), .log = { jp_log_errbuf, &eb } };
	err = pd_reader_open(&r, path, &o);
	if (err)
		return err;
	while ((k = pd_reader_next(r, &ev)) > 0) {
		c->records++;
		switch (ev.type) {
		case PERF_RECORD_SAMPLE:
			if (!c->samples)
				c->first_ip = ev.u.sample.ip;
			c->last_time = ev.u.sample.time;
			c->samples++;
			break;
		case PERF_RECORD_MMAP2: c->mmap2++; break;
		case PERF_RECORD_COMM: c->comm++; break;
		case PERF_RECORD_FORK: c->fork++; break;
		case PD_RECORD_FINISHED_ROUND: c->rounds++; break;
		case PD_RECORD_HEADER_ATTR: c->attrs++; break;
		case PD_RECORD_HEADER_FEATURE: c->features++; break;
		case PD_RECORD_HEADER_BUILD_ID: c->build_id_recs++; break;
		default: break;
		}
	}
	c->end = k;
	if (k < 0)
		snprintf(c->err, sizeof(c->err), "%s", pd_reader_error(r));
	pd_reader_close(r);
	return 0;
}
