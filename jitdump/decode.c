/* decode.c - one record's bytes -> struct jd_record, in either byte order. The framing
 * (prefix, total_size within the file) is the reader's job; here every variable-length field
 * is checked against total_size before it is touched, with subtraction-only arithmetic so a
 * hostile count or size cannot wrap. */
#include "jitdump/jd_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int jd_id_known(uint32_t id)
{
	return id < JD_CODE_MAX_PERF || (id >= JD_EXT_LOAD_INFO && id <= JD_EXT_JMETHOD);
}

static int bad(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Not damage: the reader's caller must not take what follows for a cut file. */
static int nomem(char *msg, size_t len, const char *what)
{
	snprintf(msg, len, "out of memory for %s", what);
	return -ENOMEM;
}

/* Grows *arr to hold n elements of size sz (amortized doubling; the arrays live as long as
 * the reader, so a dump's records reuse them). */
static int reserve(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < n)
		ncap *= 2;
	void *p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

void jd_decode_bufs_free(struct jd_decode_bufs *b)
{
	free(b->lines);
	free(b->methods);
	free(b->pcs);
	free(b->frames);
	free(b->mlines);
	free(b->jframes);
	memset(b, 0, sizeof(*b));
}

static int need(uint32_t total, uint32_t fixed, const char *what, char *msg, size_t len)
{
	if (total < fixed)
		return bad(msg, len, "%s record of %u bytes, shorter than its %u-byte fixed part",
			   what, total, fixed);
	return 0;
}

static int dec_load(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_code_load *l = &rec->u.load;
	uint32_t total = rec->total_size;
	int rc = need(total, JD_LOAD_FIXED_SIZE + 1, "CODE_LOAD", msg, len);
	if (rc)
		return rc;
	l->pid = jd_get32(p + 16, sw);
	l->tid = jd_get32(p + 20, sw);
	l->vma = jd_get64(p + 24, sw);
	l->code_addr = jd_get64(p + 32, sw);
	l->code_size = jd_get64(p + 40, sw);
	l->code_index = jd_get64(p + 48, sw);
	uint64_t room = total - JD_LOAD_FIXED_SIZE;	/* name + NUL + code */
	if (l->code_size >= room)
		return bad(msg, len, "CODE_LOAD code_size %llu does not fit its %u-byte record "
			   "with a name", (unsigned long long)l->code_size, total);
	/* perf takes the code from the record's end; the name must end before it. */
	const uint8_t *name = p + JD_LOAD_FIXED_SIZE;
	if (!memchr(name, 0, room - l->code_size))
		return bad(msg, len, "CODE_LOAD name is not NUL-terminated inside the record");
	l->name = (const char *)name;
	l->code = p + total - l->code_size;
	return 0;
}

static int dec_move(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_code_move *m = &rec->u.move;
	int rc = need(rec->total_size, JD_MOVE_SIZE, "CODE_MOVE", msg, len);
	if (rc)
		return rc;
	m->pid = jd_get32(p + 16, sw);
	m->tid = jd_get32(p + 20, sw);
	m->vma = jd_get64(p + 24, sw);
	m->old_code_addr = jd_get64(p + 32, sw);
	m->new_code_addr = jd_get64(p + 40, sw);
	m->code_size = jd_get64(p + 48, sw);
	m->code_index = jd_get64(p + 56, sw);
	return 0;
}

/* A NUL-terminated string starting at *off within [0, end); advances *off past it. */
static const char *take_str(const uint8_t *p, uint64_t *off, uint64_t end)
{
	const uint8_t *s = p + *off;
	const uint8_t *z = memchr(s, 0, end - *off);
	if (!z)
		return NULL;
	*off += (uint64_t)(z - s) + 1;
	return (const char *)s;
}

static int dec_debug(struct jd_record *rec, const uint8_t *p, int sw, struct jd_decode_bufs *b,
		     char *msg, size_t len)
{
	struct jd_debug_info *d = &rec->u.debug;
	uint32_t total = rec->total_size;
	int rc = need(total, JD_DEBUG_FIXED_SIZE, "DEBUG_INFO", msg, len);
	if (rc)
		return rc;
	d->code_addr = jd_get64(p + 16, sw);
	d->nr_entry = jd_get64(p + 24, sw);
	/* Each entry is at least 17 bytes: bound the count before allocating for it. */
	if (d->nr_entry > (total - JD_DEBUG_FIXED_SIZE) / (JD_DEBUG_ENTRY_FIXED + 1))
		return bad(msg, len, "DEBUG_INFO nr_entry %llu cannot fit its %u-byte record",
			   (unsigned long long)d->nr_entry, total);
	if (reserve((void **)&b->lines, &b->lines_cap, d->nr_entry, sizeof(*b->lines)))
		return nomem(msg, len, "line entries");
	uint64_t off = JD_DEBUG_FIXED_SIZE;
	const char *prev = "";
	for (uint64_t i = 0; i < d->nr_entry; i++) {
		struct jd_line *e = &b->lines[i];
		if (total - off < JD_DEBUG_ENTRY_FIXED + 1)
			return bad(msg, len, "DEBUG_INFO entry %llu runs past the record",
				   (unsigned long long)i);
		e->addr = jd_get64(p + off, sw);
		e->line = (int32_t)jd_get32(p + off + 8, sw);
		e->discrim = (int32_t)jd_get32(p + off + 12, sw);
		off += JD_DEBUG_ENTRY_FIXED;
		const char *f = take_str(p, &off, total);
		if (!f)
			return bad(msg, len, "DEBUG_INFO entry %llu file name is not NUL-terminated "
				   "inside the record", (unsigned long long)i);
		/* "\xff" = same file as the entry before; on a first entry it names nothing.
		 * A name spelled out again (perf's JVMTI agent and ours write every row's) is
		 * given the row before's string too: readers that check a row's name once per
		 * string (synth) then do it once per run of rows, not per row. */
		if (!strcmp(f, JD_SAME_FILE) || !strcmp(f, prev))
			f = prev;
		e->file = prev = f;
	}
	d->entries = b->lines;
	return 0;
}

static int dec_unwind(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_unwinding_info *u = &rec->u.unwind;
	uint32_t total = rec->total_size;
	int rc = need(total, JD_UNWIND_FIXED_SIZE, "UNWINDING_INFO", msg, len);
	if (rc)
		return rc;
	u->unwinding_size = jd_get64(p + 16, sw);
	u->eh_frame_hdr_size = jd_get64(p + 24, sw);
	u->mapped_size = jd_get64(p + 32, sw);
	if (u->unwinding_size > total - JD_UNWIND_FIXED_SIZE)
		return bad(msg, len, "UNWINDING_INFO unwinding_size %llu exceeds its %u-byte record",
			   (unsigned long long)u->unwinding_size, total);
	if (u->eh_frame_hdr_size > u->unwinding_size)
		return bad(msg, len, "UNWINDING_INFO eh_frame_hdr_size %llu exceeds "
			   "unwinding_size %llu", (unsigned long long)u->eh_frame_hdr_size,
			   (unsigned long long)u->unwinding_size);
	u->data = p + JD_UNWIND_FIXED_SIZE;
	return 0;
}

static int dec_load_info(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_ext_load_info *i = &rec->u.load_info;
	int rc = need(rec->total_size, JD_EXT_LOAD_INFO_SIZE, "LOAD_INFO", msg, len);
	if (rc)
		return rc;
	i->code_index = jd_get64(p + 16, sw);
	i->code_addr = jd_get64(p + 24, sw);
	i->generation = jd_get32(p + 32, sw);
	i->tier = jd_get32(p + 36, sw);
	i->flags = jd_get32(p + 40, sw);
	i->level = (int32_t)jd_get32(p + 44, sw);
	i->compile_id = i->osr_bci = -1;
	/* Version 1 (48 bytes) has no ids; a flag without the bytes is a damaged record. */
	if (!(i->flags & JD_LOAD_IDS))
		return 0;
	if (rec->total_size < JD_EXT_LOAD_INFO2_SIZE)
		return bad(msg, len, "LOAD_INFO of %u bytes flags compile ids but has no room "
			   "for them (%u needed)", rec->total_size, JD_EXT_LOAD_INFO2_SIZE);
	i->compile_id = (int32_t)jd_get32(p + 48, sw);
	i->osr_bci = (int32_t)jd_get32(p + 52, sw);
	return 0;
}

static int dec_inline(struct jd_record *rec, const uint8_t *p, int sw, struct jd_decode_bufs *b,
		      char *msg, size_t len)
{
	struct jd_ext_inline *in = &rec->u.inl;
	uint32_t total = rec->total_size;
	int rc = need(total, JD_EXT_INLINE_FIXED, "INLINE", msg, len);
	if (rc)
		return rc;
	in->code_index = jd_get64(p + 16, sw);
	in->code_addr = jd_get64(p + 24, sw);
	in->nr_methods = jd_get32(p + 32, sw);
	in->nr_pcs = jd_get32(p + 36, sw);
	uint64_t room = total - JD_EXT_INLINE_FIXED;
	if (in->nr_pcs > room / JD_EXT_INLINE_PC_FIXED || in->nr_methods > room / 2)
		return bad(msg, len, "INLINE counts (%u pcs, %u methods) cannot fit its %u-byte "
			   "record", in->nr_pcs, in->nr_methods, total);
	if (reserve((void **)&b->pcs, &b->pcs_cap, in->nr_pcs, sizeof(*b->pcs)) ||
	    reserve((void **)&b->methods, &b->methods_cap, in->nr_methods, sizeof(*b->methods)))
		return nomem(msg, len, "an INLINE record");
	uint64_t off = JD_EXT_INLINE_FIXED, nframes = 0;
	/* First pass: bounds and the frame total, so frames can go in one array. */
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		if (total - off < JD_EXT_INLINE_PC_FIXED)
			return bad(msg, len, "INLINE pc %u runs past the record", i);
		uint32_t depth = jd_get32(p + off + 8, sw);
		off += JD_EXT_INLINE_PC_FIXED;
		if (depth > (total - off) / JD_EXT_INLINE_FRAME)
			return bad(msg, len, "INLINE pc %u depth %u runs past the record", i, depth);
		off += (uint64_t)depth * JD_EXT_INLINE_FRAME;
		nframes += depth;
	}
	if (reserve((void **)&b->frames, &b->frames_cap, nframes, sizeof(*b->frames)))
		return nomem(msg, len, "an INLINE record");
	for (uint32_t i = 0; i < in->nr_methods; i++) {
		const char *n = take_str(p, &off, total);
		const char *f = n ? take_str(p, &off, total) : NULL;
		if (!f)
			return bad(msg, len, "INLINE method %u strings are not NUL-terminated "
				   "inside the record", i);
		b->methods[i].name = n;
		b->methods[i].file = f;
	}
	/* Version 2 is version 1 followed by exactly one bci per frame; any other tail is damage
	 * (strings cut short or a count that lies), so it is refused rather than half-read. */
	uint64_t bci_off = off, tail = total - off;
	in->flags = 0;
	if (tail == nframes * JD_EXT_INLINE_BCI && nframes > 0)
		in->flags = JD_INLINE_BCI;
	else if (tail != 0)
		return bad(msg, len, "INLINE record has %llu bytes after its strings: neither none "
			   "(version 1) nor one bci per frame (%llu, version 2)",
			   (unsigned long long)tail, (unsigned long long)nframes * JD_EXT_INLINE_BCI);
	off = JD_EXT_INLINE_FIXED;
	struct jd_inline_frame *fr = b->frames;
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		struct jd_inline_pc *pc = &b->pcs[i];
		pc->addr = jd_get64(p + off, sw);
		pc->depth = jd_get32(p + off + 8, sw);
		pc->frames = fr;
		off += JD_EXT_INLINE_PC_FIXED;
		for (uint32_t k = 0; k < pc->depth; k++, fr++, off += JD_EXT_INLINE_FRAME) {
			fr->method = jd_get32(p + off, sw);
			fr->line = (int32_t)jd_get32(p + off + 4, sw);
			fr->bci = -1;
			if (in->flags & JD_INLINE_BCI) {
				fr->bci = (int32_t)jd_get32(p + bci_off, sw);
				bci_off += JD_EXT_INLINE_BCI;
			}
			if (fr->method >= in->nr_methods)
				return bad(msg, len, "INLINE pc %u frame %u names method %u of %u",
					   i, k, fr->method, in->nr_methods);
		}
	}
	in->methods = b->methods;
	in->pcs = b->pcs;
	return 0;
}

