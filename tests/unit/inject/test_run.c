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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/inject/inject_int.h"
#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"
#include "tests/unit/inject/runfix.h"
static void run(int pipe_out)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = data, .output = out, .out_fd = fd, .out_pipe = pipe_out,
		.cache_root = cache, .threads = 2 };
	struct inj_stats st;
	char err[512];
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&o, &st), 0, "%s", err);
	close(fd);
	cr_assert_eq(st.dumps, 1);
	cr_assert_eq(st.loads, NLOADS);
	cr_assert_eq(st.loads_hit, NLOADS / 2);
	cr_assert_eq(st.anon_dropped, 1);
	cr_assert_eq(st.pool.written, NLOADS / 2);
	cr_assert_eq(st.pool.failed, 0);
}

/* Replays perf's ordered-events rule over out and checks what inject added. */
static void check_output(int expect_build_id_table, int expect_elfs)
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
		cr_assert_eq(stat(p, &sb) == 0, expect_elfs && i % 2 == 0,
			     "%s: ELF only when sampled (and not --no-elfs)", p);
	}
}

Test(run, file_in_file_out, .fini = rf_cleanup)
{
	rf_make_input(0);
	run(0);
	check_output(1, 1);
}

Test(run, pipe_in_pipe_out, .fini = rf_cleanup)
{
	rf_make_input(PD_WRITER_PIPE);
	run(1);
	check_output(0, 1);
}

Test(run, refuses_a_recording_off_the_dumps_clock, .fini = rf_cleanup)
{
	rf_make_input(0);
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
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = data, .output = out, .out_fd = ofd, .threads = 1 };
	struct inj_stats st;
	char err[512];
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_lt(inj_run(&o, &st), 0);
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

Test(run, damaged_recording_is_injected_up_to_the_damage, .fini = rf_cleanup)
{
	rf_make_input(PD_WRITER_PIPE);	/* pipe format: no header promising a size */
	struct stat sb;
	cr_assert_eq(stat(data, &sb), 0);
	cr_assert_eq(truncate(data, sb.st_size - 13), 0);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = data, .output = out, .out_fd = fd, .out_pipe = 1,
		.cache_root = cache, .threads = 2, .log = { on_warn, NULL } };
	struct inj_stats st;
	warnings = 0;
	cr_assert_eq(inj_run(&o, &st), 0, "%s", last_warning);
	close(fd);
	cr_assert_geq(warnings, 1);
	cr_assert(strstr(last_warning, data), "the warning names the file: %s", last_warning);
	cr_assert_eq(st.loads, NLOADS, "every load is still merged");
}

Test(run, arch_dump_without_time_conv_is_refused, .fini = rf_cleanup)
{
	rf_make_input(0);
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
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = data, .output = out, .out_fd = fd, .jit_dir = adir,
		.threads = 1 };
	struct inj_stats st;
	char err[512];
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_lt(inj_run(&o, &st), 0);
	close(fd);
	cr_assert(strstr(err, "TIME_CONV"), "%s", err);
}

/* Build-ids of the MMAP2s of pid in out, in file order; returns how many. */
static size_t mmap2_ids(uint32_t pid, uint8_t (*ids)[20], size_t cap)
{
	struct pd_reader *r;
	struct pd_event ev;
	size_t n = 0;
	cr_assert_eq(pd_reader_open(&r, out, NULL), 0);
	while (pd_reader_next(r, &ev) > 0)
		if (ev.type == PERF_RECORD_MMAP2 && ev.u.mmap.pid == pid &&
		    ev.u.mmap.has_build_id && n < cap)
			memcpy(ids[n++], ev.u.mmap.build_id, 20);
	pd_reader_close(r);
	return n;
}

/* Issue 16 finding 9: markers of several pids naming one dump file read and index it once (a
 * copy of it, another file, is indexed on its own), and each pid still gets every load's
 * MMAP2 with the build-ids a single-pid run gives. */
