/* test_stacks.c - recorder/inject/stacks.c through inj_run on a dwarf recording made here:
 * every sample of the evsel rewritten (kernel part kept, PERF_CONTEXT_USER, the unwound pcs,
 * a 0 where the walk ended early), the copies dropped from the samples and the attr (or kept
 * with keep_stacks), the fields after them still in place; hostile copies (no registers,
 * SIZE 0, a copy shorter than its size, one that walks on for ever through real CFI) end
 * bounded, never a crash; jitted code unwound through the CFI its dump carries. The walk itself
 * is tests/unit/unwind's. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "jitdump/jitdump.h"

#include "recorder/inject/inject_int.h"
#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"

#define PID 4242u
#define WEIGHT 0x5eed
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | \
	    PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT)
#define REGS ((1ull << 6) | (1ull << 7) | (1ull << 8))	/* bp, sp, ip (perf's x86 numbers) */

static char *dir;
static uint32_t pid = PID;	/* the samples' process */
static char data[4200], out[4200];

static void cleanup(void)
{
	tu_rmtree(dir);
	free(dir);
}

/* A code address of this binary and its map (start, file offset, path), for real CFI. */
__attribute__((noinline)) static int leaf_fn(int x)
{
	return x * 3 + 1;
}

static int self_map(uint64_t pc, uint64_t *start, uint64_t *len, uint64_t *pgoff, char *path,
		    size_t plen)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];
		int n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &n) < 4 ||
		    pc < s || pc >= e || !n)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(path, plen, "%s", line + n);
		*start = s, *len = e - s, *pgoff = off;
		found = path[0] == '/';
	}
	if (f)
		fclose(f);
	return found;
}

struct smp {
	uint64_t ip, sp;
	uint64_t abi;		/* 0: no registers */
	uint64_t size, dyn;	/* STACK_USER size and dyn_size */
	const uint64_t *stack;	/* size / 8 words */
	int kernel;		/* a kernel chain in front */
};

static void put(uint8_t **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static void sample(struct pd_writer *w, uint64_t t, const struct smp *s)
{
	static uint8_t rec[65536];
	uint8_t *p = rec + 8;
	put(&p, 7);			/* IDENTIFIER */
	put(&p, s->ip);
	put(&p, (uint64_t)pid << 32 | pid);
	put(&p, t);
	put(&p, 1);			/* PERIOD */
	put(&p, s->kernel ? 3 : 0);	/* CALLCHAIN */
	if (s->kernel) {
		put(&p, PERF_CONTEXT_KERNEL);
		put(&p, 0xffffffff81000010ull);
		put(&p, 0xffffffff81000020ull);
	}
	put(&p, s->abi);
	if (s->abi) {
		put(&p, s->sp);		/* bp: anything */
		put(&p, s->sp);
		put(&p, s->ip);
	}
	put(&p, s->size);
	if (s->size) {
		memcpy(p, s->stack, s->size);
		p += s->size;
		put(&p, s->dyn);
	}
	put(&p, WEIGHT);
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .misc = s->kernel ? PERF_RECORD_MISC_KERNEL :
						PERF_RECORD_MISC_USER,
				       .size = (uint16_t)(p - rec) };
	memcpy(rec, &h, sizeof(h));
	cr_assert_eq(pd_writer_write(w, rec, h.size), 0);
}

static struct pd_writer *open_recording(void)
{
	struct pd_writer *w;
	if (!dir)
		dir = tu_tmpdir("injstacks");
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(out, sizeof(out), "%s/out.data", dir);
	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .sample_type = ST, .sample_id_all = 1, .mmap2 = 1,
				     .sample_regs_user = REGS, .sample_stack_user = 4096,
				     .exclude_callchain_user = 1, .sample_period = 1,
				     .use_clockid = 1, .clockid = CLOCK_MONOTONIC };
	uint64_t id = 7;
	cr_assert_eq(pd_writer_add_attr(w, &a, &id, 1, "cpu-clock"), 0);
	return w;
}

