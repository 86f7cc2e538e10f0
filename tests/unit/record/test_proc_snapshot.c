/* test_proc_snapshot.c - recorder/record/proc_snapshot.c: module maps from a /proc/modules-format file (this
 * machine has none, so a made-up one), and /proc synthesis of this very process: COMM and
 * executable maps, with the DSOs noted for the hit and build-id tables. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recorder/record/record_int.h"
#include "tests/lib/testutil.h"

struct fixture {
	char *dir;
	char data[512];
	struct rec_synth_ctx c;
};

static void open_ctx(struct fixture *f)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME };

	f->dir = tu_tmpdir("recsynth");
	snprintf(f->data, sizeof(f->data), "%s/s.data", f->dir);
	memset(&f->c, 0, sizeof(f->c));
	cr_assert_eq(pd_writer_open(&f->c.w, f->data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(f->c.w, &a, NULL, 0, NULL), 0);
	f->c.hits = rec_hits_new();
}

static void close_ctx(struct fixture *f)
{
	cr_assert_eq(pd_writer_close(f->c.w), 0);
}

static void free_ctx(struct fixture *f)
{
	rec_hits_free(f->c.hits);
	tu_rmtree(f->dir);
	free(f->dir);
}

Test(synth, modules_become_kernel_maps)
{
	struct fixture f;
	char mods[600];
	struct pd_reader *r;
	struct pd_event ev;
	int seen = 0;

	open_ctx(&f);
	snprintf(mods, sizeof(mods), "%s/modules", f.dir);
	const char *txt = "ext4 1040384 1 - Live 0xffffffffc0400000\n"
			  "crc16 12288 1 ext4, Live 0xffffffffc0100000 (E)\n"
			  "hidden 4096 0 - Live 0x0000000000000000\n";
	cr_assert_eq(tu_write_file(mods, txt, strlen(txt)), 0);
	cr_assert_eq(rec_synth_modules(&f.c, mods), 0);
	cr_assert_eq(rec_synth_modules(&f.c, "/nonexistent/modules"), 0);
	close_ctx(&f);
	cr_assert_eq(pd_reader_open(&r, f.data, NULL), 0);
	while (pd_reader_next(r, &ev) > 0) {
		cr_assert_eq(ev.type, PERF_RECORD_MMAP2);
		cr_assert_eq(ev.misc & 7, PERF_RECORD_MISC_KERNEL);
		cr_assert_eq(ev.u.mmap.pid, UINT32_MAX);
		if (!strcmp(ev.u.mmap.filename, "[ext4]")) {
			cr_assert_eq(ev.u.mmap.start, 0xffffffffc0400000ULL);
			cr_assert_eq(ev.u.mmap.len, 1040384);
		} else {
			cr_assert_str_eq(ev.u.mmap.filename, "[crc16]");
		}
		seen++;
	}
	cr_assert_eq(seen, 2, "kptr_restrict-hidden (0) addresses are skipped");
	pd_reader_close(r);
	rec_hits_sample(f.c.hits, 1, 0xffffffffc0400100ULL, PERF_RECORD_MISC_KERNEL);
	cr_assert(rec_hits_dso(f.c.hits, "[ext4]", PERF_RECORD_MISC_KERNEL)->hit);
	free_ctx(&f);
}

Test(synth, this_process_from_proc)
{
	struct fixture f;
	struct pd_reader *r;
	struct pd_event ev;
	bool comm = false, exe = false;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = 0;
	open_ctx(&f);
	cr_assert_eq(rec_synth_process(&f.c, getpid(), true), 0);
	cr_assert_eq(rec_synth_process(&f.c, 0x7ffffff0, false), 0, "a missing pid is no error");
	close_ctx(&f);
	cr_assert_eq(pd_reader_open(&r, f.data, NULL), 0);
	while (pd_reader_next(r, &ev) > 0) {
		if (ev.type == PERF_RECORD_COMM && ev.u.comm.pid == (uint32_t)getpid())
			comm = true;
		if (ev.type == PERF_RECORD_MMAP2 && !strcmp(ev.u.mmap.filename, self)) {
			cr_assert(ev.u.mmap.prot & 4 /* PROT_EXEC */);
			cr_assert_eq(ev.u.mmap.pid, (uint32_t)getpid());
			exe = true;
		}
	}
	pd_reader_close(r);
	cr_assert(comm && exe);
	cr_assert_not_null(rec_hits_dso(f.c.hits, self, PERF_RECORD_MISC_USER));
	free_ctx(&f);
}

/* An executable anonymous mapping ("//anon", as the kernel names a JIT's code cache) is no file:
 * no build-id is asked for it, even over a range where a real file is mapped (this process's
 * own libc here: /proc/self/map_files would give libc's id under "//anon"). */
Test(synth, anonymous_maps_get_no_build_id)
{
	struct fixture f;
	char line[512], path[256];
	unsigned long lo = 0, hi = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	cr_assert_not_null(maps);
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx r-xp %*s %*s %*s %255s", &lo, &hi, path) == 3 &&
		    strstr(path, "libc"))
			break;
	fclose(maps);
	cr_assert_gt(hi, lo, "no libc text in /proc/self/maps");
	open_ctx(&f);
	cr_assert_eq(rec_bid_start(&f.c.bids, NULL), 0);
	const char *names[] = { "//anon", "/dev/zero (deleted)", "/anon_hugepage (deleted)" };
	for (size_t i = 0; i < 3; i++) {
		struct pd_mmap m = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
				     .start = lo, .len = hi - lo, .is_mmap2 = true,
				     .prot = PROT_READ | PROT_EXEC, .filename = names[i] };
		rec_note_mmap(&f.c, &m, PERF_RECORD_MISC_USER);
		struct rec_dso *d = rec_hits_dso(f.c.hits, names[i], PERF_RECORD_MISC_USER);
		cr_assert_not_null(d);
		cr_expect_eq(d->state, BID_UNKNOWN, "%s: a build-id was asked for", names[i]);
	}
	/* a real file still is */
	struct pd_mmap m = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(), .start = lo,
			     .len = hi - lo, .is_mmap2 = true, .prot = PROT_READ | PROT_EXEC,
			     .filename = path };
	rec_note_mmap(&f.c, &m, PERF_RECORD_MISC_USER);
	cr_expect_eq(rec_hits_dso(f.c.hits, path, PERF_RECORD_MISC_USER)->state, BID_REQUESTED);
	rec_bid_stop(f.c.bids);
	rec_bid_free(f.c.bids);
	close_ctx(&f);
	free_ctx(&f);
}
