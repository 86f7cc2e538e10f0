/* faults_extreme.c - issue 8's extreme but legal inputs, written with libjitdump into one dump
 * and a recording made here with samples at known addresses: code_size 0, a 1 MB method,
 * 64k line entries in one load, a 64 KB method name, names that are not UTF-8 and names that
 * look like paths ("../", absolute); then 1M loads in one dump. Each goes through the jitdump
 * index, synth (in memory), `jitprof inject` and `jitprof report` / `perf report`; files and
 * directories inject creates have the documented modes and no name becomes a path. */
#include "tests/e2e/faults_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>

#include "jitdump/jitdump.h"
#include "synth/synth.h"

#define BIG_CODE   (1u << 20)
#define NR_LINES   65536u
#define LONG_NAME  (64u * 1024)

enum { L_ZERO, L_BIG, L_LINES, L_LONG, L_UTF8, L_DOTDOT, L_ABS, L_PLAIN, NR_EXTREME };

struct hit {
	uint64_t ip;
	unsigned count;
};

struct run {
	char *dir;
	char dump[600], data[600], out[600], cache[600];
	uint32_t pid;
	uint64_t t_marker, t_samples;
	uint64_t addr[NR_EXTREME], code_index[NR_EXTREME];
	char *names[NR_EXTREME];
	struct jd_line *lines;
};

static uint64_t now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A recording perf would make of this process: its COMM, the dump's marker mapping, then
 * user samples at the given addresses, all on CLOCK_MONOTONIC (-k mono). */
static void make_recording(const struct run *r, const struct hit *hits, size_t n)
{
	struct pd_writer *w;
	struct perf_event_attr a = { 0 };
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD;
	a.sample_id_all = a.mmap = a.mmap2 = a.comm = a.task = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	cr_assert_eq(pd_writer_open(&w, r->data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	struct pd_sid sid = { .pid = r->pid, .tid = r->pid, .time = r->t_marker };
	cr_assert_eq(pd_writer_comm(w, r->pid, r->pid, "extreme", false, &sid), 0);
	struct pd_mmap2_args m = {
		.pid = r->pid, .tid = r->pid, .cpumode = PERF_RECORD_MISC_USER,
		.start = 0x10000, .len = 4096, .prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE, .filename = r->dump,
	};
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	uint64_t t = r->t_samples;
	for (size_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < hits[i].count; k++) {
			uint64_t rec[6];
			struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
						       sizeof(rec) };
			memcpy(&rec[0], &h, 8);
			rec[1] = hits[i].ip;
			rec[2] = (uint64_t)r->pid | (uint64_t)r->pid << 32;
			rec[3] = t++;
			rec[4] = 0;
			rec[5] = a.sample_period;
			cr_assert_eq(pd_writer_write(w, rec, sizeof(rec)), 0);
		}
	}
	cr_assert_eq(pd_writer_finished_round(w), 0);
	cr_assert_eq(pd_writer_set_host_features(w), 0);
	cr_assert_eq(pd_writer_close(w), 0);
}

static void run_init(struct run *r, const char *tag)
{
	memset(r, 0, sizeof(*r));
	r->dir = tu_tmpdir(tag);
	cr_assert_not_null(r->dir);
	r->pid = (uint32_t)getpid();
	snprintf(r->dump, sizeof(r->dump), "%s/dumps/jit-%u.dump", r->dir, r->pid);
	snprintf(r->data, sizeof(r->data), "%s/perf.data", r->dir);
	snprintf(r->out, sizeof(r->out), "%s/out.data", r->dir);
	snprintf(r->cache, sizeof(r->cache), "%s/cache", r->dir);
}

static void run_free(struct run *r)
{
	if (!getenv("FAULTS_KEEP"))	/* for a look at what a failed test saw */
		tu_rmtree(r->dir);
	free(r->dir);
	for (int i = 0; i < NR_EXTREME; i++)
		free(r->names[i]);
	free(r->lines);
}

