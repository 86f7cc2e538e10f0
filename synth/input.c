/* input.c - what a code load must look like before synth makes an ELF of it: filling the input
 * from a jitdump index entry, validating it (untrusted data from any writer), file names. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"
#include "synth/synth_int.h"

/* Limits that keep one ELF sane; far beyond anything a JIT emits for one method. */
#define MAX_CODE_SIZE   (256ull << 20)
#define MAX_UNWIND_SIZE (64ull << 20)
#define MAX_INLINE_DEPTH 1024u

int synth_err(const struct jp_log *log, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	jp_vlogf(log, JP_LOG_ERROR, fmt, ap);
	va_end(ap);
	return rc;
}

uint16_t synth_host_machine(void)
{
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
	return EM_RISCV;
#else
	return EM_NONE;
#endif
}

uint16_t synth_machine(const struct synth_input *in)
{
	return in->e_machine ? in->e_machine : synth_host_machine();
}

void synth_input_from_load(struct synth_input *in, const struct jd_header *hdr,
			   const struct jd_load_entry *e)
{
	memset(in, 0, sizeof(*in));
	/* e_machine is a u32 on disk; anything that is not a 16-bit EM_ value stays invalid. */
	in->e_machine = hdr && hdr->elf_mach <= UINT16_MAX ? (uint16_t)hdr->elf_mach : UINT16_MAX;
	in->pid = e->load.pid ? e->load.pid : (hdr ? hdr->pid : 0);
	in->code_index = e->load.code_index;
	in->generation = e->generation;
	in->tier = e->info ? e->info->tier : JD_TIER_UNKNOWN;
	in->load_flags = e->info ? e->info->flags : 0;
	in->timestamp = e->timestamp;
	in->name = e->load.name;
	in->code_addr = e->load.code_addr;
	in->code = e->load.code;
	in->code_size = e->load.code_size;
	in->lines = e->lines;
	in->nr_lines = e->nr_lines;
	in->inl = e->inl;
	if (e->unwind && e->unwind->unwinding_size) {
		in->unwind = e->unwind->data;
		in->unwind_size = e->unwind->unwinding_size;
		in->eh_frame_hdr_size = e->unwind->eh_frame_hdr_size;
		in->mapped_size = e->unwind->mapped_size;
	}
}

/* Decimal digits of v at p (no NUL); returns how many. */
static size_t put_u64(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* By hand rather than snprintf: inject names one file per code load it maps (200k in a large
 * start-up), and the formatting was a visible share of a --no-elfs run. */
int synth_file_name(const struct synth_input *in, char *buf, size_t len)
{
	char tmp[SYNTH_FILE_NAME_MAX];
	size_t n = 0;
	memcpy(tmp, "jitted-", 7);
	n = 7;
	n += put_u64(tmp + n, in->pid);
	tmp[n++] = '-';
	n += put_u64(tmp + n, in->code_index);
	if (in->file_seq) {
		tmp[n++] = '-';
		n += put_u64(tmp + n, in->file_seq);
	}
	memcpy(tmp + n, ".so", 3);
	n += 3;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, tmp, n);
	buf[n] = 0;
	return 0;
}

