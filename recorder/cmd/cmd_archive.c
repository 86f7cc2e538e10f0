/* cmd_archive.c - `jitprof archive`: every ELF a recording needs, found by build-id, in one
 * tar.zst whose members mirror the build-id cache, so `jitprof report --archive FILE` on
 * another machine needs nothing else. Layout (shared with recorder/symbols, docs/report.md):
 *     <path>/<build-id>/elf                   the ELF (path = recorded name without '/')
 *     .build-id/<xx>/<rest>                   symlink -> ../../<path>/<build-id>
 *     [kernel.kallsyms]/<build-id>/kallsyms   the kernel's symbols, when they match
 *     [vdso]/<build-id>/vdso                  the vdso image (saved by record, as perf)
 *     .jitdump/jit-PID.dump[.jitprof]         the jitdumps (cmd_archive_dumps.c)
 * What it packs is bounded by the recording (ARCHIVE_BUDGET_*): a 183 KB perf.data naming
 * 1,160 system ELFs packed 995 MB of another user's choosing (issue 34, finding 9). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/archive_api.h"
#include "lib/grow.h"
#include "lib/nomem.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_archive.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/report/report.h"
#include "recorder/symbols/symbols.h"

/* Bytes before compression an archive may hold unless --max-size: BASE + RATIO x the
 * recording's size (a pipe's counts 0). */
#define ARCHIVE_BUDGET_BASE (256ull << 20)
#define ARCHIVE_BUDGET_RATIO 1024u

static int cmp_listed(const void *a, const void *b)
{
	const struct listed_id *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return memcmp(x->data, y->data, x->size);
}

/* The table of a file-mode recording (a pipe's cannot be read twice: every absent file then
 * counts as missing, as before). A table that cannot be read is the same as none. */
static void read_listed(struct archive_job *j, const char *input)
{
	struct pd_reader *r;
	struct pd_reader_opts ro = { .sz = sizeof(ro) };
	if (!strcmp(input, "-") || pd_reader_open(&r, input, &ro))
		return;
	size_t n = pd_reader_has_feature(r, PD_FEAT_BUILD_ID) ? pd_reader_nr_build_ids(r) : 0;
	if (n && (j->listed = calloc(n, sizeof(*j->listed)))) {
		for (size_t i = 0; i < n; i++) {
			const struct pd_build_id_ev *b = pd_reader_build_id(r, i);
			struct listed_id *l = &j->listed[j->nr_listed];
			if (!b->size || b->size > sizeof(l->data))
				continue;
			l->size = b->size;
			memcpy(l->data, b->build_id, b->size);
			j->nr_listed++;
		}
		qsort(j->listed, j->nr_listed, sizeof(*j->listed), cmp_listed);
		j->have_table = 1;
	}
	pd_reader_close(r);
}

static int is_listed(const struct archive_job *j, const struct sym_build_id *bid)
{
	struct listed_id key = { .size = bid->size };
	if (!j->have_table)
		return 1;
	memcpy(key.data, bid->data, bid->size < sizeof(key.data) ? bid->size : sizeof(key.data));
	return bsearch(&key, j->listed, j->nr_listed, sizeof(key), cmp_listed) != NULL;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof archive [-i perf.data] [-o perf.tar.zst]\n\n"
		"Packs every ELF the recording refers to, by build-id (the build-id cache, the\n"
		"recorded path, --symfs, debuginfod), and the jitdumps beside its jitted ELFs\n"
		"(every generation, its tier, level and compile id, for --generations), into one\n"
		"zstd-compressed tar that `jitprof report --archive FILE` reads on any machine.\n\n"
		"  -i, --input FILE     perf.data (default perf.data)\n"
		"  -f, --force          read files owned by another user than you or root: FILE,\n"
		"                       the dumps of an inject --no-elfs FILE, perf maps\n"
		"  -o, --output FILE    archive to write (default <input>.tar.zst)\n"
		"      --symfs DIR      look for recorded files under DIR\n"
		"      --buildid-dir D  the build-id cache (default $PERF_BUILDID_DIR or ~/.debug)\n"
		"      --debuginfod-timeout S\n"
		"                       what all debuginfod requests may take together\n"
		"                       (default 30 seconds)\n"
		"      --max-size N     refuse past N bytes before compression (default 256 MiB\n"
		"                       + 1024x the recording's size; 0: no limit)\n"
		"  -v, --verbose        name every file added\n"
		"  -V, --version        jitprof's version\n"
		"  -h, --help           this text\n");
}

static const struct jp_archive_api *la;	/* libarchive, loaded by cmd_archive */

