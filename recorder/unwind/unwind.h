/* unwind.h - user stacks unwound from a sample's registers and copy of the user stack (perf
 * record --call-graph dwarf) through the binaries' CFI (.eh_frame, .debug_frame, read by
 * libdw), in a loop of our own: bounded in frames and in work, every read checked against
 * the copy, a step that does not move up the stack ends the walk (recorder/unwind/,
 * librecorder-unwind.a). x86_64 only. */
#ifndef JITPROF_UNWIND_H
#define JITPROF_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* Deeper than perf's default --max-stack (127, PERF_MAX_STACK_DEPTH): a 32 KiB stack copy
 * holds 200-300 of javac's frames, and a walk cut at 127 never reaches its thread's root
 * (javac on JDK 17: 12% of its Java samples). report keeps chains to 512 frames too; perf
 * shows an injected chain's first 127 unless given --max-stack. */
#define UNW_MAX_FRAMES 512

/* The CFI of one ELF file, opened once per DSO by the caller and kept with it. */
struct unw_cfi;
/* 0 and *out, or -errno (-ENOENT: no CFI in the file, -ENOMEM) with *out NULL. */
int unw_cfi_open(const char *path, struct unw_cfi **out);
/* The same from an ELF image in memory (an ELF synthesized for jitted code), which must
 * stay unchanged until unw_cfi_close. */
int unw_cfi_open_mem(const void *image, size_t len, struct unw_cfi **out);
void unw_cfi_close(struct unw_cfi *c);
/* What c's steps cost: rows taken from libdw (a pc first seen, a row not in the kept shape, a
 * slot taken by another pc) against steps answered by the rule kept for their pc. */
struct unw_cfi_stats {
	uint64_t rows, kept;
};
void unw_cfi_stats(const struct unw_cfi *c, struct unw_cfi_stats *st);

/* What kind of code a pc is in, and so how its frame is stepped over. */
enum unw_code {
	UNW_CODE_CFI = 0,	/* an ELF's CFI (cfi, file_off) */
	UNW_CODE_INTERP,	/* HotSpot's template interpreter: rbp-based frames holding the
				 * method and bytecode pointers at method_slot, bcp_slot */
	UNW_CODE_FP,		/* jitted code keeping rbp (-XX:+PreserveFramePointer) */
	UNW_CODE_NO_FRAME,	/* a stub that builds no frame (unw_hotspot_no_frame): as the
				 * sampled frame, its caller's pc at [sp]; never a caller */
};

/* 1 when HotSpot's code load of this name builds no frame of its own: its vtable and itable
 * stubs only load the target method and jump to it, so the return address into the code that
 * called through them is at [sp] all along (rbp is still that caller's frame: stepped by rbp,
 * the caller would be lost). */
int unw_hotspot_no_frame(const char *name);

/* Where a code address lives, for unw_walk's find callback. */
struct unw_module {
	struct unw_cfi *cfi;
	uint64_t file_off;	/* the address as an offset in the mapped file */
	enum unw_code code;	/* 0 (UNW_CODE_CFI) unless find says otherwise */
	int32_t method_slot, bcp_slot;	/* UNW_CODE_INTERP: words from rbp */
	const void *data;	/* find's own, handed back in the frame (unw_frame.data) */
	uint32_t note;		/* find's own, kept with the answer by unw_memo_find */
	/* UNW_CODE_INTERP, optional: 0 and *bcp the first bytecode's address (0 for a native
	 * method that has none yet) when data's method table holds method, else -ENOENT. With
	 * it a top frame sampled in a method entry, before the frame exists, is named from rbx
	 * and stepped to its caller (walk.c, step_entry). */
	int (*method_start)(const void *data, uint64_t method, uint64_t *bcp);
};
/* 0 and *m filled, or -ENOENT (no file-backed map, no CFI) or -ENOMEM. */
typedef int (*unw_find_fn)(void *ctx, uint64_t pc, struct unw_module *m);

/* find's answers (0 or -ENOENT, with *m) kept by (pid, pc) for as long as the caller's epoch
 * stays the same: a number it changes whenever find could answer otherwise (a map fed; 0:
 * keep nothing). Its find then calls unw_memo_find, and anything it counts per answer it
 * counts from m->note, hit or not. */
