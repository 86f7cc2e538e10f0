/* synth_perf.c - perf itself resolves source lines through synth's ELFs.
 *
 * How, without depending on jitprof inject: minijit runs under `perf record -k mono`, and
 * `perf inject --jit` writes perf's own jitted-PID-N.so files and MMAP2s. Then each of those
 * files is replaced by synth's ELF for the same code load (same path), and the two places where
 * perf's recording ties that path to perf's file are pointed at ours, as jitprof inject would
 * write them: the build-id table (HEADER_BUILD_ID entries of those paths get our ids; perf
 * refuses a file whose id differs) and the MMAP2 pgoff (our .text offset instead of perf's
 * 0x80). The build-id cache is private to the test and emptied, so perf opens our files by
 * path, checks their build-ids, and reads their DWARF for `--sort srcline`. */
#include <limits.h>
#include <stdint.h>

#include "tests/e2e/synth_util.h"

#define FEAT_BUILD_ID 2
#define REC_MMAP2 10

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static const struct su_load *load_of(const struct su_set *s, const char *dir, const char *path)
{
	size_t dl = strlen(dir);
	if (strncmp(path, dir, dl) || path[dl] != '/')
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		const char *base = strrchr(s->v[i].path, '/') + 1;
		if (!strcmp(path + dl + 1, base))
			return &s->v[i];
	}
	return NULL;
}

/* Points the recording's build-id entries and MMAP2s of dir/jitted-*.so at our ELFs. */
static void retarget(uint8_t *d, size_t len, const struct su_set *s, const char *dir)
{
	cr_assert(len > 104 && !memcmp(d, "PERFILE2", 8), "not a perf.data file");
	uint64_t data_off = rd64(d + 40), data_size = rd64(d + 48);
	cr_assert(data_off <= len && data_size <= len - data_off);
	size_t ids = 0, maps = 0;
	for (uint64_t o = data_off; o + 8 <= data_off + data_size;) {
		uint32_t type;
		uint16_t size;
		memcpy(&type, d + o, 4);
		memcpy(&size, d + o + 6, 2);
		cr_assert(size >= 8 && o + size <= data_off + data_size, "event at %lu",
			  (unsigned long)o);
		const struct su_load *l;
		if (type == REC_MMAP2 && size > 72 && (l = load_of(s, dir, (char *)d + o + 72))) {
			uint64_t pgoff = l->elf.text_offset;
			memcpy(d + o + 32, &pgoff, 8);
			maps++;
		}
		o += size;
	}
	/* Feature sections follow the data, one {offset, size} per set bit, in bit order. */
	uint64_t feats = rd64(d + 72);
	cr_assert(feats & (1u << FEAT_BUILD_ID), "no build-id table in the recording");
	unsigned idx = (unsigned)__builtin_popcountll(feats & ((1u << FEAT_BUILD_ID) - 1));
	const uint8_t *sec = d + data_off + data_size + 16 * idx;
	uint64_t bo = rd64(sec), bsize = rd64(sec + 8);
	cr_assert(bo <= len && bsize <= len - bo);
	for (uint64_t o = bo; o + 8 <= bo + bsize;) {
		uint16_t size;
		memcpy(&size, d + o + 6, 2);
		cr_assert(size >= 36 && o + size <= bo + bsize);
		const struct su_load *l = load_of(s, dir, (char *)d + o + 36);
		if (l) {
			memcpy(d + o + 12, l->elf.build_id, SYNTH_BUILD_ID_SIZE);
			ids++;
		}
		o += size;
	}
	cr_assert_geq(maps, s->n, "MMAP2s of our loads (a MOVE adds one): %zu of %zu", maps, s->n);
	cr_assert_eq(ids, s->n, "build-id entries of our loads: %zu of %zu", ids, s->n);
}

static int has_line(const struct su_load *l, int line)
{
	for (size_t i = 0; i < l->in.nr_lines; i++)
		if (l->in.lines[i].line == line)
			return 1;
	return 0;
}

