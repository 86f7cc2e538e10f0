/* test_maps.c - maps over time (recorder/symbols/maps.c, resolver.c): an address reused by a
 * later map resolves to it from its timestamp on, FORK copies the parent's maps, EXIT ends
 * them, COMM names threads over time. The files named here do not exist: only maps matter. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder/symbols/symbols.h"
#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"

static struct sym_session *s;

static void setup(void)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	s = sym_session_new(&o);
	cr_assert(s);
}

static void teardown(void)
{
	sym_session_free(s);
}

static const char *dso_at(uint32_t pid, uint64_t addr, uint64_t time)
{
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, pid, addr, time, 2, 0, &r), 0);
	return r.dso_name;
}

TestSuite(maps, .init = setup, .fini = teardown);

Test(maps, address_reuse_resolves_to_later_map_from_its_time)
{
	cr_assert_eq(sym_mmap(s, 10, 10, 0x1000, 0x1000, 0, "/jit/gen-1.so", NULL, 0, 2, 100), 0);
	cr_assert_eq(sym_mmap(s, 10, 10, 0x1000, 0x800, 0, "/jit/gen-2.so", NULL, 0, 2, 200), 0);
	cr_expect_str_eq(dso_at(10, 0x1100, 50), "[unknown]", "before any map");
	cr_expect_str_eq(dso_at(10, 0x1100, 150), "gen-1.so");
	cr_expect_str_eq(dso_at(10, 0x1100, 200), "gen-2.so");
	cr_expect_str_eq(dso_at(10, 0x1100, 999), "gen-2.so");
	/* the part of the old map the new one does not cover stays the old one */
	cr_expect_str_eq(dso_at(10, 0x1900, 999), "gen-1.so");
	cr_expect_str_eq(dso_at(10, 0x2000, 999), "[unknown]", "end is exclusive");
	cr_expect_str_eq(dso_at(11, 0x1100, 999), "[unknown]", "other process");
}

Test(maps, many_maps_merge_and_stay_ordered)
{
	/* more than one batch of recent maps: every generation over the same range */
	for (unsigned g = 0; g < 300; g++) {
		char name[64];
		snprintf(name, sizeof(name), "/jit/m-%u.so", g);
		cr_assert_eq(sym_mmap(s, 5, 5, 0x10000 + (g % 7) * 0x100, 0x100, 0, name, NULL, 0, 2,
				      1000 + g * 10), 0);
	}
	for (unsigned g = 0; g < 300; g++) {
		char want[64];
		snprintf(want, sizeof(want), "m-%u.so", g);
		uint64_t addr = 0x10000 + (g % 7) * 0x100 + 0x10;
		cr_expect_str_eq(dso_at(5, addr, 1000 + g * 10 + 5), want, "gen %u", g);
		/* same time, same-range feed order: last fed wins */
	}
	cr_assert_eq(sym_mmap(s, 5, 5, 0x10000, 0x100, 0, "/jit/tie-a.so", NULL, 0, 2, 9000), 0);
	cr_assert_eq(sym_mmap(s, 5, 5, 0x10000, 0x100, 0, "/jit/tie-b.so", NULL, 0, 2, 9000), 0);
	cr_expect_str_eq(dso_at(5, 0x10010, 9000), "tie-b.so");
}

Test(maps, fork_copies_parent_maps_exit_ends_them)
{
	cr_assert_eq(sym_mmap(s, 20, 20, 0x400000, 0x1000, 0, "/bin/app", NULL, 0, 2, 10), 0);
	cr_assert_eq(sym_comm(s, 20, 20, "app", 10), 0);
	cr_assert_eq(sym_fork(s, 21, 20, 21, 20, 50), 0);
	cr_expect_str_eq(dso_at(21, 0x400010, 60), "app");
	cr_expect_str_eq(sym_comm_of(s, 21, 21, 60), "app", "child inherits the comm");
	/* the child's later map does not leak into the parent */
	cr_assert_eq(sym_mmap(s, 21, 21, 0x500000, 0x1000, 0, "/lib/only-child.so", NULL, 0, 2, 70),
		     0);
	cr_expect_str_eq(dso_at(21, 0x500010, 80), "only-child.so");
	cr_expect_str_eq(dso_at(20, 0x500010, 80), "[unknown]");
	/* a thread exiting is not the process exiting */
	cr_assert_eq(sym_exit(s, 21, 21, 22, 21, 85), 0);
	cr_expect_str_eq(dso_at(21, 0x400010, 90), "app");
	cr_assert_eq(sym_exit(s, 21, 20, 21, 20, 100), 0);
	cr_expect_str_eq(dso_at(21, 0x400010, 100), "app", "at the exit itself");
	cr_expect_str_eq(dso_at(21, 0x400010, 101), "[unknown]", "after exit");
	cr_expect_str_eq(dso_at(20, 0x400010, 200), "app", "parent lives on");
	/* pid reuse: a new fork gives a fresh copy of the new parent, nothing of the dead one */
	cr_assert_eq(sym_fork(s, 21, 20, 21, 20, 300), 0);
	cr_expect_str_eq(dso_at(21, 0x400010, 310), "app");
	cr_expect_str_eq(dso_at(21, 0x500010, 310), "[unknown]");
}

