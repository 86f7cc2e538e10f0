/* cfi_stubs.c - .eh_frame for HotSpot's stubs (DynamicCodeGenerated loads, tier "stub"), by
 * what is known of each kind (x86_64, JDK 17 and 25):
 *  - frameless: "vtable stub", "itable stub" (VtableStubs::create_vtable_stub and
 *    create_itable_stub: loads, compares and a jmp to the target, rsp never moves): CFA = rsp+8
 *    over the whole code;
 *  - "I2C/C2I adapters(...)": the i2c entry, at offset 0, runs with the caller's frame
 *    untouched up to and at its first instruction that is not a mov leaving rsp alone (the pop
 *    of the return address, then the stack realigned): CFA = rsp+8 there; the c2i unverified
 *    entry follows the i2c's jmp and runs frameless (inline-cache check, class-init barrier,
 *    GC barriers' fast paths) up to and at its first stack instruction: CFA = rsp+8, a second
 *    FDE; no CFI elsewhere (the i2c after its pop, the c2i's argument shuffle);
 *  - entered by push %rbp; mov %rsp,%rbp at offset 0 (enter(): StubGenerator's stubs, the C1
 *    and shared runtime blobs through StubFrame and RegisterSaver): CFA = rbp+16 after it, the
 *    tear-downs (leave, pop %rbp) decoded (cfi_rows.c);
 *  - C2's runtime stubs ("C2 Runtime ..."), compiled with C2's set-up B at offset 0;
 *  - any other stub whose whole code decodes into instructions that leave rsp and the stack
 *    alone and that returns (StubGenerator's leaves: flush_icache_stub, the fences...):
 *    frameless, CFA = rsp+8 over all of it.
 * Not the interpreter (its frames are stepped as such: recorder/unwind) nor the blobs that
 * rebuild frames (deoptimization, uncommon trap: entered at several places, their rbp not
 * theirs). Any other stub gets no CFI: an unknown frame stays unknown. */
#include <string.h>

#include "synth/synth_int.h"

enum stub_kind { STUB_NONE, STUB_FRAMELESS, STUB_ENTRY, STUB_ENTER, STUB_SETUP };

/* A leaf that never touches the stack: all of its code decodes, none of it may move rsp or
 * use the stack (cfi_x86.c's conservative SYNTH_X86_STACK), and it returns. */
static int frameless_leaf(const uint8_t *c, uint64_t n)
{
	enum synth_x86_op op;
	uint64_t pc = 0;
	int rets = 0;
	while (pc < n) {
		unsigned len = synth_x86_insn(c + pc, n - pc, &op);
		if (!len || (op != SYNTH_X86_OTHER && op != SYNTH_X86_MOV && op != SYNTH_X86_JMP &&
			     op != SYNTH_X86_RET))
			return 0;
		rets += op == SYNTH_X86_RET;
		pc += len;
	}
	return rets > 0;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The end of a frameless entry at from: the end of its first instruction that is not one of
 * ok (0: mov leaving rsp alone; 1: also any other that does not touch the stack, jumps
 * included): at its own pc it has not run yet, the caller's frame is still untouched. from
 * itself when nothing decodes there. */
static uint64_t entry_end(const uint8_t *c, uint64_t n, uint64_t from, int any)
{
	enum synth_x86_op op;
	uint64_t pc = from;
	unsigned len;
	while (pc < n && (len = synth_x86_insn(c + pc, n - pc, &op))) {
		pc += len;
		if (op != SYNTH_X86_MOV &&
		    !(any && (op == SYNTH_X86_OTHER || op == SYNTH_X86_JMP)))
			break;
	}
	return pc;
}

/* The adapters' blob: the i2c entry at 0 (movs, then its first stack instruction, at *i2c),
 * and the c2i unverified entry right after the i2c's jmp (HotSpot emits them in that order:
 * SharedRuntime::generate_i2c2i_adapters), frameless up to and at its first stack instruction
 * (the pop of the return address), at [*c2i, *c2i_end). 0 when the i2c's jmp is not found. */
static int adapter_entries(const uint8_t *c, uint64_t n, uint64_t *i2c, uint64_t *c2i,
			   uint64_t *c2i_end)
{
	enum synth_x86_op op = SYNTH_X86_OTHER;
	uint64_t pc = 0;
	unsigned len;
	*i2c = entry_end(c, n, 0, 0);
	while (pc < n && (len = synth_x86_insn(c + pc, n - pc, &op)) && op != SYNTH_X86_JMP)
		pc += len;
	if (op != SYNTH_X86_JMP || pc >= n || !len)
		return 0;
	*c2i = pc + len;
	*c2i_end = entry_end(c, n, *c2i, 1);
	return *c2i_end > *c2i && *c2i >= *i2c;
}

/* ranges: [0, ranges[0]) and, for the adapters, [ranges[1], ranges[2]) when ranges[2]. */
static enum stub_kind kind_of(const struct synth_input *in, struct synth_prologue *pr,
			      uint64_t ranges[3])
{
	const char *name = in->name ? in->name : "";
	const uint8_t *c = in->code;
	ranges[0] = in->code_size;
	ranges[2] = 0;
	if (!strcmp(name, "vtable stub") || !strcmp(name, "itable stub"))
		return STUB_FRAMELESS;
	if (starts(name, "I2C/C2I adapters")) {
		if (!adapter_entries(c, in->code_size, &ranges[0], &ranges[1], &ranges[2]))
			ranges[0] = entry_end(c, in->code_size, 0, 0);
		return ranges[0] ? STUB_ENTRY : STUB_NONE;
	}
	if (!strcmp(name, "Interpreter") || starts(name, "Deoptimization") ||
	    starts(name, "UncommonTrap"))
		return STUB_NONE;
	if (in->code_size >= 4 && c[0] == 0x55 && c[1] == 0x48 &&
	    ((c[2] == 0x89 && c[3] == 0xe5) || (c[2] == 0x8b && c[3] == 0xec)))
		return STUB_ENTER;
	if (starts(name, "C2 Runtime ") && synth_prologue_find_entry(c, in->code_size, pr) &&
	    pr->kind == SYNTH_PROLOGUE_SUB)
		return STUB_SETUP;
	return frameless_leaf(c, in->code_size) ? STUB_FRAMELESS : STUB_NONE;
}

int synth_stub_cfi_applies(const struct synth_input *in)
{
	struct synth_prologue pr;
	uint64_t ranges[3];
	return kind_of(in, &pr, ranges) != STUB_NONE;
}

int synth_stub_cfi(const struct synth_input *in, struct synth_buf *b)
{
	struct synth_prologue pr;
	struct synth_cfi f;
	uint64_t ranges[3];
	enum stub_kind k = kind_of(in, &pr, ranges);

	if (k == STUB_NONE)
		return 0;
	synth_cfi_begin(&f, in, b);	/* CFA = rsp+8 from the entry on */
	if (k == STUB_ENTER) {
		synth_cfi_cfa(&f, 1, SYNTH_REG_RSP, 16);
		synth_cfi_rbp(&f, 1, 1);
		synth_cfi_cfa(&f, 4, SYNTH_REG_RBP, 16);
		synth_cfi_epilogues(&f, in->code, 4, in->code_size);
	} else if (k == STUB_SETUP) {
		synth_prologue_rows(&f, &pr, in->code, in->code_size);
	} else if (k == STUB_ENTRY && ranges[2] && synth_cfi_next(&f, ranges[0], ranges[1])) {
		ranges[0] = ranges[2];	/* the c2i entry: a second FDE */
	}
	return synth_cfi_end(&f, ranges[0]);
}