Test(synth_perf, perf_report_srcline_through_our_elfs, .timeout = 180)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
	char *dir = tu_tmpdir("synth-perf");
	char minijit[4096];
	cr_assert_not_null(realpath(tu_build("minijit"), minijit), "minijit not built");
	struct tu_result r;
	/* A private HOME: perf's build-id cache lives in the test directory. */
	su_sh(&r, "cd %s && HOME=%s perf record -q -k mono -e cpu-clock -o perf.data -- "
		  "%s --dir %s --seconds 0.3", dir, dir, minijit, dir);
	cr_assert_eq(r.status, 0, "perf record: %s", r.err);
	tu_result_free(&r);
	su_sh(&r, "cd %s && HOME=%s perf inject --jit -i perf.data -o perf.jit.data", dir, dir);
	cr_assert_eq(r.status, 0, "perf inject: %s", r.err);
	tu_result_free(&r);

	char *dump = su_find_dump(dir), out[4096];
	snprintf(out, sizeof(out), "%s/ours", dir);
	struct su_set s;
	su_synth(&s, dump, out);
	for (size_t i = 0; i < s.n; i++) {
		const char *base = strrchr(s.v[i].path, '/');
		su_sh(&r, "cp %s %s%s && rm -rf %s/.debug", s.v[i].path, dir, base, dir);
		cr_assert_eq(r.status, 0, "%s", r.err);
		tu_result_free(&r);
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/perf.jit.data", dir);
	size_t len;
	uint8_t *d = tu_read_file(path, &len);
	cr_assert_not_null(d);
	retarget(d, len, &s, dir);
	snprintf(path, sizeof(path), "%s/perf.ours.data", dir);
	cr_assert_eq(tu_write_file(path, d, len), 0);
	free(d);

	su_sh(&r, "cd %s && HOME=%s perf buildid-list -i perf.ours.data", dir, dir);
	for (size_t i = 0; i < s.n; i++) {
		char hex[SYNTH_BUILD_ID_HEX];
		synth_build_id_hex(s.v[i].elf.build_id, hex);
		cr_assert_not_null(strstr(r.out, hex), "buildid-list lacks %s:\n%s", hex, r.out);
	}
	tu_result_free(&r);
	su_sh(&r, "cd %s && HOME=%s perf report -i perf.ours.data --stdio -q --sort dso,srcline "
		  "2>&1", dir, dir);
	cr_assert_eq(r.status, 0, "perf report: %s", r.out);
	/* Every jitted row: "pct%  jitted-PID-N.so  toy.mjs:LINE" with a line of that load. */
	size_t rows = 0;
	double pct = 0;
	for (char *ln = strtok(r.out, "\n"); ln; ln = strtok(NULL, "\n")) {
		char dso[256], src[512];
		double p;
		if (sscanf(ln, " %lf%% %255s %511s", &p, dso, src) != 3 || strncmp(dso, "jitted-", 7))
			continue;
		char full[4096];
		snprintf(full, sizeof(full), "%s/%s", dir, dso);
		const struct su_load *l = load_of(&s, dir, full);
		cr_assert_not_null(l, "row of an unknown DSO: %s", ln);
		cr_assert(!strncmp(src, "toy.mjs:", 8), "unresolved srcline: %s", ln);
		cr_assert(has_line(l, atoi(src + 8)), "line not in %s's table: %s", dso, ln);
		rows++;
		pct += p;
	}
	cr_assert_gt(rows, 0, "no jitted rows");
	cr_assert_gt(pct, 50.0, "jitted code got only %.1f%% of the samples", pct);
	tu_result_free(&r);
	/* Symbols come from our .symtab. */
	su_sh(&r, "cd %s && HOME=%s perf report -i perf.ours.data --stdio -q --sort dso,sym 2>&1",
	      dir, dir);
	cr_assert(strstr(r.out, "[.] checksum"), "no checksum symbol:\n%s", r.out);
	tu_result_free(&r);
	su_free(&s);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}
