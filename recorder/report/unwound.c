/* unwound.c - the user callers of a sample that carries the user registers and a copy of the
 * user stack (record --call-graph dwarf), unwound by recorder/unwind through the CFI of the
 * DSOs the symbol session maps; each DSO's CFI is opened once and kept for the report. */
#include <errno.h>
#include <stdlib.h>

#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report/ingest_int.h"
#include "recorder/symbols/symbols.h"

struct walk_ctx {
	struct ingest *in;
	uint32_t pid;
	uint64_t time;
};

/* d's CFI, opened on first use (NULL: none; -ENOMEM through *err). */
static struct unw_cfi *cfi_of(struct ingest *in, struct sym_dso *d, int *err)
{
	struct rp_unwind *u = &in->unwind;
	uint32_t idx;
	const char *path;

	if (rp_map_get(&u->by_dso, (uintptr_t)d, &idx))
		return u->cfi[idx];
	if (u->n >= UINT32_MAX ||
	    rp_grow(&u->cfi, &u->cap, u->n + 1, sizeof(*u->cfi))) {
		*err = -ENOMEM;
		return NULL;
	}
	struct unw_cfi *c = NULL;
	if (!sym_dso_find(in->ss, d, &path) && unw_cfi_open(path, &c) == -ENOMEM) {
		*err = -ENOMEM;
		return NULL;
	}
	if (rp_map_put(&u->by_dso, (uintptr_t)d, (uint32_t)u->n)) {
		unw_cfi_close(c);
		*err = -ENOMEM;
		return NULL;
	}
	u->cfi[u->n++] = c;
	return c;
}

/* A jitted ELF's code, from its process's dump: the HotSpot interpreter (its frames
 * decoded with the layout the agent wrote), else jitted code walked by rbp when the JVM kept
 * it (-XX:+PreserveFramePointer); anything else -ENOENT (the walk ends there, as before). */
static int jitted(struct walk_ctx *w, struct sym_dso *d, struct unw_module *m)
{
	const struct jd_load_entry *e;
	const struct jd_index *x = rp_prefetch_index(w->in->s, sym_dso_long_name(d), w->pid, &e);
	const struct jd_ext_vm *vm = x ? jd_index_vm(x) : NULL;

	if (!vm || vm->kind != JD_VM_HOTSPOT_X86_64) {
		w->in->unwind.no_vm++;
		return -ENOENT;
	}
	m->data = x;
	if (e && e->load.name && !strcmp(e->load.name, "Interpreter")) {
		m->code = UNW_CODE_INTERP;
		m->method_slot = vm->method_slot;
		m->bcp_slot = vm->bcp_slot;
		return 0;
	}
	/* HotSpot's call stub (every entry into Java from the VM) builds an rbp frame whatever
	 * the flag says (StubGenerator::generate_call_stub's enter()). */
	if (!(vm->flags & JD_VM_PRESERVE_FP) && !(e && e->load.name &&
						  !strcmp(e->load.name, "call_stub"))) {
		w->in->unwind.no_fp++;
		return -ENOENT;
	}
	m->code = UNW_CODE_FP;
	return 0;
}

static int find(void *ctx, uint64_t pc, struct unw_module *m)
{
	struct walk_ctx *w = ctx;
	int err = 0;
	struct sym_dso *d = sym_dso_at(w->in->ss, w->pid, pc, w->time, PERF_RECORD_MISC_USER,
				       &m->file_off);

	if (!d || sym_dso_is_kernel(d))
		return -ENOENT;
	if (rp_is_jitted_name(sym_dso_long_name(d), NULL, NULL))
		return jitted(w, d, m);
	m->cfi = cfi_of(w->in, d, &err);
	return err ? err : m->cfi ? 0 : -ENOENT;
}

int rp_ingest_unwind(struct ingest *in, const struct pd_sample *ps, struct unw_frame *frames,
		     uint32_t max, int *early)
{
	const struct unw_input ui = {
		.regs_abi = ps->regs_abi, .regs_mask = ps->regs_mask, .regs = ps->regs,
		.stack = ps->stack, .stack_size = ps->stack_size,
	};
	struct walk_ctx w = { in, ps->pid, ps->time };
	enum unw_end end;
	uint32_t fp;
	int n = unw_walk_frames(&ui, find, &w, frames, max, &end, &fp);

	if (n < 0 || max < UNW_MAX_FRAMES)	/* the leaf's step only: not a walk to count */
		return n;
	in->unwind.fp_frames += fp;
	in->unwind.walks++;
	in->unwind.ends[end]++;
	*early = n && end != UNW_END_ROOT;
	return n;
}

void rp_ingest_unwind_report(const struct ingest *in)
{
	const struct rp_unwind *u = &in->unwind;
	char msg[512];
	uint64_t early = u->walks - u->ends[UNW_END_ROOT];

	if (!u->walks)
		return;
	unw_ends_format(u->ends, msg, sizeof(msg));
	/* More than a tenth cut short is worth a warning: the callers shown are partial. */
	if (u->interp_named || u->interp_unnamed || u->fp_frames || u->no_vm || u->no_fp)
		jp_logf(&in->o->log, JP_LOG_INFO, "%s: jitted frames: %llu interpreted ones named, "
			"%llu left 'Interpreter' (a method pointer or bcp the method table does "
			"not hold), %llu walked by frame pointer; walks ended in jitted code: "
			"%llu without the agent's frame layout (another JVM, methods=off), %llu "
			"without -XX:+PreserveFramePointer", in->o->input,
			(unsigned long long)u->interp_named, (unsigned long long)u->interp_unnamed,
			(unsigned long long)u->fp_frames, (unsigned long long)u->no_vm,
			(unsigned long long)u->no_fp);
	jp_logf(&in->o->log, early * 10 > u->walks ? JP_LOG_WARN : JP_LOG_INFO,
		"%s: %llu user stacks unwound from their copies, %llu to their root%s%s%s",
		in->o->input, (unsigned long long)u->walks,
		(unsigned long long)u->ends[UNW_END_ROOT], early ? " (the rest end in an "
		"[unknown] frame: " : "", early ? msg : "", early ? ")" : "");
}

void rp_ingest_unwind_free(struct ingest *in)
{
	struct rp_unwind *u = &in->unwind;
	for (size_t i = 0; i < u->n; i++)
		unw_cfi_close(u->cfi[i]);
	free(u->cfi);
	rp_map_free(&u->by_dso);
	rp_memo_free(&u->names);
}
