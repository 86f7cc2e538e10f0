/* stacks.c - inject's rewrite of dwarf recordings (record --call-graph dwarf): each sample
 * carrying the user registers and a copy of the user stack gets its user frames, unwound by
 * recorder/unwind through the CFI of what its process maps at its time, into its
 * PERF_SAMPLE_CALLCHAIN after the kernel's part; the copies are dropped unless --keep-stacks,
 * so perf and every reader see plain call chains in a far smaller file. The maps are the
 * stream's own MMAP/FORK/EXIT records plus inject's synthetic MMAP2s, fed to a symbols
 * session as the stream goes (file order: a map the recording writes after a sample of its
 * time is not seen by that sample). A jitted generation's CFI is that of its ELF, built in
 * memory from the dump (the file may not be written yet, or ever: --no-elfs). A HotSpot
 * interpreter frame the agent's method table names becomes an address in its process's ELF of
 * interpreted methods (interp.c): the sample's IP too when it is the leaf. */
#include "recorder/inject/inject_int.h"
#include "lib/grow.h"
#include "lib/hindex.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STACK_TYPES (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* A sample record is at most this long (header.size is a u16, rounded down to 8). */
#define REC_MAX 65528u
/* The kernel entries kept in front of the user part: perf's max stack and its markers. */
#define KERNEL_MAX (UNW_MAX_FRAMES + 8)

/* A jitted generation inject mapped, by its build-id (the same id is the same ELF). */
struct jit_load {
	uint8_t id[SYNTH_BUILD_ID_SIZE];
	struct inj_dump *d;
	uint32_t load;
};

struct cfi_slot {
	struct unw_cfi *cfi;	/* NULL: none in the file */
	struct synth_elf img;	/* a jitted generation's ELF the CFI reads (else empty) */
};

struct inj_stacks {
	struct sym_session *ss;
	uint8_t *edit;		/* per evsel (pd_evsel.idx): 1 = its samples are rewritten */
	size_t nr_evsels;
	int keep;
	struct cfi_slot *cfi;	/* per DSO, by sym_dso_tag - 1 */
	size_t ncfi, capcfi;
	struct jit_load *jit;
	size_t njit, capjit;
	struct jp_hindex jit_index;
	struct unw_memo *memo;	/* find's answers by (pid, pc) while the maps stay */
	struct inj_interp *interp;	/* NULL: interpreter frames stay its pcs */
	struct unw_frame frames[UNW_MAX_FRAMES];
	uint64_t chain[KERNEL_MAX + 1 + UNW_MAX_FRAMES + 1];
	uint64_t nr_chain;
	uint64_t leaf_ip, leaf_named;	/* the user ip walked, and its interpreted address */
	uint8_t rec[REC_MAX];
	struct inj_stacks_stats st;
};

int inj_stacks_new(struct inj_stacks **out, const struct pd_reader *r, int keep)
{
	size_t n = pd_reader_nr_evsels(r), want = 0;
	struct inj_stacks *k;

	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct perf_event_attr *a = &pd_reader_evsel(r, i)->attr;
		want += (a->sample_type & STACK_TYPES) == STACK_TYPES &&
			(a->sample_type & PERF_SAMPLE_CALLCHAIN);
	}
	if (!want)
		return 0;
	struct sym_opts so = { .sz = sizeof(so), .no_debuginfod = 1, .no_lines = 1 };
	if (!(k = calloc(1, sizeof(*k))) || !(k->edit = calloc(n, 1)) ||
	    !(k->ss = sym_session_new(&so)) || sym_feed_build_ids(k->ss, r) == -ENOMEM ||
	    unw_memo_new(&k->memo)) {
		inj_stacks_free(k);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct perf_event_attr *a = &pd_reader_evsel(r, i)->attr;
		k->edit[i] = (a->sample_type & STACK_TYPES) == STACK_TYPES &&
			     (a->sample_type & PERF_SAMPLE_CALLCHAIN);
	}
	k->nr_evsels = n;
	k->keep = keep;
	*out = k;
	return 0;
}

void inj_stacks_free(struct inj_stacks *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->ncfi; i++) {
		unw_cfi_close(k->cfi[i].cfi);
		synth_elf_free(&k->cfi[i].img);
	}
	free(k->cfi);
	free(k->jit);
	jp_hindex_free(&k->jit_index);
	unw_memo_free(k->memo);
	sym_session_free(k->ss);
	free(k->edit);
	free(k);
}

