/* jitdump_cmd.c - `jitprof jitdump` as a user runs it: every record on its own line with its
 * offset, --json that parses, --stats per type and per method name, the companion file, a
 * truncated dump (warning, exit 0) and a damaged one (error with offset, exit 1). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"

#define FIXTURE "../shared/fixtures/perf-jvmti/jit-27543.dump"

/* the same name as a Python string literal */
#define OTHER_PY "other\\x01\\x9b\\u202etxt.exe\\u2028"
#define OTHER "other\x01\xc2\x9b\xe2\x80\xaetxt.exe\xe2\x80\xa8"

static char dump[4096];
static char *dir;

/* 3 loads of "m" (3 generations), 1 of "other" (with a control byte, a C1 control, a
 * right-to-left override and a line separator in its name), lines, a move, companion data. */
static void make_dump(void)
{
	dir = tu_tmpdir("jdcmd");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint8_t code[32] = { 0xc3 };
	struct jd_line lines[] = { { 0x1000, 3, 0, "m.c" }, { 0x1008, 4, 0, "m.c" } };
	struct jd_ext_load_info info = { .generation = 1, .tier = JD_TIER_C1, .level = 3 };
	/* the last one in LOAD_INFO version 2, with HotSpot's compile id and OSR bci */
	struct jd_ext_load_info v2 = { .generation = 3, .tier = JD_TIER_C2, .level = 4,
				       .flags = JD_LOAD_IDS | JD_LOAD_OSR, .compile_id = 42,
				       .osr_bci = 7 };
	for (int i = 0; i < 3; i++) {
		struct jd_load_desc d = { .name = "m", .code_addr = 0x1000, .code = code,
					  .code_size = 10u + (unsigned)i, .lines = lines,
					  .nr_lines = 2, .info = i == 2 ? &v2 : &info };
		cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	}
	struct jd_load_desc d = { .name = OTHER, .code_addr = 0x2000, .code = code,
				  .code_size = 32 };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	struct jd_code_move m = { .old_code_addr = 0x2000, .new_code_addr = 0x3000,
				  .code_size = 32, .code_index = 4 };
	cr_assert_eq(jd_write_move(w, &m, 0), 0);
	struct jd_ext_unload u = { .code_index = 1 };
	cr_assert_eq(jd_write_unload(w, &u, 0), 0);
	snprintf(dump, sizeof(dump), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
}

static void cleanup(void)
{
	tu_rmtree(dir);
	free(dir);
}

static struct tu_result run(const char *a1, const char *a2, const char *file)
{
	char *argv[6];
	int n = 0;
	argv[n++] = (char *)tu_build("jitprof");
	argv[n++] = (char *)"jitdump";
	if (a1)
		argv[n++] = (char *)a1;
	if (a2)
		argv[n++] = (char *)a2;
	argv[n++] = (char *)file;
	argv[n] = NULL;
	struct tu_result r;
	cr_assert_eq(tu_run(&r, argv, NULL, NULL, 0, 60), 0);
	return r;
}

static size_t lines_starting(const char *out, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += !strncmp(l, prefix, pl);
	return n;
}

TestSuite(jitdump_cmd, .init = make_dump, .fini = cleanup);

Test(jitdump_cmd, help)
{
	struct tu_result r = run("--help", NULL, "x");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "--stats") && strstr(r.out, "--json"));
	tu_result_free(&r);
}

Test(jitdump_cmd, every_record_one_line)
{
	struct tu_result r = run(NULL, NULL, dump);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.err, "");
	/* 3x(DEBUG_INFO, LOAD) + LOAD + MOVE + CLOSE */
	cr_assert_eq(lines_starting(r.out, "@"), 9, "%s", r.out);
	cr_assert_eq(tu_count(r.out, "CODE_DEBUG_INFO"), 3);
	cr_assert_eq(tu_count(r.out, "file=m.c line=4"), 3);
	cr_assert(strstr(r.out, "@40 "), "first record not at offset 40:\n%s", r.out);
	cr_assert(strstr(r.out, "name=other\\x01\\u009b\\u202etxt.exe\\u2028\n"),
		  "control characters not escaped:\n%s", r.out);
	cr_assert(!strstr(r.out, "\xe2\x80") && !strstr(r.out, "\xc2\x9b"), "%s", r.out);
	cr_assert(strstr(r.out, "new_code_addr=0x3000"));
	char pid[64];
	snprintf(pid, sizeof(pid), "pid=%d", (int)getpid());
	cr_assert(strstr(r.out, pid));
	tu_result_free(&r);
}