static int dec_unload(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_ext_unload *u = &rec->u.unload;
	int rc = need(rec->total_size, JD_EXT_UNLOAD_SIZE, "UNLOAD", msg, len);
	if (rc)
		return rc;
	u->code_addr = jd_get64(p + 16, sw);
	u->code_index = jd_get64(p + 24, sw);
	u->pid = jd_get32(p + 32, sw);
	return 0;
}

static int dec_stats(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_ext_agent_stats *s = &rec->u.stats;
	int rc = need(rec->total_size, JD_EXT_STATS_SIZE, "AGENT_STATS", msg, len);
	if (rc)
		return rc;
	s->callback_ns = jd_get64(p + 16, sw);
	s->records = jd_get64(p + 24, sw);
	s->bytes = jd_get64(p + 32, sw);
	s->loads = jd_get64(p + 40, sw);
	s->unloads = jd_get64(p + 48, sw);
	s->dropped = jd_get64(p + 56, sw);
	return 0;
}

static int dec_method(struct jd_record *rec, const uint8_t *p, int sw, struct jd_decode_bufs *b,
		      char *msg, size_t len)
{
	struct jd_ext_method *m = &rec->u.method;
	uint32_t total = rec->total_size;
	int rc = need(total, JD_EXT_METHOD_FIXED, "METHOD", msg, len);
	if (rc)
		return rc;
	m->method = jd_get64(p + 16, sw);
	m->code_addr = jd_get64(p + 24, sw);
	m->code_size = jd_get32(p + 32, sw);
	m->nr_lines = jd_get32(p + 36, sw);
	uint64_t off = JD_EXT_METHOD_FIXED;
	if (m->nr_lines > (total - off) / JD_EXT_METHOD_LINE)
		return bad(msg, len, "METHOD line count %u cannot fit its %u-byte record",
			   m->nr_lines, total);
	if (reserve((void **)&b->mlines, &b->mlines_cap, m->nr_lines, sizeof(*b->mlines)))
		return nomem(msg, len, "a METHOD record");
	for (uint32_t i = 0; i < m->nr_lines; i++, off += JD_EXT_METHOD_LINE) {
		b->mlines[i].bci = jd_get32(p + off, sw);
		b->mlines[i].line = (int32_t)jd_get32(p + off + 4, sw);
		if (i && b->mlines[i].bci < b->mlines[i - 1].bci)
			return bad(msg, len, "METHOD line %u starts at bci %u, before line %u's %u",
				   i, b->mlines[i].bci, i - 1, b->mlines[i - 1].bci);
	}
	m->lines = b->mlines;
	m->name = take_str(p, &off, total);
	m->file = m->name ? take_str(p, &off, total) : NULL;
	if (!m->file)
		return bad(msg, len, "METHOD strings are not NUL-terminated inside the record");
	return 0;
}

