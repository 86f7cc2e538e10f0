/* ingest_resolve.c - one address of a sample made frames: the symbol session's answer (DSO,
 * symbol, source line, inlined callers), the jitted load it lands in (a generation), names
 * interned once per session, and the line of the instruction before a return address. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

/* The load a resolved frame belongs to (0 = not jitted code). */
static uint32_t load_of(struct ingest *in, struct sym_dso *d)
{
	uint32_t v;
	if (!d || !in->o->want_loads)
		return 0;
	if (rp_map_get(&in->dso_load, (uintptr_t)d, &v))
		return v;
	v = 0;
	struct rp_pending_map *pm;
	rp_map_get(&in->path_load, (uintptr_t)sym_dso_long_name(d), &v);
	if (!v && (in->o->sampled_loads_only || in->o->sampled_methods_only) &&
	    (pm = rp_pending_get(&in->pending, d)))
		v = rp_ingest_load_of_pending(in, pm);
	rp_map_put(&in->dso_load, (uintptr_t)d, v);
	return v;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path;
}

/* The name perf shows for a process's anonymous executable memory (and its perf-PID.map):
 * "[JIT] tid PID". */
const char *rp_ingest_dso_display(struct ingest *in, const char *name)
{
	unsigned pid;
	int end = 0;
	char buf[64];
	if (!name)
		return rp_intern(in->s, "[unknown]");
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	if (sscanf(b, "perf-%u.map%n", &pid, &end) == 1 && !b[end]) {
		snprintf(buf, sizeof(buf), "[JIT] tid %u", pid);
		return rp_intern(in->s, buf);
	}
	return rp_intern(in->s, name);
}

/* fn(in, str) through the memo m (str non-NULL, owned by the symbol session). */
static const char *memo_of(struct ingest *in, struct rp_memo *m, const char *str,
			   const char *(*fn)(struct ingest *in, const char *str))
{
	const char *v;
	size_t slot;
	if (!str)
		return fn(in, str);
	if (rp_memo_get(m, str, &v, &slot))
		return v;
	v = fn(in, str);
	if (v)		/* NULL is out of memory: not an answer to keep */
		rp_memo_put(m, str, v, slot);
	return v;
}

static const char *intern_of(struct ingest *in, const char *str)
{
	return rp_intern(in->s, str);
}

static const char *base_intern_of(struct ingest *in, const char *path)
{
	return rp_intern(in->s, base_name(path));
}

/* A symbol of inject's ELF of interpreted methods ("pkg.Cls.m(int)_[int]"): the method's name
 * alone, the frame marked interpreted as when report names it from the stack copy itself,
 * so every view prints it the same way from either. */
static const char *interp_intern_of(struct ingest *in, const char *str)
{
	size_t l = str ? strlen(str) : 0, ml = strlen(SYNTH_INTERP_MARK);
	if (!str || l <= ml || strcmp(str + l - ml, SYNTH_INTERP_MARK))
		return rp_intern(in->s, str);
	struct jp_str buf = { 0 };	/* the name whole, as inject wrote it */
	jp_str_append(&buf, str, l - ml);
	const char *v = buf.nomem ? NULL : rp_intern(in->s, buf.s);
	jp_str_free(&buf);
	return v;	/* NULL: out of memory, as the interner says it */
}

#define DSO_OF(in, name) memo_of(in, &(in)->m_dso, name, rp_ingest_dso_display)
#define SYM_OF(in, name) memo_of(in, &(in)->m_sym, name, intern_of)
/* f's symbol (res's), by the kind of its DSO: no string is asked for under both. */
#define FSYM_OF(in, f, name) ((f)->flags & RP_FRAME_INTERPRETED ? \
	memo_of(in, &(in)->m_sym, name, interp_intern_of) : SYM_OF(in, name))
#define FILE_OF(in, path) memo_of(in, &(in)->m_file, path, base_intern_of)

/* A frame of a load ended by time is in unloaded code. */
static void mark_unloaded(const struct ingest *in, struct rp_frame *f, uint64_t time)
{
	f->flags &= ~RP_FRAME_UNLOADED;
	if (f->load) {
		const struct rp_load *l = &in->s->loads[f->load - 1];
		if (l->end_time && time >= l->end_time)
			f->flags |= RP_FRAME_UNLOADED;
	}
}

/* The flags a frame takes from its DSO, by its recorded name and its display name: anonymous
 * executable memory no jitdump described is "unknown code"; a jitted ELF is told to checks.c;
 * inject's ELF of interpreted methods (synth_is_interp_name) holds interpreted frames. */
static uint32_t dso_flags(const char *name, const char *display)
{
	if (!strncmp(name, "//anon", 6) || !strncmp(name, "[anon", 5) ||
	    !strncmp(display, "[JIT] tid ", 10))
		return RP_FRAME_UNKNOWN;
	if (synth_is_interp_name(display))
		return RP_FRAME_INTERPRETED;
	return rp_is_jitted_name(display, NULL, NULL) ? RP_FRAME_JITTED_DSO : 0;
}

/* The frame memo of res's DSO (NULL: out of memory; it is asked again next time). */
static struct dso_frame *dso_frame_of(struct ingest *in, const struct sym_result *res)
{
	uint32_t tag = sym_dso_frame_tag(res->dso);
	if (tag)
		return &in->dso_frames[tag - 1];
	if (in->n_dso_frames >= UINT32_MAX - 1 ||
	    rp_grow(&in->dso_frames, &in->cap_dso_frames, in->n_dso_frames + 1,
		    sizeof(*in->dso_frames)))
		return NULL;
	const char *dso = DSO_OF(in, res->dso_name);
	if (!dso)
		return NULL;
	struct dso_frame *df = &in->dso_frames[in->n_dso_frames++];
	*df = (struct dso_frame){ .dso = dso, .load = load_of(in, res->dso),
				  .flags = dso_flags(res->dso_name, dso) };
	sym_dso_set_frame_tag(res->dso, (uint32_t)in->n_dso_frames);
	return df;
}

