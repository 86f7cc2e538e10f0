/* test_walk.c - recorder/unwind: walks over code of this binary whose CFI is written here
 * (asm below), on registers and stack copies made by hand: a real step and the root, then
 * hostile samples (no registers, SIZE 0, a truncated copy, registers pointing outside the
 * copy, a stack that does not move, a stack that repeats itself, CFI we do not evaluate):
 * bounded work, the reason said, never a crash; a pc seen again goes through the rule kept
 * for it (walk.c's cache, counted by unw_cfi_stats) with the same answer. */
#include <criterion/criterion.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

#include "recorder/unwind/unwind.h"
#include "tests/lib/testutil.h"

/* unw_t_frame: a function with a frame (rbp pushed), its body at unw_t_frame_body;
 * unw_t_root: the CFI says it has no caller (rip undefined, as _start does);
 * unw_t_still: CFA = rsp, return address at [rsp]: a caller at the same sp;
 * unw_t_leaf: CFA = rsp + 8, return address at [rsp] (a leaf without a frame);
 * unw_t_far: CFA from an expression reading far outside any stack copy;
 * unw_t_odd: CFA from an expression with an operation we do not evaluate. */
__asm__(".text\n"
	".globl unw_t_frame, unw_t_frame_body\n"
	"unw_t_frame:\n.cfi_startproc\n"
	"push %rbp\n.cfi_def_cfa_offset 16\n.cfi_offset rbp, -16\n"
	"unw_t_frame_body:\nnop\npop %rbp\n.cfi_def_cfa_offset 8\nret\n.cfi_endproc\n"
	".globl unw_t_root\n"
	"unw_t_root:\n.cfi_startproc\n.cfi_undefined rip\nnop\nnop\nret\n.cfi_endproc\n"
	".globl unw_t_still\n"
	"unw_t_still:\n.cfi_startproc\n.cfi_def_cfa rsp, 0\n.cfi_offset rip, 0\nnop\nnop\nret\n"
	".cfi_endproc\n"
	".globl unw_t_leaf\n"
	"unw_t_leaf:\n.cfi_startproc\nnop\nnop\nret\n.cfi_endproc\n"
	/* DW_CFA_def_cfa_expression (0x0f), 11 bytes: DW_OP_const8u (0x0e) 0x10, DW_OP_deref
	 * (0x06), DW_OP_lit8 (0x38) ... ending as an address read from 0x10. */
	".globl unw_t_far\n"
	"unw_t_far:\n.cfi_startproc\n"
	".cfi_escape 0x0f, 10, 0x0e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x06\n"
	"nop\nnop\nret\n.cfi_endproc\n"
	/* DW_CFA_def_cfa_expression: DW_OP_breg7 0 (0x77 0x00), DW_OP_xderef (0x18). */
	".globl unw_t_odd\n"
	"unw_t_odd:\n.cfi_startproc\n.cfi_escape 0x0f, 3, 0x77, 0x00, 0x18\n"
	"nop\nnop\nret\n.cfi_endproc\n");

extern char unw_t_frame[], unw_t_frame_body[], unw_t_root[], unw_t_still[], unw_t_leaf[],
	unw_t_far[], unw_t_odd[];

static struct unw_cfi *self_cfi;
static int finds;

/* This executable's load bias and PT_LOADs, for file offsets. */
static int phdr_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	memcpy(ctx, &info, sizeof(info));
	return 1;	/* the first is the executable */
}