const struct inj_stacks_stats *inj_stacks_stats(struct inj_stacks *k)
{
	inj_interp_counts(k->interp, &k->st.interp_named, &k->st.interp_unnamed,
			  &k->st.interp_elfs);
	return &k->st;
}

void inj_stacks_set_interp(struct inj_stacks *k, struct inj_interp *ip)
{
	k->interp = ip;
}

/* What the rewritten samples carry: a whole call chain, no copies (unless kept). */
int inj_stacks_attrs(struct inj_stacks *k, struct pd_writer *w)
{
	for (size_t i = 0; i < k->nr_evsels; i++) {
		if (!k->edit[i])
			continue;
		struct perf_event_attr a = *pd_writer_attr(w, i);
		a.exclude_callchain_user = 0;
		if (!k->keep) {
			a.sample_type &= ~(uint64_t)STACK_TYPES;
			a.sample_regs_user = 0;
			a.sample_stack_user = 0;
		}
		int rc = pd_writer_set_attr(w, i, &a);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int inj_stacks_event(struct inj_stacks *k, const struct pd_event *ev)
{
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		int rc = sym_feed_event(k->ss, ev);
		return rc == -ENOMEM ? rc : 0;	/* a map it cannot take is a frame not unwound */
	}
	default:
		return 0;
	}
}

static int jit_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct inj_stacks *k = ctx;
	return !memcmp(k->jit[idx].id, key, SYNTH_BUILD_ID_SIZE);
}

static int64_t jit_find(struct inj_stacks *k, const uint8_t *id)
{
	return jp_hindex_find(&k->jit_index, jp_hindex_hash(id, SYNTH_BUILD_ID_SIZE), id, jit_eq,
			      k);
}

int inj_stacks_mmap(struct inj_stacks *k, struct inj_dump *d, uint32_t load, uint32_t pid,
		    uint32_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *filename, const uint8_t *build_id, uint64_t time)
{
	int rc = sym_mmap(k->ss, pid, tid, start, len, pgoff, filename, build_id,
			  build_id ? SYNTH_BUILD_ID_SIZE : 0, PERF_RECORD_MISC_USER, time);
	if (rc == -ENOMEM)
		return rc;
	if (load == INJ_NONE || !build_id || jit_find(k, build_id) >= 0)
		return 0;
	if (JP_GROW_FOR(k->jit, k->capjit, k->njit))
		return -ENOMEM;
	struct jit_load *j = &k->jit[k->njit];
	memcpy(j->id, build_id, SYNTH_BUILD_ID_SIZE);
	j->d = d;
	j->load = load;
	if (jp_hindex_add(&k->jit_index, jp_hindex_hash(build_id, SYNTH_BUILD_ID_SIZE), k->njit))
		return -ENOMEM;
	k->njit++;
	return 0;
}

/* A jitted generation's CFI: the unwind data its runtime wrote into the dump, or the CFI synth
 * derives from a HotSpot prologue, in the ELF synth makes of it (symbols only: the same
 * .eh_frame at the same place). None: s stays empty. */
static int jit_cfi(const struct jit_load *j, struct cfi_slot *s)
{
	const struct jd_load_entry *e = jd_index_load(j->d->x, j->load);
	struct synth_input in;

	if (!e || (j->d->loads[j->load].flags & INJ_BAD))
		return 0;
	inj_load_input(j->d, j->load, &in);
	if (!e->unwind && !synth_prologue_cfi(&in))
		return 0;
	/* its reason unsaid: the dump's own refusals are said where its ELFs are written */
	int rc = synth_build_symbols(&in, j->id, &s->img, NULL);
	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;
	if ((rc = unw_cfi_open_mem(s->img.data, s->img.size, &s->cfi)) == -ENOMEM)
		return rc;
	if (!s->cfi)
		synth_elf_free(&s->img);
	return 0;
}

/* d's CFI, opened on first use and kept (NULL: none; -ENOMEM through *err). */
static struct unw_cfi *cfi_of(struct inj_stacks *k, struct sym_dso *d, int *err)
{
	uint32_t tag = sym_dso_tag(d);
	const char *path;

