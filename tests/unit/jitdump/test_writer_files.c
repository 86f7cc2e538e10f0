/* test_writer_files.c - jitdump/writer.c with the files it writes: flushed data survives a
 * crash, a failed write is sticky and salvageable, the marker mapping, the clocks, where dumps
 * go and what a taken name gets, and the companion never behind the dump for a reader
 * following both. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"
#include "tests/unit/jitdump/jdt.h"

/* What a writer flushed survives the writer dying without close. */
Test(writer, flushed_records_survive_a_crash)
{
	char *dir = tu_tmpdir("jd");
	pid_t pid = fork();
	if (pid == 0) {
		struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
		struct jd_writer *w;
		if (jd_writer_open(&w, &o))
			_exit(2);
		uint8_t c = 0x90;
		for (int i = 0; i < 50; i++) {
			struct jd_load_desc d = { .name = "f", .code_addr = (uint64_t)i + 1,
						  .code = &c, .code_size = 1 };
			if (jd_write_load(w, &d, NULL))
				_exit(3);
		}
		if (jd_writer_flush(w))
			_exit(4);
		struct jd_load_desc d = { .name = "lost", .code_addr = 99, .code = &c,
					  .code_size = 1 };
		jd_write_load(w, &d, NULL);
		abort();
	}
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFSIGNALED(st), "child status %d", st);
	char path[4096];
	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)pid);
	size_t len;
	void *buf = tu_read_file(path, &len);
	cr_assert_not_null(buf, "no dump %s", path);
	struct jdt_counts c;
	char err[512];
	cr_assert_eq(jdt_count_mem(buf, len, &c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.per_id[JD_CODE_LOAD], 50);
	cr_assert_eq(c.per_id[JD_CODE_CLOSE], 0);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

/* A write that fails (here: the file size limit) is reported, stays reported, and leaves a
 * file whose whole records all read back. */
Test(writer, write_failure_is_sticky_and_salvageable)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 1024);
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = { 10000, 10000 };
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	uint8_t code[100] = { 0 };
	int rc = 0, written = 0;
	for (int i = 0; i < 1000 && !rc; i++) {
		struct jd_load_desc d = { .name = "f", .code_addr = (uint64_t)i, .code = code,
					  .code_size = sizeof(code) };
		rc = jd_write_load(w, &d, NULL);
		written += rc == 0;
	}
	cr_assert_eq(rc, -EFBIG, "rc %d after %d loads", rc, written);
	struct jd_load_desc d = { .name = "g", .code = code, .code_size = 1 };
	cr_assert_eq(jd_write_load(w, &d, NULL), -EFBIG, "error not sticky");
	cr_assert_eq(jd_writer_flush(w), -EFBIG);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), -EFBIG);
	size_t len;
	void *buf = tu_read_file(path, &len);
	cr_assert_eq(len, 10000);
	struct jdt_counts c;
	char err[512];
	cr_assert_eq(jdt_count_mem(buf, len, &c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.per_id[JD_CODE_LOAD], (len - 40) / (56 + 2 + sizeof(code)));
	cr_assert(strstr(err, "bytes of a partial record"), "%s", err);
	free(buf);
	tu_rmtree(dir);
	free(dir);
}

static int maps_has(const char *path, const char *perms)
{
	size_t len;
	char *maps = tu_read_file("/proc/self/maps", &len);
	int found = 0;
	for (char *line = strtok(maps, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, path) && strstr(line, perms))
			found = 1;
	free(maps);
	return found;
}

Test(writer, marker_mapped_exec_while_open)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert(maps_has(path, " r-xp "), "no r-x private mapping of %s", path);
	cr_assert(jd_is_marker_name(path, NULL));
	cr_assert_eq(jd_writer_close(w), 0);
	cr_assert_not(maps_has(path, " r-xp "));
	tu_rmtree(dir);
	free(dir);
}

