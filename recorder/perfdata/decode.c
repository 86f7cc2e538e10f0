/* decode.c - turns one host-order record into a struct pd_event: the sid trailer, the sample
 * layout for any sample_type, and the fixed layouts of the kernel and perf record types.
 * Every length comes from untrusted bytes, so each read is checked against what is left. */
#include <errno.h>

#include "recorder/perfdata/perfdata_int.h"

/* Sample bits newer than some uapi headers carry. */
#define PD_SAMPLE_WEIGHT_STRUCT (1ULL << 24)
#define PD_BRANCH_HW_INDEX (1ULL << 17)
#define PD_BRANCH_COUNTERS (1ULL << 19)

size_t pd_sid_size(const struct perf_event_attr *attr)
{
	if (!attr->sample_id_all)
		return 0;
	return 8u * (size_t)__builtin_popcountll(attr->sample_type & PD_SID_TYPES);
}

size_t pd_sid_write(const struct perf_event_attr *attr, const struct pd_sid *sid, void *buf)
{
	static const struct pd_sid zero;
	uint64_t *p = buf;
	uint64_t st = attr->sample_type;

	if (!attr->sample_id_all)
		return 0;
	if (!sid)
		sid = &zero;
	if (st & PERF_SAMPLE_TID)
		*p++ = (uint64_t)sid->pid | (uint64_t)sid->tid << 32;
	if (st & PERF_SAMPLE_TIME)
		*p++ = sid->time;
	if (st & PERF_SAMPLE_ID)
		*p++ = sid->id;
	if (st & PERF_SAMPLE_STREAM_ID)
		*p++ = sid->stream_id;
	if (st & PERF_SAMPLE_CPU)
		*p++ = sid->cpu;
	if (st & PERF_SAMPLE_IDENTIFIER)
		*p++ = sid->id;
	return (size_t)((uint8_t *)p - (uint8_t *)buf);
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t ld16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* Parsed backwards from the end, as perf does: the body length does not matter. */
int pd_sid_parse(const struct perf_event_attr *attr, const void *rec, size_t size,
		 struct pd_sid *sid)
{
	uint64_t st = attr->sample_type;
	size_t n = pd_sid_size(attr);
	const uint8_t *end = (const uint8_t *)rec + size;

	memset(sid, 0, sizeof(*sid));
	if (!n)
		return 0;
	if (size < sizeof(struct perf_event_header) + n)
		return -EINVAL;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		end -= 8;
		sid->id = ld64(end);
		sid->present |= PD_SID_ID;
	}
	if (st & PERF_SAMPLE_CPU) {
		end -= 8;
		sid->cpu = ld32(end);
		sid->present |= PD_SID_CPU;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		end -= 8;
		sid->stream_id = ld64(end);
		sid->present |= PD_SID_STREAM_ID;
	}
	if (st & PERF_SAMPLE_ID) {
		end -= 8;
		sid->id = ld64(end);
		sid->present |= PD_SID_ID;
	}
	if (st & PERF_SAMPLE_TIME) {
		end -= 8;
		sid->time = ld64(end);
		sid->present |= PD_SID_TIME;
	}
	if (st & PERF_SAMPLE_TID) {
		end -= 8;
		sid->pid = ld32(end);
		sid->tid = ld32(end + 4);
		sid->present |= PD_SID_TID;
	}
	return 0;
}

/* A bounds-checked cursor over the record body. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t take64(struct cur *c)
{
	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	uint64_t v = ld64(c->p);
	c->p += 8;
	return v;
}

static const uint8_t *skip(struct cur *c, uint64_t n)
{
	const uint8_t *at = c->p;
	if (c->bad || (uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return at;
}

static void skip_read_values(struct cur *c, uint64_t rf)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & (1u << 4) /* LOST */);
	uint64_t hdr = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = take64(c);
		skip(c, 8 * hdr);
		if (nr > (uint64_t)(c->end - c->p) / 8 / per)
			c->bad = true;
		else
			skip(c, 8 * per * nr);
	} else {
		skip(c, 8 * (per + hdr));
	}
}

