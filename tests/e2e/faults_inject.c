/* faults_inject.c - issue 8's inject faults, end to end on inject-gen runs (a dump and a
 * recording whose samples are known): a recording truncated at every kind of place or with a
 * damaged record is injected up to the damage into a file perf reads (or refused with no file
 * left); a read-only build-id cache is a warning naming it while the ELFs beside the dump are
 * still written; an ELF in the cache replaced by another is refused by report and repaired by
 * the next inject; symlinks planted where inject writes ELFs are replaced, never written
 * through. */
#include "tests/e2e/faults_util.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/wait.h>

struct gen {
	char *dir;
	char data[512], out[512], cache[512], dump[512];
	unsigned long pid;
};

static void gen_run(struct gen *g, const char *loads, const char *samples)
{
	struct tu_result r;
	memset(g, 0, sizeof(*g));
	g->dir = tu_tmpdir("faults-inj");
	cr_assert_not_null(g->dir);
	snprintf(g->data, sizeof(g->data), "%s/perf.data", g->dir);
	snprintf(g->out, sizeof(g->out), "%s/out.data", g->dir);
	snprintf(g->cache, sizeof(g->cache), "%s/cache", g->dir);
	char *argv[] = { (char *)tu_build("inject-gen"), "--dir", g->dir, "-o", g->data,
			 "--loads", (char *)loads, "--samples", (char *)samples, NULL };
	iu_run(&r, argv, NULL, 120);
	cr_assert_eq(r.status, 0, "inject-gen: %s", r.err);
	char *p = strstr(r.out, "dump ");
	cr_assert(p && sscanf(p, "dump %511s", g->dump) == 1, "no dump named: %s", r.out);
	tu_result_free(&r);
	const char *b = strrchr(g->dump, '/');
	cr_assert(b && sscanf(b, "/jit-%lu.dump", &g->pid) == 1);
}

/* A run of 40 loads and 400 samples; its recording's bytes (and counts in *in). */
static char *gen_bytes(struct gen *g, struct fu_counts *in, size_t *len)
{
	gen_run(g, "40", "400");
	fu_assert_reads_clean(g->data, in);
	char *bytes = tu_read_file(g->data, len);
	cr_assert_not_null(bytes);
	return bytes;
}

static void gen_free(struct gen *g)
{
	tu_rmtree(g->dir);
	free(g->dir);
}

static void inject(struct tu_result *r, const struct gen *g, const char *in, const char *out)
{
	char *argv[] = { (char *)tu_build("jitprof"), "inject", "--jit", "-i", (char *)in, "-o",
			 (char *)out, "--buildid-dir", (char *)g->cache, NULL };
	iu_run(r, argv, NULL, 120);
}

static void inject_ok(const struct gen *g)
{
	struct tu_result r;
	inject(&r, g, g->data, g->out);
	cr_assert_eq(r.status, 0, "jitprof inject: %s", r.err);
	tu_result_free(&r);
}

/* After a refused run: no output and no temp file beside it. */
static void assert_nothing_left(const struct gen *g, const char *out)
{
	struct stat sb;
	const char *base = strrchr(out, '/') + 1;
	cr_assert_neq(stat(out, &sb), 0, "%s left behind by a refused run", out);
	cr_assert_eq(fu_count_files(g->dir, base), 0, "a temp file of %s left behind", base);
}

/* One damaged input: inject either refuses with the file's name and leaves nothing, or
 * salvages (a warning naming the file and an offset) into a file both readers take whole
 * (exit 0, or 3 when no jitdump marker survived).
 * must_say: what a salvaging run's warnings must contain (NULL: nothing in particular). */
