/* swap.c - reading perf.data written on a machine of the other byte order: every record,
 * attr and known feature is swapped field by field into host order, so the rest of the
 * library (and its callers) only ever see host-order bytes. Layouts are described by small
 * format strings rather than one hand-written swapper per type. */
#include <byteswap.h>

#include "recorder/perfdata/perfdata_int.h"

static void sw16(uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	v = bswap_16(v);
	memcpy(p, &v, 2);
}

static void sw32(uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	v = bswap_32(v);
	memcpy(p, &v, 4);
}

static void sw64(uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	v = bswap_64(v);
	memcpy(p, &v, 8);
}

/* Layout language: '2' '4' '8' swap a field of that width; 'x' skips a byte; 'B' skips 20
 * (a build-id); '*' swaps u64s to the end; 's' stops (a string follows). Returns the
 * position reached. */
static size_t swap_fmt(uint8_t *p, size_t len, const char *fmt)
{
	size_t off = 0;

	for (; *fmt; fmt++) {
		switch (*fmt) {
		case '2':
			if (off + 2 > len)
				return off;
			sw16(p + off);
			off += 2;
			break;
		case '4':
			if (off + 4 > len)
				return off;
			sw32(p + off);
			off += 4;
			break;
		case '8':
			if (off + 8 > len)
				return off;
			sw64(p + off);
			off += 8;
			break;
		case 'x':
			off += off < len;
			break;
		case 'B':
			off = off + 20 <= len ? off + 20 : len;
			break;
		case '*':
			for (; off + 8 <= len; off += 8)
				sw64(p + off);
			return off;
		default:
			return off;
		}
	}
	return off;
}

void pd_swap_attr(void *attr, size_t size)
{
	uint8_t *p = attr;

	swap_fmt(p, size, "44" "8888" "xxxxxxxx" "44" "8888" "44" "8" "4" "22" "44" "8" "8");
	/* The flag bitfield (offset 40) is allocated from the most significant bit on a
	 * big-endian machine: flag n sits in the same byte but at bit 7 - n % 8. Reversing
	 * the bits of each byte (not the bytes) converts it, as perf's swap_bitfield does. */
	if (size >= 48) {
		for (int i = 40; i < 48; i++) {
			uint8_t b = p[i], o = 0;
			for (int k = 0; k < 8; k++)
				o |= (uint8_t)(((b >> k) & 1) << (7 - k));
			p[i] = o;
		}
	}
}

static const char *kernel_fmt(uint32_t type, uint16_t misc)
{
	switch (type) {
	case PERF_RECORD_MMAP:		return "44888s";
	case PERF_RECORD_LOST:		return "88";
	case PERF_RECORD_COMM:		return "44s";
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:		return "44448";
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:	return "888";
	case PERF_RECORD_READ:		return "44*";
	case PERF_RECORD_MMAP2:
		return (misc & PD_MISC_MMAP_BUILD_ID) ? "44888xx2B44s" : "448884488" "44s";
	case PERF_RECORD_AUX:		return "888";
	case PERF_RECORD_ITRACE_START:	return "44";
	case PERF_RECORD_LOST_SAMPLES:	return "8";
	case PERF_RECORD_SWITCH_CPU_WIDE: return "44";
	case PERF_RECORD_NAMESPACES:	return "44*";
	case PERF_RECORD_KSYMBOL:	return "8422s";
	case PERF_RECORD_BPF_EVENT:	return "224";
	case 19 /* CGROUP */:		return "8s";
	case 20 /* TEXT_POKE */:	return "822";
	case 21 /* AUX_OUTPUT_HW_ID */:	return "8";
	default:			return "";
	}
}

static const char *user_fmt(uint32_t type)
{
	switch (type) {
	case PD_RECORD_HEADER_BUILD_ID:	return "4Bxx2s";
	case PD_RECORD_ID_INDEX:	return "*";
	case PD_RECORD_AUXTRACE_INFO:	return "44*";
	case PD_RECORD_AUXTRACE:	return "8884444";
	case PD_RECORD_AUXTRACE_ERROR:	return "444444888";
	case PD_RECORD_HEADER_TRACING_DATA: return "44";
	case PD_RECORD_STAT_CONFIG:
	case PD_RECORD_STAT_ROUND:
	case PD_RECORD_TIME_CONV:	return "88888";
	case PD_RECORD_STAT:		return "84488";
	case PD_RECORD_EVENT_UPDATE:	return "88";
	default:			return "";
	}
}

/* Sample fields by width, in sample_type order. */
static void swap_sample(const struct perf_event_attr *a, uint8_t *p, size_t len)
{
	uint64_t st = a->sample_type;
	size_t off = 0;

#define FIELD(bit, fmt) do { if (st & (bit)) off += swap_fmt(p + off, len - off, fmt); } while (0)
	FIELD(PERF_SAMPLE_IDENTIFIER, "8");
	FIELD(PERF_SAMPLE_IP, "8");
	FIELD(PERF_SAMPLE_TID, "44");
	FIELD(PERF_SAMPLE_TIME, "8");
	FIELD(PERF_SAMPLE_ADDR, "8");
	FIELD(PERF_SAMPLE_ID, "8");
	FIELD(PERF_SAMPLE_STREAM_ID, "8");
	FIELD(PERF_SAMPLE_CPU, "44");
	FIELD(PERF_SAMPLE_PERIOD, "8");
#undef FIELD
	/* READ, CALLCHAIN and everything after are u64 arrays, except RAW's bytes: swap u64s
	 * up to RAW, then stop (perf itself leaves raw payloads to the tracepoint parser). */
	if (st & PERF_SAMPLE_RAW) {
		/* RAW's start is known only after walking CALLCHAIN (READ before RAW is rare and
		 * left unswapped past this point). */
		if (st & PERF_SAMPLE_CALLCHAIN && !(st & PERF_SAMPLE_READ) && off + 8 <= len) {
			sw64(p + off);
			uint64_t nr;
			memcpy(&nr, p + off, 8);
			off += 8;
			for (uint64_t i = 0; i < nr && off + 8 <= len; i++, off += 8)
				sw64(p + off);
		}
		if (off + 4 <= len)
			sw32(p + off);
		return;
	}
	swap_fmt(p + off, len - off, "*");
}