/* The registers after a non-zero abi; NULL if the record is too short for them. */
static const uint8_t *skip_regs_body(struct cur *c, uint64_t mask)
{
	return skip(c, 8ULL * (uint64_t)__builtin_popcountll(mask));
}

static void skip_regs(struct cur *c, uint64_t mask)
{
	if (take64(c) != 0)	/* abi NONE: no registers follow */
		skip_regs_body(c, mask);
}

static int decode_sample(const struct perf_event_attr *a, struct cur *c, struct pd_sample *s)
{
	uint64_t st = a->sample_type;
	const uint8_t *rec = c->p - 8;	/* the header's first byte */

	s->sample_type = st;	/* s is zeroed: decode() clears the whole union first */
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = take64(c);
	if (st & PERF_SAMPLE_IP)
		s->ip = take64(c);
	if (st & PERF_SAMPLE_TID) {
		uint64_t v = take64(c);
		memcpy(&s->pid, &v, 4);
		memcpy(&s->tid, (uint8_t *)&v + 4, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = take64(c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = take64(c);
	if (st & PERF_SAMPLE_ID)
		s->id = take64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = take64(c);
	if (st & PERF_SAMPLE_CPU) {
		uint64_t v = take64(c);
		memcpy(&s->cpu, &v, 4);
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = take64(c);
	if (st & PERF_SAMPLE_READ)
		skip_read_values(c, a->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->off_callchain = (uint32_t)(c->p - rec);
		uint64_t nr = take64(c);
		if (!c->bad && nr > (uint64_t)(c->end - c->p) / 8)
			c->bad = true;
		s->nr_callchain = nr;
		s->callchain = (const uint64_t *)skip(c, nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size then bytes; the (4 + size) block is padded to 8 by the kernel. */
		const uint8_t *p = skip(c, 4);
		if (p) {
			s->raw_size = ld32(p);
			s->raw_data = skip(c, s->raw_size);
			skip(c, pd_align(4 + (uint64_t)s->raw_size, 8) - 4 - s->raw_size);
		}
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = take64(c);
		uint64_t per = 3 + !!(a->branch_sample_type & PD_BRANCH_COUNTERS);
		if (a->branch_sample_type & PD_BRANCH_HW_INDEX)
			take64(c);
		if (!c->bad && nr > (uint64_t)(c->end - c->p) / 8 / per)
			c->bad = true;
		skip(c, nr * 8 * per);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		const uint8_t *at = c->p + 8;
		s->off_regs_user = (uint32_t)(c->p - rec);
		if ((s->regs_abi = take64(c)) != 0 && skip_regs_body(c, a->sample_regs_user)) {
			s->regs_mask = a->sample_regs_user;
			s->regs = (const uint64_t *)at;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz = take64(c);
		if (sz) {
			const uint8_t *at = skip(c, sz);
			uint64_t dyn = take64(c);
			if (at && !c->bad) {
				s->stack = at;
				s->stack_size = dyn < sz ? dyn : sz;
				s->stack_copy = sz;
			}
		}
		s->off_after_stack = (uint32_t)(c->p - rec);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		s->weight = take64(c);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = take64(c);
	if (st & PERF_SAMPLE_TRANSACTION)
		take64(c);
	if (st & PERF_SAMPLE_REGS_INTR)
		skip_regs(c, a->sample_regs_intr);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = take64(c);
	if (st & (1ULL << 21))	/* CGROUP */
		s->cgroup = take64(c);
	if (st & (1ULL << 22))	/* DATA_PAGE_SIZE */
		take64(c);
	if (st & (1ULL << 23))	/* CODE_PAGE_SIZE */
		take64(c);
	if (st & (1ULL << 20)) {	/* AUX */
		uint64_t sz = take64(c);
		skip(c, sz);
	}
	return c->bad ? -EINVAL : 0;
}

/* A string field running to the end of the body: must hold a NUL before end. */
static const char *body_str(struct cur *c)
{
	const uint8_t *nul;

	if (c->bad || c->p >= c->end || !(nul = memchr(c->p, 0, (size_t)(c->end - c->p)))) {
		c->bad = true;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

static void decode_mmap(uint32_t type, uint16_t misc, struct cur *c, struct pd_mmap *m)
{
	const uint8_t *p = skip(c, type == PERF_RECORD_MMAP2 ? 64 : 32);

	memset(m, 0, sizeof(*m));
	if (!p)
		return;
	m->pid = ld32(p);
	m->tid = ld32(p + 4);
	m->start = ld64(p + 8);
	m->len = ld64(p + 16);
	m->pgoff = ld64(p + 24);
	if (type == PERF_RECORD_MMAP2) {
		m->is_mmap2 = true;
		if (misc & PD_MISC_MMAP_BUILD_ID) {
			m->has_build_id = true;
			m->build_id_size = p[32];
			if (m->build_id_size > PD_BUILD_ID_MAX)
				m->build_id_size = PD_BUILD_ID_MAX;
			memcpy(m->build_id, p + 36, PD_BUILD_ID_MAX);
		} else {
			m->maj = ld32(p + 32);
			m->min = ld32(p + 36);
			m->ino = ld64(p + 40);
			m->ino_generation = ld64(p + 48);
		}
		m->prot = ld32(p + 56);
		m->flags = ld32(p + 60);
	}
	m->filename = body_str(c);
}

static void decode_build_id(const uint8_t *rec, size_t size, struct cur *c,
			    struct pd_build_id_ev *b)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint8_t *p = skip(c, 28);

	memset(b, 0, sizeof(*b));
	(void)size;
	if (!p)
		return;
	memcpy(&b->pid, p, 4);
	memcpy(b->build_id, p + 4, PD_BUILD_ID_MAX);
	b->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	b->size = (h->misc & PD_MISC_BUILD_ID_SIZE) ? p[24] : PD_BUILD_ID_MAX;
	if (b->size > PD_BUILD_ID_MAX)
		b->size = PD_BUILD_ID_MAX;
	b->filename = body_str(c);
}

/* The evsel a record belongs to: by sample id when there are several attrs. */
static const struct pd_evsel *find_evsel(const struct pd_reader *r, const uint8_t *rec,
					 size_t size, bool sample)
{
	const struct perf_event_attr *a;
	uint64_t id;

	if (!r || !r->nr_evsels)
		return NULL;
	if (r->nr_evsels == 1)
		return r->evsels[0];
	a = &r->evsels[0]->attr;
	if (sample) {
		if (a->sample_type & PERF_SAMPLE_IDENTIFIER) {
			if (size < 16)
				return NULL;
			id = ld64(rec + 8);
		} else if (a->sample_type & PERF_SAMPLE_ID) {
			/* ID sits after IP, TID, TIME, ADDR (identical on all attrs). */
			size_t pos = 8 + 8 * (size_t)__builtin_popcountll(a->sample_type &
				(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
			if (size < pos + 8)
				return NULL;
			id = ld64(rec + pos);
		} else {
			return r->evsels[0];
		}
	} else {
		struct pd_sid sid;
		if (!a->sample_id_all || pd_sid_parse(a, rec, size, &sid) || !(sid.present & PD_SID_ID))
			return r->evsels[0];
		id = sid.id;
	}
	return id ? pd_reader_evsel_by_id(r, id) : r->evsels[0];
}

/* attr: the attr this record belongs to (NULL: resolve it through r, if any). */
static int decode(const struct pd_reader *r, const struct perf_event_attr *attr, const void *rec,
		  size_t size, struct pd_event *ev)
{
	const struct perf_event_header *h = rec;
	const uint8_t *b = rec;
	struct cur c;
	size_t sid_sz = 0;
	const struct pd_evsel *es = NULL;

	memset(&ev->u, 0, sizeof(ev->u));
	memset(&ev->sid, 0, sizeof(ev->sid));
	ev->has_sid = false;
	ev->evsel = NULL;
	if (size < sizeof(*h))
		return -EINVAL;
	ev->type = h->type;
	ev->misc = h->misc;
	ev->size = h->size;
	ev->raw = rec;
	c.p = b + 8;
	c.end = b + size;
	c.bad = false;

	if (h->type >= PD_RECORD_USER_TYPE_START) {
		switch (h->type) {
		case PD_RECORD_HEADER_BUILD_ID:
			decode_build_id(b, size, &c, &ev->u.build_id);
			break;
		case PD_RECORD_HEADER_FEATURE: {
			ev->u.feature.feat_id = take64(&c);
			ev->u.feature.data = c.p;
			ev->u.feature.size = c.bad ? 0 : (size_t)(c.end - c.p);
			break;
		}
		default:
			break;
		}
		return c.bad ? -EINVAL : 0;
	}

	if (!attr) {
		es = find_evsel(r, b, size, h->type == PERF_RECORD_SAMPLE);
		ev->evsel = es;
		attr = es ? &es->attr : NULL;
	}
	if (h->type == PERF_RECORD_SAMPLE) {
		struct pd_sample *s = &ev->u.sample;
		if (!attr)
			return 0;	/* unknown id: delivered undecoded */
		if (decode_sample(attr, &c, s))
			return -EINVAL;
		ev->sid = (struct pd_sid){ .pid = s->pid, .tid = s->tid, .time = s->time,
					   .id = s->id, .stream_id = s->stream_id, .cpu = s->cpu };
		return 0;
	}
	if (attr && attr->sample_id_all) {
		sid_sz = pd_sid_size(attr);
		if (pd_sid_parse(attr, b, size, &ev->sid))
			return -EINVAL;
		ev->has_sid = true;
		c.end -= sid_sz;
	}

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		decode_mmap(h->type, h->misc, &c, &ev->u.mmap);
		break;
	case PERF_RECORD_COMM: {
		const uint8_t *p = skip(&c, 8);
		if (p) {
			ev->u.comm.pid = ld32(p);
			ev->u.comm.tid = ld32(p + 4);
		}
		ev->u.comm.comm = body_str(&c);
		ev->u.comm.exec = h->misc & PD_MISC_COMM_EXEC;
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		const uint8_t *p = skip(&c, 24);
		if (p) {
			ev->u.task.pid = ld32(p);
			ev->u.task.ppid = ld32(p + 4);
			ev->u.task.tid = ld32(p + 8);
			ev->u.task.ptid = ld32(p + 12);
			ev->u.task.time = ld64(p + 16);
		}
		break;
	}
	case PERF_RECORD_LOST:
		ev->u.lost.id = take64(&c);
		ev->u.lost.lost = take64(&c);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		ev->u.lost.lost = take64(&c);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		ev->u.throttle.time = take64(&c);
		ev->u.throttle.id = take64(&c);
		ev->u.throttle.stream_id = take64(&c);
		break;
	case PERF_RECORD_KSYMBOL: {
		const uint8_t *p = skip(&c, 16);
		if (p) {
			ev->u.ksymbol.addr = ld64(p);
			ev->u.ksymbol.len = ld32(p + 8);
			ev->u.ksymbol.ksym_type = ld16(p + 12);
			ev->u.ksymbol.flags = ld16(p + 14);
		}
		ev->u.ksymbol.name = body_str(&c);
		break;
	}
	case PERF_RECORD_BPF_EVENT: {
		const uint8_t *p = skip(&c, 16);
		if (p) {
			ev->u.bpf.type = ld16(p);
			ev->u.bpf.flags = ld16(p + 2);
			ev->u.bpf.id = ld32(p + 4);
			memcpy(ev->u.bpf.tag, p + 8, 8);
		}
		break;
	}
	default:
		break;	/* other kernel types: raw bytes and sid only */
	}
	return c.bad ? -EINVAL : 0;
}

int pd_decode(const struct pd_reader *r, const void *rec, size_t size, struct pd_event *ev)
{
	return decode(r, NULL, rec, size, ev);
}

int pd_decode_attr(const struct perf_event_attr *attr, const void *rec, size_t size,
		   struct pd_event *ev)
{
	return decode(NULL, attr, rec, size, ev);
}

uint64_t pd_event_time(const struct pd_event *ev)
{
	if (ev->type == PERF_RECORD_SAMPLE)
		return ev->u.sample.time;
	return ev->has_sid ? ev->sid.time : 0;
}