static void check_damaged(const struct gen *g, const char *in, const char *out, int in_data,
			  size_t max_samples, const char *must_say)
{
	struct tu_result r;
	struct fu_counts c;
	const char *base = strrchr(in, '/') + 1;
	inject(&r, g, in, out);
	/* 3: salvaged, but the damage took every marker, so nothing was injected (the output
	 * is still written, a faithful copy of what could be read). */
	if (r.status == 3)
		cr_assert(strstr(r.err, "nothing injected"), "exit 3 without saying why: %s", r.err);
	if (r.status != 0 && r.status != 3) {
		cr_assert(strstr(r.err, base), "the error names the input: %s", r.err);
		cr_assert_not(in_data, "damage inside the data section is salvaged: %s", r.err);
		assert_nothing_left(g, out);
	} else {
		if (in_data)
			cr_assert(strstr(r.err, "warning") && strstr(r.err, base) &&
				  strstr(r.err, "offset "), "no warning naming %s and the offset: %s",
				  base, r.err);
		if (must_say)
			cr_assert(strstr(r.err, must_say) && strstr(r.err, base), "no warning "
				  "naming %s and saying '%s': %s", base, must_say, r.err);
		fu_assert_reads_clean(out, &c);
		cr_assert_leq(c.samples, max_samples);
		cr_assert_eq(fu_perf_reads(out, g->cache), c.samples,
			     "perf script and our reader disagree on %s", out);
	}
	tu_result_free(&r);
}

/* jitprof report on a damaged recording: must_say "" = refused with an error naming the file
 * once; otherwise it reports (exit 0) with a warning naming the file that says must_say. */
static void check_report(const struct gen *g, const char *in, const char *must_say)
{
	struct tu_result r;
	const char *base = strrchr(in, '/') + 1;
	char *argv[] = { (char *)tu_build("jitprof"), "report", "-i", (char *)in, "--stdio",
			 "--buildid-dir", (char *)g->cache, NULL };
	iu_run(&r, argv, g->cache, 120);
	if (must_say && !*must_say) {
		cr_assert_neq(r.status, 0, "report took a cut header: %s", r.err);
		cr_assert_eq(tu_count(r.err, base), 1, "the error names %s once: %s", base, r.err);
	} else {
		cr_assert_eq(r.status, 0, "%s", r.err);
		if (must_say)
			cr_assert(strstr(r.err, base) && strstr(r.err, must_say), "no warning "
				  "naming %s and saying '%s': %s", base, must_say, r.err);
	}
	tu_result_free(&r);
}

Test(faults_inject, truncated_recording_is_salvaged_or_refused_cleanly, .timeout = 120)
{
	struct gen g;
	struct fu_counts in;
	size_t len;
	char *bytes = gen_bytes(&g, &in, &len);
	struct pd_reader *r = NULL;
	cr_assert_eq(pd_reader_open(&r, g.data, NULL), 0);
	uint64_t d0 = pd_reader_data_offset(r), d1 = d0 + pd_reader_data_size(r);
	pd_reader_close(r);
	/* Header, attrs, the first record, across the data (aligned and not), the feature
	 * table and the very end. */
	uint64_t cuts[24];
	size_t n = 0;
	cuts[n++] = 0;
	cuts[n++] = 60;
	cuts[n++] = d0 - 8;
	cuts[n++] = d0 + 4;
	for (int k = 1; k <= 12; k++)
		cuts[n++] = d0 + (d1 - d0) * (uint64_t)k / 13 + (k & 1) * 3;
	cuts[n++] = d1;
	cuts[n++] = d1 + 8;
	cuts[n++] = len - 3;
	char cut[600], out[600];
	snprintf(cut, sizeof(cut), "%s/cut.data", g.dir);
	snprintf(out, sizeof(out), "%s/cut-out.data", g.dir);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(tu_write_file(cut, bytes, cuts[i]), 0);
		unlink(out);
		check_damaged(&g, cut, out, cuts[i] > d0 && cuts[i] < d1, in.samples,
			      cuts[i] >= d1 && cuts[i] < len ? "feature section" : NULL);
		check_report(&g, cut, cuts[i] < d0 ? "" : cuts[i] < d1 ? "offset " :
				      cuts[i] < len ? "feature section" : NULL);
	}
	free(bytes);
	gen_free(&g);
}

/* A recording perf record never finalized (killed): data size 0 in the header and nothing
 * after the data. inject and report read it all, and say why it has no build-ids. */
Test(faults_inject, unfinished_recording_is_read_and_said, .timeout = 120)
{
	struct gen g;
	struct fu_counts in, c;
	size_t len;
	char *bytes = gen_bytes(&g, &in, &len);
	struct pd_reader *r = NULL;
	cr_assert_eq(pd_reader_open(&r, g.data, NULL), 0);
	uint64_t d0 = pd_reader_data_offset(r), d1 = d0 + pd_reader_data_size(r), zero = 0;
	pd_reader_close(r);
	memcpy(bytes + 48, &zero, sizeof(zero));	/* perf_file_header.data.size */
	char cut[600], out[600];
	snprintf(cut, sizeof(cut), "%s/unfinished.data", g.dir);
	snprintf(out, sizeof(out), "%s/unfinished-out.data", g.dir);
	cr_assert_eq(tu_write_file(cut, bytes, d1), 0);
	check_damaged(&g, cut, out, 0, in.samples, "perf record did not finish it");
	fu_assert_reads_clean(out, &c);
	cr_assert_eq(c.samples, in.samples, "samples lost from an unfinished recording");
	check_report(&g, cut, "perf record did not finish it");
	free(bytes);
	gen_free(&g);
}

