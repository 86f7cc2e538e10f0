/* minijit.c - a toy JIT that is the pipeline's test subject without a JVM. It compiles
 * checksum() from toy.mjs three times (same name, different code), reuses a freed code range for
 * a different function, moves one function, runs each long enough to be sampled, and reports all
 * of it through libjitdump with line tables, inline stacks and generation/tier data. */
#include "samples/minijit/minijit.h"
#include "jitdump/jitdump.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MINIJIT_SOURCE
#define MINIJIT_SOURCE "toy.mjs"
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* A fixed place for the code so dumps of two runs line up (not required: the code is position
 * independent); far from where the kernel, libc and ASan put things. */
#define ARENA_HINT  ((void *)0x3f0000000000ull)
#define ARENA_SLOTS 4
#define ARRAY_LEN   4096

struct arena {
	uint8_t *base;
	size_t slot_size;
	int used[ARENA_SLOTS];
	int fixed;
};

/* What the JIT knows about one piece of code it installed. */
struct installed {
	const char *name;
	int slot;
	uint64_t addr, size, code_index;
};

struct jit {
	struct arena arena;
	struct jd_writer *w;
	const char *source;
	struct jd_ext_agent_stats stats;
	uint32_t *array;
	double seconds;
	int failed;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int arena_open(struct arena *a)
{
	a->slot_size = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = a->slot_size * ARENA_SLOTS;
	void *p = mmap(ARENA_HINT, len, PROT_READ | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != MAP_FAILED && p != ARENA_HINT) {	/* kernel < 4.17: the flag was a hint */
		munmap(p, len);
		p = MAP_FAILED;
	}
	a->fixed = p != MAP_FAILED;
	if (p == MAP_FAILED)
		p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a->base = p;
	return 0;
}

/* Writes bytes into a slot (W^X: never writable and executable at once), the rest of the
 * slot int3 so a jump past the end traps. */
static int arena_write(struct arena *a, int slot, const void *code, size_t len)
{
	uint8_t *p = a->base + (size_t)slot * a->slot_size;
	if (mprotect(p, a->slot_size, PROT_READ | PROT_WRITE) != 0)
		return -errno;
	memset(p, 0xcc, a->slot_size);
	memcpy(p, code, len);
	if (mprotect(p, a->slot_size, PROT_READ | PROT_EXEC) != 0)
		return -errno;
	__builtin___clear_cache((char *)p, (char *)p + len);
	return 0;
}

/* First fit, as a code cache's allocator would: a freed range is the next one handed out. */
static int arena_alloc(struct arena *a)
{
	for (int i = 0; i < ARENA_SLOTS; i++)
		if (!a->used[i]) {
			a->used[i] = 1;
			return i;
		}
	return -1;
}

static uint64_t slot_addr(const struct jit *j, int slot)
{
	return (uint64_t)(uintptr_t)(j->arena.base + (size_t)slot * j->arena.slot_size);
}

/* The line table (innermost frame's line, like perf's JVMTI agent) and the inline stacks
 * (every frame) of one compiled function, from the compiler's marks. */
struct tables {
	struct jd_line lines[MJ_MARKS_MAX];
	struct jd_inline_pc pcs[MJ_MARKS_MAX];
	struct jd_inline_frame frames[MJ_MARKS_MAX][2];
	struct jd_inline_method methods[2];
	struct jd_ext_inline inl;
	int has_inline;
};

static void build_tables(struct tables *t, const struct mj_code *c, uint64_t addr,
			 const char *name, const char *source)
{
	t->methods[0] = (struct jd_inline_method){ name, source };
	t->methods[1] = (struct jd_inline_method){ "mix", source };
	t->has_inline = 0;
	for (size_t i = 0; i < c->nr_marks; i++) {
		const struct mj_mark *m = &c->marks[i];
		t->lines[i] = (struct jd_line){
			.addr = addr + m->off,
			.line = m->inl_line ? m->inl_line : m->line,
			/* written in full on every entry: perf 6.1's genelf takes the "\xff"
			 * same-file shorthand for a file name, so minijit never asks for it */
			.file = source,
		};
		uint32_t depth = 0;
		if (m->inl_line) {
			t->frames[i][depth++] = (struct jd_inline_frame){ 1, m->inl_line, -1 };
			t->has_inline = 1;
		}
		t->frames[i][depth++] = (struct jd_inline_frame){ 0, m->line, -1 };
		t->pcs[i] = (struct jd_inline_pc){ addr + m->off, depth, t->frames[i] };
	}
	t->inl = (struct jd_ext_inline){
		.nr_methods = 2, .nr_pcs = (uint32_t)c->nr_marks,
		.methods = t->methods, .pcs = t->pcs,
	};
}

/* Installs compiled code in a fresh slot and tells the dump, before the code can run. */
static int install(struct jit *j, struct installed *out, const char *name,
		   const struct mj_code *c, uint32_t generation, int level)
{
	int slot = arena_alloc(&j->arena);
	if (slot < 0)
		return -ENOMEM;
	uint64_t addr = slot_addr(j, slot);
	int ret = arena_write(&j->arena, slot, c->buf, c->len);
	if (ret < 0)
		return ret;

	static struct tables t;	/* large; minijit is single-threaded */
	build_tables(&t, c, addr, name, j->source);
	struct jd_ext_load_info info = {
		.generation = generation, .tier = JD_TIER_OTHER, .flags = 0, .level = level,
	};
	struct jd_load_desc d = {
		.name = name, .code_addr = addr, .code = c->buf, .code_size = c->len,
		.lines = t.lines, .nr_lines = c->nr_marks,
		.info = &info, .inl = t.has_inline ? &t.inl : NULL,
	};
	*out = (struct installed){ name, slot, addr, c->len, 0 };
	ret = jd_write_load(j->w, &d, &out->code_index);
	if (ret < 0)
		return ret;
	j->stats.loads++;
	j->stats.records += 1 + (c->nr_marks > 0);
	j->stats.bytes += c->len;
	return 0;
}

/* Frees a code range: poisoned with int3, its slot free for the next allocation. */
static int uninstall(struct jit *j, const struct installed *f)
{
	uint8_t nothing = 0xcc;
	int ret = arena_write(&j->arena, f->slot, &nothing, 1);
	if (ret < 0)
		return ret;
	j->arena.used[f->slot] = 0;
	struct jd_ext_unload u = { f->addr, f->code_index, (uint32_t)getpid() };
	ret = jd_write_unload(j->w, &u, jd_writer_now(j->w));
	if (ret < 0)
		return ret;
	j->stats.unloads++;
	j->stats.records++;
	return 0;
}

/* Copies a function to a new range (its code is position independent) and frees the old one
 * without an unload: to perf, the code moved. */
static int move(struct jit *j, struct installed *f)
{
	int slot = arena_alloc(&j->arena);
	if (slot < 0)
		return -ENOMEM;
	uint64_t to = slot_addr(j, slot);
	int ret = arena_write(&j->arena, slot, (const void *)(uintptr_t)f->addr, f->size);
	if (ret < 0)
		return ret;
	struct jd_code_move m = {
		.pid = (uint32_t)getpid(), .tid = (uint32_t)gettid(), .vma = to,
		.old_code_addr = f->addr, .new_code_addr = to, .code_size = f->size,
		.code_index = f->code_index,
	};
	ret = jd_write_move(j->w, &m, jd_writer_now(j->w));
	if (ret < 0)
		return ret;
	uint8_t nothing = 0xcc;
	ret = arena_write(&j->arena, f->slot, &nothing, 1);
	if (ret < 0)
		return ret;
	j->arena.used[f->slot] = 0;
	f->slot = slot;
	f->addr = to;
	j->stats.records++;
	return 0;
}

/* Runs checksum (fill == 0) or fill for j->seconds, checking every result against C. */
static void run(struct jit *j, const struct installed *f, const char *what, int fill)
{
	const uint32_t seed = 12345;
	uint32_t *ref = fill ? malloc(ARRAY_LEN * sizeof(*ref)) : NULL;
	int bad = fill && !ref;
	uint64_t want = 0, got = 0, calls = 0;
	double start = now_s(), end = start + j->seconds;

	if (bad)
		goto out;
	want = fill ? toy_fill(ref, ARRAY_LEN, seed) : toy_checksum(j->array, ARRAY_LEN);
	do {
		if (fill) {
			memset(j->array, 0, ARRAY_LEN * sizeof(*j->array));
			got = ((fill_fn)(uintptr_t)f->addr)(j->array, ARRAY_LEN, seed);
			bad |= memcmp(ref, j->array, ARRAY_LEN * sizeof(*ref)) != 0;
		} else {
			got = ((checksum_fn)(uintptr_t)f->addr)(j->array, ARRAY_LEN);
		}
		bad |= got != want;
		calls++;
	} while (!bad && now_s() < end);
out:
	printf("minijit: %-8s %-28s at 0x%llx, %3llu bytes, code_index %llu: %llu calls in %.2f s, "
	       "result 0x%016llx %s\n", f->name, what, (unsigned long long)f->addr,
	       (unsigned long long)f->size, (unsigned long long)f->code_index,
	       (unsigned long long)calls, now_s() - start, (unsigned long long)got,
	       bad ? "WRONG" : "ok");
	j->failed |= bad;
	free(ref);
}

static int compile_checksum(struct jit *j, struct installed *out, int tier)
{
	struct mj_code c;
	double t0 = now_s();
	mj_init(&c);
	int ret = mj_compile_checksum(&c, tier);
	j->stats.callback_ns += (uint64_t)((now_s() - t0) * 1e9);
	return ret < 0 ? ret : install(j, out, "checksum", &c, (uint32_t)tier + 1, tier);
}

static int compile_fill(struct jit *j, struct installed *out)
{
	struct mj_code c;
	mj_init(&c);
	int ret = mj_compile_fill(&c);
	return ret < 0 ? ret : install(j, out, "fill", &c, 1, 0);
}

#define TRY(call, what) do { int r_ = (call); if (r_ < 0) { \
	fprintf(stderr, "minijit: %s: %s\n", what, strerror(-r_)); return 1; } } while (0)