void pd_swap_record(const struct pd_reader *r, void *rec, size_t size)
{
	struct perf_event_header *h = rec;
	uint8_t *body = (uint8_t *)rec + sizeof(*h);
	size_t len = size - sizeof(*h);
	const struct perf_event_attr *a = r->nr_evsels ? &r->evsels[0]->attr : NULL;

	if (h->type == PERF_RECORD_SAMPLE) {
		/* The evsel is found from the id, which sits at a fixed place: swap that first. */
		if (a)
			swap_sample(a, body, len);
		return;
	}
	if (h->type >= PD_RECORD_USER_TYPE_START) {
		if (h->type == PD_RECORD_HEADER_ATTR) {
			uint32_t asz;
			if (len < 8)
				return;
			memcpy(&asz, body + 4, 4);
			asz = bswap_32(asz);
			if (!asz)
				asz = 64;
			if (asz > len)
				asz = (uint32_t)len;
			pd_swap_attr(body, asz);
			swap_fmt(body + asz, len - asz, "*");	/* the ids */
		} else if (h->type == PD_RECORD_HEADER_FEATURE) {
			uint64_t feat;
			if (len < 8)
				return;
			sw64(body);
			memcpy(&feat, body, 8);
			pd_swap_feature((unsigned)feat, body + 8, len - 8);
		} else {
			swap_fmt(body, len, user_fmt(h->type));
		}
		return;
	}
	/* Kernel records: body by layout, then the sid trailer as u64s/u32 pairs from the end. */
	size_t sid = a ? pd_sid_size(a) : 0;
	if (sid > len)
		sid = len;
	swap_fmt(body, len - sid, kernel_fmt(h->type, h->misc));
	if (sid) {
		uint8_t *t = body + len - sid;
		uint64_t st = a->sample_type;
		if (st & PERF_SAMPLE_TID)
			t += swap_fmt(t, 8, "44");
		if (st & PERF_SAMPLE_TIME)
			t += swap_fmt(t, 8, "8");
		if (st & PERF_SAMPLE_ID)
			t += swap_fmt(t, 8, "8");
		if (st & PERF_SAMPLE_STREAM_ID)
			t += swap_fmt(t, 8, "8");
		if (st & PERF_SAMPLE_CPU)
			t += swap_fmt(t, 8, "44");
		if (st & PERF_SAMPLE_IDENTIFIER)
			swap_fmt(t, 8, "8");
	}
}

/* perf_header_string list: u32 nr then nr × {u32 len; bytes}. */
static void swap_strings(uint8_t *p, size_t len, size_t nr)
{
	size_t off = 0;

	for (size_t i = 0; i < nr && off + 4 <= len; i++) {
		uint32_t l;
		sw32(p + off);
		memcpy(&l, p + off, 4);
		off += 4;
		if (l > len - off)
			return;
		off += l;
	}
}

void pd_swap_feature(unsigned feat, void *data, size_t size)
{
	uint8_t *p = data;
	uint32_t nr;

	switch (feat) {
	case PD_FEAT_HOSTNAME: case PD_FEAT_OSRELEASE: case PD_FEAT_VERSION: case PD_FEAT_ARCH:
	case PD_FEAT_CPUDESC: case PD_FEAT_CPUID:
		swap_strings(p, size, 1);
		break;
	case PD_FEAT_CMDLINE:
		if (size < 4)
			return;
		sw32(p);
		memcpy(&nr, p, 4);
		swap_strings(p + 4, size - 4, nr);
		break;
	case PD_FEAT_NRCPUS:
		swap_fmt(p, size, "44");
		break;
	case PD_FEAT_TOTAL_MEM: case PD_FEAT_CLOCKID:
		swap_fmt(p, size, "8");
		break;
	case PD_FEAT_SAMPLE_TIME:
		swap_fmt(p, size, "88");
		break;
	case PD_FEAT_CLOCK_DATA:
		swap_fmt(p, size, "4488");
		break;
	case PD_FEAT_BUILD_ID: {
		size_t off = 0;
		while (off + sizeof(struct pd_build_id_rec) <= size) {
			uint16_t sz;
			swap_fmt(p + off, size - off, "422" "4Bxx2");
			memcpy(&sz, p + off + 6, 2);
			if (sz < sizeof(struct pd_build_id_rec))
				return;
			off += sz;
		}
		break;
	}
	case PD_FEAT_EVENT_DESC: {
		uint32_t asz;
		size_t off = 8;
		if (swap_fmt(p, size, "44") < 8)
			return;
		memcpy(&nr, p, 4);
		memcpy(&asz, p + 4, 4);
		for (uint32_t i = 0; i < nr && off + asz + 4 <= size; i++) {
			uint32_t nids, sl;
			pd_swap_attr(p + off, asz);
			off += asz;
			sw32(p + off);
			memcpy(&nids, p + off, 4);
			off += 4;
			if (off + 4 > size)
				return;
			sw32(p + off);
			memcpy(&sl, p + off, 4);
			off += 4;
			if (sl > size - off)
				return;
			off += sl;
			if (nids > (size - off) / 8)
				return;
			swap_fmt(p + off, nids * 8, "*");
			off += nids * 8;
		}
		break;
	}
	default:
		break;	/* unknown layout: kept as read */
	}
}
