/* unwound.c - the user callers of a sample that carries the user registers and a copy of the
 * user stack (record --call-graph dwarf), unwound by recorder/unwind through the CFI of the
 * DSOs the symbol session maps; each DSO's CFI is opened once and kept for the report. */
#include <errno.h>
#include <stdlib.h>

#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/origins/origins.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

struct walk_ctx {
	struct ingest *in;
	uint32_t pid;
	uint64_t time, epoch;
};

/* What a step into jitted code counts (rp_unwind's counters), kept with find's answer in
 * unw_module.note so a memoized answer counts alike. */
enum { NOTE_NONE, NOTE_NO_VM, NOTE_CFI_FRAME, NOTE_NO_FP };

/* A jitted generation's CFI: the ELF synth makes of its load (symbols only: the runtime's
 * .eh_frame, or the one synth reads off a HotSpot prologue, as inject reads it) opened in
 * memory; the image is kept in *img while the CFI lives. -ENOENT: none. */
static int jit_cfi(const struct jd_index *x, const struct jd_load_entry *e,
		   struct synth_elf *img, struct unw_cfi **c)
{
	static const uint8_t no_id[SYNTH_BUILD_ID_SIZE];	/* a private image: id unread */
	struct synth_input si;

	synth_input_from_load(&si, jd_index_header(x), e);
	if (!si.unwind && !synth_prologue_cfi(&si))
		return -ENOENT;
	int rc = synth_build_symbols(&si, no_id, img, NULL);
	if (rc)
		return rc == -ENOMEM ? rc : -ENOENT;
	if ((rc = unw_cfi_open_mem(img->data, img->size, c)))
		synth_elf_free(img);
	return rc;
}

/* d's CFI, opened on first use (NULL: none; -ENOMEM through *err); a jitted DSO's from its
 * load e (x's), any other's from its file. */
static struct unw_cfi *cfi_of(struct ingest *in, struct sym_dso *d, const struct jd_index *x,
			      const struct jd_load_entry *e, int *err)
{
	struct rp_unwind *u = &in->unwind;
	uint32_t idx;
	const char *path;

	if (rp_map_get(&u->by_dso, (uintptr_t)d, &idx))
		return u->cfi[idx];
	if (u->n >= UINT32_MAX ||
	    rp_grow(&u->cfi, &u->cap, u->n + 1, sizeof(*u->cfi)) ||
	    rp_grow(&u->img, &u->capimg, u->n + 1, sizeof(*u->img))) {
		*err = -ENOMEM;
		return NULL;
	}
	struct unw_cfi *c = NULL;
	struct synth_elf *img = &u->img[u->n];
	int rc = -ENOENT;
	memset(img, 0, sizeof(*img));
	if (x)
		rc = jit_cfi(x, e, img, &c);
	else if (!sym_dso_find(in->ss, d, &path))
		rc = unw_cfi_open(path, &c);
	if (rc == -ENOMEM || rp_map_put(&u->by_dso, (uintptr_t)d, (uint32_t)u->n)) {
		unw_cfi_close(c);
		synth_elf_free(img);
		*err = -ENOMEM;
		return NULL;
	}
	u->cfi[u->n++] = c;
	return c;
}

/* A jitted ELF's code, from its process's dump: the HotSpot interpreter (its frames
 * decoded with the layout the agent wrote), else jitted code walked by rbp when the JVM kept
 * it (-XX:+PreserveFramePointer); anything else -ENOENT (the walk ends there, as before). */
/* The interpreter's data is the dump's index: its method table names an entry's frame. */
static int method_start(const void *data, uint64_t method, uint64_t *bcp)
{
	return inj_interp_method_start(data, method, bcp);
}

static int jitted(struct walk_ctx *w, struct sym_dso *d, uint64_t pc, struct unw_module *m)
{
	const struct jd_load_entry *e;
	const struct jd_index *x;
	int rc = rp_prefetch_index(w->in->s, sym_dso_long_name(d), w->pid, &x, &e);
	if (rc)
		return rc;	/* -ENOMEM: the walk stops, the report with it */
	const struct jd_ext_vm *vm = x ? jd_index_vm(x) : NULL;

	if (!vm || vm->kind != JD_VM_HOTSPOT_X86_64) {
		m->note = NOTE_NO_VM;
		return -ENOENT;
	}
	m->data = x;
	if (e && e->load.name && !strcmp(e->load.name, "Interpreter")) {
		m->code = UNW_CODE_INTERP;
		m->method_start = method_start;
		m->method_slot = vm->method_slot;
		m->bcp_slot = vm->bcp_slot;
		return 0;
	}
	if (e && unw_hotspot_no_frame(e->load.name)) {	/* a jump: its caller's pc at [sp] */
		m->code = UNW_CODE_NO_FRAME;
		return 0;
	}
	/* HotSpot's call stub (every entry into Java from the VM) builds an rbp frame whatever
	 * the flag says (StubGenerator::generate_call_stub's enter()). */
	if ((vm->flags & JD_VM_PRESERVE_FP) || (e && e->load.name &&
						 !strcmp(e->load.name, "call_stub"))) {
		m->code = UNW_CODE_FP;
		return 0;
	}
	/* No frame pointers: C1/C2 code through the CFI synth reads off its prologue. */
	int err = 0;
	m->data = NULL;
	m->cfi = e ? cfi_of(w->in, d, x, e, &err) : NULL;
	if (err)
		return err;
	if (m->cfi && pc - e->load.code_addr < e->load.code_size) {
		/* The pc in our ELF, whoever wrote the mapped one (perf inject's genelf puts
		 * .text elsewhere): its offset in the code from the .text synth gives it. */
		struct synth_input si;
		synth_input_from_load(&si, jd_index_header(x), e);
		m->file_off = synth_text_offset(&si) + (pc - e->load.code_addr);
		m->note = NOTE_CFI_FRAME;
		return 0;
	}
	m->cfi = NULL;
	m->note = NOTE_NO_FP;
	return -ENOENT;
}