Test(run, pids_naming_one_dump_share_its_index, .fini = rf_cleanup, .timeout = 60)
{
	rf_make_input(0);
	run(0);
	uint8_t want[NLOADS][20], got[NLOADS][20];
	cr_assert_eq(mmap2_ids((uint32_t)getpid(), want, NLOADS), NLOADS);
	char copy[4300], cmd[9000], two[4300];
	snprintf(copy, sizeof(copy), "%s/c/%s", dir, strrchr(dump, '/') + 1);
	snprintf(cmd, sizeof(cmd), "mkdir %s/c && cp %s %s", dir, dump, copy);
	cr_assert_eq(system(cmd), 0);
	snprintf(two, sizeof(two), "%s/two.data", dir);
	struct pd_writer *w = rf_open_recording(two, 0);
	for (unsigned k = 0; k < 3; k++)
		rf_map(w, 60000 + k, T0 - 10, 0x7000000, dump);
	rf_map(w, 60003, T0 - 10, 0x7000000, copy);
	for (unsigned k = 0; k < 4; k++)
		rf_sample(w, 60000 + k, T0 + 50, 0x40008);
	cr_assert_eq(pd_writer_close(w), 0);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = two, .output = out, .out_fd = fd, .cache_root = cache,
		.threads = 2 };
	struct inj_stats st;
	char err[512];
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&o, &st), 0, "%s", err);
	close(fd);
	cr_assert_eq(st.dumps, 4);
	cr_assert_eq(st.dumps_indexed, 2, "one index for the dump, one for its copy, not %llu",
		     (unsigned long long)st.dumps_indexed);
	cr_assert_eq(st.pool.failed, 0);
	for (unsigned k = 0; k < 4; k++) {
		cr_assert_eq(mmap2_ids(60000 + k, got, NLOADS), NLOADS, "pid %u", 60000 + k);
		cr_assert_eq(memcmp(got, want, sizeof(want)), 0, "pid %u's build-ids", 60000 + k);
	}
}

/* Issue 16 finding 9: markers of many pids naming one dump share its index and build-ids (it
 * is read once, not once per marker); past INJ_MAX_PIDS_PER_DUMP processes the rest are
 * refused with a warning naming the limit, and the output holds the MMAP2s of only that many. */
Test(run, many_pids_naming_one_dump_are_bounded, .fini = rf_cleanup, .timeout = 60)
{
	rf_make_input(0);
	char many[4300];
	snprintf(many, sizeof(many), "%s/many.data", dir);
	struct pd_writer *w = rf_open_recording(many, 0);
	unsigned npids = INJ_MAX_PIDS_PER_DUMP + 36;
	for (unsigned k = 0; k < npids; k++)
		rf_map(w, 50000 + k, T0 - 10, 0x7000000, dump);
	for (unsigned k = 0; k < npids; k++)
		rf_sample(w, 50000 + k, T0 + 50, 0x40008);
	cr_assert_eq(pd_writer_close(w), 0);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = many, .output = out, .out_fd = fd, .cache_root = cache,
		.threads = 2, .log = { on_warn, NULL } };
	struct inj_stats st;
	warnings = 0;
	cr_assert_eq(inj_run(&o, &st), 0, "%s", last_warning);
	close(fd);
	cr_assert_eq(st.dumps, INJ_MAX_PIDS_PER_DUMP);
	cr_assert_eq(st.dumps_indexed, 1, "the dump indexed %llu times",
		     (unsigned long long)st.dumps_indexed);
	cr_assert_eq(st.mmaps_emitted, (uint64_t)INJ_MAX_PIDS_PER_DUMP * NLOADS);
	cr_assert_eq(st.pool.failed, 0, "%s", last_warning);
	cr_assert_geq(warnings, (int)(npids - INJ_MAX_PIDS_PER_DUMP));
	cr_assert(strstr(last_warning, "INJ_MAX_PIDS_PER_DUMP") && strstr(last_warning, dump),
		  "%s", last_warning);
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
	big.o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&big.o, &st), -EINVAL);
	big.newer = 0;
	big.o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&big.o, &st), -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/perf.data"), "%s", err);
}

/* A file that is not perf.data: the reader's own words (file, offset, cause) reach err, and
 * nothing half-open is left to close (the reader's rule: *out NULL on failure). */
