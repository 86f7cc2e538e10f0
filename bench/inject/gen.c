/* gen.c - inject-gen: a synthetic JIT run for inject's benchmark and end-to-end tests. Writes
 * a jitdump (libjitdump) with N code loads reusing a few address slots (so generations and
 * address reuse abound), optional moves, unloads, arch timestamps and a truncated tail, plus
 * a perf.data (file or pipe mode) whose marker names that dump and whose samples land in the
 * loads live at their time. Prints the ground truth: samples per code_index. */
#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "recorder/perfdata/perfdata.h"

#define CODE_BASE 0x7f1200000000ull
#define MOVE_BASE 0x7f1300000000ull
#define SLOT_SIZE 1024u
#define T0 1000000000ull		/* perf time of the first load */
#define TC_ZERO 400000000ull		/* arch mode: perf time = TC_ZERO + (cycles * 2 >> 1) */

struct opts {
	const char *dir, *out;
	const char *marker_dir;	/* the marker names <marker_dir>/jit-PID.dump, not the dump */
	unsigned long extra_markers;	/* more markers naming the same dump, pids pid+1... */
	unsigned long loads, samples, names, slots;
	int moves, unloads, arch, pipe, no_mono, anon, chain, late_marker;
	unsigned long truncate;
	unsigned seed;
	unsigned hot;		/* percent of samples in the 16 hot slots (0 = uniform) */
	int lines;		/* a DEBUG_INFO table per load: Bench.java lines 10-13 */
	unsigned long bad_names;	/* with lines: every Nth load's table names a file with
					 * bytes that are not text, as node 20 writes (0: none);
					 * every other one of those is named as V8 names code of a
					 * script ("JS:*mN /bench/Bench.js:1:1") */
	int prologue;		/* with lines: the first row 4 bytes before the code (a
				 * prologue's line, as some runtimes write it) */
};

struct slot { long load; uint64_t addr, size; };	/* load: index, -1 empty */

static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return rng_state >> 33;
}

/* A slot index in [0, n): hot percent of the picks go to the first 16 slots (the hot
 * methods of a real profile, recompiled as their slots are reused), the rest anywhere. */
static size_t pick(size_t n, unsigned hot)
{
	if (rnd() % 100 < hot)
		return rnd() % (n < 16 ? n : 16);
	return rnd() % n;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "inject-gen: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	exit(1);
}

/* perf time -> what the dump stores (cycles in arch mode). */
static uint64_t dump_time(const struct opts *o, uint64_t t)
{
	return o->arch ? t - TC_ZERO : t;
}

static void write_sample(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t ip, int chain,
			 uint64_t caller)
{
	uint64_t rec[16];
	size_t n = 1;
	rec[n++] = ip;
	rec[n++] = (uint64_t)pid | (uint64_t)pid << 32;
	rec[n++] = t;
	rec[n++] = 1000000;	/* period */
	if (chain) {
		rec[n++] = caller ? 3 : 2;
		rec[n++] = (uint64_t)PERF_CONTEXT_USER;
		rec[n++] = ip;
		if (caller)
			rec[n++] = caller;
	}
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				       (uint16_t)(n * 8) };
	memcpy(rec, &h, sizeof(h));
	int rc = pd_writer_write(w, rec, n * 8);
	if (rc < 0)
		die("perf.data", rc);
}

static struct pd_writer *open_recording(const struct opts *o, uint32_t pid)
{
	struct pd_writer *w;
	int rc = pd_writer_open(&w, o->out, o->pipe ? PD_WRITER_PIPE : 0);
	if (rc < 0)
		die(o->out, rc);
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000000,
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
						    (o->chain ? PERF_SAMPLE_CALLCHAIN : 0),
				     .sample_id_all = 1, .mmap = 1, .mmap2 = 1, .comm = 1,
				     .task = 1, .exclude_kernel = 1 };
	if (!o->no_mono && !o->arch) {
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
	}
	uint64_t id = 1;
	if ((rc = pd_writer_add_attr(w, &a, &id, 1, "cpu-clock")) < 0 ||
	    (rc = pd_writer_set_host_features(w)) < 0)
		die("perf.data attrs", rc);
	struct pd_sid sid = { .pid = pid, .tid = pid, .time = T0 - 100 };
	if ((rc = pd_writer_comm(w, pid, pid, "inject-gen", true, &sid)) < 0)
		die("perf.data", rc);
	if (o->arch) {
		uint64_t tc[8] = { 0, 1, 2, TC_ZERO, 0, 0, 1, 0 };	/* shift 1, mult 2 */
		struct perf_event_header h = { PD_RECORD_TIME_CONV, 0, sizeof(tc) };
		memcpy(tc, &h, sizeof(h));
		if ((rc = pd_writer_write(w, tc, sizeof(tc))) < 0)
			die("perf.data", rc);
	}
	return w;
}