Test(maps, comm_over_time_and_threads)
{
	cr_assert_eq(sym_comm(s, 30, 30, "bash", 10), 0);
	cr_assert_eq(sym_comm(s, 30, 30, "java", 20), 0);
	cr_assert_eq(sym_fork(s, 30, 30, 31, 30, 25), 0);
	cr_assert_eq(sym_comm(s, 30, 31, "C2 CompilerThre", 26), 0);
	cr_expect_str_eq(sym_comm_of(s, 30, 30, 15), "bash");
	cr_expect_str_eq(sym_comm_of(s, 30, 30, 20), "java");
	cr_expect_str_eq(sym_comm_of(s, 30, 31, 25), "java", "inherited at thread creation");
	cr_expect_str_eq(sym_comm_of(s, 30, 31, 30), "C2 CompilerThre");
	cr_expect_str_eq(sym_comm_of(s, 30, 32, 30), "java", "unknown thread: the leader's");
	cr_expect_null(sym_comm_of(s, 99, 99, 30));
}

Test(maps, kernel_maps_and_short_names)
{
	uint8_t kid[20] = { 0x48, 0xdc };
	cr_assert_eq(sym_mmap(s, SYM_PID_KERNEL, 0, 0xffffffff81000000ull, 0x1000000,
			      0xffffffff81000000ull, "[kernel.kallsyms]_text", kid, 20, 1, 0), 0);
	cr_assert_eq(sym_mmap(s, SYM_PID_KERNEL, 0, 0xffffffffc0000000ull, 0x10000, 0,
			      "/lib/modules/6.1.0/kernel/fs/xfs/xfs-mod.ko", NULL, 0, 1, 0), 0);
	cr_assert_eq(sym_mmap(s, 40, 40, 0x7f0000000000ull, 0x10000, 0, "//anon", NULL, 0, 2, 0), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 40, 0xffffffff81000100ull, 5, 1, 0, &r), 0);
	cr_expect_str_eq(r.dso_name, "[kernel.kallsyms]");
	cr_expect(r.kernel);
	cr_assert_eq(sym_resolve(s, 40, 0xffffffffc0000100ull, 5, 1, 0, &r), 0);
	cr_expect_str_eq(r.dso_name, "[xfs_mod]");
	cr_assert_eq(sym_resolve(s, 40, 0x7f0000000100ull, 5, 2, 0, &r), 0);
	cr_expect_str_eq(r.dso_name, "[JIT] tid 40", "perf's name for anonymous code");
	cr_expect_eq(r.dso_addr, 0x7f0000000100ull, "anon memory is identity mapped");
	/* the kernel's recorded build-id is kept with its dso */
	int found = 0;
	for (struct sym_dso *d = sym_dso_next(s, NULL); d; d = sym_dso_next(s, d))
		if (sym_dso_is_kernel(d) && !strcmp(sym_dso_long_name(d), "[kernel.kallsyms]")) {
			found = 1;
			cr_expect_eq(sym_dso_build_id(d)->size, 20);
			cr_expect_eq(sym_dso_build_id(d)->data[1], 0xdc);
		}
	cr_expect(found);
}

Test(maps, build_id_records_attach_to_names)
{
	uint8_t id[20] = { 1, 2, 3 };
	cr_assert_eq(sym_mmap(s, 50, 50, 0x1000, 0x1000, 0, "/usr/lib/libz.so", NULL, 0, 2, 0), 0);
	cr_assert_eq(sym_add_build_id(s, "/usr/lib/libz.so", id, 20, 2), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 50, 0x1010, 1, 2, 0, &r), 0);
	cr_assert_not_null(r.dso);
	cr_expect_eq(sym_dso_build_id(r.dso)->size, 20);
	cr_expect_eq(sym_dso_build_id(r.dso)->data[2], 3);
	uint64_t off = 0;
	cr_expect_eq(sym_dso_at(s, 50, 0x1010, 1, 2, &off), r.dso);
	cr_expect_eq(off, 0x10);
}

