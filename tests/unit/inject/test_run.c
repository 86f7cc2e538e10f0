/* test_run.c - recorder/inject/run.c (with markers.c, emit.c) on a recording made in-process:
 * the output must be one perf's ordered reader takes without an out-of-order event (checked by
 * replaying perf's FINISHED_ROUND rule over it), with one build-id MMAP2 per load, the marker
 * consumed, the runtime's //anon map dropped, rounds kept, the BUILD_ID table naming the
 * sampled generations and ELF files for them only. File and pipe input, marker late in the
 * file (after samples it explains). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/inject/inject_int.h"
#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"

#define NLOADS 40
#define SLOTS 8
#define T0 1000000ull

static char *dir;
static char dump[4096], data[4200], out[4200], cache[4200];
static uint64_t code_index[NLOADS];

static void sample(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t ip)
{
	uint64_t rec[5] = { 0, ip, (uint64_t)pid | (uint64_t)pid << 32, t, 1 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec) };
	memcpy(rec, &h, sizeof(h));
	cr_assert_eq(pd_writer_write(w, rec, sizeof(rec)), 0);
}

static void map(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t start, const char *f)
{
	struct pd_mmap2_args m = { .pid = pid, .tid = pid, .cpumode = PERF_RECORD_MISC_USER,
				   .start = start, .len = 4096, .prot = PROT_READ | PROT_EXEC,
				   .flags = MAP_PRIVATE, .filename = f };
	struct pd_sid sid = { .pid = pid, .tid = pid, .time = t };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
}

/* Loads every 100 ns in SLOTS reused slots; samples 50 ns after each load, in the newest load;
 * a round every 4 samples; the marker written only after the first round. */
static void make_input(unsigned flags)
{
	static const uint8_t code[48] = { 0x55, [47] = 0xc3 };
	uint32_t pid = (uint32_t)getpid();
	dir = tu_tmpdir("injrun");
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(out, sizeof(out), "%s/out.data", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *jw;
	cr_assert_eq(jd_writer_open(&jw, &o), 0);
	snprintf(dump, sizeof(dump), "%s", jd_writer_path(jw));
	for (int i = 0; i < NLOADS; i++) {
		char name[32];
		snprintf(name, sizeof(name), "Lt;m%d()V", i % 5);
		struct jd_load_desc ld = { .name = name, .code_addr = 0x40000 + (i % SLOTS) * 0x100,
					   .code = code, .code_size = sizeof(code),
					   .timestamp = T0 + 100 * (uint64_t)i };
		cr_assert_eq(jd_write_load(jw, &ld, &code_index[i]), 0);
	}
	cr_assert_eq(jd_writer_close(jw), 0);

	struct pd_writer *w;
	cr_assert_eq(pd_writer_open(&w, data, flags), 0);
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
				     .sample_id_all = 1, .mmap2 = 1, .comm = 1, .use_clockid = 1,
				     .clockid = CLOCK_MONOTONIC, .sample_period = 1 };
	uint64_t id = 7;
	cr_assert_eq(pd_writer_add_attr(w, &a, &id, 1, "cpu-clock"), 0);
	for (int i = 0; i < NLOADS; i++) {
		/* Only even loads are sampled. */
		if (i % 2 == 0)
			sample(w, pid, T0 + 100 * (uint64_t)i + 50, 0x40000 + (i % SLOTS) * 0x100 + 8);
		if (i % 4 == 3) {
			if (i == 3) {	/* late in the file, early in time */
				map(w, pid, T0 - 10, 0x7000000, dump);
				map(w, pid, T0 - 5, 0x40000, "//anon");
			}
			cr_assert_eq(pd_writer_finished_round(w), 0);
		}
	}
	cr_assert_eq(pd_writer_close(w), 0);
}