/* The phases, each run for --seconds:
 *  1. checksum gen 1 (naive)      slot 0
 *  2. checksum gen 2 (unrolled)   slot 1; then gen 1 is freed
 *  3. fill                        slot 0 again: a different function at gen 1's address
 *  4. checksum gen 3 (closed form) slot 2
 *  5. gen 3 moved to slot 3 (CODE_MOVE), run there */
static int jit_run(struct jit *j)
{
	struct installed g1, g2, g3, fl;

	TRY(compile_checksum(j, &g1, 0), "compiling checksum tier 0");
	run(j, &g1, "gen 1 (tier 0, naive loop)", 0);
	TRY(compile_checksum(j, &g2, 1), "compiling checksum tier 1");
	run(j, &g2, "gen 2 (tier 1, unrolled x4)", 0);
	TRY(uninstall(j, &g1), "freeing checksum gen 1");
	printf("minijit: freed checksum gen 1 at 0x%llx\n", (unsigned long long)g1.addr);
	TRY(compile_fill(j, &fl), "compiling fill");
	if (fl.addr != g1.addr)
		fprintf(stderr, "minijit: warning: fill did not reuse gen 1's range\n");
	run(j, &fl, fl.addr == g1.addr ? "(reuses gen 1's range)" : "", 1);
	TRY(compile_checksum(j, &g3, 2), "compiling checksum tier 2");
	run(j, &g3, "gen 3 (tier 2, closed form)", 0);
	uint64_t from = g3.addr;
	TRY(move(j, &g3), "moving checksum gen 3");
	printf("minijit: moved checksum gen 3 from 0x%llx to 0x%llx\n",
	       (unsigned long long)from, (unsigned long long)g3.addr);
	run(j, &g3, "gen 3 moved", 0);
	TRY(jd_write_stats(j->w, &j->stats), "writing stats");
	return j->failed;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: minijit [--dir DIR] [--seconds S]\n"
		"A toy JIT: compiles checksum() of toy.mjs in three generations, reuses a freed\n"
		"range for fill(), moves one function, and writes a jitdump (plus jitprof's\n"
		"companion file) describing all of it. Five phases of S seconds each.\n"
		"  --dir DIR      where jit-PID.dump goes (default $JITDUMPDIR, else ~/.debug/jit)\n"
		"  --seconds S    run time of each phase, default 1 (fractions allowed)\n"
		"  --help         this text\n"
		"Exit status: 0 ok, 1 error or a wrong result, 2 bad usage, 77 not x86-64.\n"
		"Line tables point to %s\n", MINIJIT_SOURCE);
}