Test(run, not_perf_data_says_where_and_why, .fini = rf_cleanup)
{
	struct inj_stats st;
	char err[1024] = "", path[600], want[800];
	dir = tu_tmpdir("injrun-bad");
	snprintf(path, sizeof(path), "%s/bad.data", dir);
	cr_assert_eq(tu_write_file(path, "NOTPERF!........", 16), 0);
	struct inj_opts o = { .sz = sizeof(o), .input = path, .output = "-", .out_fd = -1 };
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&o, &st), -EINVAL);
	snprintf(want, sizeof(want), "%s: offset 0: not a perf.data file (bad magic)", path);
	cr_assert_str_eq(err, want);
}

static void keep_whole(void *ctx, enum jp_level level, const char *msg)
{
	char **kept = ctx;
	if (level == JP_LOG_ERROR && !*kept)
		*kept = strdup(msg);
}

/* A 1,300-byte directory under dir, made: its path in buf. */
static void long_dir(char *buf, size_t len)
{
	char part[251];
	memset(part, 'p', 250);
	part[250] = 0;
	size_t n = (size_t)snprintf(buf, len, "%s", dir);
	for (int i = 0; i < 5; i++) {
		n += (size_t)snprintf(buf + n, len - n, "/%s", part);
		cr_assert_eq(mkdir(buf, 0755), 0);
	}
}

/* The run's own message (the clock refusal) naming a 1,300-byte input comes whole: it was
 * cut at the 1 KiB of the run's err buffer, before its advice. */
Test(run, long_path_error_comes_whole, .fini = rf_cleanup)
{
	rf_make_input(0);
	int fd = open(data, O_RDWR);
	struct { uint64_t magic, size, attr_size, off, sz; } h;
	uint64_t flags;
	cr_assert_eq(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	cr_assert_eq(pread(fd, &flags, 8, (off_t)h.off + 40), 8);
	flags &= ~(1ull << 25);	/* use_clockid, as refuses_a_recording_off_the_dumps_clock */
	cr_assert_eq(pwrite(fd, &flags, 8, (off_t)h.off + 40), 8);
	close(fd);
	char path[1400];
	long_dir(path, sizeof(path));
	strcat(path, "/perf.data");
	size_t len;
	void *bytes = tu_read_file(data, &len);
	cr_assert_eq(tu_write_file(path, bytes, len), 0);
	free(bytes);
	char *msg = NULL;
	int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .sz = sizeof(o), .input = path, .output = out, .out_fd = ofd,
			      .threads = 1, .log = { keep_whole, &msg } };
	struct inj_stats st;
	cr_assert_lt(inj_run(&o, &st), 0);
	close(ofd);
	cr_assert_not_null(msg);
	cr_expect(strstr(msg, path), "the input cut: %s", msg);
	static const char advice[] = "jitprof record -k mono)";
	size_t n = strlen(msg);
	cr_expect(n > sizeof(advice) && !strcmp(msg + n - (sizeof(advice) - 1), advice), "%s", msg);
	free(msg);
}

/* The origins section of out, decoded. */
static void read_origins(struct inj_origins *o)
{
	struct pd_reader *r;
	char err[512];
	cr_assert_eq(pd_reader_open(&r, out, NULL), 0);
	cr_assert_eq(inj_origins_read(r, out, o, JP_ERRBUF_LOG(err)), 0, "%s", err);
	pd_reader_close(r);
}

