/* test_dumps.c - recorder/inject/dumps.c on a real dump written with libjitdump: the timeline
 * (loads, moves, unloads in time order), build-ids equal to synth's, move -> load links, the
 * address bounds, and clamping to perf's flush point. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder/inject/inject_int.h"
#include "synth/synth.h"
#include "tests/lib/testutil.h"

static char *dir;
static struct inj_dump d;

static void add_load(struct jd_writer *w, const char *name, uint64_t addr, uint64_t ts,
		     uint64_t *ci)
{
	static const uint8_t code[64] = { 0x55, 0x48, 0x89, 0xe5, [63] = 0xc3 };
	struct jd_load_desc ld = { .name = name, .code_addr = addr, .code = code,
				   .code_size = sizeof(code), .timestamp = ts };
	cr_assert_eq(jd_write_load(w, &ld, ci), 0);
}

static void setup(void)
{
	dir = tu_tmpdir("inj");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w = NULL;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint64_t a, b, c;
	add_load(w, "Lx;f()V", 0x1000, 100, &a);
	add_load(w, "Lx;f()V", 0x2000, 200, &b);
	struct jd_code_move m = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
				  .vma = 0x3000, .old_code_addr = 0x2000,
				  .new_code_addr = 0x3000, .code_size = 64, .code_index = b };
	cr_assert_eq(jd_write_move(w, &m, 300), 0);
	struct jd_ext_unload u = { .code_addr = 0x1000, .code_index = a,
				   .pid = (uint32_t)getpid() };
	cr_assert_eq(jd_write_unload(w, &u, 400), 0);
	add_load(w, "Lx;g()V", 0x1000, 500, &c);
	char path[4096];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);

	struct jd_index *x = NULL;
	char err[256];
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	struct inj_dump_opts dopts = { .threads = 2 };
	cr_assert_eq(inj_dump_init(&d, x, path, &dopts, JP_ERRBUF_LOG(err)), 0, "%s", err);
}

static void teardown(void)
{
	inj_dump_fini(&d);
	tu_rmtree(dir);
	free(dir);
}

TestSuite(dumps, .init = setup, .fini = teardown);

Test(dumps, timeline_is_in_time_order)
{
	cr_assert_eq(d.nr_loads, 3);
	cr_assert_eq(d.nr_moves, 1);
	cr_assert_eq(d.nr_evs, 5);
	uint32_t kinds[] = { INJ_EV_LOAD, INJ_EV_LOAD, INJ_EV_MOVE, INJ_EV_UNLOAD, INJ_EV_LOAD };
	uint64_t times[] = { 100, 200, 300, 400, 500 };
	for (size_t i = 0; i < 5; i++) {
		cr_assert_eq(d.evs[i].kind, kinds[i], "event %zu", i);
		cr_assert_eq(d.evs[i].time, times[i], "event %zu", i);
	}
	cr_assert_eq(d.evs[3].idx, 0, "the unload is load 0's");
	cr_assert_eq(d.move_load[0], 1, "the move is load 1's");
	cr_assert_eq(d.loads[1].move_idx, 0);
}

Test(dumps, build_ids_are_synths)
{
	for (uint32_t i = 0; i < d.nr_loads; i++) {
		struct synth_input in;
		uint8_t id[SYNTH_BUILD_ID_SIZE];
		synth_input_from_load(&in, jd_index_header(d.x), jd_index_load(d.x, i));
		cr_assert_eq(synth_build_id(&in, id, NULL), 0);
		cr_assert_eq(memcmp(id, d.loads[i].build_id, sizeof(id)), 0, "load %u", i);
		cr_assert_eq(d.loads[i].flags & INJ_BAD, 0);
	}
	cr_assert_neq(memcmp(d.loads[0].build_id, d.loads[1].build_id, SYNTH_BUILD_ID_SIZE), 0,
		      "two generations of one name, two ids");
	struct synth_input in;
	struct synth_elf e = { 0 };
	synth_input_from_load(&in, jd_index_header(d.x), jd_index_load(d.x, 0));
	cr_assert_eq(synth_build(&in, &e, NULL), 0);
	cr_assert_eq(e.text_offset, d.loads[0].text_off, "pgoff agrees with a real ELF");
	cr_assert_eq(e.map_len, inj_load_map_len(jd_index_load(d.x, 0)));
	synth_elf_free(&e);
}

Test(dumps, bounds_cover_loads_and_moves)
{
	cr_assert_geq(inj_bounds_find(&d.bounds, 0x1000), 0);
	cr_assert_geq(inj_bounds_find(&d.bounds, 0x203f), 0);
	cr_assert_geq(inj_bounds_find(&d.bounds, 0x3000), 0);
	cr_assert_lt(inj_bounds_find(&d.bounds, 0x3040), 0);
	char p[4200];
	cr_assert_eq(inj_load_path(&d, 2, p, sizeof(p)), 0);
	cr_assert(strstr(p, "/jitted-"));
	cr_assert_eq(p[0], '/', "absolute: %s", p);
}

Test(dumps, clamp_raises_only_the_pending_prefix)
{
	d.next_ev = 1;
	cr_assert_eq(inj_dump_clamp(&d, 350), 2);	/* events at 200 and 300 */
	cr_assert_eq(d.evs[0].time, 100, "already emitted: untouched");
	cr_assert_eq(d.evs[1].time, 350);
	cr_assert_eq(d.evs[2].time, 350);
	cr_assert_eq(d.evs[3].time, 400);
}