/* In jitted code a frame's line (and inline chain) is the one of the instruction that ends
 * where its address starts: a sampled address is where the interrupt found the thread, the
 * instruction after the one that took the time (an expensive statement's samples otherwise
 * land on the next statement's first instruction), and a caller's address is the return
 * address, after its call. The agent's rows start at instruction boundaries, so the row
 * covering ip - 1 is that instruction's. Not at a function's first byte (ip - 1 is another
 * function), nor in native code, whose lines stay as perf shows them. */
static void line_of_previous_instruction(struct ingest *in, uint32_t pid, uint64_t ip,
					 uint64_t time, int cpumode, struct sym_result *res)
{
	struct sym_result prev;

	if (!(in->res_flags & SYM_RES_LINES) || !res->dso || res->kernel || !res->sym ||
	    !res->sym_off || !rp_is_jitted_name(res->dso_name, NULL, NULL))
		return;
	memset(&prev, 0, sizeof(prev));
	if (sym_resolve(in->ss, pid, ip - 1, time, cpumode, in->res_flags, &prev) < 0 ||
	    prev.dso != res->dso || prev.sym_start != res->sym_start || prev.lines_later)
		return;
	res->srcfile = prev.srcfile;
	res->line = prev.line;
	res->n_inline = prev.n_inline;
	res->inl = prev.inl;
}

/* Resolves one address into frames (inlined frames first when asked), returns how many. The
 * frames made of an address are made again from the memo while the symbol session's answer
 * stays; only whether its load has ended by then is asked anew. */
uint32_t rp_ingest_resolve(struct ingest *in, uint32_t pid, uint64_t ip, uint64_t time,
			   int cpumode, struct rp_frame *out, uint32_t room)
{
	struct sym_result res;
	if (!room)
		return 0;
	uint64_t epoch = sym_resolve_epoch(in->ss, time);
	const struct rp_frame *kept;
	uint32_t nk = rp_res_memo_get(&in->res_memo, epoch, pid, ip, cpumode, &kept);
	if (nk && nk <= room) {
		memcpy(out, kept, nk * sizeof(*out));
		mark_unloaded(in, &out[nk - 1], time);
		return nk;
	}
	memset(&res, 0, sizeof(res));
	if (in->o->jitted_lines_only && (in->res_flags & SYM_RES_LINES)) {
		/* the symbol first: its DSO says whether its lines are wanted */
		if (sym_resolve(in->ss, pid, ip, time, cpumode, 0, &res) < 0)
			res.dso = NULL;
		if (res.dso && !res.kernel && rp_is_jitted_name(res.dso_name, NULL, NULL)) {
			memset(&res, 0, sizeof(res));
			if (sym_resolve(in->ss, pid, ip, time, cpumode, in->res_flags, &res) < 0)
				res.dso = NULL;
		}
	} else if (sym_resolve(in->ss, pid, ip, time, cpumode, in->res_flags, &res) < 0) {
		res.dso = NULL;
	}
	line_of_previous_instruction(in, pid, ip, time, cpumode, &res);
	uint32_t n = 0;
	if (in->o->want_inline && res.n_inline > 1) {
		for (unsigned i = 0; i + 1 < res.n_inline && n + 1 < room; i++) {
			out[n++] = (struct rp_frame){
				.dso = DSO_OF(in, res.dso_name),
				.sym = SYM_OF(in, res.inl[i].func),
				.srcfile = FILE_OF(in, res.inl[i].file),
				.line = res.inl[i].line, .flags = RP_FRAME_INLINED, .ip = ip,
			};
		}
	}
	struct rp_frame *f = &out[n++];
	*f = (struct rp_frame){
		.srcfile = res.srcfile ? FILE_OF(in, res.srcfile) : NULL,
		.line = res.line, .ip = ip, .symoff = res.sym_off,
		.call_line = res.n_inline > 1 ? res.inl[res.n_inline - 1].line : 0,
		.addr = res.dso && !res.kernel ? res.dso_addr : ip,
	};
	struct dso_frame *df = res.dso ? dso_frame_of(in, &res) : NULL;
	if (df) {
		f->dso = df->dso;
		f->flags = df->flags;
		f->load = df->load;
		if (!res.sym || res.sym != df->raw_sym) {
			f->sym = FSYM_OF(in, f, res.sym);
			if (res.sym && f->sym) {
				df->raw_sym = res.sym;
				df->sym = f->sym;
			}
		} else {
			f->sym = df->sym;
		}
	} else {	/* no DSO ("[unknown]"), or no memory for its memo */
		f->dso = DSO_OF(in, res.dso_name);
		f->flags = res.dso && f->dso ? dso_flags(res.dso_name, f->dso) : RP_FRAME_UNKNOWN;
		f->sym = FSYM_OF(in, f, res.sym);
		f->load = load_of(in, res.dso);
	}
	if (res.kernel || cpumode == PERF_RECORD_MISC_KERNEL)
		f->flags |= RP_FRAME_KERNEL;
	if (res.lines_later) {
		f->flags |= RP_FRAME_LINES_LATER;
		in->last_later = in->s->nr_samples + 1;	/* the sample being made */
	}
	mark_unloaded(in, f, time);
	/* Kept whole or not at all (cut short by room, another call may have more), and not
	 * while its lines are still being read. */
	if (!res.lines_later && n == (in->o->want_inline && res.n_inline > 1 ? res.n_inline : 1))
		rp_res_memo_put(&in->res_memo, epoch, pid, ip, cpumode, out, n);
	return n;
}