/* Fuzz finding F5: a record whose size runs past the data section, or is below a header. */
Test(faults_inject, damaged_record_is_salvaged_up_to_it, .timeout = 120)
{
	struct gen g;
	struct fu_counts in;
	size_t len;
	char *bytes = gen_bytes(&g, &in, &len);
	/* the offsets of the first, a middle and the last record */
	struct pd_reader *r = NULL;
	struct pd_event ev;
	uint64_t offs[3] = { 0 }, k = 0, samples_before[3] = { 0 }, samples = 0;
	cr_assert_eq(pd_reader_open(&r, g.data, NULL), 0);
	while (pd_reader_next(r, &ev) == 1) {
		if (k == 0 || k == in.records / 2 || k == in.records - 1) {
			int i = k == 0 ? 0 : k == in.records - 1 ? 2 : 1;
			offs[i] = ev.offset;
			samples_before[i] = samples;
		}
		samples += ev.type == PERF_RECORD_SAMPLE;
		k++;
	}
	pd_reader_close(r);
	char bad[600], out[600];
	snprintf(bad, sizeof(bad), "%s/bad.data", g.dir);
	snprintf(out, sizeof(out), "%s/bad-out.data", g.dir);
	static const uint16_t sizes[] = { 0xfff8, 4, 0 };
	for (int i = 0; i < 3; i++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			char *b = malloc(len);
			memcpy(b, bytes, len);
			memcpy(b + offs[i] + 6, &sizes[s], 2);	/* perf_event_header.size */
			cr_assert_eq(tu_write_file(bad, b, len), 0);
			free(b);
			unlink(out);
			check_damaged(&g, bad, out, 1, in.samples, NULL);
			struct fu_counts c;
			fu_assert_reads_clean(out, &c);
			/* every size here is damage at that very record */
			cr_assert_eq(c.samples, samples_before[i],
				      "record %d, size %u: %zu samples out, %llu before the damage",
				      i, sizes[s], c.samples, (unsigned long long)samples_before[i]);
		}
	}
	free(bytes);
	gen_free(&g);
}

/* The fuzz regression input itself, through the command: no dump, nothing before the damage. */
Test(faults_inject, f5_regression_input_gives_a_file_perf_reads, .timeout = 60)
{
	struct gen g;
	gen_run(&g, "1", "1");
	size_t len;
	char *bytes = tu_read_file("tests/fuzz/regressions/inject/damaged-record-gives-invalid-output",
				   &len);
	cr_assert(bytes && len > 4);
	uint32_t plen;
	memcpy(&plen, bytes, 4);
	if (plen > len - 4)	/* the fuzz target's rule: the rest of the input */
		plen = (uint32_t)(len - 4);
	char in[600], out[600];
	snprintf(in, sizeof(in), "%s/f5.data", g.dir);
	snprintf(out, sizeof(out), "%s/f5-out.data", g.dir);
	cr_assert_eq(tu_write_file(in, bytes + 4, plen), 0);
	free(bytes);
	check_damaged(&g, in, out, 1, 0, NULL);
	gen_free(&g);
}

/* Runs inject as nobody when we are root (root ignores directory modes). */
static int inject_unprivileged(struct tu_result *r, const struct gen *g, const char *out,
			       const char *cache)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "%sDEBUGINFOD_URLS= '%s' inject --jit -i '%s' -o '%s' "
		 "--buildid-dir '%s'", geteuid() == 0 ? "runuser -u nobody -- env " : "",
		 tu_build("jitprof"), g->data, out, cache);
	return tu_sh(r, cmd, 120);
}

