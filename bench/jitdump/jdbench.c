/* jdbench.c - the jitdump benchmark's workhorse (bench/jitdump.sh drives it):
 *   jdbench gen DIR MB          write a synthetic Java-like dump of about MB megabytes
 *   jdbench read FILE           read every record (touching names, code, lines)
 *   jdbench index FILE          build the jd_index (pairing, generations)
 *   jdbench write DIR THREADS N write N loads from THREADS threads through one writer
 * Each prints one line of figures; timing is its own, start to end of the work. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "jitdump/jitdump.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long maxrss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* One Java-like load: ~300 B of code, 8 line entries in one file, a 60-char name. */
static int write_one(struct jd_writer *w, uint64_t i, uint8_t *code, uint64_t *bytes)
{
	char name[96], file[64];
	struct jd_line lines[8];
	uint64_t cls = i % 5000, addr = 0x7f0000000000ull + (i % 100000) * 0x400;
	snprintf(name, sizeof(name), "Lcom/example/app/Class%llu;method%llu(ILjava/lang/String;)V",
		 (unsigned long long)cls, (unsigned long long)(i % 37));
	snprintf(file, sizeof(file), "com/example/app/Class%llu.java", (unsigned long long)cls);
	size_t size = 64 + (size_t)((i * 2654435761u) % 480);
	for (int k = 0; k < 8; k++)
		lines[k] = (struct jd_line){ addr + (uint64_t)k * size / 8, 10 + k * 3, 0, file };
	struct jd_load_desc d = { .name = name, .code_addr = addr, .code = code,
				  .code_size = size, .lines = lines, .nr_lines = 8 };
	/* What the unit adds to the file: CODE_LOAD + DEBUG_INFO (8 entries, full file names,
	 * the writer's default). */
	*bytes += 56 + strlen(name) + 1 + size + 32 + 8 * (16 + strlen(file) + 1);
	return jd_write_load(w, &d, NULL);
}

static struct jd_writer *open_writer(const char *dir)
{
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w;
	if (jd_writer_open(&w, &o)) {
		fprintf(stderr, "jdbench: cannot open a writer in %s\n", dir);
		exit(1);
	}
	return w;
}

static int gen(const char *dir, long mb)
{
	static uint8_t code[600];
	for (size_t i = 0; i < sizeof(code); i++)
		code[i] = (uint8_t)(i * 13);
	struct jd_writer *w = open_writer(dir);
	uint64_t bytes = 0, i = 0, target = (uint64_t)mb << 20;
	while (bytes < target)
		if (write_one(w, i++, code, &bytes))
			return 1;
	printf("%s\n", jd_writer_path(w));
	return jd_writer_close(w) ? 1 : 0;
}

static int readall(const char *path)
{
	double t0 = now_s();
	struct jd_reader *r;
	char err[512];
	if (jd_reader_open(&r, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct jd_record rec;
	uint64_t n = 0, sum = 0;
	int rc;
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		n++;
		if (rec.id == JD_CODE_LOAD)
			sum += strlen(rec.u.load.name) + rec.u.load.code[rec.u.load.code_size - 1];
		else if (rec.id == JD_CODE_DEBUG_INFO)
			for (uint64_t k = 0; k < rec.u.debug.nr_entry; k++)
				sum += (uint64_t)rec.u.debug.entries[k].line;
	}
	double t = now_s() - t0;
	uint64_t size = jd_reader_size(r);
	jd_reader_close(r);
	if (rc < 0)
		return 1;
	printf("read %llu records, %.1f MB in %.3f s: %.0f MB/s, %.2f M records/s (check %llu)\n",
	       (unsigned long long)n, (double)size / 1e6, t, (double)size / 1e6 / t,
	       (double)n / 1e6 / t, (unsigned long long)(sum & 0xff));
	return 0;
}

static int index_all(const char *path)
{
	double t0 = now_s();
	struct jd_index *x;
	char err[512];
	if (jd_index_open(&x, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	double t = now_s() - t0;
	printf("index %zu loads in %.3f s: %.2f M loads/s, max RSS %ld MB\n",
	       jd_index_nr_loads(x), t, (double)jd_index_nr_loads(x) / 1e6 / t, maxrss_mb());
	jd_index_close(x);
	return 0;
}

struct job {
	struct jd_writer *w;
	uint64_t first, n, bytes;
	int rc;
};

static void *writer_thread(void *arg)
{
	struct job *j = arg;
	static uint8_t code[600];
	for (uint64_t i = j->first; i < j->first + j->n && !j->rc; i++)
		j->rc = write_one(j->w, i, code, &j->bytes);
	return NULL;
}

static int write_bench(const char *dir, int threads, uint64_t n)
{
	struct jd_writer *w = open_writer(dir);
	pthread_t th[64];
	struct job jobs[64];
	if (threads < 1 || threads > 64)
		return 2;
	double t0 = now_s();
	for (int t = 0; t < threads; t++) {
		jobs[t] = (struct job){ w, n / (uint64_t)threads * (uint64_t)t,
					n / (uint64_t)threads, 0, 0 };
		pthread_create(&th[t], NULL, writer_thread, &jobs[t]);
	}
	int rc = 0;
	for (int t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		rc |= jobs[t].rc;
	}
	rc |= jd_writer_close(w);
	double t = now_s() - t0;
	uint64_t total = n / (uint64_t)threads * (uint64_t)threads;
	printf("write %d thread%s: %llu loads (DEBUG_INFO + CODE_LOAD each) in %.3f s: "
	       "%.2f M loads/s\n", threads, threads > 1 ? "s" : "", (unsigned long long)total, t,
	       (double)total / 1e6 / t);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "read"))
		return readall(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "index"))
		return index_all(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "write"))
		return write_bench(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10));
	fprintf(stderr, "usage: jdbench gen DIR MB | read FILE | index FILE | "
			"write DIR THREADS N\n");
	return 2;
}
