/* cmd_buildid_list.c - `jitprof buildid-list`: the build-ids a recording refers to, printed as
 * `perf buildid-list` does ("<hex> <filename>", the kernel first), the build-id of one ELF
 * file, or of the running kernel. With --with-hits (or when the recording has no build-id
 * table) the events are replayed in time order and only DSOs that samples landed in count. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "recorder/cmd/cli.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof buildid-list [-i FILE] [-H] [--kernel]\n\n"
		"Lists the build-ids of the DSOs a recording refers to, as `perf buildid-list`:\n"
		"one \"<build-id> <filename>\" line each. If FILE is an ELF file, prints its\n"
		"build-id alone.\n\n"
		"  -i, --input FILE   perf.data (file or pipe mode, - for stdin) or an ELF file\n"
		"                     (default perf.data)\n"
		"  -H, --with-hits    only DSOs that samples landed in\n"
		"      --kernel       the running kernel's build-id\n"
		"  -f, --force        accepted for perf's habit\n"
		"  -V, --version      jitprof's version\n"
		"  -h, --help         this text\n");
}

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "with-hits", no_argument, NULL, 'H' },
	{ "kernel", no_argument, NULL, 'k' },
	{ "force", no_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int is_elf_file(const char *path)
{
	unsigned char magic[4] = { 0 };
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	if (!f)
		return 0;
	size_t n = fread(magic, 1, 4, f);
	fclose(f);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

static int print_elf(const char *path)
{
	struct sym_build_id id;
	char hex[SYM_BUILD_ID_HEX];
	struct cli_log log = { 0 };
	if (cli_log_done(&log, sym_elf_build_id(path, &id, &CLI_LOG(&log))))
		return 1;
	printf("%s\n", sym_build_id_hex(&id, hex));
	return 0;
}

/* "<build-id> <filename>": the name is the recording's, shown through safeio's escaping (a
 * path may hold a terminal's escape sequences or bidirectional controls), the id padded to
 * width. */
static void print_line(int width, const char *hex, const char *filename)
{
	printf("%-*s ", width, hex);
	sio_fputs_text(filename, stdout);
	putchar('\n');
}

/* The table as recorded; perf lists each filename once, first position, last id. */
static int print_table(const struct pd_reader *r)
{
	size_t n = pd_reader_nr_build_ids(r);
	char hex[SYM_BUILD_ID_HEX];
	for (int kernel_pass = 1; kernel_pass >= 0; kernel_pass--) {
		for (size_t i = 0; i < n; i++) {
			const struct pd_build_id_ev *b = pd_reader_build_id(r, i);
			int is_kernel = (b->cpumode & 7) == PERF_RECORD_MISC_KERNEL &&
					!strncmp(b->filename, "[kernel.kallsyms]", 17);
			if (is_kernel != kernel_pass)
				continue;
			int dup = 0;
			for (size_t j = 0; j < i && !dup; j++)
				dup = !strcmp(pd_reader_build_id(r, j)->filename, b->filename);
			if (dup)
				continue;
			const struct pd_build_id_ev *last = b;
			for (size_t j = i + 1; j < n; j++)
				if (!strcmp(pd_reader_build_id(r, j)->filename, b->filename))
					last = pd_reader_build_id(r, j);
			struct sym_build_id id = { .size = last->size };
			memcpy(id.data, last->build_id, id.size);
			print_line(0, sym_build_id_hex(&id, hex), b->filename);
		}
	}
	return 0;
}

struct hits {
	struct sym_dso **v;
	size_t n, cap;
};

static int mark_hit(struct hits *h, struct sym_dso *d)
{
	for (size_t i = h->n; i-- > 0;)
		if (h->v[i] == d)
			return 0;
	if (jp_grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v), 16))
		return -ENOMEM;
	h->v[h->n++] = d;
	return 0;
}

struct replay {
	struct sym_session *s;
	struct hits h;
};

static int feed(void *ctx, const struct pd_event *ev)
{
	struct replay *rp = ctx;
	return sym_feed_event(rp->s, ev);
}