Test(maps, build_id_hex_roundtrip)
{
	struct sym_build_id id, back;
	char hex[SYM_BUILD_ID_HEX];
	cr_assert_eq(sym_build_id_parse("48DC540c8b76393804ca8088dbfa7d42911a9444", &id), 0);
	cr_expect_eq(id.size, 20);
	cr_expect_str_eq(sym_build_id_hex(&id, hex), "48dc540c8b76393804ca8088dbfa7d42911a9444");
	cr_assert_eq(sym_build_id_parse(hex, &back), 0);
	cr_expect(sym_build_id_equal(&id, &back));
	cr_expect_eq(sym_build_id_parse("abc", &id), -EINVAL);
	cr_expect_eq(sym_build_id_parse("zz", &id), -EINVAL);
}

Test(maps, perf_map_file_for_anonymous_code)
{
	/* a JIT without jitdump: /tmp/perf-PID.map names its code, absolute addresses */
	uint32_t pid = 3000000000u + (uint32_t)getpid() % 1000000u;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	const char *map = "7f0000001000 40 LHot;loop([II)V\n7f0000001040 20 stub one\nbad line\n";
	cr_assert_eq(tu_write_file(path, map, strlen(map)), 0);
	cr_assert_eq(sym_mmap(s, pid, pid, 0x7f0000000000ull, 0x10000, 0, "//anon", NULL, 0, 2, 0),
		     0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, pid, 0x7f0000001010ull, 1, 2, 0, &r), 0);
	char jit[64];
	snprintf(jit, sizeof(jit), "[JIT] tid %u", pid);
	cr_expect_str_eq(r.dso_name, jit);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "Hot.loop(int[], int)");
	cr_expect_eq(r.sym_off, 0x10);
	cr_assert_eq(sym_resolve(s, pid, 0x7f0000001050ull, 1, 2, 0, &r), 0);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "stub one");
	cr_assert_eq(sym_resolve(s, pid, 0x7f0000002000ull, 1, 2, 0, &r), 0);
	cr_expect_null(r.sym);
	unlink(path);
}

static char warned[2048];

static void keep_warning(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	snprintf(warned, sizeof(warned), "%s", msg);
}

/* The symbol a session with force (-f) or not finds in a perf map another user owns. */
static const char *foreign_map_sym(uint32_t pid, size_t force, char *buf, size_t len)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1,
			      .log = { keep_warning, NULL }, .force = force };
	struct sym_session *fs = sym_session_new(&o);
	struct sym_result r;
	cr_assert(fs);
	warned[0] = 0;
	cr_assert_eq(sym_mmap(fs, pid, pid, 0x7f0000000000ull, 0x10000, 0, "//anon", NULL, 0, 2,
			      0), 0);
	cr_assert_eq(sym_resolve(fs, pid, 0x7f0000001010ull, 1, 2, 0, &r), 0);
	snprintf(buf, len, "%s", r.sym ? r.sym : "(none)");
	sym_session_free(fs);
	return buf;
}

/* Issue 34 finding 11: /tmp is everyone's; another user's /tmp/perf-PID.map named root's
 * samples. Refused unless forced (-f), as perf, with a warning naming it and the way out. */