static void inject(int keep, struct inj_stats *st)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	struct inj_opts o = { .sz = sizeof(struct inj_opts), .input = data, .output = out,
			      .out_fd = fd, .threads = 1, .no_elfs = 1, .keep_stacks = keep };
	char err[512];
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&o, st), 0, "%s", err);
	close(fd);
}

/* The output's samples in order: their chains (up to CHAIN_MAX entries each) and weights. */
#define CHAIN_MAX (UNW_MAX_FRAMES + 16)
struct got {
	uint64_t chain[8][CHAIN_MAX], nr[8], weight[8];
	int n, has_regs, has_stack;
};

static void read_back(struct got *g)
{
	struct pd_reader *r;
	struct pd_event ev;
	memset(g, 0, sizeof(*g));
	cr_assert_eq(pd_reader_open(&r, out, NULL), 0);
	const struct perf_event_attr *a = &pd_reader_evsel(r, 0)->attr;
	g->has_regs = !!(a->sample_type & PERF_SAMPLE_REGS_USER) || a->sample_regs_user;
	g->has_stack = !!(a->sample_type & PERF_SAMPLE_STACK_USER) || a->sample_stack_user;
	cr_assert(a->sample_type & PERF_SAMPLE_CALLCHAIN);
	cr_assert_eq(a->exclude_callchain_user, 0);
	int rc;
	while ((rc = pd_reader_next(r, &ev)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE || g->n >= 8)
			continue;
		const struct pd_sample *s = &ev.u.sample;
		cr_assert_leq(s->nr_callchain, CHAIN_MAX);
		memcpy(g->chain[g->n], s->callchain, 8 * s->nr_callchain);
		g->nr[g->n] = s->nr_callchain;
		g->weight[g->n++] = s->weight;
	}
	cr_assert_eq(rc, 0, "%s", pd_reader_error(r));
	pd_reader_close(r);
}

TestSuite(stacks, .fini = cleanup);