	if (tag)
		return k->cfi[tag - 1].cfi;
	if (k->ncfi >= UINT32_MAX - 1 ||
	    JP_GROW_FOR(k->cfi, k->capcfi, k->ncfi)) {
		*err = -ENOMEM;
		return NULL;
	}
	struct cfi_slot *s = &k->cfi[k->ncfi];
	const struct sym_build_id *id = sym_dso_build_id(d);
	int64_t j = id->size == SYNTH_BUILD_ID_SIZE ? jit_find(k, id->data) : -1;
	memset(s, 0, sizeof(*s));
	int rc = j >= 0 ? jit_cfi(&k->jit[j], s) : sym_dso_find(k->ss, d, &path);
	if (j < 0 && !rc)
		rc = unw_cfi_open(path, &s->cfi);
	if (rc == -ENOMEM)	/* anything else: no CFI there, a frame not unwound */
		*err = rc;
	if (*err)
		return NULL;
	sym_dso_set_tag(d, (uint32_t)++k->ncfi);
	return s->cfi;
}

struct walk_ctx {
	struct inj_stacks *k;
	uint32_t pid;
	uint64_t time, epoch;
};

/* HotSpot code stepped by rbp: its interpreter and call stub (every entry into Java from the
 * VM: StubGenerator::generate_call_stub's enter()) always keep it, and jitted code without
 * CFI keeps it under -XX:+PreserveFramePointer; its vtable and itable stubs keep no frame
 * (report's unwound.c decides alike). An interpreter frame carries its dump (m->data) for its
 * method's name. */
/* The interpreter's data is its dump: its method table names an entry's frame. */
static int method_start(const void *data, uint64_t method, uint64_t *bcp)
{
	const struct inj_dump *d = data;
	return inj_interp_method_start(d->x, method, bcp);
}

static int hotspot_fp(struct inj_stacks *k, struct sym_dso *d, int have_cfi,
		      struct unw_module *m)
{
	const struct sym_build_id *id = sym_dso_build_id(d);
	int64_t j = id->size == SYNTH_BUILD_ID_SIZE ? jit_find(k, id->data) : -1;
	if (j < 0)
		return 0;
	const struct jd_index *x = k->jit[j].d->x;
	const struct jd_ext_vm *vm = jd_index_vm(x);
	const struct jd_load_entry *e = jd_index_load(x, k->jit[j].load);
	if (!vm || vm->kind != JD_VM_HOTSPOT_X86_64 || !e)
		return 0;
	const char *name = e->load.name ? e->load.name : "";
	if (!strcmp(name, "Interpreter")) {	/* its sender sp read too (walk.c) */
		m->code = UNW_CODE_INTERP;
		m->data = k->jit[j].d;
		m->method_start = method_start;
		m->method_slot = vm->method_slot;
		m->bcp_slot = vm->bcp_slot;
		return 1;
	}
	if (unw_hotspot_no_frame(name)) {	/* whatever the flag: a jump, no frame */
		m->code = UNW_CODE_NO_FRAME;
		return 1;
	}
	m->code = UNW_CODE_FP;
	return !strcmp(name, "call_stub") || (!have_cfi && (vm->flags & JD_VM_PRESERVE_FP));
}

static int find_dso(void *ctx, uint64_t pc, struct unw_module *m)
{
	struct walk_ctx *w = ctx;
	int err = 0;
	struct sym_dso *d = sym_dso_at(w->k->ss, w->pid, pc, w->time, PERF_RECORD_MISC_USER,
				       &m->file_off);

	if (!d || sym_dso_is_kernel(d))
		return -ENOENT;
	m->cfi = cfi_of(w->k, d, &err);
	if (err)
		return err;
	if (hotspot_fp(w->k, d, m->cfi != NULL, m))
		return 0;
	m->code = UNW_CODE_CFI;
	return m->cfi ? 0 : -ENOENT;
}

/* find_dso's answer, kept for the pc while the maps fed so far stay (sym_resolve_epoch). */
static int find(void *ctx, uint64_t pc, struct unw_module *m)
{
	struct walk_ctx *w = ctx;
	return unw_memo_find(w->k->memo, w->epoch, w->pid, pc, find_dso, w, m);
}

/* The new chain: the kernel's part of the recorded one (the recorder asked for no user part;
 * any user part there is dropped for the unwound one), PERF_CONTEXT_USER, the unwound pcs,
 * and a 0 (an [unknown] frame, as report shows it) where the walk ended early. */
