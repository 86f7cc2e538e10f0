/* test_hasher.c - recorder/inject/hasher.c: build-ids hashed behind the stream are the ones
 * hashed before it (synth's), whether a worker or the asking thread hashes a load, while the
 * asker races the workers over the same loads in the same order (the stream's way); what a
 * dump judged refused is never queued; finishing hashes what is left. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder/inject/inject_int.h"
#include "synth/synth.h"
#include "tests/lib/testutil.h"

#define NLOADS 3000

static char *dir;
static char path[4096];

/* NLOADS loads of distinct code, so every id differs. */
static void write_dump(void)
{
	dir = tu_tmpdir("hasher");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w = NULL;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	for (uint32_t i = 0; i < NLOADS; i++) {
		uint8_t code[96];
		for (size_t k = 0; k < sizeof(code); k++)
			code[k] = (uint8_t)(i * 31 + k);
		char name[64];
		snprintf(name, sizeof(name), "Lh;m%u()V", i % 500);
		uint64_t addr = 0x100000 + (uint64_t)i * 0x100;
		/* every third has lines; every seventh of those a row outside its code
		 * (dropped: the load is judged trimmed before its hash) */
		struct jd_line rows[3] = { { addr, 10, 0, "H.java" },
					   { addr + 16, 11, 0, "H.java" },
					   { addr + (i % 7 ? 32 : 4096), 12, 0, "G.java" } };
		struct jd_load_desc ld = { .name = name, .code_addr = addr, .code = code,
					   .code_size = sizeof(code), .timestamp = 10 + i,
					   .lines = i % 3 ? NULL : rows, .nr_lines = i % 3 ? 0 : 3 };
		uint64_t ci;
		cr_assert_eq(jd_write_load(w, &ld, &ci), 0);
	}
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
}

static void cleanup(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(hasher, .init = write_dump, .fini = cleanup);

/* The dump with threads threads, hashed behind (h) or before (h NULL). */
static void open_dump(struct inj_dump *d, struct inj_hasher *h)
{
	struct jd_index *x = NULL;
	char err[256];
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	struct inj_dump_opts o = { .threads = 2, .hasher = h };
	cr_assert_eq(inj_dump_init(d, x, path, &o, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(d->nr_loads, NLOADS);
}

Test(hasher, ids_asked_in_order_while_workers_run_are_synths)
{
	struct inj_dump ref;
	open_dump(&ref, NULL);
	/* Many rounds: the asker claims some loads first and finds others claimed, in every
	 * interleaving the scheduler gives (the state must be read again after a lost claim). */
	for (int round = 0; round < 20; round++) {
		struct inj_hasher *h = NULL;
		struct inj_dump d;
		cr_assert_eq(inj_hasher_new(&h, 3), 0);
		open_dump(&d, h);
		cr_assert_not_null(d.df->id_state, "queued: the ids are hashed behind");
		size_t trimmed = 0;
		for (uint32_t i = 0; i < NLOADS; i++) {
			trimmed += (d.loads[i].flags & INJ_TRIMMED) != 0;
			cr_assert_eq(d.loads[i].flags & (INJ_BAD | INJ_TRIMMED | INJ_NOLINES),
				     ref.loads[i].flags & (INJ_BAD | INJ_TRIMMED | INJ_NOLINES),
				     "load %u judged as when hashed first", i);
			cr_assert_eq(d.loads[i].text_off, ref.loads[i].text_off, "load %u", i);
			const uint8_t *id = inj_hasher_id(h, d.df, i);
			cr_assert_not_null(id, "round %d load %u: asked while a worker had it", round,
					   i);
			cr_assert_arr_eq(id, ref.loads[i].build_id, SYNTH_BUILD_ID_SIZE,
					 "round %d load %u", round, i);
		}
		cr_assert_eq(trimmed, (NLOADS + 20) / 21, "loads with a row outside their code");
		cr_assert_eq(d.nr_trimmed, trimmed);
		char err[256] = "";
		cr_assert_eq(inj_hasher_finish(h, JP_ERRBUF_LOG(err)), 0, "%s", err);
		inj_dump_take_ids(&d);
		for (uint32_t i = 0; i < NLOADS; i++)
			cr_assert_arr_eq(d.loads[i].build_id, ref.loads[i].build_id,
					 SYNTH_BUILD_ID_SIZE, "load %u taken", i);
		inj_hasher_free(h);
		inj_dump_fini(&d);
	}
	inj_dump_fini(&ref);
}

Test(hasher, finish_hashes_what_nobody_asked_for)
{
	struct inj_dump ref, d;
	struct inj_hasher *h = NULL;
	open_dump(&ref, NULL);
	cr_assert_eq(inj_hasher_new(&h, 1), 0);
	open_dump(&d, h);
	char err[256] = "";
	cr_assert_eq(inj_hasher_finish(h, JP_ERRBUF_LOG(err)), 0, "%s", err);
	inj_dump_take_ids(&d);
	for (uint32_t i = 0; i < NLOADS; i++) {
		uint8_t st = d.df->id_state[i];
		cr_assert_neq(st, 0, "load %u left pending", i);
		cr_assert_arr_eq(d.loads[i].build_id, ref.loads[i].build_id, SYNTH_BUILD_ID_SIZE,
				 "load %u", i);
	}
	inj_hasher_free(h);
	inj_dump_fini(&d);
	inj_dump_fini(&ref);
}

Test(hasher, freed_while_hashing_stops_its_threads)
{
	struct inj_hasher *h = NULL;
	struct inj_dump d;
	cr_assert_eq(inj_hasher_new(&h, 2), 0);
	open_dump(&d, h);
	/* A failed run frees the hasher with work queued, then the dump: the threads must be
	 * gone before (ASan/valgrind see a use after free otherwise), and the file's index
	 * stays alive while they may read it (the hasher holds a reference). */
	inj_dump_fini(&d);
	inj_hasher_free(h);
}