static int find_dso(void *ctx, uint64_t pc, struct unw_module *m)
{
	struct walk_ctx *w = ctx;
	int err = 0;
	struct sym_dso *d = sym_dso_at(w->in->ss, w->pid, pc, w->time, PERF_RECORD_MISC_USER,
				       &m->file_off);

	if (!d || sym_dso_is_kernel(d))
		return -ENOENT;
	if (rp_is_jitted_name(sym_dso_long_name(d), NULL, NULL))
		return jitted(w, d, pc, m);
	m->cfi = cfi_of(w->in, d, NULL, NULL, &err);
	return err ? err : m->cfi ? 0 : -ENOENT;
}

/* find_dso's answer, kept for the pc while the maps stay (sym_resolve_epoch), and counted. */
static int find(void *ctx, uint64_t pc, struct unw_module *m)
{
	struct walk_ctx *w = ctx;
	struct rp_unwind *u = &w->in->unwind;
	int rc = unw_memo_find(u->memo, w->epoch, w->pid, pc, find_dso, w, m);

	if (rc == -ENOMEM)
		return rc;
	u->no_vm += m->note == NOTE_NO_VM;
	u->cfi_frames += m->note == NOTE_CFI_FRAME;
	u->no_fp += m->note == NOTE_NO_FP;
	return rc;
}

int rp_ingest_unwind(struct ingest *in, const struct pd_sample *ps, struct unw_frame *frames,
		     uint32_t max, int *early)
{
	const struct unw_input ui = {
		.regs_abi = ps->regs_abi, .regs_mask = ps->regs_mask, .regs = ps->regs,
		.stack = ps->stack, .stack_size = ps->stack_size,
	};
	struct walk_ctx w = { in, ps->pid, ps->time, sym_resolve_epoch(in->ss, ps->time) };
	enum unw_end end;
	uint32_t fp;

	if (!in->unwind.memo && unw_memo_new(&in->unwind.memo))
		return -ENOMEM;
	int n = unw_walk_frames(&ui, find, &w, frames, max, &end, &fp);

	if (n < 0 || max < UNW_MAX_FRAMES)	/* the leaf's step only: not a walk to count */
		return n;
	in->unwind.fp_frames += fp;
	in->unwind.walks++;
	in->unwind.ends[end]++;
	if (unw_end_is_copy_end(end, ps->stack_size, ps->stack_copy)) {
		in->unwind.copy_cut++;
		if (ps->stack_copy > in->unwind.copy_size)
			in->unwind.copy_size = ps->stack_copy;
	}
	*early = n && end != UNW_END_ROOT;
	return n;
}

void rp_ingest_unwind_report(const struct ingest *in)
{
	const struct rp_unwind *u = &in->unwind;
	char msg[UNW_ENDS_TEXT_MAX], hint[256];
	uint64_t early = u->walks - u->ends[UNW_END_ROOT];

	if (!u->walks)
		return;
	unw_ends_format(u->ends, msg, sizeof(msg));
	unw_copy_end_hint(u->copy_cut, u->copy_size, hint, sizeof(hint));
	/* More than a tenth cut short is worth a warning: the callers shown are partial. */
	if (u->interp_named || u->interp_unnamed || u->fp_frames || u->cfi_frames || u->no_vm ||
	    u->no_fp)
		jp_logf(&in->o->log, JP_LOG_INFO, "%s: jitted frames: %llu interpreted ones named, "
			"%llu left 'Interpreter' (a method pointer or bcp the method table does "
			"not hold), %llu walked by frame pointer, %llu by the CFI of their "
			"prologue; walks ended in jitted code: %llu without the agent's frame "
			"layout (another JVM, methods=off), %llu without "
			"-XX:+PreserveFramePointer nor a prologue synth recognises (a stub, an "
			"unknown C1/C2 frame set-up)", in->o->input,
			(unsigned long long)u->interp_named, (unsigned long long)u->interp_unnamed,
			(unsigned long long)u->fp_frames, (unsigned long long)u->cfi_frames,
			(unsigned long long)u->no_vm, (unsigned long long)u->no_fp);
	jp_logf(&in->o->log, early * 10 > u->walks ? JP_LOG_WARN : JP_LOG_INFO,
		"%s: %llu user stacks unwound from their copies, %llu to their root%s%s%s%s%s",
		in->o->input, (unsigned long long)u->walks,
		(unsigned long long)u->ends[UNW_END_ROOT], early ? " (the rest end in an "
		"[unknown] frame: " : "", early ? msg : "", *hint ? "; " : "", hint,
		early ? ")" : "");
}

void rp_ingest_unwind_free(struct ingest *in)
{
	struct rp_unwind *u = &in->unwind;
	for (size_t i = 0; i < u->n; i++) {
		unw_cfi_close(u->cfi[i]);
		synth_elf_free(&u->img[i]);
	}
	free(u->cfi);
	free(u->img);
	unw_memo_free(u->memo);
	rp_map_free(&u->by_dso);
	rp_memo_free(&u->names);
}
