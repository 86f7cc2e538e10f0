/* test_decode.c - recorder/perfdata/decode.c: the sid trailer for every combination of its
 * bits, samples with the less common fields (READ, RAW, BRANCH_STACK, REGS, STACK_USER,
 * WEIGHT..., AUX) placed where the kernel puts them, and short records rejected. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"

Test(sid, every_combination_round_trips)
{
	static const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					 PERF_SAMPLE_IDENTIFIER };
	for (unsigned m = 0; m < 64; m++) {
		struct perf_event_attr a = { .sample_id_all = 1, .sample_type = PERF_SAMPLE_IP };
		uint8_t rec[8 + 16 + 64] = { 0 };
		struct pd_sid in = { .pid = 7, .tid = 8, .time = 99, .id = 1234, .stream_id = 5,
				     .cpu = 3 }, out;
		unsigned n = 0;
		for (unsigned b = 0; b < 6; b++)
			if (m & (1u << b)) {
				a.sample_type |= bits[b];
				n++;
			}
		cr_assert_eq(pd_sid_size(&a), 8 * n);
		size_t w = pd_sid_write(&a, &in, rec + 24);
		cr_assert_eq(w, 8 * n);
		cr_assert_eq(pd_sid_parse(&a, rec, 24 + w, &out), 0);
		if (a.sample_type & PERF_SAMPLE_TID)
			cr_assert(out.pid == 7 && out.tid == 8);
		if (a.sample_type & PERF_SAMPLE_TIME)
			cr_assert_eq(out.time, 99);
		if (a.sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
			cr_assert_eq(out.id, 1234);
		if (a.sample_type & PERF_SAMPLE_CPU)
			cr_assert_eq(out.cpu, 3);
		if (a.sample_type & PERF_SAMPLE_STREAM_ID)
			cr_assert_eq(out.stream_id, 5);
	}
}

Test(sid, no_sample_id_all_means_no_trailer)
{
	struct perf_event_attr a = { .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME };
	cr_assert_eq(pd_sid_size(&a), 0);
}

Test(sid, too_short_record)
{
	struct perf_event_attr a = { .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME };
	uint8_t rec[16] = { 0 };
	struct pd_sid s;
	cr_assert_eq(pd_sid_parse(&a, rec, sizeof(rec), &s), -EINVAL);
}

/* A sample with nearly every field, laid out in the kernel's order. */
Test(decode, sample_with_all_fields)
{
	struct perf_event_attr a = { 0 };
	uint64_t rec[64] = { 0 };
	uint64_t *p = rec + 1;
	struct pd_event ev;

	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
			PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |
			(1ULL << 21) | (1ULL << 22) | (1ULL << 23) | (1ULL << 20);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	a.sample_regs_user = 0x3;	/* two registers */
	*p++ = 77;			/* IDENTIFIER */
	*p++ = 0x401000;		/* IP */
	*p++ = 5 | (6ULL << 32);	/* pid, tid */
	*p++ = 123456;			/* TIME */
	*p++ = 0xdead;			/* ADDR */
	*p++ = 77;			/* ID */
	*p++ = 9;			/* STREAM_ID */
	*p++ = 2;			/* CPU */
	*p++ = 1000;			/* PERIOD */
	*p++ = 11; *p++ = 22; *p++ = 33;	/* READ: value, enabled, id */
	*p++ = 2; *p++ = PERF_CONTEXT_USER; *p++ = 0x401000;	/* CALLCHAIN */
	*p++ = 4 | (0xabcdULL << 32);	/* RAW: size 4 + 4 bytes data = 8 */
	*p++ = 1; *p++ = 1; *p++ = 2; *p++ = 3;	/* BRANCH_STACK nr=1 */
	*p++ = 2; *p++ = 0x10; *p++ = 0x20;	/* REGS_USER abi=64, 2 regs */
	*p++ = 8; *p++ = 0x1122334455667788ULL; *p++ = 8;	/* STACK_USER */
	*p++ = 42;			/* WEIGHT */
	*p++ = 0x55;			/* DATA_SRC */
	*p++ = 0;			/* TRANSACTION */
	*p++ = 0x9000;			/* PHYS_ADDR */
	*p++ = 17;			/* CGROUP */
	*p++ = 4096;			/* DATA_PAGE_SIZE */
	*p++ = 4096;			/* CODE_PAGE_SIZE */
	*p++ = 8; *p++ = 0;		/* AUX 8 bytes */
	struct perf_event_header *h = (void *)rec;
	h->type = PERF_RECORD_SAMPLE;
	h->size = (uint16_t)((p - rec) * 8);
	cr_assert_eq(pd_decode_attr(&a, rec, h->size, &ev), 0);
	cr_assert_eq(ev.u.sample.ip, 0x401000);
	cr_assert_eq(ev.u.sample.pid, 5);
	cr_assert_eq(ev.u.sample.tid, 6);
	cr_assert_eq(ev.u.sample.time, 123456);
	cr_assert_eq(ev.u.sample.addr, 0xdead);
	cr_assert_eq(ev.u.sample.id, 77);
	cr_assert_eq(ev.u.sample.cpu, 2);
	cr_assert_eq(ev.u.sample.period, 1000);
	cr_assert_eq(ev.u.sample.nr_callchain, 2);
	cr_assert_eq(ev.u.sample.raw_size, 4);
	cr_assert_eq(ev.u.sample.weight, 42);
	cr_assert_eq(ev.u.sample.data_src, 0x55);
	cr_assert_eq(ev.u.sample.phys_addr, 0x9000);
	cr_assert_eq(ev.u.sample.cgroup, 17);
	/* One byte short anywhere: rejected, not overread. */
	for (uint16_t cut = 8; cut < h->size; cut += 8)
		cr_assert_eq(pd_decode_attr(&a, rec, cut, &ev), -EINVAL, "cut %u", cut);
}