struct seq_key {
	uint64_t code_index;
	size_t i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct seq_key *x = a, *y = b;
	if (x->code_index != y->code_index)
		return x->code_index < y->code_index ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int synth_index_file_seqs(const struct jd_index *x, uint32_t *seqs)
{
	size_t n = jd_index_nr_loads(x), up = 1;
	/* Writers number their loads in order: then no code_index repeats and no sort is needed. */
	while (up < n && jd_index_load(x, up - 1)->load.code_index <
			 jd_index_load(x, up)->load.code_index)
		up++;
	if (up >= n) {
		memset(seqs, 0, n * sizeof(*seqs));
		return 0;
	}
	struct seq_key *k = malloc((n ? n : 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct seq_key){ jd_index_load(x, i)->load.code_index, i };
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_key);
	for (size_t i = 0; i < n; i++)
		seqs[k[i].i] = i && k[i - 1].code_index == k[i].code_index ?
			       seqs[k[i - 1].i] + 1 : 0;
	free(k);
	return 0;
}

static int in_code(const struct synth_input *in, uint64_t addr)
{
	return addr >= in->code_addr && addr - in->code_addr < in->code_size;
}

static int check_inline(const struct synth_input *in, const struct jp_log *log)
{
	const struct jd_ext_inline *x = in->inl;
	if (!x)
		return 0;
	if ((x->nr_methods && !x->methods) || (x->nr_pcs && !x->pcs))
		return synth_err(log, -EINVAL, "inline table: missing arrays");
	for (uint32_t m = 0; m < x->nr_methods; m++) {
		const struct jd_inline_method *jm = &x->methods[m];
		if (!jm->name || !jm->file ||
		    strnlen(jm->name, SYNTH_NAME_MAX + 1) > SYNTH_NAME_MAX || !jm->name[0] ||
		    strnlen(jm->file, SYNTH_NAME_MAX + 1) > SYNTH_NAME_MAX)
			return synth_err(log, -EINVAL,
					 "inline method %" PRIu32 ": name/file missing, empty or "
					 "longer than %d", m, SYNTH_NAME_MAX);
	}
	for (uint32_t i = 0; i < x->nr_pcs; i++) {
		const struct jd_inline_pc *p = &x->pcs[i];
		if (!in_code(in, p->addr))
			return synth_err(log, -EINVAL,
					 "inline pc %" PRIu32 ": address 0x%" PRIx64
					 " outside the code", i, p->addr);
		if (i && p->addr <= x->pcs[i - 1].addr)
			return synth_err(log, -EINVAL,
					 "inline pc %" PRIu32 ": address 0x%" PRIx64
					 " not above the previous one", i, p->addr);
		if (p->depth > MAX_INLINE_DEPTH || (p->depth && !p->frames))
			return synth_err(log, -EINVAL,
					 "inline pc %" PRIu32 ": depth %" PRIu32 " invalid", i,
					 p->depth);
		for (uint32_t d = 0; d < p->depth; d++)
			if (p->frames[d].method >= x->nr_methods || p->frames[d].line < 0)
				return synth_err(log, -EINVAL,
						 "inline pc %" PRIu32 " frame %" PRIu32
						 ": method %" PRIu32 " of %" PRIu32 " or line %d",
						 i, d, p->frames[d].method, x->nr_methods,
						 (int)p->frames[d].line);
	}
	return 0;
}

static int check_unwind(const struct synth_input *in, const struct jp_log *log)
{
	if (!in->unwind_size)
		return 0;
	if (!in->unwind || in->unwind_size > MAX_UNWIND_SIZE)
		return synth_err(log, -EINVAL, "unwind data: %" PRIu64
				 " bytes missing or over the limit", in->unwind_size);
	if (in->eh_frame_hdr_size > in->unwind_size || in->mapped_size > in->unwind_size)
		return synth_err(log, -EINVAL,
				 "unwind data: eh_frame_hdr_size %" PRIu64 " / mapped_size %"
				 PRIu64 " exceed unwinding_size %" PRIu64, in->eh_frame_hdr_size,
				 in->mapped_size, in->unwind_size);
	return synth_check_unwind(in, log);
}

/* What must hold whatever the debug data: the ELF's identity and its code. */
static int check_core(const struct synth_input *in, const struct jp_log *log)
{
	uint16_t m = synth_machine(in);
	if (m != EM_X86_64 && m != EM_AARCH64 && m != EM_RISCV)
		return synth_err(log, -ENOTSUP,
				 "e_machine %u not supported (x86-64, aarch64, riscv64)", m);
	if (!in->name || !in->name[0])
		return synth_err(log, -EINVAL, "empty method name");
	size_t nlen = strnlen(in->name, SYNTH_NAME_MAX + 1);
	if (nlen > SYNTH_NAME_MAX)
		return synth_err(log, -EINVAL, "method name longer than %d bytes",
				 SYNTH_NAME_MAX);
	if (!in->code_size)
		return synth_err(log, -EINVAL, "code_size is 0");
	if (!in->code || in->code_size > MAX_CODE_SIZE)
		return synth_err(log, -EINVAL, "code_size %" PRIu64
				 " over the limit or code missing", in->code_size);
	if (in->code_addr > UINT64_MAX - in->code_size)
		return synth_err(log, -EINVAL, "code 0x%" PRIx64 "+0x%" PRIx64
				 " wraps the address space", in->code_addr, in->code_size);
	return 0;
}

int synth_validate(const struct synth_input *in, const struct jp_log *log)
{
	int rc = check_core(in, log);
	if (!rc)
		rc = check_inline(in, log);
	if (!rc)
		rc = check_unwind(in, log);
	return rc;
}

int synth_input_drop_bad_debug(struct synth_input *in, const struct jp_log *log)
{
	int rc = check_core(in, log), dropped = 0;
	if (rc)
		return rc;
	/* Only the first reason is logged: later checks log nowhere. */
	const struct jp_log *l = log;
	if (check_inline(in, l)) {
		in->inl = NULL;
		l = NULL;
		dropped = 1;
	}
	if (check_unwind(in, l)) {
		in->unwind = NULL;
		in->unwind_size = in->eh_frame_hdr_size = in->mapped_size = 0;
		dropped = 1;
	}
	return dropped;
}