Test(faults_inject, read_only_cache_is_a_warning_and_the_dump_dir_gets_the_elfs, .timeout = 120)
{
	if (geteuid() == 0 && !tu_have("runuser"))
		cr_skip_test("needs runuser to drop root");
	struct gen g;
	gen_run(&g, "30", "300");
	char ro[600];
	snprintf(ro, sizeof(ro), "%s/ro-cache", g.dir);
	cr_assert_eq(mkdir(ro, 0755), 0);
	cr_assert_eq(chmod(ro, 0555), 0);
	/* nobody may read the run and write the output and the ELFs beside the dump: the
	 * directory is nobody's (inject writes beside a dump only in the runner's own). */
	struct passwd *nobody = geteuid() == 0 ? getpwnam("nobody") : NULL;
	if (geteuid() == 0)
		cr_assert(nobody && chown(g.dir, nobody->pw_uid, (gid_t)-1) == 0);
	cr_assert_eq(chmod(g.dir, 0755), 0);
	cr_assert_eq(chmod(g.data, 0644), 0);
	struct tu_result r;
	cr_assert_eq(inject_unprivileged(&r, &g, g.out, ro), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "warning") && strstr(r.err, ro) &&
		  strstr(r.err, "Permission denied"), "the warning names the cache: %s", r.err);
	tu_result_free(&r);
	cr_assert_eq(fu_count_files(ro, ""), 2, "something was written into the read-only cache");
	cr_assert_gt(fu_count_files(g.dir, "jitted-"), 0, "no ELF beside the dump");
	cr_assert_eq(fu_count_files(g.dir, ".tmp"), 0, "temp files left behind");
	struct fu_counts c;
	fu_assert_reads_clean(g.out, &c);
	/* the ELFs beside the dump name the jitted samples without a cache */
	char *argv[] = { "perf", "report", "-f", "-i", g.out, "--stdio", "--sort", "dso,sym",
			 NULL };
	iu_run(&r, argv, ro, 120);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "jitted-") && strstr(r.out, "bench."), "%.2000s", r.out);
	tu_result_free(&r);

	/* Neither the cache nor the dump directory writable: as perf inject, a warning and an
	 * output that still reads whole; its jitted samples stay unnamed. */
	char outdir[600], out2[700];
	snprintf(outdir, sizeof(outdir), "%s/out", g.dir);
	snprintf(out2, sizeof(out2), "%s/o.data", outdir);
	cr_assert_eq(mkdir(outdir, 0777), 0);
	cr_assert_eq(chmod(outdir, 0777), 0);
	char rm[700];
	snprintf(rm, sizeof(rm), "rm -f '%s'/jitted-*", g.dir);
	cr_assert_eq(tu_sh(&r, rm, 10), 0);
	tu_result_free(&r);
	cr_assert_eq(chmod(g.dir, 0555), 0);
	cr_assert_eq(inject_unprivileged(&r, &g, out2, ro), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "could not be written") && strstr(r.err, "Permission denied"),
		  "%s", r.err);
	tu_result_free(&r);
	cr_assert_eq(fu_count_files(g.dir, "jitted-"), 0);
	fu_assert_reads_clean(out2, &c);
	cr_assert_gt(c.samples, 0);
	chmod(ro, 0755);
	gen_free(&g);
}

/* The cache path of the ELF of jitted-PID-CI.so (one build-id directory under it). */
static void cache_elf(const struct gen *g, unsigned long ci, char *buf, size_t len)
{
	char dir[1200];
	snprintf(dir, sizeof(dir), "%s%s/jitted-%lu-%lu.so", g->cache, g->dir, g->pid, ci);
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d)) && e->d_name[0] == '.')
		;
	cr_assert_not_null(e, "%s is empty", dir);
	snprintf(buf, len, "%s/%s/elf", dir, e->d_name);
	closedir(d);
}