/* The extreme loads, one each, into <dir>/dumps (created by the writer, 0700). */
static void write_extreme_dump(struct run *r)
{
	char dumps[700];
	snprintf(dumps, sizeof(dumps), "%s/dumps", r->dir);
	JD_OPTS(jd_writer_opts, o, .dir = dumps, .clock = JD_CLOCK_MONOTONIC);
	struct jd_writer *w = NULL;
	r->t_marker = now_mono();
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	cr_assert_str_eq(jd_writer_path(w), r->dump);
	uint8_t *code = malloc(BIG_CODE);
	memset(code, 0x90, BIG_CODE);
	r->names[L_ZERO] = strdup("zero.size()");
	r->names[L_BIG] = strdup("huge.method()");
	r->names[L_LINES] = strdup("many.lines()");
	r->names[L_LONG] = malloc(LONG_NAME);
	memset(r->names[L_LONG], 'N', LONG_NAME - 1);
	memcpy(r->names[L_LONG], "long.", 5);
	r->names[L_LONG][LONG_NAME - 1] = 0;
	r->names[L_UTF8] = strdup("bytes.\xff\xfe\x80\xc3(\x01\x7f)");
	if (asprintf(&r->names[L_DOTDOT], "../../../../../../tmp/jitprof-evil-%u", r->pid) < 0 ||
	    asprintf(&r->names[L_ABS], "/tmp/jitprof-evil-abs-%u", r->pid) < 0)
		cr_assert_fail("asprintf");
	r->names[L_PLAIN] = strdup("plain.method()");
	r->lines = calloc(NR_LINES, sizeof(*r->lines));
	uint64_t base = 0x7f0000000000ull;
	for (int i = 0; i < NR_EXTREME; i++) {
		r->addr[i] = base + (uint64_t)i * 0x400000;
		struct jd_load_desc d = { .name = r->names[i], .code_addr = r->addr[i],
					  .code = code, .code_size = 64 };
		if (i == L_ZERO)
			d.code_size = 0;
		if (i == L_BIG)
			d.code_size = BIG_CODE;
		if (i == L_LINES) {
			d.code_size = NR_LINES * 4;
			for (uint32_t k = 0; k < NR_LINES; k++) {
				r->lines[k].addr = r->addr[i] + 4ull * k;
				r->lines[k].line = (int32_t)k + 1;
				r->lines[k].file = k ? NULL : "lines.js";
			}
			d.lines = r->lines;
			d.nr_lines = NR_LINES;
		}
		cr_assert_eq(jd_write_load(w, &d, &r->code_index[i]), 0, "load %d", i);
	}
	cr_assert_eq(jd_writer_close(w), 0);
	free(code);
	struct stat sb;
	cr_assert_eq(stat(dumps, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0700, "dump directory created %o", sb.st_mode & 0777);
	r->t_samples = now_mono();
}

Test(faults_extreme, index_and_synth_take_every_extreme_load, .timeout = 60)
{
	struct run r;
	run_init(&r, "extreme-idx");
	write_extreme_dump(&r);
	struct jd_index *x = NULL;
	char err[512] = "";
	cr_assert_eq(jd_index_open(&x, r.dump, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(jd_index_warning(x), "");
	cr_assert_eq(jd_index_nr_loads(x), NR_EXTREME);
	for (int i = 0; i < NR_EXTREME; i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);
		cr_assert_str_eq(e->load.name, r.names[i], "load %d", i);
		cr_assert_eq(e->load.code_addr, r.addr[i]);
		cr_assert_eq(e->load.code_size, i == L_ZERO ? 0 : i == L_BIG ? BIG_CODE :
						i == L_LINES ? NR_LINES * 4 : 64);
		cr_assert_eq(e->nr_lines, i == L_LINES ? NR_LINES : 0);
		struct synth_input in;
		struct synth_elf elf = { 0 };
		synth_input_from_load(&in, jd_index_header(x), e);
		int rc = synth_build(&in, &elf, JP_ERRBUF_LOG(err));
		if (i == L_ZERO) {
			/* nothing to map: refused with a reason (a 64 KB name is built: names
			 * up to SYNTH_NAME_MAX, 1 MiB, unit synth/test_input refuses past it) */
			cr_assert_lt(rc, 0, "load %d built", i);
			cr_assert(strstr(err, "code_size is 0"), "%s", err);
			continue;
		}
		cr_assert_eq(rc, 0, "load %d: %s", i, err);
		cr_assert_geq(elf.size, e->load.code_size);
		uint8_t id[SYNTH_BUILD_ID_SIZE];
		cr_assert_eq(synth_build_id(&in, id, NULL), 0);
		cr_assert_eq(memcmp(id, elf.build_id, sizeof(id)), 0, "load %d", i);
		char fname[256];
		cr_assert_eq(synth_file_name(&in, fname, sizeof(fname)), 0);
		cr_assert_null(strchr(fname, '/'), "a name became a path: %s", fname);
		cr_assert_eq(strncmp(fname, "jitted-", 7), 0, "%s", fname);
		synth_elf_free(&elf);
	}
	jd_index_close(x);
	run_free(&r);
}

/* Every file under dir is 0644 and every directory 0755 or 0700; no name leaves dir. */
static void check_tree(const char *dir, int *nfiles)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[4096];
		struct stat sb;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		cr_assert_eq(lstat(p, &sb), 0);
		cr_assert_null(strstr(e->d_name, "evil"), "a method name became a path: %s", p);
		if (S_ISDIR(sb.st_mode)) {
			cr_assert(((sb.st_mode & 0777) == 0755 || (sb.st_mode & 0777) == 0700),
				  "%s: directory mode %o", p, sb.st_mode & 0777);
			check_tree(p, nfiles);
		} else if (S_ISREG(sb.st_mode)) {
			cr_assert_eq(sb.st_mode & 0777, 0644, "%s: file mode %o", p,
				     sb.st_mode & 0777);
			(*nfiles)++;
		}
	}
	closedir(d);
}