/* A sample marks the DSO it landed in. */
static int on_sample(void *ctx, const struct pd_event *ev)
{
	struct replay *rp = ctx;
	struct sym_dso *d = sym_dso_at(rp->s, ev->u.sample.pid, ev->u.sample.ip,
				       pd_event_time(ev), ev->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				       NULL);
	return d ? mark_hit(&rp->h, d) : 0;
}

/* Replays the recording in perf's time order, marking the DSO of every sample. */
static int replay(struct pd_reader *r, struct replay *rp)
{
	const struct pd_tool tool = {
		.sz = sizeof(tool), .sample = on_sample, .mmap = feed, .comm = feed,
		.fork = feed, .exit = feed, .build_id = feed, .ctx = rp,
	};
	int damage;
	int rc = pd_replay(r, &tool, &damage);
	if (!rc && damage < 0) {
		cli_error("%s", pd_reader_error(r));
		rc = -EINVAL;
	}
	return rc;
}

static void print_hits(struct sym_session *s, const struct hits *h)
{
	char hex[SYM_BUILD_ID_HEX];
	for (int kernel_pass = 1; kernel_pass >= 0; kernel_pass--) {
		for (struct sym_dso *d = sym_dso_next(s, NULL); d; d = sym_dso_next(s, d)) {
			int hit = 0;
			for (size_t i = 0; i < h->n && !hit; i++)
				hit = h->v[i] == d;
			if (!hit || sym_dso_is_kernel(d) != kernel_pass)
				continue;
			const struct sym_build_id *id = sym_dso_build_id(d);
			/* like perf: a hit DSO the recording gave no id is listed with a blank
			 * one (the file on disk may not be the one that ran) */
			print_line(40, sym_build_id_hex(id, hex), sym_dso_long_name(d));
		}
	}
}

static int list_recording(const char *input, int with_hits)
{
	struct pd_reader *r;
	/* its damage unsaid, as before; the error held whole: it names the file and offset */
	struct cli_log log = { .fn = cli_log_drop };
	struct pd_reader_opts ro = { .sz = sizeof(ro), .log = CLI_LOG(&log) };
	int rc = pd_reader_open(&r, input, &ro);
	if (cli_log_done(&log, rc))
		return 1;
	if (!with_hits && !pd_reader_is_pipe(r) && pd_reader_has_feature(r, PD_FEAT_BUILD_ID)) {
		rc = print_table(r);
		pd_reader_close(r);
		return rc;
	}
	struct sym_opts o = { .sz = sizeof(o), .no_debuginfod = 1, .no_lines = 1 };
	struct sym_session *s = sym_session_new(&o);
	struct replay rp = { .s = s };
	if (!s) {
		pd_reader_close(r);
		return cli_error("out of memory");
	}
	rc = sym_feed_build_ids(s, r);
	if (!rc)
		rc = replay(r, &rp);
	if (!rc)
		print_hits(s, &rp.h);
	free(rp.h.v);
	sym_session_free(s);
	pd_reader_close(r);
	return rc ? 1 : 0;
}

int cmd_buildid_list(int argc, char **argv)
{
	const char *input = "perf.data";
	int with_hits = 0, kernel = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:HfvVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'H':
			with_hits = 1;
			break;
		case 'k':
			kernel = 1;
			break;
		case 'f':
		case 'v':
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return cli_version();
		default:
			return cli_usage_brief(usage);
		}
	}
	if (optind < argc) {
		return cli_usage_brief(usage);
	}
	if (kernel) {
		struct sym_build_id id;
		char hex[SYM_BUILD_ID_HEX];
		if (sym_kernel_build_id(&id))
			return cli_error("/sys/kernel/notes: no build-id of the running kernel");
		printf("%s\n", sym_build_id_hex(&id, hex));
		return 0;
	}
	if (is_elf_file(input))
		return print_elf(input) ? 1 : 0;
	return list_recording(input, with_hits);
}
