/* write.c - the record-appending calls. A load is encoded as one unit (UNWINDING_INFO,
 * DEBUG_INFO, then the CODE_LOAD whose code bytes are the unit's tail) under the writer's
 * lock, with its code_index taken inside that lock; its companion records (in the companion
 * file, created on first use) are buffered first, and the companion is flushed before the
 * dump whenever the dump is written (writer.c), so no reader sees a load without them. */
#include "jitdump/jd_int.h"
#include "jitdump/writer_int.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static int check_load(const struct jd_load_desc *d)
{
	if (!d->name || (!d->code && d->code_size) || (!d->lines && d->nr_lines))
		return -EINVAL;
	if ((!d->unwind && d->unwind_size) || d->eh_frame_hdr_size > d->unwind_size)
		return -EINVAL;
	if (d->inl && ((!d->inl->pcs && d->inl->nr_pcs) ||
		       (!d->inl->methods && d->inl->nr_methods)))
		return -EINVAL;
	return 0;
}

static int ext_ready(struct jd_writer *w)
{
	if (w->ext.fd >= 0)
		return 0;
	char name[64];
	const char *base = strrchr(w->path, '/');
	int rc = jd_ext_path(base ? base + 1 : w->path, name, sizeof(name));
	if (rc)
		return rc;
	/* Same framing as the dump, told apart by magic, so one reader reads both; beside it. */
	return jd_sink_open(w, &w->ext, name, JD_EXT_MAGIC);
}

static int write_ext_load(struct jd_writer *w, const struct jd_load_desc *d, uint64_t ts,
			  uint64_t index, uint64_t isize)
{
	int rc = ext_ready(w);
	if (rc)
		return rc;
	struct jd_ext_load_info i = { 0 };
	if (d->info) {
		/* The version-1 part always; the ids only when the caller's struct has them. */
		memcpy(&i, d->info, offsetof(struct jd_ext_load_info, compile_id));
		if (i.flags & JD_LOAD_IDS) {
			i.compile_id = d->info->compile_id;
			i.osr_bci = d->info->osr_bci;
		}
	}
	size_t n = (d->info ? jd_load_info_size(&i) : 0) + (size_t)isize;
	uint8_t *p = jd_sink_claim(w, &w->ext, n), *q = p;
	if (!p)
		return w->err;
	if (d->info) {
		i.code_index = index;
		i.code_addr = d->code_addr;
		q = jd_enc_load_info(q, ts, &i);
	}
	if (d->inl) {
		struct jd_ext_inline in = *d->inl;
		in.code_index = index;
		in.code_addr = d->code_addr;
		jd_enc_inline(q, ts, &in, (uint32_t)isize);
	}
	return jd_sink_commit(w, &w->ext, p, n, NULL, 0);
}