/* No map covers the pcs: the sampled ip, then an early end. Kernel part kept in front. */
Test(stacks, rewritten_without_copies)
{
	uint64_t words[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	struct pd_writer *w = open_recording();
	sample(w, 10, &(struct smp){ .ip = 0x5000, .sp = 0x7ff0, .abi = 2, .size = 32, .dyn = 32,
				     .stack = words });
	sample(w, 20, &(struct smp){ .ip = 0x5000, .sp = 0x7ff0, .abi = 2, .size = 32, .dyn = 32,
				     .stack = words, .kernel = 1 });
	cr_assert_eq(pd_writer_close(w), 0);
	struct inj_stats st;
	inject(0, &st);
	cr_assert_eq(st.stacks.rewritten, 2);
	cr_assert_eq(st.stacks.walks, 2);
	cr_assert_eq(st.stacks.ends[UNW_END_NO_CFI], 2);
	struct got g;
	read_back(&g);
	cr_assert_eq(g.n, 2);
	cr_assert_not(g.has_regs || g.has_stack);
	const uint64_t user[] = { PERF_CONTEXT_USER, 0x5000, 0 };
	cr_assert_eq(g.nr[0], 3);
	cr_assert_arr_eq(g.chain[0], user, sizeof(user));
	const uint64_t both[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull,
				  0xffffffff81000020ull, PERF_CONTEXT_USER, 0x5000, 0 };
	cr_assert_eq(g.nr[1], 6);
	cr_assert_arr_eq(g.chain[1], both, sizeof(both));
	cr_assert(g.weight[0] == WEIGHT && g.weight[1] == WEIGHT);
}

Test(stacks, keep_stacks_keeps_the_copies)
{
	uint64_t words[2] = { 1, 2 };
	struct pd_writer *w = open_recording();
	sample(w, 10, &(struct smp){ .ip = 0x5000, .sp = 0x7ff0, .abi = 2, .size = 16, .dyn = 16,
				     .stack = words });
	cr_assert_eq(pd_writer_close(w), 0);
	struct inj_stats st;
	inject(1, &st);
	struct got g;
	read_back(&g);
	cr_assert(g.has_regs && g.has_stack);
	cr_assert_eq(g.nr[0], 3);
	cr_assert_eq(g.weight[0], WEIGHT);
}

/* No registers (a kernel thread), SIZE 0, a copy whose valid part is 3 bytes: each sample
 * keeps its kernel part and what the copy allows, nothing read past it. */
Test(stacks, hostile_copies_end_bounded)
{
	uint64_t words[2] = { 0x9999, 0x8888 };
	struct pd_writer *w = open_recording();
	sample(w, 10, &(struct smp){ .abi = 0, .size = 0, .kernel = 1 });
	sample(w, 20, &(struct smp){ .ip = 0x5000, .sp = 0x7ff0, .abi = 2, .size = 0 });
	sample(w, 30, &(struct smp){ .ip = 0x5000, .sp = 0x7ff0, .abi = 2, .size = 16, .dyn = 3,
				     .stack = words });
	sample(w, 40, &(struct smp){ .ip = 0x5000, .sp = 0x7ff0, .abi = 2, .size = 16,
				     .dyn = 1u << 20, .stack = words });
	cr_assert_eq(pd_writer_close(w), 0);
	struct inj_stats st;
	inject(0, &st);
	cr_assert_eq(st.stacks.rewritten, 4);
	cr_assert_eq(st.stacks.ends[UNW_END_NO_REGS], 1);
	struct got g;
	read_back(&g);
	cr_assert_eq(g.n, 4);
	cr_assert_eq(g.nr[0], 3, "no registers: the kernel part alone");
	cr_assert_eq(g.chain[0][0], PERF_CONTEXT_KERNEL);
	for (int i = 1; i < 4; i++) {
		cr_assert_eq(g.nr[i], 3, "sample %d: %llu entries", i, (unsigned long long)g.nr[i]);
		cr_assert_eq(g.chain[i][1], 0x5000);
		cr_assert_eq(g.chain[i][2], 0, "an early end is an [unknown] frame");
	}
}

/* Real CFI (this binary's .eh_frame): in leaf_fn, which pushes nothing, the return address is
 * at sp, and a copy filled with an address inside it (a caller's row is looked up at the
 * return address - 1) walks up for ever: it stops at UNW_MAX_FRAMES. */
Test(stacks, endless_stack_stops_at_max_frames)
{
	uint64_t pc = (uint64_t)(uintptr_t)&leaf_fn + 1, start, len, pgoff;
	char path[4096];
	cr_assert_eq(leaf_fn(1), 4);
	if (!self_map(pc, &start, &len, &pgoff, path, sizeof(path)))
		cr_skip_test("this binary's text is not in a file map");
	static uint64_t words[UNW_MAX_FRAMES + 64];	/* more words than the walk may take */
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		words[i] = pc;
	struct pd_writer *w = open_recording();
	struct pd_mmap2_args m = { .pid = PID, .tid = PID, .cpumode = PERF_RECORD_MISC_USER,
				   .start = start, .len = len, .pgoff = pgoff,
				   .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
				   .filename = path };
	struct pd_sid sid = { .pid = PID, .tid = PID, .time = 5 };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	sample(w, 10, &(struct smp){ .ip = pc, .sp = 0x7f0000, .abi = 2, .size = sizeof(words),
				     .dyn = sizeof(words), .stack = words });
	cr_assert_eq(pd_writer_close(w), 0);
	struct inj_stats st;
	inject(0, &st);
	cr_assert_eq(st.stacks.ends[UNW_END_MAX], 1, "root %llu no-cfi %llu memory %llu",
		     (unsigned long long)st.stacks.ends[UNW_END_ROOT],
		     (unsigned long long)st.stacks.ends[UNW_END_NO_CFI],
		     (unsigned long long)st.stacks.ends[UNW_END_MEMORY]);
	struct got g;
	read_back(&g);
	cr_assert_eq(g.nr[0], 1 + UNW_MAX_FRAMES + 1);
	cr_assert_eq(g.chain[0][1], pc);
	cr_assert_eq(g.chain[0][UNW_MAX_FRAMES], pc);
	cr_assert_eq(g.chain[0][UNW_MAX_FRAMES + 1], 0);
}

/* A jitted method whose dump carries its .eh_frame (a CIE: CFA = rsp + 8, the return address
 * at CFA - 8; an FDE over its 48 bytes: CFA = rsp + 16, one word pushed): the walk takes the
 * return address from the copy's second word, through the ELF inject builds in memory. */
static const uint8_t eh_frame[] = {
	20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b,
	0x0c, 7, 8, 0x90, 1, 0, 0,			/* CIE, 24 bytes */
	16, 0, 0, 0, 28, 0, 0, 0,			/* FDE: length, CIE pointer */
	0xb0, 0xff, 0xff, 0xff, 48, 0, 0, 0,		/* pc_begin -80 (pc-relative), range 48 */
	0, 0x0e, 16, 0,					/* no augmentation, def_cfa_offset 16 */
	0, 0, 0, 0,					/* end */
};

Test(stacks, jitted_code_unwinds_through_its_dump_cfi)
{
	static const uint8_t code[48] = { 0x55, [47] = 0xc3 };
	const uint64_t t0 = 1000000, addr = 0x40000, ra = 0xdead0000;
	dir = tu_tmpdir("injstacks");
	pid = (uint32_t)getpid();
	struct jd_writer_opts jo = { .size = sizeof(jo), .dir = dir };
	struct jd_writer *jw;
	cr_assert_eq(jd_writer_open(&jw, &jo), 0);
	struct jd_load_desc ld = { .name = "Lt;m()V", .code_addr = addr, .code = code,
				   .code_size = sizeof(code), .timestamp = t0,
				   .unwind = eh_frame, .unwind_size = sizeof(eh_frame) };
	uint64_t ci;
	cr_assert_eq(jd_write_load(jw, &ld, &ci), 0);
	char marker[4200];
	snprintf(marker, sizeof(marker), "%s", jd_writer_path(jw));
	cr_assert_eq(jd_writer_close(jw), 0);

	struct pd_writer *w = open_recording();
	struct pd_mmap2_args m = { .pid = pid, .tid = pid, .cpumode = PERF_RECORD_MISC_USER,
				   .start = 0x7000000, .len = 4096, .prot = PROT_READ | PROT_EXEC,
				   .flags = MAP_PRIVATE, .filename = marker };
	struct pd_sid sid = { .pid = pid, .tid = pid, .time = t0 - 10 };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	/* A round after the load's time: its MMAP2 is out before the sample comes. */
	sample(w, t0 + 10, &(struct smp){ .abi = 0, .kernel = 1 });
	cr_assert_eq(pd_writer_finished_round(w), 0);
	uint64_t words[4] = { 0x1111, ra, 0x3333, 0x4444 };
	sample(w, t0 + 50, &(struct smp){ .ip = addr + 4, .sp = 0x7ff000, .abi = 2, .size = 32,
					  .dyn = 32, .stack = words });
	cr_assert_eq(pd_writer_close(w), 0);
	struct inj_stats st;
	inject(0, &st);
	cr_assert_eq(st.dumps, 1);
	cr_assert_eq(st.stacks.rewritten, 2);
	struct got g;
	read_back(&g);
	cr_assert_eq(g.n, 2);
	const uint64_t want[] = { PERF_CONTEXT_USER, addr + 4, ra, 0 };
	cr_assert_eq(g.nr[1], 4, "%llu entries", (unsigned long long)g.nr[1]);
	cr_assert_arr_eq(g.chain[1], want, sizeof(want));
}