static void mmap2(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t start, uint64_t len,
		  const char *name)
{
	struct pd_mmap2_args m = { .pid = pid, .tid = pid, .cpumode = PERF_RECORD_MISC_USER,
				   .start = start, .len = len, .prot = PROT_READ | PROT_EXEC,
				   .flags = MAP_PRIVATE, .filename = name };
	struct pd_sid sid = { .pid = pid, .tid = pid, .time = t };
	int rc = pd_writer_mmap2(w, &m, &sid);
	if (rc < 0)
		die("perf.data", rc);
}

static void usage(void)
{
	fprintf(stderr, "usage: inject-gen --dir DIR -o PERF.DATA [--loads N] [--samples N] "
			"[--names N] [--slots N] [--moves] [--unloads] [--arch] [--pipe] "
			"[--no-mono] [--anon] [--callchain] [--late-marker] [--hot PCT] [--truncate BYTES] "
			"[--seed N] [--marker-dir DIR] [--extra-markers N] [--lines] [--bad-names N] [--prologue]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dir", 1, NULL, 'd' }, { "output", 1, NULL, 'o' }, { "loads", 1, NULL, 'l' },
		{ "samples", 1, NULL, 's' }, { "names", 1, NULL, 'n' }, { "slots", 1, NULL, 'S' },
		{ "moves", 0, NULL, 'm' }, { "unloads", 0, NULL, 'u' }, { "arch", 0, NULL, 'a' },
		{ "pipe", 0, NULL, 'p' }, { "no-mono", 0, NULL, 'M' }, { "anon", 0, NULL, 'A' },
		{ "truncate", 1, NULL, 't' }, { "seed", 1, NULL, 'r' },
		{ "callchain", 0, NULL, 'c' }, { "late-marker", 0, NULL, 'L' },
		{ "hot", 1, NULL, 'h' }, { "marker-dir", 1, NULL, 'K' },
		{ "extra-markers", 1, NULL, 'X' }, { "lines", 0, NULL, 'I' },
		{ "bad-names", 1, NULL, 'B' }, { "prologue", 0, NULL, 'P' },
		{ NULL, 0, NULL, 0 } };
	int c;
	*o = (struct opts){ .loads = 1000, .samples = 10000, .names = 100, .slots = 64, .seed = 1 };
	while ((c = getopt_long(argc, argv, "d:o:", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->dir = optarg; break;
		case 'o': o->out = optarg; break;
		case 'l': o->loads = strtoul(optarg, NULL, 0); break;
		case 's': o->samples = strtoul(optarg, NULL, 0); break;
		case 'n': o->names = strtoul(optarg, NULL, 0); break;
		case 'S': o->slots = strtoul(optarg, NULL, 0); break;
		case 'm': o->moves = 1; break;
		case 'u': o->unloads = 1; break;
		case 'a': o->arch = 1; break;
		case 'p': o->pipe = 1; break;
		case 'M': o->no_mono = 1; break;
		case 'A': o->anon = 1; break;
		case 'c': o->chain = 1; break;
		case 'L': o->late_marker = 1; break;
		case 'K': o->marker_dir = optarg; break;
		case 'X': o->extra_markers = strtoul(optarg, NULL, 0); break;
		case 'h': o->hot = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': o->truncate = strtoul(optarg, NULL, 0); break;
		case 'r': o->seed = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'I': o->lines = 1; break;
		case 'B': o->bad_names = strtoul(optarg, NULL, 0); break;
		case 'P': o->prologue = 1; break;
		default: usage();
		}
	}
	if (!o->dir || !o->out || !o->loads || !o->names || !o->slots)
		usage();
}