static int add_entry(struct archive *a, const char *path, const void *buf, size_t len,
		     const char *link)
{
	struct archive_entry *e = la->entry_new();
	if (!e)
		return -ENOMEM;
	la->entry_set_pathname(e, path);
	/* Fixed times and owners: the same recording archives to the same bytes. */
	la->entry_set_mtime(e, 0, 0);
	la->entry_set_uid(e, 0);
	la->entry_set_gid(e, 0);
	if (link) {
		la->entry_set_filetype(e, AE_IFLNK);
		la->entry_set_perm(e, 0777);
		la->entry_set_symlink(e, link);
		la->entry_set_size(e, 0);
	} else {
		la->entry_set_filetype(e, AE_IFREG);
		la->entry_set_perm(e, 0644);
		la->entry_set_size(e, (la_int64_t)len);
	}
	int rc = la->write_header(a, e) == ARCHIVE_OK ? 0 : -EIO;
	if (!rc && !link && len && la->write_data(a, buf, len) != (la_ssize_t)len)
		rc = -EIO;
	la->entry_free(e);
	return rc;
}

int archive_add_file(struct archive_job *j, const char *member, const void *buf, size_t len)
{
	return add_entry(j->a, member, buf, len, NULL);
}

/* The recorded name as a relative member path: no leading '/', no "." or ".." parts. */
static int member_dir(const char *name, char *out, size_t len)
{
	while (*name == '/')
		name++;
	if (!*name || strstr(name, "/../") || !strncmp(name, "../", 3) || strstr(name, "/./"))
		return -EINVAL;
	size_t n = strlen(name);
	if ((n >= 3 && !strcmp(name + n - 3, "/..")) || !strcmp(name, ".."))
		return -EINVAL;
	if ((size_t)snprintf(out, len, "%s", name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Whole small file (procfs files have no size: read until EOF). */
int archive_slurp(const char *path, void **buf, size_t *len)
{
	int fd = sio_open_regular(path);	/* a recorded path: never a FIFO or device */
	if (fd < 0)
		return jp_nomem_check(fd, "opening a file to archive");
	/* read(2), not stdio: fread's own buffer, when it cannot be allocated, made a read
	 * that failed and a file taken for one not found (faults_alloc's archive sweep) */
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	int err = 0;
	while (b) {
		ssize_t got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : 0;
			break;
		}
		n += (size_t)got;
		if (n == cap && jp_grow(&b, &cap, cap + 1, 1, 0)) {
			free(b);
			b = NULL;
		}
	}
	close(fd);
	if (!b)	/* every caller would take it for a file not found */
		jp_nomem("reading a file to archive");
	if (err) {
		free(b);
		return jp_nomem_check(err, "reading a file to archive");
	}
	*buf = b;
	*len = n;
	return 0;
}

/* The separate debug file of an ELF, where perf and gdb look for it (the distribution's
 * debug directory under --symfs, or the build-id cache), when its build-id matches. */
static int read_debug_file(const struct archive_job *j, const struct sym_build_id *bid,
			   const char *hex, void **buf, size_t *len)
{
	char cand[2][4200], home[4200];
	const char *cache = j->buildid_dir ? j->buildid_dir : getenv("PERF_BUILDID_DIR");
	snprintf(cand[0], sizeof(cand[0]), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
		 j->symfs ? j->symfs : "", hex, hex + 2);
	if (!cache) {
		snprintf(home, sizeof(home), "%s/.debug", getenv("HOME") ? getenv("HOME") : "");
		cache = home;
	}
	/* the cache's file, opened beneath it without following what is planted inside, and
	 * read through its descriptor */
	int fd = sym_cache_open(cache, bid, NULL, "debug");
	snprintf(cand[1], sizeof(cand[1]), "/proc/self/fd/%d", fd);
	int rc = -ENOENT;
	for (int i = 0; i < 2 && rc; i++) {
		struct sym_build_id got;
		if ((i == 0 || fd >= 0) && !sym_elf_build_id(cand[i], &got, NULL) &&
		    sym_build_id_equal(&got, bid) && !archive_slurp(cand[i], buf, len))
			rc = 0;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The running kernel's symbols, if it is the kernel the recording saw: its build-id note
 * (/sys/kernel/notes) must equal the recorded one. */
static int read_kallsyms(const struct sym_build_id *bid, void **buf, size_t *len)
{
	void *notes;
	size_t nlen, off = 0;
	int match = 0;
	if (archive_slurp("/sys/kernel/notes", &notes, &nlen))
		return -ENOENT;
	const uint8_t *p = notes;
	while (off + 12 <= nlen && !match) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_off = off + 12, desc_off = name_off + ((namesz + 3u) & ~3u);
		if (namesz > nlen || descsz > nlen || desc_off + descsz > nlen)
			break;
		match = type == 3 && namesz == 4 && !memcmp(p + name_off, "GNU", 4) &&
			descsz == bid->size && !memcmp(p + desc_off, bid->data, descsz);
		off = desc_off + ((descsz + 3u) & ~3u);
	}
	free(notes);
	return match ? archive_slurp("/proc/kallsyms", buf, len) : -ENOENT;
}

/* -EFBIG, with the refusal written, when len more bytes would pass the budget. */
int archive_budget_take(struct archive_job *j, size_t len, const char *name)
{
	if (len <= j->max_bytes - j->bytes)
		return 0;
	free(j->refusal);
	if (asprintf(&j->refusal, "refused: the files the recording names pass %" PRIu64 " bytes "
		     "before compression at %s (%s); nothing written, --max-size lifts the limit",
		     j->max_bytes, name,
		     j->max_given ? "--max-size" : "256 MiB + 1024x the recording's size") < 0)
		jp_nomem("an error message");
	return -EFBIG;
}

static int add_dso(struct archive_job *j, struct sym_session *ss, struct sym_dso *d)
{
	const struct sym_build_id *bid = sym_dso_build_id(d);
	char hex[SYM_BUILD_ID_HEX], dir[4096], path[4300], link[4400], target[4400];
	if (!bid || !bid->size)
		return 0;
	sym_build_id_hex(bid, hex);
	void *buf = NULL;
	size_t len = 0;
	const char *found;
	int kernel = sym_dso_is_kernel(d) == 1;
	if ((kernel && read_kallsyms(bid, &buf, &len) < 0) ||
	    (!kernel && (sym_dso_find(ss, d, &found) < 0 ||
			 jp_nomem_check(sym_dso_read_file(ss, d, &buf, &len),
					"reading a file to archive") < 0))) {
		if (!kernel && !is_listed(j, bid)) {
			j->unsampled++;
			if (j->verbose)
				cli_info("%s (%s): not found; no sample landed in it, left out",
					 sym_dso_long_name(d), hex);
			return 0;
		}
		j->missing++;
		if (j->verbose)
			cli_warn("%s (%s): not found, not archived", sym_dso_long_name(d), hex);
		return 0;
	}
	const char *name = kernel ? "[kernel.kallsyms]" : sym_dso_long_name(d);
	/* perf's names: the vdso image is [vdso]/<id>/vdso */
	const char *file = kernel ? "kallsyms" : !strcmp(name, "[vdso]") ? "vdso" : "elf";
	int rc = member_dir(name, dir, sizeof(dir));
	if (!rc)
		rc = archive_budget_take(j, len, name);
	if (!rc) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, hex, file);
		snprintf(link, sizeof(link), ".build-id/%.2s/%s", hex, hex + 2);
		snprintf(target, sizeof(target), "../../%s/%s", dir, hex);
		rc = add_entry(j->a, path, buf, len, NULL);
		if (!rc)
			rc = add_entry(j->a, link, NULL, 0, target);
		/* Local symbols and lines of stripped libraries live in their debug files. */
		void *dbg = NULL;
		size_t dlen = 0;
		if (!rc && !kernel && !read_debug_file(j, bid, hex, &dbg, &dlen) &&
		    !(rc = archive_budget_take(j, len + dlen, name))) {
			snprintf(path, sizeof(path), "%s/%s/debug", dir, hex);
			rc = add_entry(j->a, path, dbg, dlen, NULL);
			len += dlen;
		}
		free(dbg);
	}
	free(buf);
	if (rc == -EINVAL || rc == -ENAMETOOLONG) {
		cli_warn("%s: unusable name, not archived", name);
		return 0;
	}
	if (!rc) {
		j->added++;
		j->bytes += len;
		if (j->verbose)
			cli_info("%s %s", hex, path);
	}
	return rc;
}

static int collect(void *ctx, struct sym_session *ss)
{
	struct archive_job *j = ctx;
	for (struct sym_dso *d = sym_dso_next(ss, NULL); d; d = sym_dso_next(ss, d)) {
		int rc = add_dso(j, ss, d);
		if (rc)
			return rc;
	}
	return archive_add_dumps(j, ss);
}

static void on_report(void *ctx, enum jp_level level, const char *msg)
{
	struct archive_job *j = ctx;
	if (level >= 1 && j->verbose)
		cli_warn("%s", msg);
}

int cmd_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "symfs", required_argument, NULL, 's' },
		{ "buildid-dir", required_argument, NULL, 'b' },
		{ "debuginfod-timeout", required_argument, NULL, 'T' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct archive_job job = { 0 };
	struct rp_ingest_opts in = { .sz = sizeof(struct rp_ingest_opts),
		.input = "perf.data", .finish = collect,
				     .ctx = &job };
	struct cli_log log = { .fn = on_report, .ctx = &job };
	const char *output = NULL;
	int c, force = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fo:vVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': in.input = optarg; break;
		case 'f': force = job.force = 1; break;
		case 'o': output = optarg; break;
		case 's': in.symfs = job.symfs = optarg; break;
		case 'b': in.buildid_dir = job.buildid_dir = optarg; break;
		case 'T':
			if (cli_debuginfod_timeout(optarg, &in.debuginfod_timeout))
				return 2;
			break;
		case 'm': {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return cli_usage_error("--max-size wants a number of bytes, not '%s'",
						       optarg);
			job.max_bytes = v ? (uint64_t)v : UINT64_MAX;
			job.max_given = 1;
			break;
		}
		case 'v': job.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': return cli_version();
		default: return cli_usage_brief(usage);
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	in.force = (size_t)force;	/* the --no-elfs dumps and perf maps it names too */
	if (cli_check_input_owner(in.input, force))
		return 1;
	struct stat ist;
	if (!job.max_given)
		job.max_bytes = ARCHIVE_BUDGET_BASE +
				(strcmp(in.input, "-") && !stat(in.input, &ist) && ist.st_size > 0
				 ? ARCHIVE_BUDGET_RATIO * (uint64_t)ist.st_size : 0);
	char defout[4096];
	if (!output) {
		snprintf(defout, sizeof(defout), "%s.tar.zst", in.input);
		output = defout;
	}
	struct cli_outfile o;
	int rc = cli_refuse_binary_tty(output, "an archive");
	if (rc)
		return rc;
	if (!(la = jp_archive_api(&CLI_LOG(&log), output, "cannot write an archive")))
		return cli_log_done(&log, -ENOTSUP);
	rc = cli_outfile_open(&o, output);
	if (rc)
		return cli_error("%s: %s", output, sio_strerror(rc));
	job.a = la->write_new();
	if (!job.a || la->write_add_filter_zstd(job.a) != ARCHIVE_OK ||
	    la->write_set_format_pax_restricted(job.a) != ARCHIVE_OK ||
	    la->write_open_fd(job.a, o.fd) != ARCHIVE_OK) {
		cli_outfile_abort(&o);
		rc = cli_error("%s: cannot start the archive: %s", output,
			       job.a ? la->error_string(job.a) : "out of memory");
		la->write_free(job.a);
		return rc;
	}
	struct rp_session *s;
	char *close_err = NULL;	/* libarchive's reason, whole */
	in.log = CLI_LOG(&log);
	read_listed(&job, in.input);
	if (rp_session_new(&s)) {
		rc = -ENOMEM;
	} else {
		rc = rp_ingest(s, &in);
		rp_session_free(s);
	}
	int ingest_rc = rc;
	free(job.listed);
	if (la->write_close(job.a) != ARCHIVE_OK && !rc) {
		const char *why = la->error_string(job.a);
		if (!(close_err = strdup(why ? why : "cannot finish the archive")))
			jp_nomem("an error message");
		rc = -EIO;
	}
	la->write_free(job.a);
	if (rc)
		cli_outfile_abort(&o);
	if (ingest_rc == -EFBIG && job.refusal) {
		free(close_err);
		cli_log_done(&log, 0);
		rc = cli_error("%s: %s", output, job.refusal);
		free(job.refusal);
		return rc;
	}
	free(job.refusal);
	if (cli_log_done(&log, ingest_rc)) {
		free(close_err);
		return 1;
	}
	if (rc) {
		rc = close_err ? cli_error("%s: %s", output, close_err)
			       : cli_error("%s", strerror(-rc));
		free(close_err);
		return rc;
	}
	if ((rc = cli_outfile_commit(&o)))
		return cli_error("%s: %s", output, sio_strerror(rc));
	fprintf(stderr, "%s: %zu file%s (%zu bytes before compression)", output, job.added,
		job.added == 1 ? "" : "s", job.bytes);
	if (job.dumps)	/* report --archive --generations reads them */
		fprintf(stderr, "; %zu jitdump%s", job.dumps, job.dumps == 1 ? "" : "s");
	if (job.missing)
		fprintf(stderr, "; %zu recorded build-id%s not found (-v names them)", job.missing,
			job.missing == 1 ? "" : "s");
	/* Mostly jitted generations no sample touched, which inject made no ELF for. */
	if (job.unsampled)
		fprintf(stderr, "; %zu file%s no sample landed in left out (not found, not needed)",
			job.unsampled, job.unsampled == 1 ? "" : "s");
	fputc('\n', stderr);
	return 0;
}