Test(jitdump_cmd, json_parses)
{
	struct tu_result r = run("--json", "--companion", dump);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(tu_count(r.out, "\"type\":"), 9 + 4, "%s", r.out);
	cr_assert_eq(tu_count(r.out, "\"type\":\"LOAD_INFO\""), 3);
	cr_assert_eq(tu_count(r.out, "\"type\":\"UNLOAD\""), 1);
	/* the name's controls as \uXXXX escapes, none raw (issue 34 finding 12) */
	cr_assert(strstr(r.out, "\"other\\u0001\\u009b\\u202etxt.exe\\u2028\""), "%s", r.out);
	cr_assert(!strstr(r.out, "\xe2\x80") && !strstr(r.out, "\xc2\x9b"), "%s", r.out);
	if (tu_have("python3")) {
		char path[4200], cmd[8600];
		snprintf(path, sizeof(path), "%s/out.json", dir);
		cr_assert_eq(tu_write_file(path, r.out, r.out_len), 0);
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
			 "print(len(d[\"records\"]), len(d[\"companion\"][\"records\"]),"
			 " d[\"records\"][0][\"entries\"][1][\"line\"],"
			 " [r[\"name\"] for r in d[\"records\"] if r.get(\"name\", \"\").startswith("
			 "\"other\")] == [\"" OTHER_PY "\"])' %s", path);
		struct tu_result p;
		cr_assert_eq(tu_sh(&p, cmd, 60), 0);
		cr_assert_eq(p.status, 0, "invalid JSON: %s", p.err);
		cr_assert_str_eq(p.out, "9 4 4 True\n", "the name comes back from the JSON");
		tu_result_free(&p);
	}
	tu_result_free(&r);
}

Test(jitdump_cmd, companion_ids_by_version)
{
	struct tu_result r = run("--companion", NULL, dump);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(tu_count(r.out, "info_version=1 compile_id=unknown osr_bci=none"), 2, "%s",
		     r.out);
	cr_assert(strstr(r.out, "size=56"), "%s", r.out);
	cr_assert(strstr(r.out, "level=4 flags=6 info_version=2 compile_id=42 osr_bci=7"), "%s",
		  r.out);
	tu_result_free(&r);
}

Test(jitdump_cmd, stats_per_type_and_name)
{
	struct tu_result r = run("--stats", NULL, dump);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "CODE_LOAD                       4"), "%s", r.out);
	cr_assert(strstr(r.out, "CODE_DEBUG_INFO                 3"), "%s", r.out);
	cr_assert(strstr(r.out, "2 method names, 1 loaded more than once"), "%s", r.out);
	cr_assert(strstr(r.out, "       3           33  m\n"), "%s", r.out);
	tu_result_free(&r);
}

Test(jitdump_cmd, truncated_warns_damaged_fails)
{
	size_t len;
	uint8_t *buf = tu_read_file(dump, &len);
	char cut[4200];
	snprintf(cut, sizeof(cut), "%s/cut.dump", dir);
	cr_assert_eq(tu_write_file(cut, buf, len - 20), 0);
	struct tu_result r = run(NULL, NULL, cut);
	cr_assert_eq(r.status, 0, "%s", r.err);
	char want[128];
	snprintf(want, sizeof(want), "dropped 60 bytes of a partial record at offset %zu",
		 len - 16 - 64);
	cr_assert(strstr(r.err, want), "%s", r.err);
	cr_assert_eq(lines_starting(r.out, "@"), 7);
	tu_result_free(&r);
	/* The first DEBUG_INFO (offset 40) claims a billion entries. */
	uint64_t n = 1000000000;
	memcpy(buf + 40 + 24, &n, 8);
	cr_assert_eq(tu_write_file(cut, buf, len), 0);
	r = run(NULL, NULL, cut);
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "offset 40: DEBUG_INFO nr_entry"), "%s", r.err);
	tu_result_free(&r);
	/* Readable, but perf would refuse it: said on stderr, exit 0. */
	memcpy(buf + 4, &(uint32_t){ 2 }, 4);
	memcpy(buf + 32, &(uint64_t){ 6 }, 8);
	cr_assert_eq(tu_write_file(cut, buf, 40), 0);
	r = run(NULL, NULL, cut);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "version 2: perf accepts only version 1"), "%s", r.err);
	cr_assert(strstr(r.err, "flags 0x6 has reserved bits set"), "%s", r.err);
	tu_result_free(&r);
	r = run(NULL, NULL, "/nonexistent/jit-1.dump");
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err, "No such file"), "%s", r.err);
	tu_result_free(&r);
	free(buf);
}