static int find_self(void *ctx, uint64_t pc, struct unw_module *m)
{
	struct dl_phdr_info *info;
	(void)ctx;
	finds++;
	dl_iterate_phdr(phdr_cb, &info);
	uint64_t vaddr = pc - info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr - ph->p_vaddr < ph->p_filesz) {
			m->cfi = self_cfi;
			m->file_off = vaddr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static void setup(void)
{
	cr_assert_eq(unw_cfi_open("/proc/self/exe", &self_cfi), 0);
	finds = 0;
}

static void teardown(void)
{
	unw_cfi_close(self_cfi);
}

TestSuite(unwind, .init = setup, .fini = teardown, .timeout = 30);

/* perf's register order: AX BX CX DX SI DI BP SP IP FLAGS CS SS (mask 0xff0fff: no DS-GS)
 * R8..R15; ip, sp and bp set, the rest 0. */
struct sample {
	uint64_t regs[20];
	uint8_t stack[8192];
	struct unw_input in;
};

static void sample_at(struct sample *s, const void *ip, uint64_t sp, uint64_t bp, size_t size)
{
	memset(s->regs, 0, sizeof(s->regs));
	s->regs[6] = bp;
	s->regs[7] = sp;
	s->regs[8] = (uint64_t)(uintptr_t)ip;
	s->in = (struct unw_input){ .regs_abi = 2, .regs_mask = 0xff0fffULL, .regs = s->regs,
				    .stack = s->stack, .stack_size = size };
}

static void put64(struct sample *s, size_t off, uint64_t v)
{
	memcpy(s->stack + off, &v, 8);
}

Test(unwind, a_frame_then_the_root)
{
	static struct sample s;
	uint64_t pcs[UNW_MAX_FRAMES];
	enum unw_end end;
	sample_at(&s, unw_t_frame_body, 0x7ffd0000, 0x1111, 64);
	put64(&s, 0, 0x2222);					/* the pushed rbp */
	put64(&s, 8, (uint64_t)(uintptr_t)unw_t_root + 1);	/* return into the root */
	int n = unw_walk(&s.in, find_self, NULL, pcs, UNW_MAX_FRAMES, &end);
	cr_assert_eq(n, 2, "%d frames, ended: %s", n, unw_end_name(end));
	cr_assert_eq(pcs[0], (uint64_t)(uintptr_t)unw_t_frame_body);
	cr_assert_eq(pcs[1], (uint64_t)(uintptr_t)unw_t_root + 1);
	cr_assert_eq(end, UNW_END_ROOT, "%s", unw_end_name(end));
	/* Again through the rules kept per pc: the same answer, and a copy cut short is still
	 * checked (the kept rule reads through the same bounds). */
	uint64_t again[UNW_MAX_FRAMES];
	struct unw_cfi_stats st0, st;
	unw_cfi_stats(self_cfi, &st0);
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, again, UNW_MAX_FRAMES, &end), 2);
	cr_assert_eq(end, UNW_END_ROOT);
	cr_assert_arr_eq(again, pcs, 2 * sizeof(uint64_t));
	s.in.stack_size = 12;
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, again, UNW_MAX_FRAMES, &end), 1);
	cr_assert_eq(end, UNW_END_MEMORY, "%s", unw_end_name(end));
	/* Both rows (a def_cfa, which libdw hands out as DW_OP_bregx, and an undefined rip)
	 * were kept: the three steps again asked libdw nothing. */
	unw_cfi_stats(self_cfi, &st);
	cr_assert_eq(st.rows, st0.rows, "%llu rows taken from libdw again",
		     (unsigned long long)(st.rows - st0.rows));
	cr_assert_eq(st.kept - st0.kept, 3, "%llu", (unsigned long long)(st.kept - st0.kept));
}

Test(unwind, no_registers)
{
	static struct sample s;
	uint64_t pcs[4];
	enum unw_end end;
	sample_at(&s, unw_t_leaf, 0x7ffd0000, 0, 64);
	s.in.regs_abi = 0;		/* a kernel thread */
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, pcs, 4, &end), 0);
	cr_assert_eq(end, UNW_END_NO_REGS);
	sample_at(&s, unw_t_leaf, 0x7ffd0000, 0, 64);
	s.in.regs_mask = 0xff;		/* no IP */
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, pcs, 4, &end), 0);
	cr_assert_eq(end, UNW_END_NO_REGS);
	cr_assert_eq(finds, 0);
}

/* SIZE 0 (no copy), a copy shorter than the return address, and an sp near the top of the
 * address space: the sampled ip alone, the walk said cut by memory. */
Test(unwind, no_copy_truncated_copy_and_wrapping_sp)
{
	static struct sample s;
	uint64_t pcs[8];
	enum unw_end end;
	const size_t sizes[] = { 0, 4, 7 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		sample_at(&s, unw_t_leaf, 0x7ffd0000, 0, sizes[i]);
		put64(&s, 0, (uint64_t)(uintptr_t)unw_t_root + 1);
		if (!sizes[i])
			s.in.stack = NULL;
		cr_assert_eq(unw_walk(&s.in, find_self, NULL, pcs, 8, &end), 1);
		cr_assert_eq(end, UNW_END_MEMORY, "size %zu: %s", sizes[i], unw_end_name(end));
	}
	/* sp + 8 wraps to 0: below the sp, so no step up the stack. */
	sample_at(&s, unw_t_leaf, UINT64_MAX - 7, 0, 64);
	put64(&s, 0, (uint64_t)(uintptr_t)unw_t_leaf + 1);
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, pcs, 8, &end), 1);
	cr_assert_eq(end, UNW_END_LOOP, "%s", unw_end_name(end));
}