static int parse_args(int argc, char **argv, const char **dir, double *seconds)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;

	while ((c = getopt_long(argc, argv, "d:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			*dir = optarg;
			break;
		case 's':
			*seconds = strtod(optarg, &end);
			if (*end || end == optarg || !(*seconds >= 0 && *seconds <= 3600)) {
				fprintf(stderr, "minijit: --seconds wants 0..3600, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "minijit: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct jit j = { .source = MINIJIT_SOURCE, .seconds = 1.0 };
	const char *dir = NULL;
	int rc = parse_args(argc, argv, &dir, &j.seconds);
	if (rc >= 0)
		return rc;
#if !defined(__x86_64__)
	/* 77: "not applicable here", which tests and the demo treat as a skip */
	fprintf(stderr, "minijit: emits x86-64 code only; this machine is not x86-64\n");
	return 77;
#endif
	setvbuf(stdout, NULL, _IOLBF, 0);
	j.array = malloc(ARRAY_LEN * sizeof(*j.array));
	if (!j.array)
		return 1;
	toy_fill(j.array, ARRAY_LEN, 1);
	TRY(arena_open(&j.arena), "mapping the code arena");

	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	TRY(jd_writer_open(&j.w, &o), dir ? dir : "opening the jitdump");
	printf("minijit: pid %d, dump %s, code arena at %p%s\n", (int)getpid(), jd_writer_path(j.w),
	       (void *)j.arena.base, j.arena.fixed ? " (fixed)" : " (fixed address taken)");
	rc = jit_run(&j);
	int cr = jd_writer_close(j.w);
	if (cr < 0) {
		fprintf(stderr, "minijit: closing the dump: %s\n", strerror(-cr));
		rc = 1;
	}
	if (rc == 0)
		printf("minijit: done, every result matched the C reference\n");
	munmap(j.arena.base, j.arena.slot_size * ARENA_SLOTS);
	free(j.array);
	return rc;
}