/* The overhead (percent) of the report rows of dso whose line holds sym_prefix, from
 * `--sort dso,sym` (both perf and jitprof report print the overhead first). */
static double row_percent(const char *out, const char *dso, const char *sym_prefix)
{
	double total = 0;
	for (const char *l = strstr(out, dso); l; l = strstr(l + 1, dso)) {
		const char *bol = l;
		while (bol > out && bol[-1] != '\n')
			bol--;
		const char *eol = strchr(l, '\n');
		size_t ll = eol ? (size_t)(eol - bol) : strlen(bol);
		double p;
		if (sscanf(bol, " %lf%%", &p) != 1)
			continue;
		if (sym_prefix && !memmem(bol, ll, sym_prefix, strlen(sym_prefix)))
			continue;
		total += p;
	}
	return total;
}

static void assert_row(const char *tool, const char *out, const char *dso, const char *sym,
		       unsigned samples, unsigned total)
{
	double want = 100.0 * samples / total, got = row_percent(out, dso, sym);
	cr_assert(got > want - 0.006 && got < want + 0.006, "%s: %s (%.12s): %.2f%%, want "
		  "%.2f%%; rows:\n%.3000s", tool, dso, sym, got, want, out);
}

Test(faults_extreme, inject_and_report_name_every_extreme_load, .timeout = 120)
{
	struct run r;
	run_init(&r, "extreme-inj");
	write_extreme_dump(&r);
	/* samples at the start, middle and end of the big method, deep in the line table, one
	 * per other load (the code_size 0 one has no address of its own) */
	struct hit hits[] = {
		{ r.addr[L_BIG], 3 }, { r.addr[L_BIG] + BIG_CODE / 2, 4 },
		{ r.addr[L_BIG] + BIG_CODE - 1, 5 },
		{ r.addr[L_LINES] + 4ull * 40000 + 1, 6 },
		{ r.addr[L_LONG] + 8, 7 }, { r.addr[L_UTF8] + 8, 8 },
		{ r.addr[L_DOTDOT] + 8, 9 }, { r.addr[L_ABS] + 8, 10 }, { r.addr[L_PLAIN], 11 },
	};
	make_recording(&r, hits, sizeof(hits) / sizeof(hits[0]));
	struct tu_result t;
	char *inj[] = { (char *)tu_build("jitprof"), "inject", "--jit", "-i", r.data, "-o", r.out,
			"--buildid-dir", r.cache, NULL };
	iu_run(&t, inj, NULL, 120);
	cr_assert_eq(t.status, 0, "%s", t.err);
	/* the load synth refuses (code_size 0) is counted in a warning naming the dump */
	cr_assert(strstr(t.err, "1 code loads not injected") && strstr(t.err, r.dump), "%s",
		  t.err);
	tu_result_free(&t);
	struct fu_counts c;
	fu_assert_reads_clean(r.out, &c);
	cr_assert_eq(c.samples, 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11);
	cr_assert_eq(fu_perf_reads(r.out, r.cache), c.samples);

	char *rep[] = { (char *)tu_build("jitprof"), "report", "-i", r.out, "--stdio",
			"--buildid-dir", r.cache, "--sort", "dso,sym", NULL };
	char *prep[] = { "perf", "report", "-i", r.out, "--stdio", "--sort", "dso,sym", NULL };
	for (int tool = 0; tool < 2; tool++) {
		iu_run(&t, tool ? prep : rep, r.cache, 120);
		cr_assert_eq(t.status, 0, "%s", t.err);
		char dso[64];
		const char *who = tool ? "perf" : "jitprof";
		static const int named[] = { L_BIG, L_UTF8, L_DOTDOT, L_ABS, L_PLAIN, L_LINES,
					     L_LONG };
		static const unsigned want[] = { 12, 8, 9, 10, 11, 6, 7 };
		for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++) {
			int i = named[k];
			snprintf(dso, sizeof(dso), "jitted-%u-%llu.so", r.pid,
				 (unsigned long long)r.code_index[i]);
			/* up to a byte that is not printable ASCII: jitprof prints control
			 * characters and bytes that are not UTF-8 as \xNN (issue 16) */
			char prefix[24];
			size_t plen = 0;
			while ((unsigned char)r.names[i][plen] >= 0x20 &&
			       (unsigned char)r.names[i][plen] < 0x7f)
				plen++;
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(plen < 12 ? plen : 12),
				 r.names[i]);
			assert_row(who, t.out, dso, prefix, want[k], (unsigned)c.samples);
		}
		if (!tool)
			cr_assert(strstr(t.out, "(\\x01\\x7f)") && !strchr(t.out, '\x01'),
				  "jitprof printed control characters raw: %s", t.out);
		/* the 64 KB name whole in jitprof's row (perf's too: its start checked above) */
		if (!tool)
			cr_assert(memmem(t.out, t.out_len, r.names[L_LONG], LONG_NAME - 1),
				  "the 64 KB name is not whole in jitprof's report");
		tu_result_free(&t);
	}
	/* the line table of 64k entries resolves the sample to its own line */
	char *src[] = { (char *)tu_build("jitprof"), "report", "-i", r.out, "--stdio",
			"--buildid-dir", r.cache, "--sort", "srcline", NULL };
	iu_run(&t, src, r.cache, 120);
	cr_assert_eq(t.status, 0, "%s", t.err);
	cr_assert(strstr(t.out, "lines.js:40001"), "%.3000s", t.out);
	tu_result_free(&t);

	/* no name became a path, anywhere */
	char evil[128];
	struct stat sb;
	snprintf(evil, sizeof(evil), "/tmp/jitprof-evil-%u", r.pid);
	cr_assert_neq(stat(evil, &sb), 0, "%s was created", evil);
	snprintf(evil, sizeof(evil), "/tmp/jitprof-evil-abs-%u", r.pid);
	cr_assert_neq(stat(evil, &sb), 0, "%s was created", evil);
	int nfiles = 0;
	char sub[700];
	snprintf(sub, sizeof(sub), "%s/dumps", r.dir);
	check_tree(sub, &nfiles);
	check_tree(r.cache, &nfiles);
	cr_assert_eq(fu_count_files(r.dir, "evil"), 0);
	cr_assert_gt(nfiles, 2 * 7, "fewer files than the sampled ELFs in dump dir and cache");
	run_free(&r);
}

