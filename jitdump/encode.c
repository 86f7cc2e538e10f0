/* encode.c - native-byte-order encoders for every record libjitdump writes, into caller
 * memory sized by the matching *_size() function. Sizes are checked so that total_size (a u32
 * on disk) can never wrap: a size that does not fit returns 0. */
#include "jitdump/jd_int.h"

#include <stdint.h>

static uint64_t fit_u32(uint64_t n)
{
	return n > UINT32_MAX ? 0 : n;
}

size_t jd_enc_header(uint8_t *dst, uint32_t magic, uint32_t elf_mach, uint32_t pid,
		     uint64_t timestamp, uint64_t flags)
{
	uint8_t *p = dst;
	p = jd_put32(p, magic);
	p = jd_put32(p, JD_VERSION);
	p = jd_put32(p, JD_HEADER_SIZE);
	p = jd_put32(p, elf_mach);
	p = jd_put32(p, 0);
	p = jd_put32(p, pid);
	p = jd_put64(p, timestamp);
	p = jd_put64(p, flags);
	return (size_t)(p - dst);
}

uint8_t *jd_enc_prefix(uint8_t *p, uint32_t id, uint32_t total, uint64_t timestamp)
{
	p = jd_put32(p, id);
	p = jd_put32(p, total);
	return jd_put64(p, timestamp);
}

/* The name entry with file f is written with; *prev is the previous entry's file (NULL before
 * the first) and becomes this one's. NULL repeats the previous file. Repeats are written in
 * full unless shorthand is set: perf 6.1's genelf puts "\xff" into the ELF's file table as a
 * file name (perf learned the shorthand only in 2023). */
static const char *entry_file(const char *f, const char **prev, int shorthand)
{
	const char *p = *prev;
	if (!f)
		f = p ? p : "";
	*prev = f;
	if (shorthand && p && (f == p || !strcmp(f, p)))
		return JD_SAME_FILE;
	return f;
}

uint64_t jd_debug_size(const struct jd_line *lines, size_t nr, int shorthand)
{
	uint64_t n = JD_DEBUG_FIXED_SIZE;
	const char *prev = NULL;
	for (size_t i = 0; i < nr; i++) {
		n += JD_DEBUG_ENTRY_FIXED + strlen(entry_file(lines[i].file, &prev, shorthand)) + 1;
		if (n > UINT32_MAX)
			return 0;
	}
	return n;
}

uint8_t *jd_enc_debug(uint8_t *p, uint64_t ts, uint64_t code_addr, const struct jd_line *l,
		      size_t nr, int shorthand, uint32_t total)
{
	const char *prev = NULL;
	p = jd_enc_prefix(p, JD_CODE_DEBUG_INFO, total, ts);
	p = jd_put64(p, code_addr);
	p = jd_put64(p, nr);
	for (size_t i = 0; i < nr; i++) {
		const char *f = entry_file(l[i].file, &prev, shorthand);
		p = jd_put64(p, l[i].addr);
		p = jd_put32(p, (uint32_t)l[i].line);
		p = jd_put32(p, (uint32_t)l[i].discrim);
		p = jd_put_bytes(p, f, strlen(f) + 1);
	}
	return p;
}

uint64_t jd_unwind_size(uint64_t unwind_size)
{
	if (unwind_size > UINT32_MAX)
		return 0;
	return fit_u32(JD_UNWIND_FIXED_SIZE + unwind_size);
}

uint8_t *jd_enc_unwind(uint8_t *p, uint64_t ts, const struct jd_load_desc *d, uint32_t total)
{
	p = jd_enc_prefix(p, JD_CODE_UNWINDING_INFO, total, ts);
	p = jd_put64(p, d->unwind_size);
	p = jd_put64(p, d->eh_frame_hdr_size);
	p = jd_put64(p, d->mapped_size);
	return jd_put_bytes(p, d->unwind, d->unwind_size);
}

uint64_t jd_load_size(const char *name, uint64_t code_size)
{
	size_t nl = strlen(name);
	if (code_size > UINT32_MAX || nl > UINT32_MAX)
		return 0;
	return fit_u32(JD_LOAD_FIXED_SIZE + nl + 1 + code_size);
}

uint8_t *jd_enc_load_head(uint8_t *p, uint64_t ts, const struct jd_code_load *l,
			  uint32_t total)
{
	p = jd_enc_prefix(p, JD_CODE_LOAD, total, ts);
	p = jd_put32(p, l->pid);
	p = jd_put32(p, l->tid);
	p = jd_put64(p, l->vma);
	p = jd_put64(p, l->code_addr);
	p = jd_put64(p, l->code_size);
	p = jd_put64(p, l->code_index);
	return jd_put_bytes(p, l->name, strlen(l->name) + 1);
}

