/* cmd_synth.c - `jitprof synth jit-PID.dump -o DIR`: every code load (method generation) of a
 * dump as its own ELF in DIR, for inspection and for tools that want the files; prints the
 * build-id of each. The ELFs come from libsynth, the loads from the jitdump index. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "lib/nomem.h"
#include "lib/pool.h"
#include "recorder/cmd/cli.h"
#include "synth/synth.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof synth jit-PID.dump -o DIR [options]\n\n"
		"Writes one ELF per code load of the dump (one per method generation) into DIR as\n"
		"jitted-<pid>-<code_index>.so and prints \"<build-id> <file> gen=<n> <name>\" for each.\n"
		"A code_index the dump repeats gets jitted-<pid>-<code_index>-<n>.so for its n-th reuse.\n"
		"The ELFs are the ones `jitprof inject` writes: same bytes, same build-ids.\n\n"
		"  -o, --output DIR      directory for the ELFs (created if missing)\n"
		"      --all             also runtime stubs (loads the companion file marks as stubs:\n"
		"                        interpreter, adapters, ...); default: methods only\n"
		"      --buildid-cache   also place each ELF in the build-id cache\n"
		"      --buildid-dir DIR cache root (default $PERF_BUILDID_DIR or ~/.debug)\n"
		"      --threads N       ELF writer threads (default: online CPUs, at most 16)\n"
		"  -q, --quiet           no summary line\n"
		"  -V, --version         jitprof's version\n"
		"  -h, --help            this text\n");
}

enum { OPT_ALL = 256, OPT_CACHE, OPT_CACHE_DIR, OPT_THREADS };

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "buildid-cache", no_argument, NULL, OPT_CACHE },
	{ "buildid-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct synth_opts {
	const char *dump, *dir, *cache;
	char cache_buf[PATH_MAX], absdir[PATH_MAX];
	int all, quiet;
	unsigned threads;
};

/* What became of one load; printed in load order once all workers are done. NOT_RUN first:
 * the results are calloc'd, and after a fatal error the loads not reached yet keep it (they
 * were counted and printed as written, with a NULL path). */
enum outcome { NOT_RUN, WRITTEN, SKIPPED, REFUSED, FATAL };

struct result {
	enum outcome what;
	char hex[SYNTH_BUILD_ID_HEX];
	char *warning;		/* malloc'd, or NULL */
	char *path;		/* malloc'd when WRITTEN */
};

struct pool {
	const struct synth_opts *o;
	struct jd_index *x;
	const uint32_t *seqs;
	struct result *res;
	size_t n;
	atomic_int stop;
};

static char *load_msg(const struct pool *p, const struct jd_load_entry *e, const char *err,
		      const char *tail)
{
	char *m = NULL;
	if (asprintf(&m, "%s: code load at offset %" PRIu64 " (code_index %" PRIu64 "): %s%s",
		     p->o->dump, e->offset, e->load.code_index, err, tail) < 0)
		m = NULL;
	return m;
}

/* What a jp_held holds (else strerror(-rc)), then emptied into the next step. */
static char *held_take(struct jp_held *h, int rc)
{
	if (h->nomem)
		jp_nomem("an error message");
	char *m = h->msg ? h->msg : strdup(strerror(rc < 0 ? -rc : EINVAL));
	if (!m)
		jp_nomem("an error message");
	*h = (struct jp_held){ 0 };
	return m;
}

static void one_load(struct pool *p, size_t i)
{
	const struct synth_opts *o = p->o;
	const struct jd_load_entry *e = jd_index_load(p->x, i);
	struct result *r = &p->res[i];
	struct synth_input in;
	struct synth_elf elf;
	char file[SYNTH_FILE_NAME_MAX], path[PATH_MAX], *err;
	struct jp_held why = { 0 };	/* synth's reasons, whole */
	const struct jp_log hold = { jp_log_hold, &why };

	synth_input_from_load(&in, jd_index_header(p->x), e);
	in.file_seq = p->seqs[i];
	if (!o->all && in.tier == JD_TIER_STUB) {
		r->what = SKIPPED;
		return;
	}
	int rc = synth_input_drop_bad_debug(&in, &hold);
	if (rc == 1) {
		err = held_take(&why, -EINVAL);
		r->warning = load_msg(p, e, err, "; its ELF is made without it");
		free(err);
	}
	size_t dropped = rc >= 0 ? synth_lines_dropped(&in) : 0;
	if (dropped && !r->warning) {
		char what[128];
		snprintf(what, sizeof(what), "%zu line-table entries outside the code or out of "
			 "order dropped", dropped);
		r->warning = load_msg(p, e, what, ", the rest of the table kept");
	}
	free(why.msg);
	why = (struct jp_held){ 0 };
	rc = rc < 0 ? rc : synth_build(&in, &elf, &hold);
	if (rc) {
		free(r->warning);
		err = held_take(&why, rc);
		r->warning = load_msg(p, e, err, "");
		free(err);
		/* the load's bytes are refused; libcrypto or memory failing stops the run */
		r->what = rc == -ENOMEM || rc == -EIO || rc == -ENOSYS ? FATAL : REFUSED;
		if (r->what == FATAL)
			atomic_store(&p->stop, 1);
		return;
	}
	r->what = FATAL;
	err = NULL;
	if (synth_file_name(&in, file, sizeof(file)) ||
	    snprintf(path, sizeof(path), "%s/%s", o->dir, file) >= (int)sizeof(path)) {
		if (asprintf(&err, "%s: output path too long", o->dir) < 0)
			jp_nomem("an error message");
	} else if (!(rc = synth_place(&elf, path, o->cache, &(struct synth_placed){ 0 },
				      &hold))) {
		r->what = WRITTEN;	/* cache first, then the file: inject's order */
	} else {
		err = held_take(&why, rc);
	}
	free(why.msg);
	if (r->what == WRITTEN) {
		synth_build_id_hex(elf.build_id, r->hex);
		r->path = strdup(path);
	} else {
		free(r->warning);
		r->warning = err;
		atomic_store(&p->stop, 1);
	}
	synth_elf_free(&elf);
}