Test(faults_inject, replaced_cache_elf_is_refused_by_report_and_repaired_by_inject,
     .timeout = 120)
{
	struct gen g;
	gen_run(&g, "20", "400");
	inject_ok(&g);
	char elf1[2000], elf2[2000], own1[600], own2[600], keep[600];
	cache_elf(&g, 1, elf1, sizeof(elf1));
	cache_elf(&g, 2, elf2, sizeof(elf2));
	snprintf(own1, sizeof(own1), "%s/jitted-%lu-1.so", g.dir, g.pid);
	snprintf(own2, sizeof(own2), "%s/jitted-%lu-2.so", g.dir, g.pid);
	snprintf(keep, sizeof(keep), "%s/keep.so", g.dir);
	size_t n;
	char *b = tu_read_file(elf1, &n);
	cr_assert_eq(tu_write_file(keep, b, n), 0);
	free(b);
	/* generation 1's ELF becomes generation 2's, in the cache and beside the dump */
	b = tu_read_file(elf2, &n);
	cr_assert_eq(unlink(elf1), 0);
	cr_assert_eq(tu_write_file(elf1, b, n), 0);
	cr_assert_eq(unlink(own1), 0);
	cr_assert_eq(tu_write_file(own1, b, n), 0);
	free(b);
	struct tu_result r;
	char *argv[] = { (char *)tu_build("jitprof"), "report", "-i", g.out, "--stdio",
			 "--buildid-dir", g.cache, "--sort", "dso,sym", NULL };
	iu_run(&r, argv, g.cache, 120);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "differs from the recorded build-id"), "%s", r.err);
	cr_assert(strstr(r.err, own1), "the warning names the DSO: %s", r.err);
	/* generation 1's samples must not be credited with generation 2's symbol */
	char row1[128];
	snprintf(row1, sizeof(row1), "jitted-%lu-1.so", g.pid);
	for (char *l = strstr(r.out, row1); l; l = strstr(l + 1, row1)) {
		char *eol = strchr(l, '\n');
		size_t ll = eol ? (size_t)(eol - l) : strlen(l);
		cr_assert_null(memmem(l, ll, "m1(", 3), "wrong symbol for %s: %.*s", row1, (int)ll,
			       l);
	}
	tu_result_free(&r);
	/* the next inject puts the right bytes back in both places */
	inject_ok(&g);
	cr_assert(fu_same_bytes(elf1, keep), "the cache entry was not repaired");
	cr_assert(fu_same_bytes(own1, keep), "the file beside the dump was not repaired");
	cr_assert(fu_same_bytes(own2, elf2));
	gen_free(&g);
}

Test(faults_inject, planted_symlinks_are_replaced_not_written_through, .timeout = 120)
{
	struct gen g;
	gen_run(&g, "10", "200");
	inject_ok(&g);	/* learn the names, then start over with traps in every one */
	char victim[600], elf[2000], own[600], lnk[1400];
	snprintf(victim, sizeof(victim), "%s/victim", g.dir);
	cr_assert_eq(tu_write_file(victim, "victim", 6), 0);
	for (unsigned long ci = 1; ci <= 10; ci++) {
		cache_elf(&g, ci, elf, sizeof(elf));
		snprintf(own, sizeof(own), "%s/jitted-%lu-%lu.so", g.dir, g.pid, ci);
		cr_assert_eq(unlink(elf), 0);
		cr_assert_eq(symlink(victim, elf), 0);
		cr_assert_eq(unlink(own), 0);
		cr_assert_eq(symlink(victim, own), 0);
	}
	/* and the .build-id links point at the victim too */
	char bid[600];
	snprintf(bid, sizeof(bid), "%s/.build-id", g.cache);
	DIR *d = opendir(bid);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char sub[900];
		snprintf(sub, sizeof(sub), "%s/%s", bid, e->d_name);
		DIR *s = opendir(sub);
		for (struct dirent *f; s && (f = readdir(s));) {
			if (f->d_name[0] == '.')
				continue;
			snprintf(lnk, sizeof(lnk), "%s/%s", sub, f->d_name);
			cr_assert_eq(unlink(lnk), 0);
			cr_assert_eq(symlink(victim, lnk), 0);
		}
		if (s)
			closedir(s);
	}
	closedir(d);
	unlink(g.out);
	inject_ok(&g);
	size_t n;
	char *b = tu_read_file(victim, &n);
	cr_assert(b && n == 6 && !memcmp(b, "victim", 6), "the planted symlinks were followed");
	free(b);
	for (unsigned long ci = 1; ci <= 10; ci++) {
		cache_elf(&g, ci, elf, sizeof(elf));
		snprintf(own, sizeof(own), "%s/jitted-%lu-%lu.so", g.dir, g.pid, ci);
		cr_assert_not(fu_is_symlink(elf), "%s is still the planted symlink", elf);
		cr_assert_not(fu_is_symlink(own), "%s is still the planted symlink", own);
		cr_assert(fu_same_bytes(elf, own));
	}
	gen_free(&g);
}