static void run(int pipe_out)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	struct inj_opts o = { .input = data, .output = out, .out_fd = fd, .out_pipe = pipe_out,
			      .cache_root = cache, .threads = 2 };
	struct inj_stats st;
	char err[512];
	cr_assert_eq(inj_run(&o, &st, err, sizeof(err)), 0, "%s", err);
	close(fd);
	cr_assert_eq(st.dumps, 1);
	cr_assert_eq(st.loads, NLOADS);
	cr_assert_eq(st.loads_hit, NLOADS / 2);
	cr_assert_eq(st.anon_dropped, 1);
	cr_assert_eq(st.pool.written, NLOADS / 2);
	cr_assert_eq(st.pool.failed, 0, "%s", st.pool.first_error);
}

/* Replays perf's ordered-events rule over out and checks what inject added. */
static void check_output(int expect_build_id_table)
{
	struct pd_reader *r;
	struct pd_event ev;
	cr_assert_eq(pd_reader_open(&r, out, NULL), 0);
	uint64_t max_ts = 0, next_flush = 0, last_flush = 0;
	int rounds = 0, mmaps = 0, rc;
	while ((rc = pd_reader_next(r, &ev)) > 0) {
		uint64_t t = pd_event_time(&ev);
		if (ev.type == PD_RECORD_FINISHED_ROUND) {
			rounds++;
			last_flush = next_flush;
			next_flush = max_ts;
			continue;
		}
		if (t) {
			cr_assert_geq(t, last_flush, "record type %u at offset %llu is out of order",
				      ev.type, (unsigned long long)ev.offset);
			if (t > max_ts)
				max_ts = t;
		}
		if (ev.type != PERF_RECORD_MMAP2)
			continue;
		cr_assert_null(strstr(ev.u.mmap.filename, "jit-"), "marker consumed");
		cr_assert_str_neq(ev.u.mmap.filename, "//anon");
		cr_assert(ev.u.mmap.has_build_id);
		cr_assert_eq(ev.u.mmap.prot, PROT_READ | PROT_EXEC);
		cr_assert(strstr(ev.u.mmap.filename, "/jitted-"));
		mmaps++;
	}
	cr_assert_eq(rc, 0, "%s", pd_reader_error(r));
	cr_assert_eq(rounds, NLOADS / 4);
	cr_assert_eq(mmaps, NLOADS);
	if (expect_build_id_table) {
		size_t jitted = 0;
		for (size_t i = 0; i < pd_reader_nr_build_ids(r); i++)
			jitted += strstr(pd_reader_build_id(r, i)->filename, "/jitted-") != NULL;
		cr_assert_eq(jitted, NLOADS / 2);
	}
	pd_reader_close(r);
	for (int i = 0; i < NLOADS; i++) {
		char p[4300];
		struct stat sb;
		snprintf(p, sizeof(p), "%s/jitted-%d-%llu.so", dir, getpid(),
			 (unsigned long long)code_index[i]);
		cr_assert_eq(stat(p, &sb) == 0, i % 2 == 0, "%s: ELF only when sampled", p);
	}
}

static void cleanup(void)
{
	tu_rmtree(dir);
	free(dir);
}

Test(run, file_in_file_out, .fini = cleanup)
{
	make_input(0);
	run(0);
	check_output(1);
}

Test(run, pipe_in_pipe_out, .fini = cleanup)
{
	make_input(PD_WRITER_PIPE);
	run(1);
	check_output(0);
}

Test(run, refuses_a_recording_off_the_dumps_clock, .fini = cleanup)
{
	make_input(0);
	/* Same recording without -k mono: rewrite the attr's use_clockid bit in place. */
	struct pd_reader *r;
	cr_assert_eq(pd_reader_open(&r, data, NULL), 0);
	cr_assert(pd_reader_evsel(r, 0)->attr.use_clockid);
	pd_reader_close(r);
	int fd = open(data, O_RDWR);
	struct { uint64_t magic, size, attr_size, off, sz; } h;
	cr_assert_eq(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	uint64_t flags;
	cr_assert_eq(pread(fd, &flags, 8, (off_t)h.off + 40), 8);
	flags &= ~(1ull << 25);	/* use_clockid */
	cr_assert_eq(pwrite(fd, &flags, 8, (off_t)h.off + 40), 8);
	close(fd);
	int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .input = data, .output = out, .out_fd = ofd, .threads = 1 };
	struct inj_stats st;
	char err[512];
	cr_assert_lt(inj_run(&o, &st, err, sizeof(err)), 0);
	close(ofd);
	cr_assert(strstr(err, "-k mono"), "%s", err);
}