int jd_write_load(struct jd_writer *w, const struct jd_load_desc *d, uint64_t *code_index)
{
	if (!w || !d)
		return -EINVAL;
	int rc = check_load(d);
	if (rc)
		return rc;
	uint64_t usize = d->unwind ? jd_unwind_size(d->unwind_size) : 0;
	uint64_t dsize = d->nr_lines ? jd_debug_size(d->lines, d->nr_lines, w->shorthand) : 0;
	uint64_t lsize = jd_load_size(d->name, d->code_size);
	uint64_t isize = d->inl && !w->no_ext ? jd_inline_size(d->inl) : 0;
	if ((d->unwind && !usize) || (d->nr_lines && !dsize) || !lsize ||
	    (d->inl && !w->no_ext && !isize))
		return -E2BIG;
	size_t head = (size_t)(usize + dsize + lsize - d->code_size);

	rc = jd_writer_enter(w);
	if (rc)
		goto out;
	uint64_t ts = d->timestamp ? d->timestamp : jd_clock_read(w->clock);
	struct jd_code_load l = {
		.pid = d->pid ? d->pid : (uint32_t)w->pid,
		.tid = d->tid ? d->tid : (uint32_t)jd_self_tid(),
		.vma = d->code_addr,
		.code_addr = d->code_addr,
		.code_size = d->code_size,
		.code_index = ++w->next_index,
		.name = d->name,
	};
	/* The companion records first: they may be written out with the dump unit below. A
	 * companion that cannot be written costs its records, never the load (the error is
	 * returned all the same, as it was when the companion came second). */
	int ext_rc = (d->info || d->inl) && !w->no_ext ?
		     write_ext_load(w, d, ts, l.code_index, isize) : 0;
	uint8_t *p = jd_sink_claim(w, &w->dump, head), *q = p;
	if (!p) {
		rc = w->err;
		goto out;
	}
	if (usize)
		q = jd_enc_unwind(q, ts, d, (uint32_t)usize);
	if (dsize)
		q = jd_enc_debug(q, ts, d->code_addr, d->lines, d->nr_lines, w->shorthand,
				 (uint32_t)dsize);
	jd_enc_load_head(q, ts, &l, (uint32_t)lsize);
	rc = jd_sink_commit(w, &w->dump, p, head, d->code, d->code_size);
	if (!rc)
		rc = ext_rc;
	if (!rc && code_index)
		*code_index = l.code_index;
out:
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int jd_write_move(struct jd_writer *w, const struct jd_code_move *m, uint64_t timestamp)
{
	if (!w || !m)
		return -EINVAL;
	int rc = jd_writer_enter(w);
	if (!rc) {
		struct jd_code_move mv = *m;
		mv.pid = mv.pid ? mv.pid : (uint32_t)w->pid;
		mv.tid = mv.tid ? mv.tid : (uint32_t)jd_self_tid();
		uint8_t *p = jd_sink_claim(w, &w->dump, JD_MOVE_SIZE);
		if (p) {
			jd_enc_move(p, timestamp ? timestamp : jd_clock_read(w->clock), &mv);
			rc = jd_sink_commit(w, &w->dump, p, JD_MOVE_SIZE, NULL, 0);
		} else {
			rc = w->err;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* One fixed-size companion record; enc is the record's encoder, obj what it encodes. */
/* The companion's header flags with hdr_flag added, written in place (offset 32: the flags
 * word; the records after the header are untouched, the file offset too). */
static int ext_flag(struct jd_writer *w, uint64_t hdr_flag)
{
	uint8_t b[8];
	uint64_t flags = (w->clock == JD_CLOCK_ARCH ? JD_FLAGS_ARCH_TIMESTAMP : 0) |
			 w->ext_hdr_flags | hdr_flag;
	jd_put64(b, flags);
	if (pwrite(w->ext.fd, b, sizeof(b), 32) != (ssize_t)sizeof(b))
		return errno ? -errno : -EIO;
	w->ext_hdr_flags |= hdr_flag;
	return 0;
}

static int write_ext_fixed(struct jd_writer *w, size_t size, uint64_t ts,
			   uint8_t *(*enc)(uint8_t *, uint64_t, const void *), const void *obj,
			   uint64_t hdr_flag)
{
	if (!w || !obj)
		return -EINVAL;
	if (w->no_ext)
		return 0;
	int rc = jd_writer_enter(w);
	if (!rc)
		rc = ext_ready(w);
	if (!rc && hdr_flag && !(w->ext_hdr_flags & hdr_flag))
		rc = ext_flag(w, hdr_flag);
	if (!rc) {
		uint8_t *p = jd_sink_claim(w, &w->ext, size);
		if (p) {
			enc(p, ts ? ts : jd_clock_read(w->clock), obj);
			rc = jd_sink_commit(w, &w->ext, p, size, NULL, 0);
		} else {
			rc = w->err;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

static uint8_t *enc_unload(uint8_t *p, uint64_t ts, const void *obj)
{
	struct jd_ext_unload u = *(const struct jd_ext_unload *)obj;
	if (!u.pid)
		u.pid = (uint32_t)jd_self_pid();
	return jd_enc_unload(p, ts, &u);
}

static uint8_t *enc_stats(uint8_t *p, uint64_t ts, const void *obj)
{
	return jd_enc_stats(p, ts, obj);
}

int jd_write_unload(struct jd_writer *w, const struct jd_ext_unload *u, uint64_t timestamp)
{
	return write_ext_fixed(w, JD_EXT_UNLOAD_SIZE, timestamp, enc_unload, u, 0);
}

int jd_write_stats(struct jd_writer *w, const struct jd_ext_agent_stats *s)
{
	return write_ext_fixed(w, JD_EXT_STATS_SIZE, 0, enc_stats, s, 0);
}

static uint8_t *enc_method(uint8_t *p, uint64_t ts, const void *obj)
{
	return jd_enc_method(p, ts, obj, (uint32_t)jd_method_size(obj));
}

static uint8_t *enc_vm(uint8_t *p, uint64_t ts, const void *obj)
{
	return jd_enc_vm(p, ts, obj);
}

int jd_write_method(struct jd_writer *w, const struct jd_ext_method *m, uint64_t timestamp)
{
	if (m && (!m->name || (!m->lines && m->nr_lines)))
		return -EINVAL;
	uint64_t n = m ? jd_method_size(m) : 0;
	if (m && !n)
		return -E2BIG;
	return write_ext_fixed(w, (size_t)n, timestamp, enc_method, m, 0);
}

int jd_write_vm(struct jd_writer *w, const struct jd_ext_vm *v)
{
	return write_ext_fixed(w, JD_EXT_VM_SIZE, 0, enc_vm, v, 0);
}

static uint8_t *enc_sample(uint8_t *p, uint64_t ts, const void *obj)
{
	return jd_enc_sample(p, ts, obj, (uint32_t)jd_sample_size(obj));
}

static uint8_t *enc_jmethod(uint8_t *p, uint64_t ts, const void *obj)
{
	return jd_enc_jmethod(p, ts, obj, (uint32_t)jd_jmethod_size(obj));
}

int jd_write_sample(struct jd_writer *w, const struct jd_ext_sample *s, uint64_t timestamp)
{
	if (s && !s->frames && s->nr_frames)
		return -EINVAL;
	uint64_t n = s ? jd_sample_size(s) : 0;
	if (s && !n)
		return -E2BIG;
	return write_ext_fixed(w, (size_t)n, timestamp, enc_sample, s, JD_EXT_FLAG_SAMPLES);
}

int jd_write_jmethod(struct jd_writer *w, const struct jd_ext_jmethod *m, uint64_t timestamp)
{
	if (m && !m->name)
		return -EINVAL;
	uint64_t n = m ? jd_jmethod_size(m) : 0;
	if (m && !n)
		return -E2BIG;
	return write_ext_fixed(w, (size_t)n, timestamp, enc_jmethod, m, 0);
}