Test(jitdump_cmd, perf_agent_fixture_stats)
{
	size_t len;
	void *buf = tu_read_file(FIXTURE, &len);
	if (!buf)
		cr_skip_test("fixture %s absent (needs shared/ beside the clone)", FIXTURE);
	free(buf);
	struct tu_result r = run("--stats", NULL, FIXTURE);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "CODE_LOAD                     460"), "%s", r.out);
	cr_assert(strstr(r.out, "CODE_DEBUG_INFO                67"), "%s", r.out);
	cr_assert(strstr(r.out, "CODE_CLOSE                      1"), "%s", r.out);
	cr_assert(strstr(r.out, "       8         5488  LFixture;fold([LFixture$Op;I)J\n"));
	tu_result_free(&r);
}

/* Issue 34, finding 9: with the same-file shorthand 18 bytes of a dump print a whole path
 * again. 20000 lines naming one 2000-byte file (a 420 KB dump, 40 MB of text): the output
 * stops past 16 MiB + 16x the file's size, says what it left out and exits 1 (valid JSON
 * still); --all prints every line. */
Test(jitdump_cmd, shorthand_output_bounded)
{
	enum { NL = 20000, FLEN = 2000 };
	char *tdir = tu_tmpdir("jdbomb");
	struct jd_writer_opts o = { .size = sizeof(o), .dir = tdir, .no_ext = 1,
				    .same_file_shorthand = 1 };
	struct jd_writer *w;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	char *file = malloc(FLEN + 1);
	struct jd_line *lines = calloc(NL, sizeof(*lines));
	cr_assert(file && lines);
	memset(file, 'f', FLEN);
	file[FLEN] = 0;
	for (int i = 0; i < NL; i++)
		lines[i] = (struct jd_line){ 0x1000 + (uint64_t)i, i + 1, 0, file };
	uint8_t code[16] = { 0xc3 };
	struct jd_load_desc d = { .name = "m", .code_addr = 0x1000, .code = code,
				  .code_size = sizeof(code), .lines = lines, .nr_lines = NL };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	char path[4200];
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	size_t len;
	free(tu_read_file(path, &len));
	cr_assert_lt(len, 500000);

	struct tu_result r = run(NULL, NULL, path);
	cr_assert_eq(r.status, 1, "%s", r.err);
	uint64_t limit = (16ull << 20) + 16 * (uint64_t)len;
	cr_assert_leq(r.out_len, limit + 8192, "%zu bytes for a %zu-byte dump", r.out_len, len);
	cr_assert_geq(r.out_len, limit);
	cr_assert(strstr(r.err, "line/inline entries not shown; --all shows them"), "%s", r.err);
	cr_assert(strstr(r.err, "2 records and "), "%s", r.err);	/* the load, the close */
	tu_result_free(&r);

	r = run("--json", NULL, path);
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(strstr(r.out, "\"cut_records\":2,\"cut_entries\":"));
	char cmd[4400];
	snprintf(cmd, sizeof(cmd), "%s jitdump --json %s | python3 -c 'import json,sys; "
		 "d = json.load(sys.stdin); print(d[\"cut_entries\"] + "
		 "sum(len(x.get(\"entries\", [])) for x in d[\"records\"]))'",
		 tu_build("jitprof"), path);
	tu_result_free(&r);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(atoi(r.out), NL, "%s%s", r.out, r.err);
	tu_result_free(&r);

	r = run("--all", NULL, path);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_gt(r.out_len, (size_t)NL * FLEN);
	tu_result_free(&r);
	free(file);
	free(lines);
	tu_rmtree(tdir);
	free(tdir);
}