int main(int argc, char **argv)
{
	struct opts o;
	parse(argc, argv, &o);
	rng_state = o.seed;
	uint32_t pid = (uint32_t)getpid();
	struct jd_writer_opts wo = { .size = sizeof(wo), .dir = o.dir,
				     .clock = o.arch ? JD_CLOCK_ARCH : JD_CLOCK_MONOTONIC };
	struct jd_writer *jw;
	int rc = jd_writer_open(&jw, &wo);
	if (rc < 0)
		die("jitdump", rc);
	char dump[4096];
	snprintf(dump, sizeof(dump), "%s", jd_writer_path(jw));
	struct pd_writer *w = open_recording(&o, pid);
	/* The marker; --late-marker writes it at the end of the first round instead, after
	 * samples it explains (perf record's per-CPU buffers do that). */
	char marker[8192];
	snprintf(marker, sizeof(marker), "%s%s", o.marker_dir ? o.marker_dir : "",
		 o.marker_dir ? strrchr(dump, '/') : dump);
	if (!o.late_marker)
		mmap2(w, pid, T0 - 50, 0x7f0000000000ull, 4096, marker);
	for (unsigned long k = 1; k <= o.extra_markers; k++)	/* issue 16 finding 9's shape */
		mmap2(w, pid + (uint32_t)k, T0 - 50, 0x7f0000000000ull, 4096, marker);
	if (o.anon)	/* the runtime's code heap, after the marker: perf drops it */
		mmap2(w, pid, T0 - 40, CODE_BASE, o.slots * SLOT_SIZE, "//anon");

	struct slot *slots = calloc(o.slots + o.loads / 50 + 1, sizeof(*slots));
	uint64_t *ci = calloc(o.loads + 1, sizeof(uint64_t));
	uint64_t *hits = calloc(o.loads + 1, sizeof(uint64_t));
	uint64_t line_hits[4] = { 0 };	/* samples per row of the line table (--lines) */
	size_t nslots = o.slots, live = 0;
	uint8_t *code = malloc(4096);
	if (!slots || !ci || !hits || !code)
		die("memory", ENOMEM);
	for (size_t s = 0; s < nslots; s++)
		slots[s] = (struct slot){ -1, CODE_BASE + s * SLOT_SIZE, 0 };
	/* Loads at T0 + 12*i (unloads 1 ns before, moves 1 ns after), samples spread over
	 * [T0, end] at T0 + 2 + 6*k: never at the time of a mapping change. */
	uint64_t step = 12, end = T0 + step * o.loads + 1000;
	unsigned long next_sample = 0, nmoves = 0;
	for (unsigned long i = 0; i <= o.loads; i++) {
		uint64_t lt = T0 + step * i;
		while (next_sample < o.samples && live) {
			uint64_t st = T0 + 2 + (end - T0) * next_sample / o.samples / 6 * 6;
			if (st >= lt && i < o.loads)
				break;
			struct slot *sl;
			do	/* real profiles are skewed: a few hot places get most samples */
				sl = &slots[pick(nslots, o.hot)];
			while (sl->load < 0);
			uint64_t ip = sl->addr + rnd() % sl->size;
			struct slot *caller = &slots[rnd() % nslots];
			write_sample(w, pid, st, ip, o.chain,
				     caller->load >= 0 ? caller->addr : 0);
			hits[sl->load]++;
			/* row r starts at size*r/4; a sample's line is that of the byte before it
			 * (the instruction that took the time ends there), the first byte's own */
			uint64_t off = ip - sl->addr ? ip - sl->addr - 1 : 0;
			int row = 3;
			while (row && sl->size * (uint64_t)row / 4 > off)
				row--;
			line_hits[row]++;
			if (++next_sample % 1000)
				continue;
			if (o.late_marker && next_sample == 1000)
				mmap2(w, pid, T0 - 50, 0x7f0000000000ull, 4096, marker);
			if ((rc = pd_writer_finished_round(w)) < 0)
				die("perf.data", rc);
		}
		if (i == o.loads)
			break;
		struct slot *sl = &slots[i % o.slots];
		if (o.unloads && sl->load >= 0) {
			struct jd_ext_unload u = { sl->addr, ci[sl->load], pid };
			if ((rc = jd_write_unload(jw, &u, dump_time(&o, lt - 1))) < 0)
				die("unload", rc);
			/* Its moved copies go with it: no sample may land there any more. */
			for (size_t k = o.slots; k < nslots; k++)
				if (slots[k].load == sl->load) {
					slots[k].load = -1;
					live--;
				}
		}
		char name[64];
		int bad = o.lines && o.bad_names && i % o.bad_names == o.bad_names - 1;
		if (bad && i % (2 * o.bad_names) == o.bad_names - 1)
			snprintf(name, sizeof(name), "JS:*m%lu /bench/Bench.js:1:1", i % o.names);
		else
			snprintf(name, sizeof(name), "Lbench/C%lu;m%lu(I)I", i % o.names % 7,
				 i % o.names);
		uint64_t size = 32 + rnd() % 256;
		for (uint64_t k = 0; k < size; k++)
			code[k] = (uint8_t)rnd();
		struct jd_load_desc ld = { .name = name, .code_addr = sl->addr, .code = code,
					   .code_size = size, .timestamp = dump_time(&o, lt) };
		/* four rows, a quarter of the code each; the second one's file name garbled
		 * in every bad_names-th load (bytes from freed memory, as node 20 writes) */
		struct jd_line rows[4];
		if (o.lines) {
			for (int r = 0; r < 4; r++)
				rows[r] = (struct jd_line){ .addr = sl->addr + size * (uint64_t)r / 4,
							    .line = 10 + r, .file = "Bench.java" };
			if (bad)
				rows[1].file = "\xe3k\x02";
			if (o.prologue)
				rows[0].addr -= 4;
			ld.lines = rows;
			ld.nr_lines = 4;
		}
		if ((rc = jd_write_load(jw, &ld, &ci[i])) < 0)
			die("load", rc);
		live += sl->load < 0;
		sl->load = (long)i;
		sl->size = size;
		if (o.moves && i % 50 == 49) {
			struct slot *ms = &slots[nslots++];
			*ms = (struct slot){ (long)i, MOVE_BASE + nmoves++ * SLOT_SIZE, size };
			live++;
			struct jd_code_move m = { pid, pid, ms->addr, sl->addr, ms->addr, size, ci[i] };
			if ((rc = jd_write_move(jw, &m, dump_time(&o, lt + 1))) < 0)
				die("move", rc);
		}
	}
	if (o.truncate) {	/* one more load after every sample, then cut into it */
		struct jd_load_desc ld = { .name = "Lbench/Tail;cut()V", .code_addr = CODE_BASE,
					   .code = code, .code_size = 64,
					   .timestamp = dump_time(&o, end + 12) };
		if ((rc = jd_write_load(jw, &ld, NULL)) < 0)
			die("load", rc);
	}
	if ((rc = jd_writer_close(jw)) < 0)
		die("jitdump close", rc);
	if (o.truncate) {
		FILE *f = fopen(dump, "r+");
		if (!f || fseek(f, 0, SEEK_END) || ftruncate(fileno(f), ftell(f) - (long)o.truncate))
			die("truncate", errno);
		fclose(f);
	}
	if ((rc = pd_writer_close(w)) < 0)
		die("perf.data close", rc);
	printf("dump %s\n", dump);
	for (unsigned long i = 0; i < o.loads; i++)
		if (hits[i])
			printf("expect %llu %llu\n", (unsigned long long)ci[i],
			       (unsigned long long)hits[i]);
	for (int r = 0; o.lines && !o.bad_names && r < 4; r++)
		printf("line Bench.java:%d %llu\n", 10 + r, (unsigned long long)line_hits[r]);
	free(slots);
	free(ci);
	free(hits);
	free(code);
	return 0;
}