uint8_t *jd_enc_move(uint8_t *p, uint64_t ts, const struct jd_code_move *m)
{
	p = jd_enc_prefix(p, JD_CODE_MOVE, JD_MOVE_SIZE, ts);
	p = jd_put32(p, m->pid);
	p = jd_put32(p, m->tid);
	p = jd_put64(p, m->vma);
	p = jd_put64(p, m->old_code_addr);
	p = jd_put64(p, m->new_code_addr);
	p = jd_put64(p, m->code_size);
	return jd_put64(p, m->code_index);
}

uint8_t *jd_enc_close(uint8_t *p, uint64_t ts)
{
	return jd_enc_prefix(p, JD_CODE_CLOSE, JD_CLOSE_SIZE, ts);
}

uint32_t jd_load_info_size(const struct jd_ext_load_info *i)
{
	return i->flags & JD_LOAD_IDS ? JD_EXT_LOAD_INFO2_SIZE : JD_EXT_LOAD_INFO_SIZE;
}

uint8_t *jd_enc_load_info(uint8_t *p, uint64_t ts, const struct jd_ext_load_info *i)
{
	p = jd_enc_prefix(p, JD_EXT_LOAD_INFO, jd_load_info_size(i), ts);
	p = jd_put64(p, i->code_index);
	p = jd_put64(p, i->code_addr);
	p = jd_put32(p, i->generation);
	p = jd_put32(p, i->tier);
	p = jd_put32(p, i->flags);
	p = jd_put32(p, (uint32_t)i->level);
	if (!(i->flags & JD_LOAD_IDS))
		return p;
	p = jd_put32(p, (uint32_t)i->compile_id);
	return jd_put32(p, (uint32_t)i->osr_bci);
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

uint64_t jd_inline_size(const struct jd_ext_inline *in)
{
	uint64_t n = JD_EXT_INLINE_FIXED;
	uint32_t frame = JD_EXT_INLINE_FRAME + (in->flags & JD_INLINE_BCI ? JD_EXT_INLINE_BCI : 0);
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		n += JD_EXT_INLINE_PC_FIXED + (uint64_t)in->pcs[i].depth * frame;
		if (n > UINT32_MAX)
			return 0;
	}
	for (uint32_t i = 0; i < in->nr_methods; i++) {
		n += strlen(str_or_empty(in->methods[i].name)) + 1;
		n += strlen(str_or_empty(in->methods[i].file)) + 1;
		if (n > UINT32_MAX)
			return 0;
	}
	return n;
}

uint8_t *jd_enc_inline(uint8_t *p, uint64_t ts, const struct jd_ext_inline *in, uint32_t total)
{
	p = jd_enc_prefix(p, JD_EXT_INLINE, total, ts);
	p = jd_put64(p, in->code_index);
	p = jd_put64(p, in->code_addr);
	p = jd_put32(p, in->nr_methods);
	p = jd_put32(p, in->nr_pcs);
	for (uint32_t i = 0; i < in->nr_pcs; i++) {
		const struct jd_inline_pc *pc = &in->pcs[i];
		p = jd_put64(p, pc->addr);
		p = jd_put32(p, pc->depth);
		for (uint32_t k = 0; k < pc->depth; k++) {
			p = jd_put32(p, pc->frames[k].method);
			p = jd_put32(p, (uint32_t)pc->frames[k].line);
		}
	}
	for (uint32_t i = 0; i < in->nr_methods; i++) {
		const char *n = str_or_empty(in->methods[i].name);
		const char *f = str_or_empty(in->methods[i].file);
		p = jd_put_bytes(p, n, strlen(n) + 1);
		p = jd_put_bytes(p, f, strlen(f) + 1);
	}
	/* Version 2's bcis go after everything version 1 has, so an older reader, which reads a
	 * record up to its strings and skips the rest by size, still reads it. */
	for (uint32_t i = 0; (in->flags & JD_INLINE_BCI) && i < in->nr_pcs; i++)
		for (uint32_t k = 0; k < in->pcs[i].depth; k++)
			p = jd_put32(p, (uint32_t)in->pcs[i].frames[k].bci);
	return p;
}