static int dec_vm(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_ext_vm *v = &rec->u.vm;
	int rc = need(rec->total_size, JD_EXT_VM_SIZE, "VM", msg, len);
	if (rc)
		return rc;
	v->kind = jd_get32(p + 16, sw);
	v->flags = jd_get32(p + 20, sw);
	v->version = jd_get32(p + 24, sw);
	v->method_slot = (int32_t)jd_get32(p + 28, sw);
	v->bcp_slot = (int32_t)jd_get32(p + 32, sw);
	return 0;
}

static int dec_sample(struct jd_record *rec, const uint8_t *p, int sw, struct jd_decode_bufs *b,
		      char *msg, size_t len)
{
	struct jd_ext_sample *s = &rec->u.sample;
	uint32_t total = rec->total_size;
	int rc = need(total, JD_EXT_SAMPLE_FIXED + 1, "SAMPLE", msg, len);
	if (rc)
		return rc;
	s->kind = jd_get32(p + 16, sw);
	s->tid = jd_get32(p + 20, sw);
	s->weight = jd_get64(p + 24, sw);
	s->size = jd_get64(p + 32, sw);
	s->nr_frames = jd_get32(p + 40, sw);
	uint64_t off = JD_EXT_SAMPLE_FIXED;
	/* the class name's NUL at least follows the frames */
	if (s->nr_frames > (total - off - 1) / JD_EXT_SAMPLE_FRAME)
		return bad(msg, len, "SAMPLE frame count %u cannot fit its %u-byte record",
			   s->nr_frames, total);
	if (reserve((void **)&b->jframes, &b->jframes_cap, s->nr_frames, sizeof(*b->jframes)))
		return nomem(msg, len, "a SAMPLE record");
	for (uint32_t i = 0; i < s->nr_frames; i++, off += JD_EXT_SAMPLE_FRAME) {
		b->jframes[i].method = jd_get64(p + off, sw);
		b->jframes[i].bci = (int32_t)jd_get32(p + off + 8, sw);
		b->jframes[i].line = (int32_t)jd_get32(p + off + 12, sw);
	}
	s->frames = b->jframes;
	if (!(s->klass = take_str(p, &off, total)))
		return bad(msg, len, "SAMPLE class name is not NUL-terminated inside the record");
	return 0;
}