Test(decode, huge_callchain_nr_rejected)
{
	struct perf_event_attr a = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN };
	uint64_t rec[4] = { 0, 0x1000, UINT64_MAX / 4, 0 };
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev;

	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(rec);
	cr_assert_eq(pd_decode_attr(&a, rec, sizeof(rec), &ev), -EINVAL);
}

Test(decode, mmap_without_nul_rejected)
{
	struct perf_event_attr a = { 0 };
	uint8_t rec[8 + 32 + 8];
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev;

	memset(rec, 'A', sizeof(rec));
	h->type = PERF_RECORD_MMAP;
	h->misc = 0;
	h->size = sizeof(rec);
	cr_assert_eq(pd_decode_attr(&a, rec, sizeof(rec), &ev), -EINVAL);
	rec[sizeof(rec) - 1] = 0;
	cr_assert_eq(pd_decode_attr(&a, rec, sizeof(rec), &ev), 0);
	cr_assert_eq(strlen(ev.u.mmap.filename), 7);
}

Test(decode, ksymbol_and_bpf_event)
{
	struct perf_event_attr a = { 0 };
	uint8_t rec[8 + 16 + 8] = { 0 };
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev;
	uint64_t addr = 0xffffffffc0001000ULL;
	uint32_t len = 64;
	uint16_t type = 1;

	h->type = PERF_RECORD_KSYMBOL;
	h->size = sizeof(rec);
	memcpy(rec + 8, &addr, 8);
	memcpy(rec + 16, &len, 4);
	memcpy(rec + 20, &type, 2);
	memcpy(rec + 24, "bpf_x", 6);
	cr_assert_eq(pd_decode_attr(&a, rec, sizeof(rec), &ev), 0);
	cr_assert_eq(ev.u.ksymbol.addr, addr);
	cr_assert_eq(ev.u.ksymbol.len, 64);
	cr_assert_eq(ev.u.ksymbol.ksym_type, 1);
	cr_assert_str_eq(ev.u.ksymbol.name, "bpf_x");
	h->type = PERF_RECORD_BPF_EVENT;
	h->size = 24;
	uint32_t id = 99;
	memcpy(rec + 12, &id, 4);
	cr_assert_eq(pd_decode_attr(&a, rec, 24, &ev), 0);
	cr_assert_eq(ev.u.bpf.id, 99);
}

/* --call-graph dwarf samples: the user registers and the stack copy are handed to the caller
 * (the unwinder), the copy cut to the kernel's dyn_size and never past its own size, which a
 * hostile dyn_size cannot stretch; abi 0 means no registers. */
Test(decode, user_regs_and_stack_copy)
{
	struct perf_event_attr a = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER |
						    PERF_SAMPLE_STACK_USER,
				     .sample_regs_user = 0x181 /* AX, SP, IP */ };
	uint64_t rec[1 + 1 + 1 + 3 + 1 + 2 + 1] = { 0 };
	struct perf_event_header *h = (void *)rec;
	struct pd_event ev;
	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(rec);
	rec[1] = 0x401000;
	rec[2] = 2;			/* PERF_SAMPLE_REGS_ABI_64 */
	rec[3] = 11;
	rec[4] = 0x7ffd0000;
	rec[5] = 0x401000;
	rec[6] = 16;			/* the copy's size */
	rec[7] = 0xaaaa;
	rec[8] = 0xbbbb;
	rec[9] = 12;			/* dyn_size: the valid part */
	cr_assert_eq(pd_decode_attr(&a, rec, h->size, &ev), 0);
	const struct pd_sample *s = &ev.u.sample;
	cr_assert_eq(s->regs_abi, 2);
	cr_assert_eq(s->regs_mask, 0x181);
	cr_assert(s->regs && s->regs[1] == 0x7ffd0000 && s->regs[2] == 0x401000);
	cr_assert_eq((const void *)s->stack, (const void *)&rec[7]);
	cr_assert_eq(s->stack_size, 12);
	rec[9] = UINT64_MAX;		/* dyn_size past the copy */
	cr_assert_eq(pd_decode_attr(&a, rec, h->size, &ev), 0);
	cr_assert_eq(ev.u.sample.stack_size, 16);
	rec[6] = UINT64_MAX;		/* a copy past the record */
	cr_assert_eq(pd_decode_attr(&a, rec, h->size, &ev), -EINVAL);
	cr_assert_null(ev.u.sample.stack);
	rec[6] = 16;
	for (uint16_t cut = 8; cut < h->size; cut += 8)
		cr_assert_eq(pd_decode_attr(&a, rec, cut, &ev), -EINVAL, "cut %u", cut);
	/* abi 0 (a kernel thread): no registers follow, none handed out. */
	uint64_t none[1 + 1 + 1 + 1] = { 0 };
	h = (void *)none;
	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(none);
	cr_assert_eq(pd_decode_attr(&a, none, h->size, &ev), 0);
	cr_assert_null(ev.u.sample.regs);
	cr_assert_null(ev.u.sample.stack);
	cr_assert_eq(ev.u.sample.stack_size, 0);
}