static uint64_t first_load_ts(const char *path, uint64_t *flags)
{
	struct jd_reader *r = jdt_open_or_die(path);
	struct jd_record rec;
	jdt_next_or_die(r, &rec, JD_CODE_LOAD);
	*flags = jd_reader_header(r)->flags;
	jd_reader_close(r);
	return rec.timestamp;
}

static uint64_t ts_with_clock(enum jd_clock c, uint64_t *flags, uint64_t *t0, uint64_t *t1)
{
	char *dir = tu_tmpdir("jd");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir, .clock = c };
	struct jd_writer *w;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint8_t code = 0xc3;
	struct jd_load_desc d = { .name = "f", .code_addr = 1, .code = &code, .code_size = 1 };
	*t0 = jd_writer_now(w);
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	*t1 = jd_writer_now(w);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	uint64_t ts = first_load_ts(path, flags);
	tu_rmtree(dir);
	free(dir);
	return ts;
}

Test(writer, clocks)
{
	uint64_t flags, t0, t1;
	uint64_t m0 = jdt_clock_ns(CLOCK_MONOTONIC);
	uint64_t ts = ts_with_clock(JD_CLOCK_MONOTONIC, &flags, &t0, &t1);
	cr_assert(ts >= m0 && ts <= jdt_clock_ns(CLOCK_MONOTONIC), "not CLOCK_MONOTONIC");
	cr_assert_eq(flags, 0);
	uint64_t r0 = jdt_clock_ns(CLOCK_MONOTONIC_RAW);
	ts = ts_with_clock(JD_CLOCK_MONOTONIC_RAW, &flags, &t0, &t1);
	cr_assert(ts >= r0 && ts <= jdt_clock_ns(CLOCK_MONOTONIC_RAW), "not CLOCK_MONOTONIC_RAW");
#if defined(__x86_64__)
	ts = ts_with_clock(JD_CLOCK_ARCH, &flags, &t0, &t1);
	cr_assert_eq(flags, JD_FLAGS_ARCH_TIMESTAMP);
	cr_assert(ts >= t0 && ts <= t1, "TSC stamp %llu outside [%llu, %llu]",
		  (unsigned long long)ts, (unsigned long long)t0, (unsigned long long)t1);
#else
	struct jd_writer *w;
	struct jd_writer_opts o = { .size = sizeof(o), .clock = JD_CLOCK_ARCH };
	cr_assert_eq(jd_writer_open(&w, &o), -ENOTSUP);
#endif
}

