/* runfix.c - the in-process recording the inject unit tests share (runfix.h). */
#include <criterion/criterion.h>
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


char *dir;
char dump[4096], data[4200], out[4200], cache[4200];
uint64_t code_index[NLOADS];

void rf_sample(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t ip)
{
	uint64_t rec[5] = { 0, ip, (uint64_t)pid | (uint64_t)pid << 32, t, 1 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec) };
	memcpy(rec, &h, sizeof(h));
	cr_assert_eq(pd_writer_write(w, rec, sizeof(rec)), 0);
}

void rf_map(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t start, const char *f)
{
	struct pd_mmap2_args m = { .pid = pid, .tid = pid, .cpumode = PERF_RECORD_MISC_USER,
				   .start = start, .len = 4096, .prot = PROT_READ | PROT_EXEC,
				   .flags = MAP_PRIVATE, .filename = f };
	struct pd_sid sid = { .pid = pid, .tid = pid, .time = t };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
}

/* Loads every 100 ns in SLOTS reused slots; samples 50 ns after each load, in the newest load;
 * a round every 4 samples; the marker written only after the first round. */
struct pd_writer *rf_open_recording(const char *path, unsigned flags)
{
	struct pd_writer *w;
	cr_assert_eq(pd_writer_open(&w, path, flags), 0);
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
				     .sample_id_all = 1, .mmap2 = 1, .comm = 1, .use_clockid = 1,
				     .clockid = CLOCK_MONOTONIC, .sample_period = 1 };
	uint64_t id = 7;
	cr_assert_eq(pd_writer_add_attr(w, &a, &id, 1, "cpu-clock"), 0);
	return w;
}

void rf_make_input(unsigned flags)
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

	struct pd_writer *w = rf_open_recording(data, flags);
	for (int i = 0; i < NLOADS; i++) {
		/* Only even loads are sampled. */
		if (i % 2 == 0)
			rf_sample(w, pid, T0 + 100 * (uint64_t)i + 50, 0x40000 + (i % SLOTS) * 0x100 + 8);
		if (i % 4 == 3) {
			if (i == 3) {	/* late in the file, early in time */
				rf_map(w, pid, T0 - 10, 0x7000000, dump);
				rf_map(w, pid, T0 - 5, 0x40000, "//anon");
			}
			cr_assert_eq(pd_writer_finished_round(w), 0);
		}
	}
	cr_assert_eq(pd_writer_close(w), 0);
}

int rf_run_no_elfs(int pipe_out, struct inj_stats *st, char *err, size_t errlen)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	struct inj_opts o = { .sz = sizeof(struct inj_opts),
		.input = data, .output = out, .out_fd = fd, .out_pipe = pipe_out,
		.threads = 2, .no_elfs = 1 };
	o.log = *jp_errbuf_log(&(struct jp_log){ 0 }, &(struct jp_errbuf){ 0 }, err, errlen);
	int rc = inj_run(&o, st);
	close(fd);
	return rc;
}

void rf_cleanup(void)
{
	tu_rmtree(dir);
	free(dir);
}


uint64_t rf_rewrite_code(uint32_t load)
{
	struct jd_index *x;
	struct stat sb;
	char err[512];
	cr_assert_eq(jd_index_open(&x, dump, err, sizeof(err)), 0, "%s", err);
	const struct jd_load_entry *e = jd_index_load(x, load);
	uint64_t at = e->offset + 56 + strlen(e->load.name) + 1;	/* its first code byte */
	jd_index_close(x);
	cr_assert_eq(stat(dump, &sb), 0);
	struct timespec slept = { 0, 20 * 1000 * 1000 };	/* a ctime tick apart */
	nanosleep(&slept, NULL);
	int fd = open(dump, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, "\x90", 1, (off_t)at), 1);
	close(fd);
	struct timespec ts[2] = { sb.st_atim, sb.st_mtim };	/* touch -r */
	cr_assert_eq(utimensat(AT_FDCWD, dump, ts, 0), 0);
	return at;
}

void rf_reidentify(void)
{
	struct pd_reader *r;
	struct inj_origins o;
	size_t size, len, enc_size;
	char err[512];
	void *enc;
	cr_assert_eq(pd_reader_open(&r, out, NULL), 0);
	const void *raw = pd_reader_feature(r, INJ_FEAT_ORIGINS, &size);
	cr_assert_not_null(raw);
	cr_assert_eq(inj_origins_decode(&o, raw, size, JP_ERRBUF_LOG(err)), 0, "%s", err);
	for (size_t k = 0; k < o.nr_dumps; k++) {
		char comp[4200];
		snprintf(comp, sizeof(comp), "%s.jitprof", o.dumps[k].path);
		cr_assert_eq(inj_file_id_get(o.dumps[k].path, &o.dumps[k].dump, JP_ERRBUF_LOG(err)),
			     0, "%s", err);
		cr_assert_eq(inj_file_id_get(comp, &o.dumps[k].comp, JP_ERRBUF_LOG(err)), 0, "%s",
			     err);
	}
	cr_assert_eq(inj_origins_encode(&o, &enc, &enc_size), 0);
	cr_assert_eq(enc_size, size);
	uint8_t *file = tu_read_file(out, &len);
	cr_assert_not_null(file);
	uint8_t *at = memmem(file, len, raw, size);
	cr_assert_not_null(at);
	memcpy(at, enc, size);	/* same size, same place: only the identities differ */
	cr_assert_eq(tu_write_file(out, file, len), 0);
	free(file);
	free(enc);
	inj_origins_free(&o);
	pd_reader_close(r);
}