uint8_t *jd_enc_unload(uint8_t *p, uint64_t ts, const struct jd_ext_unload *u)
{
	p = jd_enc_prefix(p, JD_EXT_UNLOAD, JD_EXT_UNLOAD_SIZE, ts);
	p = jd_put64(p, u->code_addr);
	p = jd_put64(p, u->code_index);
	p = jd_put32(p, u->pid);
	return jd_put32(p, 0);
}

uint8_t *jd_enc_stats(uint8_t *p, uint64_t ts, const struct jd_ext_agent_stats *s)
{
	p = jd_enc_prefix(p, JD_EXT_AGENT_STATS, JD_EXT_STATS_SIZE, ts);
	p = jd_put64(p, s->callback_ns);
	p = jd_put64(p, s->records);
	p = jd_put64(p, s->bytes);
	p = jd_put64(p, s->loads);
	p = jd_put64(p, s->unloads);
	return jd_put64(p, s->dropped);
}

uint64_t jd_method_size(const struct jd_ext_method *m)
{
	uint64_t n = JD_EXT_METHOD_FIXED + (uint64_t)m->nr_lines * JD_EXT_METHOD_LINE +
		     strlen(str_or_empty(m->name)) + 1 + strlen(str_or_empty(m->file)) + 1;
	return n > UINT32_MAX ? 0 : n;
}

uint8_t *jd_enc_method(uint8_t *p, uint64_t ts, const struct jd_ext_method *m, uint32_t total)
{
	const char *n = str_or_empty(m->name), *f = str_or_empty(m->file);
	p = jd_enc_prefix(p, JD_EXT_METHOD, total, ts);
	p = jd_put64(p, m->method);
	p = jd_put64(p, m->code_addr);
	p = jd_put32(p, m->code_size);
	p = jd_put32(p, m->nr_lines);
	for (uint32_t i = 0; i < m->nr_lines; i++) {
		p = jd_put32(p, m->lines[i].bci);
		p = jd_put32(p, (uint32_t)m->lines[i].line);
	}
	p = jd_put_bytes(p, n, strlen(n) + 1);
	return jd_put_bytes(p, f, strlen(f) + 1);
}

uint8_t *jd_enc_vm(uint8_t *p, uint64_t ts, const struct jd_ext_vm *v)
{
	p = jd_enc_prefix(p, JD_EXT_VM, JD_EXT_VM_SIZE, ts);
	p = jd_put32(p, v->kind);
	p = jd_put32(p, v->flags);
	p = jd_put32(p, v->version);
	p = jd_put32(p, (uint32_t)v->method_slot);
	p = jd_put32(p, (uint32_t)v->bcp_slot);
	return jd_put32(p, 0);
}

uint64_t jd_sample_size(const struct jd_ext_sample *s)
{
	uint64_t n = JD_EXT_SAMPLE_FIXED + (uint64_t)s->nr_frames * JD_EXT_SAMPLE_FRAME +
		     strlen(str_or_empty(s->klass)) + 1;
	return n > UINT32_MAX ? 0 : n;
}

uint8_t *jd_enc_sample(uint8_t *p, uint64_t ts, const struct jd_ext_sample *s, uint32_t total)
{
	const char *k = str_or_empty(s->klass);
	p = jd_enc_prefix(p, JD_EXT_SAMPLE, total, ts);
	p = jd_put32(p, s->kind);
	p = jd_put32(p, s->tid);
	p = jd_put64(p, s->weight);
	p = jd_put64(p, s->size);
	p = jd_put32(p, s->nr_frames);
	p = jd_put32(p, 0);
	for (uint32_t i = 0; i < s->nr_frames; i++) {
		p = jd_put64(p, s->frames[i].method);
		p = jd_put32(p, (uint32_t)s->frames[i].bci);
		p = jd_put32(p, (uint32_t)s->frames[i].line);
	}
	return jd_put_bytes(p, k, strlen(k) + 1);
}

uint64_t jd_jmethod_size(const struct jd_ext_jmethod *m)
{
	uint64_t n = JD_EXT_JMETHOD_FIXED + strlen(str_or_empty(m->name)) + 1 +
		     strlen(str_or_empty(m->file)) + 1;
	return n > UINT32_MAX ? 0 : n;
}

uint8_t *jd_enc_jmethod(uint8_t *p, uint64_t ts, const struct jd_ext_jmethod *m, uint32_t total)
{
	const char *n = str_or_empty(m->name), *f = str_or_empty(m->file);
	p = jd_enc_prefix(p, JD_EXT_JMETHOD, total, ts);
	p = jd_put64(p, m->method);
	p = jd_put_bytes(p, n, strlen(n) + 1);
	return jd_put_bytes(p, f, strlen(f) + 1);
}