struct unw_memo;
int unw_memo_new(struct unw_memo **out);	/* 0, or -ENOMEM with *out NULL */
void unw_memo_free(struct unw_memo *mm);
/* find(ctx, pc, m), or its answer kept (mm NULL: find each time). */
int unw_memo_find(struct unw_memo *mm, uint64_t epoch, uint32_t pid, uint64_t pc,
		  unw_find_fn find, void *ctx, struct unw_module *m);
struct unw_memo_stats {
	uint64_t hits, misses;
};
void unw_memo_stats(const struct unw_memo *mm, struct unw_memo_stats *st);

/* The sample's PERF_SAMPLE_REGS_USER (perf's x86_64 numbering, packed by mask) and
 * PERF_SAMPLE_STACK_USER (its valid bytes, from the sampled sp on). */
struct unw_input {
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;
	const uint8_t *stack;
	uint64_t stack_size;
};

enum unw_end {
	UNW_END_ROOT,		/* the CFI says there is no caller (or a zero return address) */
	UNW_END_MAX,		/* max frames */
	UNW_END_NO_REGS,	/* no ip/sp in the sample (a kernel thread, abi 0, short mask) */
	UNW_END_NO_CFI,		/* no map, file or CFI row for a pc */
	UNW_END_MEMORY,		/* a read outside the stack copy */
	UNW_END_LOOP,		/* a step that does not move up the stack */
	UNW_END_BAD_CFI,	/* an expression we do not evaluate, or a lost return address */
	UNW_END_NO_FP,		/* an interpreter or jitted frame whose rbp is not in the copy */
	UNW_END_NR
};
const char *unw_end_name(enum unw_end e);
/* Whether a walk that ended so was cut by the copy's end: it read (or found a frame pointer)
 * outside a copy the kernel had filled (valid bytes == the size recorded), so the stack goes
 * on and a larger copy would reach further (UNW_STACK_COPY_MAX is perf's and the kernel's
 * largest). */
#define UNW_STACK_COPY_MAX 65528u
int unw_end_is_copy_end(enum unw_end e, uint64_t valid, uint64_t copy);
/* What to tell of cut walks so counted, the largest copy among them copy bytes, into buf
 * ("", 0 when cut is 0): how many, and what copies more. Returns the length. */
size_t unw_copy_end_hint(uint64_t cut, uint64_t copy, char *buf, size_t len);
/* The walks that ended early, by reason ("no CFI 12, read outside the stack copy 3"), from
 * counts indexed by enum unw_end, into buf (NUL-terminated). Returns the length ("" and 0:
 * every walk reached its root). A buf of UNW_ENDS_TEXT_MAX bytes holds the longest text
 * whole: every reason's name (132 bytes together), a 20-digit count each and ", " between
 * them take 291 (test_walk.c checks it). */
#define UNW_ENDS_TEXT_MAX 512
size_t unw_ends_format(const uint64_t ends[UNW_END_NR], char *buf, size_t len);

/* Unwinds in into pcs (at most max): pcs[0] is the sampled user ip, then each caller's
 * return address. Returns the number of pcs (0 with UNW_END_NO_REGS) or -ENOMEM (from
 * find); *end says why the walk stopped: anything but UNW_END_ROOT means the stack goes on
 * unknown past the last pc. */
int unw_walk(const struct unw_input *in, unw_find_fn find, void *ctx, uint64_t *pcs,
	     uint32_t max, enum unw_end *end);

/* One frame of unw_walk_frames: its pc as unw_walk gives it and, for an interpreter frame
 * (UNW_CODE_INTERP), the two words read for it, unchecked: the caller resolves them through
 * its method table and must refuse a method it does not know or a bcp outside its
 * bytecodes. The top frame's bcp is r13 (the interpreter's live bytecode pointer, the frame's
 * slot being saved only at calls), bcp_slot the slot's; a caller's are both the slot's. */
struct unw_frame {
	uint64_t pc;
	uint64_t method, bcp, bcp_slot;	/* method 0: not an interpreter frame (or unreadable) */
	const void *data;	/* the module's data (UNW_CODE_INTERP, UNW_CODE_FP) */
};
/* unw_walk, with each frame's interpreter words; counts fp-walked (jitted) frames in *fp. */
int unw_walk_frames(const struct unw_input *in, unw_find_fn find, void *ctx,
		    struct unw_frame *frames, uint32_t max, enum unw_end *end, uint32_t *fp);

#endif