static void job(void *ctx, void *arg)
{
	struct pool *p = ctx;
	if (!atomic_load(&p->stop))	/* after a fatal error the rest is skipped */
		one_load(p, *(size_t *)arg);
}

/* Workers build and write (lib/pool.c); this thread shows progress (cli_progress is not
 * thread-safe). */
static void run_pool(struct pool *p, unsigned threads)
{
	struct jp_pool *pool;
	uint64_t done, queued;
	if (jp_pool_new(&pool, (int)threads, sizeof(size_t), job, p) < 0)
		pool = NULL;
	for (size_t i = 0; i < p->n; i++)
		if (!pool || jp_pool_push(pool, &i) < 0)
			job(p, &i);	/* no threads (or no memory): here */
	while (pool && (jp_pool_progress(pool, &done, &queued), done < queued) &&
	       !atomic_load(&p->stop)) {
		cli_progress("synthesizing", done, p->n);
		usleep(50000);
	}
	jp_pool_finish(pool);
	cli_progress_end();
}

/* Prints every result in load order; 0, or 1 if a load could not be written. */
static int report(const struct pool *p, const struct jd_index *x)
{
	uint64_t written = 0, skipped = 0, refused = 0;
	int fatal = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct result *r = &p->res[i];
		if (r->warning && r->what == FATAL)
			cli_error("%s", r->warning);
		else if (r->warning)
			cli_warn("%s", r->warning);
		if (r->what == WRITTEN) {
			const struct jd_load_entry *e = jd_index_load(x, i);
			/* names come from the dump: they never steer the terminal */
			printf("%s ", r->hex);
			sio_fputs_text(r->path, stdout);
			printf(" gen=%" PRIu32 " ", e->generation);
			sio_fputs_text(e->load.name, stdout);
			putchar('\n');
			written++;
		}
		skipped += r->what == SKIPPED;
		refused += r->what == REFUSED;
		fatal |= r->what == FATAL;
		free(r->warning);
		free(r->path);
	}
	if (!p->o->quiet)
		cli_info("%" PRIu64 " ELFs in %s%s%s, %" PRIu64 " stubs skipped%s, %" PRIu64
			 " loads refused", written, p->o->dir, p->o->cache ? " and the cache " : "",
			 p->o->cache ? p->o->cache : "", skipped,
			 p->o->all ? "" : " (--all keeps them)", refused);
	return fatal || refused ? 1 : 0;
}

static int parse(int argc, char **argv, struct synth_opts *o)
{
	int ch, want_cache = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:qVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o': o->dir = optarg; break;
		case OPT_ALL: o->all = 1; break;
		case OPT_CACHE: want_cache = 1; break;
		case OPT_CACHE_DIR: o->cache = optarg; want_cache = 1; break;
		case OPT_THREADS: {
			char *end;
			unsigned long t = strtoul(optarg, &end, 10);
			if (*end || !t || t > 16)
				return cli_error("--threads wants 1..16, got '%s'", optarg) + 1;
			o->threads = (unsigned)t;
			break;
		}
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': return cli_version();
		default: return cli_usage_brief(usage);
		}
	}
	if (optind + 1 != argc || !o->dir) {
		return cli_usage_brief(usage);
	}
	o->dump = argv[optind];
	if (!o->threads)
		o->threads = (unsigned)jp_default_threads();
	if (want_cache && !o->cache) {
		if (synth_cache_default_root(o->cache_buf, sizeof(o->cache_buf)))
			return cli_error("no build-id cache: set $HOME or $PERF_BUILDID_DIR");
		o->cache = o->cache_buf;
	}
	/* perf's cache keys files by absolute path: make DIR absolute for it. */
	if (o->cache && o->dir[0] != '/') {
		if (mkdir(o->dir, 0755) && errno != EEXIST)
			return cli_error("%s: %s", o->dir, strerror(errno));
		if (!realpath(o->dir, o->absdir))
			return cli_error("%s: %s", o->dir, strerror(errno));
		o->dir = o->absdir;
	}
	return -1;
}

int cmd_synth(int argc, char **argv)
{
	struct synth_opts o = { 0 };
	int rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (mkdir(o.dir, 0755) && errno != EEXIST)
		return cli_error("%s: %s", o.dir, strerror(errno));

	struct jd_index *x;
	char err[512] = "";
	if (jd_index_open(&x, o.dump, err, sizeof(err)) < 0)
		return cli_error("%s", err[0] ? err : o.dump);
	if (jd_index_warning(x)[0])
		cli_warn("%s", jd_index_warning(x));

	struct pool p = { .o = &o, .x = x, .n = jd_index_nr_loads(x) };
	uint32_t *seqs = calloc(p.n ? p.n : 1, sizeof(*seqs));
	p.res = calloc(p.n ? p.n : 1, sizeof(*p.res));
	p.seqs = seqs;
	if (!seqs || !p.res || synth_index_file_seqs(x, seqs)) {
		free(seqs);
		free(p.res);
		jd_index_close(x);
		return cli_error("out of memory for %zu loads", p.n);
	}
	run_pool(&p, o.threads);
	rc = report(&p, x);
	free(seqs);
	free(p.res);
	jd_index_close(x);
	if (fflush(stdout))
		return cli_error("stdout: %s", strerror(errno));
	return rc;
}
