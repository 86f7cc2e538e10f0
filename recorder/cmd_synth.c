/* cmd_synth.c - `jitprof synth jit-PID.dump -o DIR`: every code load (method generation) of a
 * dump as its own ELF in DIR, for inspection and for tools that want the files; prints the
 * build-id of each. The ELFs come from libsynth, the loads from the jitdump index. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jitdump/jitdump.h"
#include "recorder/cli.h"
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
		"  -q, --quiet           no summary line\n"
		"  -h, --help            this text\n");
}

enum { OPT_ALL = 256, OPT_CACHE, OPT_CACHE_DIR };

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "buildid-cache", no_argument, NULL, OPT_CACHE },
	{ "buildid-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct synth_opts {
	const char *dump, *dir, *cache;
	char cache_buf[PATH_MAX], absdir[PATH_MAX];
	int all, quiet;
};

struct synth_counts {
	uint64_t written, skipped, failed;
};

/* Names come from the dump: print them, never let them steer the terminal. */
static void print_name(const char *s)
{
	for (; *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static int one_load(const struct synth_opts *o, const struct jd_header *hdr,
		    const struct jd_load_entry *e, uint32_t seq, struct synth_counts *c)
{
	struct synth_input in;
	struct synth_elf elf;
	char err[512], file[SYNTH_FILE_NAME_MAX], path[PATH_MAX], hex[SYNTH_BUILD_ID_HEX];

	synth_input_from_load(&in, hdr, e);
	in.file_seq = seq;
	if (!o->all && in.tier == JD_TIER_STUB) {
		c->skipped++;
		return 0;
	}
	int rc = synth_input_drop_bad_debug(&in, err, sizeof(err));
	if (rc == 1)
		cli_warn("%s: code load at offset %" PRIu64 " (code_index %" PRIu64 "): %s; "
			 "its ELF has the symbol only", o->dump, e->offset, in.code_index, err);
	rc = rc < 0 ? rc : synth_build(&in, &elf, err, sizeof(err));
	if (rc) {
		cli_warn("%s: code load at offset %" PRIu64 " (code_index %" PRIu64 "): %s",
			 o->dump, e->offset, in.code_index, err);
		c->failed++;
		return 0;
	}
	if (synth_file_name(&in, file, sizeof(file)) ||
	    snprintf(path, sizeof(path), "%s/%s", o->dir, file) >= (int)sizeof(path)) {
		synth_elf_free(&elf);
		return cli_error("%s: output path too long", o->dir), -ENAMETOOLONG;
	}
	rc = synth_write_file(&elf, path, err, sizeof(err));
	if (!rc && o->cache)
		rc = synth_cache_add(&elf, o->cache, path, err, sizeof(err)) < 0 ? -EIO : 0;
	if (rc) {
		synth_elf_free(&elf);
		cli_error("%s", err);
		return rc;
	}
	synth_build_id_hex(elf.build_id, hex);
	printf("%s %s gen=%" PRIu32 " ", hex, path, in.generation);
	print_name(in.name);
	putchar('\n');
	synth_elf_free(&elf);
	c->written++;
	return 0;
}

static int parse(int argc, char **argv, struct synth_opts *o)
{
	int ch, want_cache = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o': o->dir = optarg; break;
		case OPT_ALL: o->all = 1; break;
		case OPT_CACHE: want_cache = 1; break;
		case OPT_CACHE_DIR: o->cache = optarg; want_cache = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc || !o->dir) {
		usage(stderr);
		return 2;
	}
	o->dump = argv[optind];
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

	struct synth_counts c = { 0 };
	size_t n = jd_index_nr_loads(x);
	uint32_t *seqs = calloc(n ? n : 1, sizeof(*seqs));
	rc = seqs ? synth_index_file_seqs(x, seqs) : -ENOMEM;
	if (rc)
		cli_error("out of memory");
	for (size_t i = 0; i < n && !rc; i++) {
		rc = one_load(&o, jd_index_header(x), jd_index_load(x, i), seqs[i], &c);
		cli_progress("synthesizing", i + 1, n);
	}
	cli_progress_end();
	free(seqs);
	jd_index_close(x);
	if (fflush(stdout))
		return cli_error("stdout: %s", strerror(errno));
	if (!o.quiet)
		cli_info("%" PRIu64 " ELFs in %s%s%s, %" PRIu64 " stubs skipped%s, %" PRIu64
			 " loads refused", c.written, o.dir, o.cache ? " and the cache " : "",
			 o.cache ? o.cache : "", c.skipped, o.all ? "" : " (--all keeps them)",
			 c.failed);
	return rc || c.failed ? 1 : 0;
}
