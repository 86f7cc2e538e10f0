/* test_swap.c - recorder/perfdata/swap.c: a perf.data written on a big-endian machine (built
 * here byte by byte) reads back in host order: header, attr incl. its flag bitfield, ids,
 * COMM, MMAP2, SAMPLE with callchain, sid trailers and a string feature. */
#include <criterion/criterion.h>
#include <byteswap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"
#include "recorder/perfdata/perfdata.h"

struct be {
	uint8_t b[4096];
	size_t n;
};

static void u8s(struct be *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}
static void u64(struct be *o, uint64_t v) { v = bswap_64(v); u8s(o, &v, 8); }
static void u32(struct be *o, uint32_t v) { v = bswap_32(v); u8s(o, &v, 4); }
static void u16(struct be *o, uint16_t v) { v = bswap_16(v); u8s(o, &v, 2); }
static void hdr(struct be *o, uint32_t type, uint16_t misc, uint16_t size)
{
	u32(o, type);
	u16(o, misc);
	u16(o, size);
}

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | \
	    PERF_SAMPLE_PERIOD)

static void sid(struct be *o)	/* TID, TIME */
{
	u32(o, 100);
	u32(o, 101);
	u64(o, 5555);
}

/* Big-endian bitfields fill from the most significant bit: bit n of the little-endian
 * layout is bit 63-n of the u64. */
static uint64_t be_flags(void)
{
	unsigned bits[] = { 1 /* inherit */, 10 /* freq */, 18 /* sample_id_all */,
			    23 /* mmap2 */, 25 /* use_clockid */ };
	uint64_t v = 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		v |= 1ULL << (63 - bits[i]);
	return v;
}

Test(swap, big_endian_file)
{
	struct be f = { .n = 0 };
	char *dir = tu_tmpdir("pdswap"), path[512];
	struct pd_reader *r;
	struct pd_event ev;
	int seen = 0;

	/* header */
	u64(&f, 0x32454c4946524550ULL);
	u64(&f, 104);
	u64(&f, 128 + 16);
	u64(&f, 112); u64(&f, 144);		/* attrs at 112 */
	u64(&f, 256); u64(&f, 0);		/* data: size patched below */
	u64(&f, 0); u64(&f, 0);
	u64(&f, 1ULL << PD_FEAT_HOSTNAME); u64(&f, 0); u64(&f, 0); u64(&f, 0);
	u64(&f, 0xabcdef);			/* [104] one id */
	/* [112] attr */
	size_t a0 = f.n;
	u32(&f, PERF_TYPE_SOFTWARE);
	u32(&f, 128);
	u64(&f, PERF_COUNT_SW_CPU_CLOCK);
	u64(&f, 999);
	u64(&f, ST);
	u64(&f, 0);
	u64(&f, be_flags());
	while (f.n < a0 + 92) f.b[f.n++] = 0;
	u32(&f, 1);				/* clockid at +92 */
	while (f.n < a0 + 128) f.b[f.n++] = 0;
	u64(&f, 104); u64(&f, 8);		/* ids section */
	cr_assert_eq(f.n, 256);
	/* data */
	hdr(&f, PERF_RECORD_COMM, 0x2000, 8 + 8 + 8 + 16);
	u32(&f, 100); u32(&f, 101);
	u8s(&f, "java\0\0\0\0", 8);
	sid(&f);
	hdr(&f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 72 + 16 + 16);
	u32(&f, 100); u32(&f, 101);
	u64(&f, 0x400000); u64(&f, 0x1000); u64(&f, 0x200);
	u32(&f, 8); u32(&f, 3); u64(&f, 777); u64(&f, 1);
	u32(&f, 5); u32(&f, 2);
	u8s(&f, "/bin/x\0\0\0\0\0\0\0\0\0\0", 16);
	sid(&f);
	hdr(&f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 * 8);
	u64(&f, 0x400123);
	u32(&f, 100); u32(&f, 101);
	u64(&f, 6000);
	u64(&f, 1001);				/* PERIOD */
	u64(&f, 3);
	u64(&f, PERF_CONTEXT_USER); u64(&f, 0x400123); u64(&f, 0x400456);
	uint64_t data_size = f.n - 256;
	/* features: table + HOSTNAME string */
	uint64_t feat = f.n + 16;
	u64(&f, feat); u64(&f, 4 + 8);
	u32(&f, 8);
	u8s(&f, "bighost\0", 8);
	uint64_t be_size = bswap_64(data_size);
	memcpy(f.b + 48, &be_size, 8);

	snprintf(path, sizeof(path), "%s/be.data", dir);
	cr_assert_eq(tu_write_file(path, f.b, f.n), 0);
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0, "%s", r ? pd_reader_error(r) : "");
	cr_assert(pd_reader_needs_swap(r));
	const struct pd_evsel *es = pd_reader_evsel(r, 0);
	cr_assert_eq(es->attr.sample_type, ST);
	cr_assert_eq(es->attr.sample_period, 999);
	cr_assert(es->attr.sample_id_all && es->attr.freq && es->attr.mmap2 && es->attr.inherit);
	cr_assert(es->attr.use_clockid);
	cr_assert_not(es->attr.disabled);
	cr_assert_eq(es->attr.clockid, 1);
	cr_assert_eq(es->ids[0], 0xabcdef);
	const char *host;
	cr_assert_eq(pd_reader_feat_string(r, PD_FEAT_HOSTNAME, &host), 0);
	cr_assert_str_eq(host, "bighost");
	while (pd_reader_next(r, &ev) > 0) {
		const struct perf_event_header *h = ev.raw;
		cr_assert_eq(h->type, ev.type, "raw bytes are in host order");
		if (ev.type == PERF_RECORD_COMM) {
			cr_assert_eq(ev.u.comm.pid, 100);
			cr_assert_str_eq(ev.u.comm.comm, "java");
			cr_assert(ev.u.comm.exec);
			cr_assert_eq(ev.sid.time, 5555);
			cr_assert_eq(ev.sid.tid, 101);
		} else if (ev.type == PERF_RECORD_MMAP2) {
			cr_assert_eq(ev.u.mmap.start, 0x400000);
			cr_assert_eq(ev.u.mmap.pgoff, 0x200);
			cr_assert_eq(ev.u.mmap.ino, 777);
			cr_assert_eq(ev.u.mmap.prot, 5);
			cr_assert_str_eq(ev.u.mmap.filename, "/bin/x");
		} else if (ev.type == PERF_RECORD_SAMPLE) {
			cr_assert_eq(ev.u.sample.ip, 0x400123);
			cr_assert_eq(ev.u.sample.tid, 101);
			cr_assert_eq(ev.u.sample.period, 1001);
			cr_assert_eq(ev.u.sample.nr_callchain, 3);
			cr_assert_eq(ev.u.sample.callchain[2], 0x400456);
		}
		seen++;
	}
	cr_assert_eq(seen, 3, "%s", pd_reader_error(r));
	pd_reader_close(r);
	tu_rmtree(dir);
	free(dir);
}