static int make_chain(struct inj_stacks *k, const struct pd_sample *ps)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < ps->nr_callchain && n < KERNEL_MAX; i++) {
		uint64_t a = ps->callchain[i];
		if (a == PERF_CONTEXT_USER)
			break;
		k->chain[n++] = a;
	}
	const struct unw_input ui = {
		.regs_abi = ps->regs_abi, .regs_mask = ps->regs_mask, .regs = ps->regs,
		.stack = ps->stack, .stack_size = ps->stack_size,
	};
	struct walk_ctx w = { k, ps->pid, ps->time, sym_resolve_epoch(k->ss, ps->time) };
	enum unw_end end;
	uint64_t *pcs = k->chain + n + 1;
	uint32_t fp;
	int got = unw_walk_frames(&ui, find, &w, k->frames, UNW_MAX_FRAMES, &end, &fp);
	if (got < 0)
		return got;
	k->leaf_ip = got ? k->frames[0].pc : 0;
	k->leaf_named = 0;
	for (int i = 0; i < got; i++) {
		uint64_t a = 0;
		pcs[i] = k->frames[i].pc;
		if (!k->frames[i].method)
			continue;
		int rc = inj_interp_addr(k->interp, ps->pid, (struct inj_dump *)k->frames[i].data,
					 &k->frames[i], ps->time, &a);
		if (rc < 0)
			return rc;
		if (a)
			pcs[i] = a;
		if (a && i == 0)
			k->leaf_named = a;
	}
	k->st.walks++;
	k->st.ends[end]++;
	if (unw_end_is_copy_end(end, ps->stack_size, ps->stack_copy)) {
		k->st.copy_cut++;
		if (ps->stack_copy > k->st.copy_size)
			k->st.copy_size = ps->stack_copy;
	}
	if (got) {
		k->chain[n] = PERF_CONTEXT_USER;
		n += 1 + (uint64_t)got;
		if (end != UNW_END_ROOT)
			k->chain[n++] = 0;
	}
	k->nr_chain = n;
	return 0;
}

int inj_stacks_sample(struct inj_stacks *k, const struct pd_event *ev, const void **rec,
		      size_t *size, const uint64_t **chain, uint64_t *nr_chain)
{
	const struct pd_sample *ps = &ev->u.sample;
	const uint8_t *raw = ev->raw;

	*rec = ev->raw;
	*size = ev->size;
	*chain = ps->callchain;
	*nr_chain = ps->callchain ? ps->nr_callchain : 0;
	if (!ev->evsel || ev->evsel->idx < 0 || (size_t)ev->evsel->idx >= k->nr_evsels ||
	    !k->edit[ev->evsel->idx])
		return 0;
	/* The decoder found every section: callchain, then regs and stack, in that order. */
	uint64_t cc = ps->off_callchain, ru = ps->off_regs_user, end = ps->off_after_stack;
	uint64_t after_cc = cc + 8 + 8 * ps->nr_callchain;
	if (!cc || !ru || !end || after_cc > ru || ru > end || end > ev->size)
		return 0;
	int rc = make_chain(k, ps);
	if (rc < 0)
		return rc;
	uint64_t keep = k->keep ? end - ru : 0;
	uint64_t len = cc + 8 + 8 * k->nr_chain + (ru - after_cc) + keep + (ev->size - end);
	if (len > REC_MAX) {	/* --keep-stacks with a full copy: the chain has no room */
		k->st.too_big++;
		return 0;
	}
	uint8_t *o = k->rec;
	memcpy(o, raw, cc);
	o += cc;
	memcpy(o, &k->nr_chain, 8);
	memcpy(o + 8, k->chain, 8 * k->nr_chain);
	o += 8 + 8 * k->nr_chain;
	memcpy(o, raw + after_cc, ru - after_cc);	/* RAW, BRANCH_STACK */
	o += ru - after_cc;
	memcpy(o, raw + ru, keep);
	o += keep;
	memcpy(o, raw + end, ev->size - end);	/* WEIGHT and the rest */
	/* An interpreted leaf sampled in user mode: its IP is the chain's first user entry. */
	int user = (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
	if (k->leaf_named && user && ps->ip == k->leaf_ip && (ps->sample_type & PERF_SAMPLE_IP))
		memcpy(k->rec + 8 + 8 * !!(ps->sample_type & PERF_SAMPLE_IDENTIFIER),
		       &k->leaf_named, 8);
	struct perf_event_header h;
	memcpy(&h, raw, sizeof(h));
	h.size = (uint16_t)len;
	memcpy(k->rec, &h, sizeof(h));
	k->st.rewritten++;
	*rec = k->rec;
	*size = len;
	*chain = k->chain;
	*nr_chain = k->nr_chain;
	return 1;
}