static int warnings;
static char last_warning[1024];

static void on_warn(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

Test(run, damaged_recording_is_injected_up_to_the_damage, .fini = cleanup)
{
	make_input(PD_WRITER_PIPE);	/* pipe format: no header promising a size */
	struct stat sb;
	cr_assert_eq(stat(data, &sb), 0);
	cr_assert_eq(truncate(data, sb.st_size - 13), 0);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .input = data, .output = out, .out_fd = fd, .out_pipe = 1,
			      .cache_root = cache, .threads = 2, .log = { on_warn, NULL } };
	struct inj_stats st;
	char err[512];
	warnings = 0;
	cr_assert_eq(inj_run(&o, &st, err, sizeof(err)), 0, "%s", err);
	close(fd);
	cr_assert_geq(warnings, 1);
	cr_assert(strstr(last_warning, data), "the warning names the file: %s", last_warning);
	cr_assert_eq(st.loads, NLOADS, "every load is still merged");
}

Test(run, arch_dump_without_time_conv_is_refused, .fini = cleanup)
{
	make_input(0);
	char adir[4300];
	snprintf(adir, sizeof(adir), "%s/arch", dir);
	cr_assert_eq(mkdir(adir, 0755), 0);
	struct jd_writer_opts jo = { .size = sizeof(jo), .dir = adir, .clock = JD_CLOCK_ARCH };
	struct jd_writer *jw;
	if (jd_writer_open(&jw, &jo) < 0)
		cr_skip_test("no arch timestamps on this machine");
	static const uint8_t code[16] = { 0xc3 };
	struct jd_load_desc ld = { .name = "a", .code_addr = 0x40000, .code = code,
				   .code_size = sizeof(code) };
	cr_assert_eq(jd_write_load(jw, &ld, NULL), 0);
	char apath[4300];
	snprintf(apath, sizeof(apath), "%s", jd_writer_path(jw));
	cr_assert_eq(jd_writer_close(jw), 0);
	/* The recording's dump is replaced by the arch one (same name, via --jit-dir). */
	char moved[4400];
	const char *base = strrchr(dump, '/') + 1;
	snprintf(moved, sizeof(moved), "%s/%s", adir, base);
	cr_assert_eq(rename(apath, moved), 0);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .input = data, .output = out, .out_fd = fd, .jit_dir = adir,
			      .threads = 1 };
	struct inj_stats st;
	char err[512];
	cr_assert_lt(inj_run(&o, &st, err, sizeof(err)), 0);
	close(fd);
	cr_assert(strstr(err, "TIME_CONV"), "%s", err);
}

/* lib/opts.h's rule: unknown non-zero bytes past this version's inj_opts are refused. */
Test(run, opts_with_unknown_tail_refused)
{
	struct inj_stats st;
	char err[256] = "";
	struct { struct inj_opts o; uint64_t newer; } big;
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.input = "/nonexistent/perf.data";
	big.newer = 1;
	cr_assert_eq(inj_run(&big.o, &st, err, sizeof(err)), -EINVAL);
	big.newer = 0;
	cr_assert_eq(inj_run(&big.o, &st, err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/perf.data"), "%s", err);
}

/* A file that is not perf.data: the reader's own words (file, offset, cause) reach err, and
 * nothing half-open is left to close (the reader's rule: *out NULL on failure). */
Test(run, not_perf_data_says_where_and_why, .fini = cleanup)
{
	struct inj_stats st;
	char err[1024] = "", path[600], want[800];
	dir = tu_tmpdir("injrun-bad");
	snprintf(path, sizeof(path), "%s/bad.data", dir);
	cr_assert_eq(tu_write_file(path, "NOTPERF!........", 16), 0);
	struct inj_opts o = { .sz = sizeof(o), .input = path, .output = "-", .out_fd = -1 };
	cr_assert_eq(inj_run(&o, &st, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: offset 0: not a perf.data file (bad magic)", path);
	cr_assert_str_eq(err, want);
}