static int dec_jmethod(struct jd_record *rec, const uint8_t *p, int sw, char *msg, size_t len)
{
	struct jd_ext_jmethod *m = &rec->u.jmethod;
	int rc = need(rec->total_size, JD_EXT_JMETHOD_FIXED + 2, "JMETHOD", msg, len);
	if (rc)
		return rc;
	uint64_t off = JD_EXT_JMETHOD_FIXED;
	m->method = jd_get64(p + 16, sw);
	m->name = take_str(p, &off, rec->total_size);
	m->file = m->name ? take_str(p, &off, rec->total_size) : NULL;
	if (!m->file)
		return bad(msg, len, "JMETHOD strings are not NUL-terminated inside the record");
	return 0;
}

int jd_decode(struct jd_record *rec, const uint8_t *p, int sw, struct jd_decode_bufs *b,
	      char *msg, size_t len)
{
	switch (rec->id) {
	case JD_CODE_LOAD:
		return dec_load(rec, p, sw, msg, len);
	case JD_CODE_MOVE:
		return dec_move(rec, p, sw, msg, len);
	case JD_CODE_DEBUG_INFO:
		return dec_debug(rec, p, sw, b, msg, len);
	case JD_CODE_CLOSE:
		return 0;
	case JD_CODE_UNWINDING_INFO:
		return dec_unwind(rec, p, sw, msg, len);
	case JD_EXT_LOAD_INFO:
		return dec_load_info(rec, p, sw, msg, len);
	case JD_EXT_INLINE:
		return dec_inline(rec, p, sw, b, msg, len);
	case JD_EXT_UNLOAD:
		return dec_unload(rec, p, sw, msg, len);
	case JD_EXT_AGENT_STATS:
		return dec_stats(rec, p, sw, msg, len);
	case JD_EXT_METHOD:
		return dec_method(rec, p, sw, b, msg, len);
	case JD_EXT_VM:
		return dec_vm(rec, p, sw, msg, len);
	case JD_EXT_SAMPLE:
		return dec_sample(rec, p, sw, b, msg, len);
	case JD_EXT_JMETHOD:
		return dec_jmethod(rec, p, sw, msg, len);
	}
	return bad(msg, len, "unknown record id %u", rec->id);
}

const char *jd_tier_name(uint32_t tier)
{
	static const char *const names[] = { "unknown", "interp", "C1", "C2", "stub", "other" };
	return tier < sizeof(names) / sizeof(names[0]) ? names[tier] : "?";
}