Test(maps, another_users_perf_map_is_read_only_when_forced)
{
	uint32_t pid = 3100000000u + (uint32_t)getpid() % 1000000u;
	char path[64], sym[256];
	if (geteuid() != 0) {
		cr_log_warn("not root: cannot give a perf map to another user; skipped");
		return;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	const char *map = "7f0000001000 40 spoofed\n";
	cr_assert_eq(tu_write_file(path, map, strlen(map)), 0);
	cr_assert_eq(chown(path, 54321, 54321), 0);
	cr_expect_str_eq(foreign_map_sym(pid, 0, sym, sizeof(sym)), "(none)");
	cr_expect(strstr(warned, path) && strstr(warned, "owned by uid 54321") &&
		  strstr(warned, "-f"), "%s", warned);
	cr_expect_str_eq(foreign_map_sym(pid, 1, sym, sizeof(sym)), "spoofed");
	cr_expect_eq(warned[0], 0, "%s", warned);
	unlink(path);
}

/* Against a brute-force oracle: random maps over a small range (heavy reuse, partial and
 * whole overlaps, equal times) and random lookups, before and after every map's time. */
Test(maps, random_against_oracle)
{
	enum { NMAPS = 1500, NQ = 6000 };
	static struct {
		uint64_t start, end, time;
	} m[NMAPS];
	unsigned seed = 12345;
	uint64_t t = 100;
	for (int i = 0; i < NMAPS; i++) {
		seed = seed * 1103515245u + 12345u;
		m[i].start = 0x10000 + ((seed >> 8) % 64) * 0x40;
		seed = seed * 1103515245u + 12345u;
		m[i].end = m[i].start + 0x40 * (1 + (seed >> 8) % 4);
		seed = seed * 1103515245u + 12345u;
		t += (seed >> 8) % 3;	/* equal times happen */
		m[i].time = t;
		char name[32];
		snprintf(name, sizeof(name), "/m/%d", i);
		cr_assert_eq(sym_mmap(s, 77, 77, m[i].start, m[i].end - m[i].start, 0, name, NULL,
				      0, 2, m[i].time), 0);
	}
	for (int q = 0; q < NQ; q++) {
		seed = seed * 1103515245u + 12345u;
		uint64_t addr = 0x10000 + (seed >> 8) % (70 * 0x40);
		seed = seed * 1103515245u + 12345u;
		uint64_t when = 90 + (seed >> 8) % (t - 80);
		int want = -1;
		for (int i = 0; i < NMAPS; i++)
			if (addr >= m[i].start && addr < m[i].end && m[i].time <= when)
				want = i;	/* feed order = time order here: the last wins */
		char wname[32];
		snprintf(wname, sizeof(wname), "%d", want);
		const char *got = dso_at(77, addr, when);
		cr_assert_str_eq(got, want < 0 ? "[unknown]" : wname, "addr 0x%llx time %llu",
				 (unsigned long long)addr, (unsigned long long)when);
	}
}

/* The same, with lookups interleaved with the feed (as report does) and enough maps for many
 * sorted runs and retirements: a JIT code cache with regions reused, moved and left alone. */
Test(maps, interleaved_against_oracle)
{
	enum { NMAPS = 12000, EVERY = 3 };
	static struct {
		uint64_t start, end, time;
	} m[NMAPS];
	unsigned seed = 777;
	uint64_t t = 1000;
	for (int i = 0; i < NMAPS; i++) {
		seed = seed * 1103515245u + 12345u;
		/* half the loads land in a small hot region (reuse), half spread out */
		uint64_t slot = (seed >> 9) & 1 ? (seed >> 10) % 32 : 64 + (seed >> 10) % 20000;
		m[i].start = 0x40000000ull + slot * 0x100;
		seed = seed * 1103515245u + 12345u;
		m[i].end = m[i].start + 0x100 * (1 + (seed >> 8) % 3);
		seed = seed * 1103515245u + 12345u;
		t += (seed >> 8) % 2;
		m[i].time = t;
		char name[32];
		snprintf(name, sizeof(name), "/m/%d", i);
		cr_assert_eq(sym_mmap(s, 78, 78, m[i].start, m[i].end - m[i].start, 0, name, NULL,
				      0, 2, m[i].time), 0);
		if (i % EVERY)
			continue;
		seed = seed * 1103515245u + 12345u;
		int j = (int)((seed >> 8) % (unsigned)(i + 1));	/* an address some map had */
		uint64_t addr = m[j].start + (seed >> 4) % (m[j].end - m[j].start + 0x80);
		seed = seed * 1103515245u + 12345u;
		uint64_t when = (seed >> 8) & 1 ? t : 990 + (seed >> 9) % (t - 989);
		int want = -1;
		for (int k = 0; k <= i; k++)
			if (addr >= m[k].start && addr < m[k].end && m[k].time <= when)
				want = k;
		char wname[32];
		snprintf(wname, sizeof(wname), "%d", want);
		const char *got = dso_at(78, addr, when);
		cr_assert_str_eq(got, want < 0 ? "[unknown]" : wname, "map %d: addr 0x%llx time %llu",
				 i, (unsigned long long)addr, (unsigned long long)when);
	}
}

/* The pattern of a program past its start-up: a few maps now and then (reusing a hot region),
 * hundreds of lookups in between, some at earlier times. Lookups merge the recent maps once
 * they have walked enough of them (RECENT_SCAN_BUDGET): the answers stay the oracle's. */
Test(maps, sparse_maps_many_lookups_against_oracle)
{
	enum { NMAPS = 600, BURST = 5, LOOKUPS = 400 };
	static struct {
		uint64_t start, end, time;
	} m[NMAPS];
	unsigned seed = 4242;
	uint64_t t = 5000;
	for (int i = 0; i < NMAPS; i++) {
		seed = seed * 1103515245u + 12345u;
		uint64_t slot = (seed >> 9) & 1 ? (seed >> 10) % 16 : 32 + (seed >> 10) % 4000;
		m[i].start = 0x50000000ull + slot * 0x100;
		seed = seed * 1103515245u + 12345u;
		m[i].end = m[i].start + 0x100 * (1 + (seed >> 8) % 3);
		t += 1 + (seed >> 8) % 3;
		m[i].time = t;
		char name[32];
		snprintf(name, sizeof(name), "/m/%d", i);
		cr_assert_eq(sym_mmap(s, 79, 79, m[i].start, m[i].end - m[i].start, 0, name, NULL,
				      0, 2, m[i].time), 0);
		if ((i + 1) % BURST)
			continue;
		for (int q = 0; q < LOOKUPS; q++) {
			seed = seed * 1103515245u + 12345u;
			int j = (int)((seed >> 8) % (unsigned)(i + 1));
			uint64_t addr = m[j].start + (seed >> 4) % (m[j].end - m[j].start + 0x80);
			seed = seed * 1103515245u + 12345u;
			uint64_t when = (seed >> 8) % 4 ? t : 4990 + (seed >> 9) % (t - 4989);
			int want = -1;
			for (int k = 0; k <= i; k++)
				if (addr >= m[k].start && addr < m[k].end && m[k].time <= when)
					want = k;
			char wname[32];
			snprintf(wname, sizeof(wname), "%d", want);
			const char *got = dso_at(79, addr, when);
			cr_assert_str_eq(got, want < 0 ? "[unknown]" : wname,
					 "map %d: addr 0x%llx time %llu", i,
					 (unsigned long long)addr, (unsigned long long)when);
		}
	}
}

/* Processes by pid: pids are the recording's, any u32. 20,000 multiples of 65536 (one bucket
 * each time the table doubled, with the pid's low bits as the bucket) cost no more chain
 * steps than as many random pids. */
static size_t pid_probes(int crafted)
{
	struct sym_opts o = { .sz = sizeof(o) };
	struct sym_session *s = sym_session_new(&o);
	cr_assert_not_null(s);
	uint32_t x = 12345;
	for (int pass = 0; pass < 2; pass++) {	/* made, then found again */
		x = 12345;
		for (uint32_t i = 1; i <= 20000; i++) {
			x = x * 1664525u + 1013904223u;
			uint32_t pid = crafted ? i << 16 : x;
			struct sym_proc *p = proc_get(s, pid, 1);
			cr_assert_not_null(p);
			cr_assert_eq(p->pid, pid);
		}
	}
	cr_assert_eq(s->n_procs, 20000);
	size_t probes = s->proc_probes;
	sym_session_free(s);
	return probes;
}

Test(maps, crafted_pids_do_not_flood)
{
	size_t c = pid_probes(1), r = pid_probes(0);
	cr_assert_leq(c, 2 * r + 64, "crafted pids: %zu chain steps, random ones: %zu", c, r);
}

/* A DSO's addresses (the recording's, any u64): 3,000 multiples of 2^36 (one bucket for
 * every table size under the old unseeded multiply) cost no more chain steps than as many
 * random addresses of the same map. */
static size_t addr_probes(int crafted)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	cr_assert_not_null(s);
	cr_assert_eq(sym_mmap(s, 5, 5, 0, 1ull << 48, 0, "/nonexistent/crafted.so", NULL, 0, 2, 1),
		     0);
	uint64_t x = 99;
	for (uint64_t k = 1; k <= 3000; k++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t addr = crafted ? k << 36 : x >> 16;
		struct sym_result r;
		cr_assert_eq(sym_resolve(s, 5, addr, 2, 2, 0, &r), 0);
		cr_assert_not_null(r.dso, "0x%llx in the map", (unsigned long long)addr);
	}
	size_t probes = s->cache_probes;
	sym_session_free(s);
	return probes;
}

Test(maps, crafted_addresses_do_not_flood)
{
	size_t c = addr_probes(1), r = addr_probes(0);
	cr_assert_gt(c + r, 0, "the addresses went through the cache");
	cr_assert_leq(c, 2 * r + 64, "crafted addresses: %zu chain steps, random ones: %zu", c, r);
}
