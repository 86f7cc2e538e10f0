/* synth_bench.c - the helper of bench/synth.sh.
 *   synth-bench gen DIR N      writes a dump of N code loads (4 generations per name, ~8 line
 *                              rows each) with libjitdump; run it under perf record so the
 *                              recording holds the dump's marker.
 *   synth-bench run DUMP OUT   times libsynth on every load of DUMP: build-ids only, ELFs in
 *                              memory, ELFs written to files (one thread, then one per
 *                              CPU), and ELFs written and placed in a build-id cache
 *                              OUT/cache (what inject does), each pass into a fresh
 *                              OUT/<pass>; prints "name count seconds" lines. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "synth/synth.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int gen(const char *dir, long n)
{
	struct jd_writer *w;
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir, .buffer_size = 1 << 20 };
	if (mkdir(dir, 0755) && errno != EEXIST)
		return perror(dir), 1;
	if (jd_writer_open(&w, &o))
		return fprintf(stderr, "synth-bench: cannot open a dump in %s\n", dir), 1;
	static uint8_t code[512];
	for (size_t i = 0; i < sizeof(code); i++)
		code[i] = 0x90;
	uint64_t addr = 0x7f3000000000ull;
	for (long i = 0; i < n; i++) {
		char name[64], file[64];
		long m = i % (n / 4 > 0 ? n / 4 : 1);	/* each name loads 4 times: 4 generations */
		snprintf(name, sizeof(name), "Lbench/C%ld;m%ld(I)I", m % 500, m);
		snprintf(file, sizeof(file), "bench/C%ld.java", m % 500);
		uint64_t size = 64 + (uint64_t)(i * 37 % 448);
		code[size - 1] = 0xc3;
		struct jd_line lines[8];
		for (int k = 0; k < 8; k++)
			lines[k] = (struct jd_line){ addr + (uint64_t)k * (size / 8), 10 + k, 0, file };
		struct jd_load_desc d = { .name = name, .code_addr = addr, .code = code,
					  .code_size = size, .lines = lines, .nr_lines = 8 };
		if (jd_write_load(w, &d, NULL))
			return fprintf(stderr, "synth-bench: write failed\n"), 1;
		code[size - 1] = 0x90;
		addr += (size + 15) & ~15ull;
	}
	return jd_writer_close(w) ? 1 : 0;
}

enum mode { IDS, MEMORY, FILES, FILES_MT, CACHE };

struct job {
	struct jd_index *x;
	const uint32_t *seqs;
	enum mode m;
	const char *out, *cache;
	size_t lo, hi;
	int rc;
};

static int pass_range(struct jd_index *x, const uint32_t *seqs, enum mode m, const char *out,
		      const char *cache, size_t lo, size_t hi)
{
	char err[512], name[SYNTH_FILE_NAME_MAX], path[4200 + SYNTH_FILE_NAME_MAX];
	for (size_t i = lo; i < hi; i++) {
		struct synth_input in;
		struct synth_elf e;
		uint8_t id[SYNTH_BUILD_ID_SIZE];
		synth_input_from_load(&in, jd_index_header(x), jd_index_load(x, i));
		in.file_seq = seqs[i];
		int rc = m == IDS ? synth_build_id(&in, id, JP_ERRBUF_LOG(err))
				  : synth_build(&in, &e, JP_ERRBUF_LOG(err));
		if (rc)
			return fprintf(stderr, "synth-bench: load %zu: %s\n", i, err), 1;
		if (m == IDS)
			continue;
		synth_file_name(&in, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%s", out, name);
		if (m == FILES || m == FILES_MT)
			rc = synth_write_file(&e, path, JP_ERRBUF_LOG(err));
		else if (m == CACHE)	/* as inject does: the file, then its cache entry */
			rc = synth_write_file(&e, path, JP_ERRBUF_LOG(err)) ||
			     synth_cache_add(&e, cache, path, JP_ERRBUF_LOG(err)) < 0;
		synth_elf_free(&e);
		if (rc)
			return fprintf(stderr, "synth-bench: %s\n", err), 1;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	j->rc = pass_range(j->x, j->seqs, j->m, j->out, j->cache, j->lo, j->hi);
	return NULL;
}

/* One thread, or (FILES_MT) one per CPU as inject's writer pool does. */
static int pass(struct jd_index *x, const uint32_t *seqs, enum mode m, const char *out,
		const char *cache, double *secs)
{
	size_t n = jd_index_nr_loads(x);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = m == FILES_MT ? (size_t)(cpus > 1 ? (cpus < 16 ? cpus : 16) : 1) : 1;
	struct job jobs[16];
	pthread_t th[16];
	double t0 = now();
	for (size_t t = 0; t < nt; t++) {
		jobs[t] = (struct job){ x, seqs, m, out, cache, n * t / nt, n * (t + 1) / nt, 0 };
		if (pthread_create(&th[t], NULL, worker, &jobs[t]))
			return 1;
	}
	int rc = 0;
	for (size_t t = 0; t < nt; t++) {
		pthread_join(th[t], NULL);
		rc |= jobs[t].rc;
	}
	*secs = now() - t0;
	return rc;
}

static int run(const char *dump, const char *out)
{
	struct jd_index *x;
	char err[512], cache[4200];
	if (jd_index_open(&x, dump, err, sizeof(err)))
		return fprintf(stderr, "synth-bench: %s\n", err), 1;
	size_t n = jd_index_nr_loads(x);
	uint32_t *seqs = calloc(n ? n : 1, sizeof(*seqs));
	if (!seqs || synth_index_file_seqs(x, seqs) || (mkdir(out, 0755) && errno != EEXIST))
		return fprintf(stderr, "synth-bench: setup failed\n"), 1;
	snprintf(cache, sizeof(cache), "%s/cache", out);
	static const char *names[] = { "build-ids", "memory", "files", "files-threads",
				       "files+cache" };
	int rc = 0;
	for (int m = IDS; m <= CACHE && !rc; m++) {
		double s = 0;
		char dir[4200];
		/* Each writing pass creates fresh files in its own directory (replacing the last
		 * pass's files would also pay for freeing them), after a sync so that it does not
		 * pay for the previous pass's writeback either. */
		snprintf(dir, sizeof(dir), "%s/%s", out, names[m]);
		if (mkdir(dir, 0755) && errno != EEXIST)
			return perror(dir), 1;
		sync();
		rc = pass(x, seqs, m, dir, cache, &s);
		if (!rc)
			printf("%s %zu %.6f\n", names[m], n, s);
	}
	free(seqs);
	jd_index_close(x);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3]);
	fprintf(stderr, "usage: synth-bench gen DIR N | run DUMP OUTDIR\n");
	return 2;
}