Test(writer, directory_choice)
{
	char *dir = tu_tmpdir("jd");
	char sub[4096], home[4096], want[4200];
	snprintf(sub, sizeof(sub), "%s/env/deeper", dir);
	setenv("JITDUMPDIR", sub, 1);
	struct jd_writer *w;
	cr_assert_eq(jd_writer_open(&w, NULL), 0);
	snprintf(want, sizeof(want), "%s/jit-%d.dump", sub, (int)getpid());
	cr_assert_str_eq(jd_writer_path(w), want);
	cr_assert_eq(jd_writer_close(w), 0);
	unsetenv("JITDUMPDIR");
	snprintf(home, sizeof(home), "%s/home", dir);
	mkdir(home, 0755);
	setenv("HOME", home, 1);
	cr_assert_eq(jd_writer_open(&w, NULL), 0);
	snprintf(want, sizeof(want), "%s/.debug/jit/jit-%d.dump", home, (int)getpid());
	cr_assert_str_eq(jd_writer_path(w), want);
	struct stat st;
	snprintf(want, sizeof(want), "%s/.debug/jit", home);
	cr_assert_eq(stat(want, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	cr_assert_eq(jd_writer_close(w), 0);
	tu_rmtree(dir);
	free(dir);
}

Test(writer, bad_arguments)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 0);
	struct jd_load_desc d = { .name = NULL };
	cr_assert_eq(jd_write_load(w, &d, NULL), -EINVAL);
	d.name = "x";
	d.code_size = 5;	/* no code */
	cr_assert_eq(jd_write_load(w, &d, NULL), -EINVAL);
	uint8_t u[4];
	d = (struct jd_load_desc){ .name = "x", .unwind = u, .unwind_size = 4,
				   .eh_frame_hdr_size = 8 };
	cr_assert_eq(jd_write_load(w, &d, NULL), -EINVAL);
	cr_assert_eq(jd_write_move(w, NULL, 0), -EINVAL);
	cr_assert_eq(jd_writer_close(w), 0);
	cr_assert_eq(jd_writer_close(NULL), 0);
	struct jd_writer_opts o = { .size = sizeof(o), .dir = "/proc/self/no/such/dir" };
	cr_assert_lt(jd_writer_open(&w, &o), 0);
	cr_assert_null(w);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 16 finding 4: a name we may not replace at jit-PID.dump (here a directory, which even
 * root cannot unlink) does not stop the writer: the dump goes to a private directory beside
 * it and keeps perf's marker name. */
Test(writer, taken_name_gets_a_private_directory)
{
	char *dir = tu_tmpdir("jd-taken");
	char taken[4200];
	snprintf(taken, sizeof(taken), "%s/jit-%d.dump", dir, (int)getpid());
	cr_assert_eq(mkdir(taken, 0700), 0);
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	const char *p = jd_writer_path(w);
	char prefix[4300];
	snprintf(prefix, sizeof(prefix), "%s/jit-%d.", dir, (int)getpid());
	cr_assert(!strncmp(p, prefix, strlen(prefix)) && strchr(p + strlen(prefix), '/'), "%s", p);
	cr_assert(jd_is_marker_name(p, NULL), "%s breaks perf's marker rule", p);
	struct stat sb;
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert(S_ISREG(sb.st_mode));
	cr_assert_eq(jd_writer_close(w), 0);
	tu_rmtree(dir);
	free(dir);
}

/* A reader following the files while the writer runs (inject on a live pipe) must find a
 * load's companion records as soon as its CODE_LOAD is on disk: with small buffers that flush
 * at different times, after every write the companion file on disk holds a LOAD_INFO for
 * every CODE_LOAD the dump file on disk holds. */
Test(writer, companion_never_behind_the_dump)
{
	char *dir;
	struct jd_writer *w = jdt_writer(&dir, 256);
	char ext[4200];
	jd_ext_path(jd_writer_path(w), ext, sizeof(ext));
	uint8_t code[40];
	memset(code, 0x90, sizeof(code));
	size_t checked = 0;
	for (int i = 0; i < 200; i++) {
		struct jd_ext_load_info info = { .generation = 1, .tier = JD_TIER_C2 };
		struct jd_load_desc d = { .name = "method_with_a_name", .code_addr = 0x1000 + 64 * i,
					  .code = code, .code_size = sizeof(code) - (size_t)(i % 7),
					  .info = &info };
		cr_assert_eq(jd_write_load(w, &d, NULL), 0);
		size_t dl = 0, el = 0;
		void *db = tu_read_file(jd_writer_path(w), &dl), *eb = tu_read_file(ext, &el);
		struct jdt_counts dc = { 0 }, ec = { 0 };
		char err[512];
		if (db && dl > 40)
			jdt_count_mem(db, dl, &dc, err, sizeof(err));
		if (eb && el > 40)
			jdt_count_mem(eb, el, &ec, err, sizeof(err));
		cr_assert_geq(ec.ext, dc.per_id[JD_CODE_LOAD], "after load %d: %lu loads in the "
			      "dump on disk, %lu companion records", i,
			      (unsigned long)dc.per_id[JD_CODE_LOAD], (unsigned long)ec.ext);
		checked += dc.per_id[JD_CODE_LOAD] > 0;
		free(db);
		free(eb);
	}
	cr_assert_gt(checked, 100, "the dump reached the disk while loads were written");
	cr_assert_eq(jd_writer_close(w), 0);
	tu_rmtree(dir);
	free(dir);
}