/* A later part of a followed dump (first_load 1, first_move 0: load 0 was read before): its
 * timeline has load 1's and 2's loads and the move of load 1, never load 0 again (its unload
 * stays with the part that mapped it); newest is the file's newest record; CODE_CLOSE read. */
Test(dumps, later_part_maps_only_what_is_new)
{
	struct jd_index *x = NULL;
	char err[256];
	cr_assert_eq(jd_index_open(&x, d.path, err, sizeof(err)), 0, "%s", err);
	struct inj_dump p = { 0 };
	struct inj_dump_opts dopts = { .threads = 2, .first_load = 1, .first_move = 0 };
	cr_assert_eq(inj_dump_init(&p, x, d.path, &dopts, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(p.first_load, 1);
	cr_assert(p.loads[0].flags & INJ_OLD);
	cr_assert_eq(p.loads[1].flags & INJ_OLD, 0);
	cr_assert_eq(p.nr_evs, 3);
	uint32_t kinds[] = { INJ_EV_LOAD, INJ_EV_MOVE, INJ_EV_LOAD };
	uint32_t idx[] = { 1, 0, 2 };
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(p.evs[i].kind, kinds[i], "event %zu", i);
		cr_assert_eq(p.evs[i].idx, idx[i], "event %zu", i);
	}
	cr_assert_eq(memcmp(p.loads[2].build_id, d.loads[2].build_id, SYNTH_BUILD_ID_SIZE), 0);
	cr_assert_geq(inj_bounds_find(&p.bounds, 0x3000), 0, "the move's range is this part's");
	cr_assert_eq(p.newest, 500);
	cr_assert_eq(d.newest, 500);
	cr_assert(p.closed && d.closed, "the writer closed the dump");
	inj_dump_fini(&p);
}

/* perf's own JVMTI agent repeats code_index values (the fixture has such pairs): every load
 * must still get a file of its own, named as synth names it. */
Test(repeated_code_index, one_file_per_load)
{
	const char *fixture = "../shared/fixtures/perf-jvmti/jit-27543.dump";
	if (access(fixture, R_OK))
		cr_skip_test("%s is absent", fixture);
	struct jd_index *x = NULL;
	char err[256];
	cr_assert_eq(jd_index_open(&x, fixture, err, sizeof(err)), 0, "%s", err);
	struct inj_dump f = { 0 };
	struct inj_dump_opts dopts = { .threads = 2 };
	cr_assert_eq(inj_dump_init(&f, x, fixture, &dopts, JP_ERRBUF_LOG(err)), 0, "%s", err);
	size_t repeats = 0, n = f.nr_loads;
	char (*paths)[4200] = calloc(n, sizeof(*paths));
	for (uint32_t i = 0; i < n; i++) {
		cr_assert_eq(inj_load_path(&f, i, paths[i], sizeof(paths[i])), 0);
		repeats += strstr(paths[i], "-1.so") && strchr(strrchr(paths[i], '/'), '-') !=
			   strrchr(paths[i], '-');
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			cr_assert_str_neq(paths[i], paths[j], "loads %u and %u share a file", i, j);
	cr_assert_gt(repeats, 0, "the fixture repeats code_index values");
	free(paths);
	inj_dump_fini(&f);
}

/* One index shared by two parts (issue 16 finding 9): the later part, made first, hashes only
 * what it maps; the whole-file one made after it hashes the rest (load 0) and gets the same
 * build-ids as a dump with an index of its own; the file lives until its last part goes. */
Test(dumps, parts_share_one_file_and_hash_each_load_once)
{
	struct jd_index *x = NULL;
	char err[256];
	cr_assert_eq(jd_index_open(&x, d.path, err, sizeof(err)), 0, "%s", err);
	struct inj_dfile *f = NULL;
	cr_assert_eq(inj_dfile_new(&f, x), 0);
	struct inj_dump late = { 0 }, whole = { 0 };
	struct inj_dump_opts lo = { .threads = 2, .first_load = 1, .first_move = 0, .file = f };
	cr_assert_eq(inj_dump_init(&late, NULL, d.path, &lo, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(f->loads[0].flags & INJ_HASHED, 0, "load 0 is an earlier part's");
	cr_assert(f->loads[1].flags & INJ_HASHED);
	cr_assert(f->loads[2].flags & INJ_HASHED);
	struct inj_dump_opts wo = { .threads = 2, .file = f };
	cr_assert_eq(inj_dump_init(&whole, NULL, d.path, &wo, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert(f->loads[0].flags & INJ_HASHED);
	cr_assert_eq(f->refs, 3);
	cr_assert_eq(whole.x, late.x, "one index");
	for (size_t i = 0; i < d.nr_loads; i++) {
		cr_assert_eq(memcmp(whole.loads[i].build_id, d.loads[i].build_id,
				    SYNTH_BUILD_ID_SIZE), 0, "load %zu", i);
		cr_assert_eq(whole.loads[i].text_off, d.loads[i].text_off, "load %zu", i);
		cr_assert_eq(whole.loads[i].move_idx, d.loads[i].move_idx, "load %zu", i);
	}
	cr_assert(late.loads[0].flags & INJ_OLD);
	cr_assert_eq(memcmp(late.loads[2].build_id, d.loads[2].build_id, SYNTH_BUILD_ID_SIZE), 0);
	cr_assert_eq(late.nr_evs, 3);
	cr_assert_eq(whole.nr_evs, d.nr_evs);
	inj_dfile_put(f);	/* the parts keep it */
	inj_dump_fini(&late);
	cr_assert_eq(memcmp(whole.loads[1].build_id, d.loads[1].build_id, SYNTH_BUILD_ID_SIZE), 0);
	inj_dump_fini(&whole);
}

/* --no-elfs maps the user's own dumps: one cut short after it was read is refused by name,
 * with the same build-ids up to then as the copied index gives. */
Test(dumps, a_mapped_dump_that_shrank_is_refused)
{
	struct jd_index *x = NULL;
	char err[256];
	cr_assert_eq(jd_index_open_flags(&x, AT_FDCWD, d.path, NULL, JD_INDEX_MAP_OWN, err,
					 sizeof(err)), 0, "%s", err);
	struct inj_dump m;
	struct inj_dump_opts o = { .threads = 2 };
	cr_assert_eq(inj_dump_init(&m, x, d.path, &o, JP_ERRBUF_LOG(err)), 0, "%s", err);
	for (size_t i = 0; i < d.nr_loads; i++)
		cr_assert_eq(memcmp(m.loads[i].build_id, d.loads[i].build_id,
				    SYNTH_BUILD_ID_SIZE), 0, "load %zu", i);
	struct inj_dump *dumps[] = { &m };
	struct inj_run_state s = { .dumps = dumps, .nr_dumps = 1 };
	cr_assert_eq(inj_dumps_shrunk(&s), 0, "%s", s.err);
	cr_assert_null(s.err);
	cr_assert_eq(truncate(d.path, 40), 0);
	cr_assert_eq(inj_dumps_shrunk(&s), -ESTALE);
	cr_assert(s.err && strstr(s.err, d.path) && strstr(s.err, "shrank"), "%s", s.err);
	free(s.err);
	inj_dump_fini(&m);
}