/* A return address into code of no map, and CFI reading outside the copy. */
Test(unwind, pointers_outside)
{
	static struct sample s;
	uint64_t pcs[8];
	enum unw_end end;
	sample_at(&s, unw_t_leaf, 0x7ffd0000, 0, 64);
	put64(&s, 0, 0x10);
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, pcs, 8, &end), 2);
	cr_assert_eq(end, UNW_END_NO_CFI, "%s", unw_end_name(end));
	sample_at(&s, unw_t_far, 0x7ffd0000, 0, 64);
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, pcs, 8, &end), 1);
	cr_assert_eq(end, UNW_END_MEMORY, "%s", unw_end_name(end));
	sample_at(&s, unw_t_odd, 0x7ffd0000, 0, 64);
	cr_assert_eq(unw_walk(&s.in, find_self, NULL, pcs, 8, &end), 1);
	cr_assert_eq(end, UNW_END_BAD_CFI, "%s", unw_end_name(end));
}

/* A frame whose caller is itself at the same sp: ended at once, not 127 times. */
Test(unwind, a_stack_that_does_not_move)
{
	static struct sample s;
	uint64_t pcs[UNW_MAX_FRAMES];
	enum unw_end end;
	sample_at(&s, unw_t_still, 0x7ffd0000, 0, 64);
	put64(&s, 0, (uint64_t)(uintptr_t)unw_t_still + 1);
	int n = unw_walk(&s.in, find_self, NULL, pcs, UNW_MAX_FRAMES, &end);
	cr_assert_eq(n, 1, "%d", n);
	cr_assert_eq(end, UNW_END_LOOP, "%s", unw_end_name(end));
}

/* 8 KiB of one return address into a frameless leaf: every step is 8 bytes up, so the walk
 * stops at the frame limit, after that many lookups. */
Test(unwind, a_stack_that_repeats_stops_at_the_limit)
{
	static struct sample s;
	uint64_t pcs[UNW_MAX_FRAMES];
	enum unw_end end;
	sample_at(&s, unw_t_leaf, 0x7ffd0000, 0, sizeof(s.stack));
	for (size_t off = 0; off < sizeof(s.stack); off += 8)
		put64(&s, off, (uint64_t)(uintptr_t)unw_t_leaf + 1);
	int n = unw_walk(&s.in, find_self, NULL, pcs, UNW_MAX_FRAMES, &end);
	cr_assert_eq(n, UNW_MAX_FRAMES);
	cr_assert_eq(end, UNW_END_MAX, "%s", unw_end_name(end));
	cr_assert_eq(finds, UNW_MAX_FRAMES - 1);
}

Test(unwind, a_file_without_cfi_is_refused)
{
	struct unw_cfi *c = (struct unw_cfi *)1;
	cr_assert_lt(unw_cfi_open("/dev/null", &c), 0);
	cr_assert_null(c);
	cr_assert_lt(unw_cfi_open("/nonexistent/x", &c), 0);
	cr_assert_null(c);
}

/* The longest summary of why walks ended (every reason, counts of 20 digits) fits in
 * UNW_ENDS_TEXT_MAX whole: its callers' buffers never cut it (issue 39). */
Test(unwind, the_longest_ends_text_fits_its_buffer)
{
	uint64_t ends[UNW_END_NR];
	char buf[UNW_ENDS_TEXT_MAX];

	for (int e = 0; e < UNW_END_NR; e++)
		ends[e] = UINT64_MAX;
	size_t n = unw_ends_format(ends, buf, sizeof(buf));
	cr_assert_eq(n, strlen(buf));
	cr_assert_lt(n + 1, sizeof(buf), "%zu bytes: %s", n, buf);
	cr_assert(strstr(buf, "frame pointer outside the stack copy 18446744073709551615"),
		  "%s", buf);
	cr_assert_eq(strncmp(buf, "max frames 18446744073709551615, ", 33), 0, "%s", buf);
}

/* A walk is cut by the copy's end only when it read outside a copy the kernel filled:
 * a short copy (the stack ended there) or another reason is not; the hint names the size
 * that copies more, unless the copy was already the largest. */
