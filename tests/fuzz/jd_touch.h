/* jd_touch.h - what the jitdump fuzz targets do with every decoded record: read every byte a
 * consumer would read (so ASan sees any pointer the reader got wrong) and check the promises
 * jitdump.h makes, trapping when one is broken (a reader bug, not bad input). */
#ifndef JITPROF_FUZZ_JD_TOUCH_H
#define JITPROF_FUZZ_JD_TOUCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"

static volatile uint64_t jd_touch_sink;

#define JD_PROMISE(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "jitdump reader broke a promise: %s\n", what); abort(); } } while (0)

static inline void jd_touch_bytes(const void *p, uint64_t n)
{
	const uint8_t *b = p;
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += b[i];
	jd_touch_sink += s;
}

static inline void jd_touch_str(const char *s)
{
	JD_PROMISE(s != NULL, "NULL string");
	jd_touch_sink += strlen(s);
}

/* lo/hi: the buffer the records came from, when the caller knows it (NULL otherwise). */
static inline int jd_within(const void *p, uint64_t n, const uint8_t *lo, const uint8_t *hi)
{
	if (!lo)
		return 1;
	uintptr_t a = (uintptr_t)p;
	return a >= (uintptr_t)lo && a <= (uintptr_t)hi && n <= (uint64_t)((uintptr_t)hi - a);
}

static inline void jd_touch_lines(const struct jd_line *l, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		jd_touch_str(l[i].file);
		jd_touch_sink += l[i].addr + (uint64_t)l[i].line;
	}
}

static inline void jd_touch_inline(const struct jd_ext_inline *in)
{
	for (uint32_t m = 0; m < in->nr_methods; m++) {
		jd_touch_str(in->methods[m].name);
		jd_touch_str(in->methods[m].file);
	}
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		const struct jd_inline_pc *pc = &in->pcs[i];
		for (uint32_t d = 0; d < pc->depth; d++) {
			JD_PROMISE(pc->frames[d].method < in->nr_methods,
				   "inline frame names a method outside the table");
			JD_PROMISE((in->flags & JD_INLINE_BCI) || pc->frames[d].bci == -1,
				   "a version-1 inline frame has a bci");
			jd_touch_sink += (uint32_t)pc->frames[d].bci;
		}
		jd_touch_sink += pc->addr;
	}
}

static inline void jd_touch_record(const struct jd_record *rec, const uint8_t *lo, const uint8_t *hi)
{
	if (lo)
		JD_PROMISE(rec->offset <= (uint64_t)(hi - lo) &&
			   rec->total_size <= (uint64_t)(hi - lo) - rec->offset,
			   "record extends past the buffer");
	switch (rec->id) {
	case JD_CODE_LOAD:
		jd_touch_str(rec->u.load.name);
		JD_PROMISE(jd_within(rec->u.load.code, rec->u.load.code_size, lo, hi),
			   "code bytes outside the buffer");
		jd_touch_bytes(rec->u.load.code, rec->u.load.code_size);
		break;
	case JD_CODE_DEBUG_INFO:
		jd_touch_lines(rec->u.debug.entries, rec->u.debug.nr_entry);
		break;
	case JD_CODE_UNWINDING_INFO:
		JD_PROMISE(jd_within(rec->u.unwind.data, rec->u.unwind.unwinding_size, lo, hi),
			   "unwind bytes outside the buffer");
		jd_touch_bytes(rec->u.unwind.data, rec->u.unwind.unwinding_size);
		break;
	case JD_EXT_INLINE:
		jd_touch_inline(&rec->u.inl);
		break;
	case JD_EXT_SAMPLE:
		jd_touch_str(rec->u.sample.klass);
		for (uint32_t f = 0; f < rec->u.sample.nr_frames; f++)
			jd_touch_sink += rec->u.sample.frames[f].method +
					 (uint32_t)rec->u.sample.frames[f].bci;
		break;
	case JD_EXT_JMETHOD:
		jd_touch_str(rec->u.jmethod.name);
		jd_touch_str(rec->u.jmethod.file);
		break;
	default:
		jd_touch_sink += rec->timestamp;
		break;
	}
}

#endif