/* 1M loads: the index holds them all; inject maps every one and names the sampled ones. */
Test(faults_extreme, a_million_loads_in_one_dump, .timeout = 240)
{
	enum { N = 1000000 };
	struct run r;
	run_init(&r, "extreme-1m");
	char dumps[700];
	snprintf(dumps, sizeof(dumps), "%s/dumps", r.dir);
	JD_OPTS(jd_writer_opts, o, .dir = dumps, .clock = JD_CLOCK_MONOTONIC,
		.buffer_size = 1 << 20, .no_ext = 1);
	struct jd_writer *w = NULL;
	uint8_t code[32];
	memset(code, 0x90, sizeof(code));
	r.t_marker = now_mono();
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint64_t base = 0x7e0000000000ull, ts = r.t_marker;
	char name[32];
	for (uint32_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "m%u", i);
		struct jd_load_desc d = { .name = name, .code_addr = base + 32ull * i,
					  .code = code, .code_size = sizeof(code),
					  .timestamp = ++ts };
		cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	}
	cr_assert_eq(jd_writer_close(w), 0);
	r.t_samples = now_mono() > ts ? now_mono() : ts + 1;
	struct jd_index *x = NULL;
	char err[512] = "";
	cr_assert_eq(jd_index_open(&x, r.dump, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(jd_index_nr_loads(x), N);
	cr_assert_str_eq(jd_index_load(x, N - 1)->load.name, "m999999");
	jd_index_close(x);
	struct hit hits[] = { { base, 2 }, { base + 32ull * 500000 + 5, 3 },
			      { base + 32ull * (N - 1) + 31, 4 } };
	make_recording(&r, hits, 3);
	struct tu_result t;
	char *inj[] = { (char *)tu_build("jitprof"), "inject", "--jit", "-i", r.data, "-o", r.out,
			"--buildid-dir", r.cache, NULL };
	iu_run(&t, inj, NULL, 200);
	cr_assert_eq(t.status, 0, "%s", t.err);
	cr_assert(strstr(t.err, "1000000 code loads"), "%s", t.err);
	tu_result_free(&t);
	struct fu_counts c;
	fu_assert_reads_clean(r.out, &c);
	cr_assert_eq(c.samples, 9);
	cr_assert_geq(c.mmap2, N, "one MMAP2 per load");
	cr_assert_eq(fu_count_files(dumps, "jitted-"), 3, "only the sampled generations' ELFs");
	char *rep[] = { (char *)tu_build("jitprof"), "report", "-i", r.out, "--stdio",
			"--buildid-dir", r.cache, "--sort", "sym", NULL };
	iu_run(&t, rep, r.cache, 200);
	cr_assert_eq(t.status, 0, "%s", t.err);
	cr_assert(strstr(t.out, "m0") && strstr(t.out, "m500000") && strstr(t.out, "m999999"),
		  "%.2000s", t.out);
	tu_result_free(&t);
	run_free(&r);
}