Test(unwind, cut_by_a_full_copy_and_what_copies_more)
{
	char buf[256];
	cr_assert(unw_end_is_copy_end(UNW_END_MEMORY, 8192, 8192));
	cr_assert(unw_end_is_copy_end(UNW_END_NO_FP, 32768, 32768));
	cr_assert_not(unw_end_is_copy_end(UNW_END_MEMORY, 4000, 8192));
	cr_assert_not(unw_end_is_copy_end(UNW_END_NO_CFI, 8192, 8192));
	cr_assert_not(unw_end_is_copy_end(UNW_END_ROOT, 8192, 8192));
	cr_assert_not(unw_end_is_copy_end(UNW_END_MEMORY, 0, 0));
	cr_assert_eq(unw_copy_end_hint(0, 8192, buf, sizeof(buf)), 0);
	cr_assert_str_empty(buf);
	size_t n = unw_copy_end_hint(3, 32768, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3 of them where a full 32768-byte stack copy ended: --call-graph "
			 "dwarf,65528 copies the most, and reaches further");
	cr_assert_eq(n, strlen(buf));
	unw_copy_end_hint(4, UNW_STACK_COPY_MAX, buf, sizeof(buf));
	cr_assert_str_eq(buf, "4 of them where a full 65528-byte stack copy, the largest the "
			 "kernel makes, ended");
	n = unw_copy_end_hint(3, 32768, buf, 10);	/* cut to what fits */
	cr_assert_eq(n, 9);
	cr_assert_str_eq(buf, "3 of them");
}

/* The dynamic loader's entry point (_start: mov %rsp,%rdi; call _dl_start) has no FDE: a
 * process's first frames while it loads its libraries end there, at the main thread's root
 * (as perf shows them), not at an [unknown] frame. Walked over the loader this test runs
 * under, mapped by hand at FAKE_BASE: the sampled pc at its entry, then a return into it. */
#define FAKE_BASE 0x10000000ull
static struct unw_cfi *ld_cfi;
static uint64_t ld_entry_off;

static int find_ld(void *ctx, uint64_t pc, struct unw_module *m)
{
	if (pc < FAKE_BASE || pc - FAKE_BASE >= 64)
		return find_self(ctx, pc, m);
	m->cfi = ld_cfi;
	m->file_off = ld_entry_off + (pc - FAKE_BASE);
	return 0;
}

Test(unwind, the_loaders_entry_point_is_the_root)
{
	static struct sample s;
	char path[4096];
	uint64_t pcs[UNW_MAX_FRAMES];
	enum unw_end end;

	if (!tu_self_map_path("/ld-linux", path, sizeof(path)) || !getauxval(AT_BASE))
		cr_skip_test("no ld-linux in this process's maps");
	/* the loader's own headers, mapped at its base (the kernel says where: AT_BASE) */
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_BASE);
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	ld_entry_off = UINT64_MAX;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && eh->e_entry >= ph[i].p_vaddr &&
		    eh->e_entry - ph[i].p_vaddr < ph[i].p_filesz)
			ld_entry_off = eh->e_entry - ph[i].p_vaddr + ph[i].p_offset;
	cr_assert_neq(ld_entry_off, UINT64_MAX, "%s: its entry point is in no PT_LOAD", path);
	cr_assert_eq(unw_cfi_open(path, &ld_cfi), 0, "%s", path);

	/* sampled at the entry itself */
	sample_at(&s, (const void *)(uintptr_t)FAKE_BASE, 0x7ffd0000, 0, 64);
	int n = unw_walk(&s.in, find_ld, NULL, pcs, UNW_MAX_FRAMES, &end);
	cr_expect_eq(n, 1, "%d frames", n);
	cr_expect_eq(end, UNW_END_ROOT, "%s", unw_end_name(end));
	/* a leaf called from it: the call's return address is the entry + 8 */
	sample_at(&s, unw_t_leaf, 0x7ffd0000, 0, 64);
	put64(&s, 0, FAKE_BASE + 8);
	n = unw_walk(&s.in, find_ld, NULL, pcs, UNW_MAX_FRAMES, &end);
	cr_expect_eq(n, 2, "%d frames", n);
	cr_expect_eq(pcs[1], FAKE_BASE + 8);
	cr_expect_eq(end, UNW_END_ROOT, "%s", unw_end_name(end));
	unw_cfi_close(ld_cfi);
}