Test(run, no_elfs_records_origins_instead_of_files, .fini = rf_cleanup)
{
	struct inj_stats st;
	char err[512];
	rf_make_input(0);
	cr_assert_eq(rf_run_no_elfs(0, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.loads_hit, NLOADS / 2);
	cr_assert_eq(st.origins, NLOADS / 2);
	cr_assert_eq(st.pool.written, 0);
	check_output(1, 0);	/* same MMAP2s and build-id table, no file */

	struct inj_origins o;
	read_origins(&o);
	cr_assert_eq(o.nr_dumps, 1);
	char abs[4096];
	cr_assert_eq(inj_abspath(dump, abs, sizeof(abs)), 0);
	cr_assert_str_eq(o.dumps[0].path, abs);
	cr_assert(o.dumps[0].dump.present);
	cr_assert_eq(o.n, NLOADS / 2);
	/* Each entry names a sampled (even) load by its record, with the build-id of the
	 * MMAP2 that names it in the output's build-id table. */
	struct pd_reader *r;
	cr_assert_eq(pd_reader_open(&r, out, NULL), 0);
	for (size_t i = 0; i < o.n; i++) {
		int k = -1;
		for (int j = 0; j < NLOADS; j++)
			if (code_index[j] == o.v[i].code_index)
				k = j;
		cr_assert(k >= 0 && k % 2 == 0, "origin of unsampled load %d", k);
		int found = 0;
		for (size_t b = 0; b < pd_reader_nr_build_ids(r); b++)
			found |= !memcmp(pd_reader_build_id(r, b)->build_id, o.v[i].build_id, 20);
		cr_assert(found, "origin %zu: build-id not in the table", i);
	}
	pd_reader_close(r);
	inj_origins_free(&o);
}

Test(run, no_elfs_needs_a_file_output, .fini = rf_cleanup)
{
	struct inj_stats st;
	char err[512];
	rf_make_input(0);
	cr_assert_eq(rf_run_no_elfs(1, &st, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "file output"), "%s", err);
}

Test(run, elfs_for_writes_the_files_the_file_path_would, .fini = rf_cleanup)
{
	struct inj_stats st;
	struct inj_pool_stats ps;
	char err[512], p[4300], q[4320];
	rf_make_input(0);
	run(0);		/* the file-writing path first: keep one of its ELFs aside */
	for (int i = 0; i < NLOADS; i += 2) {
		snprintf(p, sizeof(p), "%s/jitted-%d-%llu.so", dir, getpid(),
			 (unsigned long long)code_index[i]);
		snprintf(q, sizeof(q), "%s.filepath", p);
		cr_assert_eq(i ? unlink(p) : rename(p, q), 0);
	}
	cr_assert_eq(rf_run_no_elfs(0, &st, err, sizeof(err)), 0, "%s", err);
	check_output(1, 0);
	cr_assert_eq(inj_elfs_for(out, NULL, 2, 0, &ps, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(ps.written, NLOADS / 2);
	cr_assert_eq(ps.failed, 0, "%s", err);
	check_output(1, 1);
	snprintf(p, sizeof(p), "%s/jitted-%d-%llu.so", dir, getpid(),
		 (unsigned long long)code_index[0]);
	snprintf(q, sizeof(q), "%s.filepath", p);
	size_t na, nb;
	char *a = tu_read_file(p, &na), *b = tu_read_file(q, &nb);
	cr_assert(a && b && na == nb && !memcmp(a, b, na), "ELF bytes differ");
	free(a);
	free(b);
}

Test(run, elfs_for_refuses_a_changed_dump, .fini = rf_cleanup)
{
	struct inj_stats st;
	struct inj_pool_stats ps;
	char err[512];
	rf_make_input(0);
	cr_assert_eq(rf_run_no_elfs(0, &st, err, sizeof(err)), 0, "%s", err);
	FILE *f = fopen(dump, "a");	/* one byte more: the dump is not the one injected */
	cr_assert_not_null(f);
	fputc(0, f);
	fclose(f);
	cr_assert_eq(inj_elfs_for(out, NULL, 2, 0, &ps, JP_ERRBUF_LOG(err)), -ESTALE);
	cr_assert(strstr(err, "changed since inject"), "%s", err);
	check_output(1, 0);
}

Test(run, elfs_for_an_output_without_origins_is_refused, .fini = rf_cleanup)
{
	struct inj_pool_stats ps;
	char err[512];
	rf_make_input(0);
	cr_assert_eq(inj_elfs_for(data, NULL, 2, 0, &ps, JP_ERRBUF_LOG(err)), -ENOENT);
	cr_assert(strstr(err, "no origins section"), "%s", err);
}

/* A dump rewritten in place with its mtime put back (touch -r) is refused by its identity
 * (ctime, SHA-1 of the whole file; issue 34 finding 5: the first page's alone let it pass);
 * one whose identity still matches (an inject that raced the rewrite) makes an ELF that no
 * longer hashes to the recorded build-id, and that ELF is refused. */
Test(run, elfs_for_refuses_an_elf_whose_build_id_changed, .fini = rf_cleanup)
{
	struct inj_stats st;
	struct inj_pool_stats ps;
	struct stat sb;
	char err[512];
	rf_make_input(0);
	cr_assert_eq(rf_run_no_elfs(0, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_gt(rf_rewrite_code(NLOADS - 2), 4096, "the load must lie past the first page");
	cr_assert_eq(inj_elfs_for(out, NULL, 2, 0, &ps, JP_ERRBUF_LOG(err)), -ESTALE);
	cr_assert(strstr(err, "ctime differs"), "%s", err);
	rf_reidentify();
	cr_assert_eq(inj_elfs_for(out, NULL, 2, 0, &ps, JP_ERRBUF_LOG(err)), -EIO, "%s", err);
	cr_assert_eq(ps.failed, 1);
	cr_assert(strstr(err, "1 ELF(s) could not be written; first: ") &&
		  strstr(err, "differs from its MMAP2"), "%s", err);
	cr_assert_eq(ps.written, NLOADS / 2 - 1);
	char p[4300];
	snprintf(p, sizeof(p), "%s/jitted-%d-%llu.so", dir, getpid(),
		 (unsigned long long)code_index[NLOADS - 2]);
	cr_assert_neq(stat(p, &sb), 0, "%s written from a changed dump", p);
}

/* Injecting a --no-elfs output again (its markers are consumed: nothing new to inject) keeps
 * its origins instead of writing an empty section over them. */
Test(run, no_elfs_output_injected_again_keeps_its_origins, .fini = rf_cleanup)
{
	struct inj_stats st;
	struct inj_origins a, b;
	char err[512], again[4300];
	rf_make_input(0);
	cr_assert_eq(rf_run_no_elfs(0, &st, err, sizeof(err)), 0, "%s", err);
	read_origins(&a);
	snprintf(again, sizeof(again), "%s/again.data", dir);
	int fd = open(again, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = out, .output = again, .out_fd = fd, .threads = 2,
		.no_elfs = 1 };
	o.log = *JP_ERRBUF_LOG(err);
	cr_assert_eq(inj_run(&o, &st), 0, "%s", err);
	close(fd);
	cr_assert_eq(st.dumps, 0);
	cr_assert_eq(rename(again, out), 0);
	read_origins(&b);
	cr_assert_eq(b.nr_dumps, a.nr_dumps);
	cr_assert_eq(b.n, a.n);
	cr_assert_str_eq(b.dumps[0].path, a.dumps[0].path);
	for (size_t i = 0; i < a.n; i++)
		cr_assert_eq(memcmp(&a.v[i], &b.v[i], sizeof(a.v[i])), 0, "entry %zu", i);
	inj_origins_free(&a);
	inj_origins_free(&b);
}

static void keep_unusable(void *ctx, enum jp_level level, const char *msg)
{
	char **kept = ctx;
	(void)level;
	if (strstr(msg, "unusable") && !*kept)
		*kept = strdup(msg);
}

/* A marker naming a dump in a long directory that does not exist: the warning names the
 * whole directory (it was cut at 400 bytes). (A reason libjitdump gives is cut at its own
 * 512 bytes: jitdump/reader.c keeps its own buffer.) */
Test(run, unusable_dump_in_a_long_directory_said_whole, .fini = rf_cleanup)
{
	rf_make_input(0);
	char ldir[1400], gone[1500], rec[4300], want[1500];
	long_dir(ldir, sizeof(ldir));
	snprintf(gone, sizeof(gone), "%s/no-such-dir/jit-71.dump", ldir);
	snprintf(rec, sizeof(rec), "%s/marker.data", dir);
	struct pd_writer *w = rf_open_recording(rec, 0);
	rf_map(w, 71, T0 - 10, 0x7000000, gone);
	rf_sample(w, 71, T0 + 50, 0x7000008);
	cr_assert_eq(pd_writer_close(w), 0);
	char *msg = NULL;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct inj_opts o = { .sz = sizeof(o), .input = rec, .output = out, .out_fd = fd,
			      .cache_root = cache, .threads = 1, .log = { keep_unusable, &msg } };
	struct inj_stats st;
	cr_assert_eq(inj_run(&o, &st), 0);
	close(fd);
	cr_assert_not_null(msg, "no warning");
	snprintf(want, sizeof(want), "%s/no-such-dir: No such file or directory", ldir);
	cr_expect(strstr(msg, want), "the directory cut (%zu bytes): ...%s", strlen(msg),
		  msg + (strlen(msg) > 300 ? strlen(msg) - 300 : 0));
	free(msg);
}
