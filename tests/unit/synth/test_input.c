/* test_input.c - synth/input.c and synth/eh_frame.c: every refusal names what is wrong, the
 * fallback without bad inline/unwind data, bad line entries counted one by one, file names from integers, and filling the input from a real dump
 * written with libjitdump and read back through its index. */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "tests/unit/synth/st.h"

static void refused(struct st_load *l, int rc, const char *needle)
{
	char err[256] = "";
	struct synth_elf e;
	cr_assert_eq(synth_build(&l->in, &e, JP_ERRBUF_LOG(err)), rc, "%s", err);
	cr_assert_null(e.data);
	cr_assert_not_null(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
	uint8_t id[20];
	cr_assert_eq(synth_build_id(&l->in, id, NULL), rc, "build-id refuses alike");
}

Test(input, refusals)
{
	struct st_load l;
	static char longname[SYNTH_NAME_MAX + 2];	/* past the bound: 1 MiB + 1 */
	memset(longname, 'x', sizeof(longname) - 1);

	st_load_init(&l, 1); l.in.code_size = 0;
	refused(&l, -EINVAL, "code_size is 0");
	st_load_init(&l, 1); l.in.name = longname;
	refused(&l, -EINVAL, "longer than 1048576");
	st_load_init(&l, 1); l.in.name = "";
	refused(&l, -EINVAL, "empty method name");
	st_load_init(&l, 1); l.in.e_machine = EM_SPARC;
	refused(&l, -ENOTSUP, "e_machine 2 not supported");
	st_load_init(&l, 1); l.f[2][0].method = 7;
	refused(&l, -EINVAL, "inline pc 2 frame 0: method 7 of 3");
	st_load_init(&l, 1); l.pcs[5].addr = l.pcs[4].addr;
	refused(&l, -EINVAL, "inline pc 5");
	st_load_init(&l, 1); l.in.code_addr = UINT64_MAX - 8;
	refused(&l, -EINVAL, "wraps");
	st_load_init(&l, 0); st_add_unwind(&l); l.in.eh_frame_hdr_size = 100;
	refused(&l, -EINVAL, "exceed unwinding_size");
	st_load_init(&l, 0); st_add_unwind(&l); l.unwind[24] = 200;	/* FDE length */
	refused(&l, -EINVAL, ".eh_frame byte 24: record of 200 bytes runs past");
	st_load_init(&l, 0); st_add_unwind(&l); l.unwind[48] = 2;	/* hdr version */
	refused(&l, -EINVAL, ".eh_frame_hdr at byte 48");
}

Test(input, validate_accepts_edges)
{
	struct st_load l;
	st_load_init(&l, 1);
	char err[128];
	cr_assert_eq(synth_validate(&l.in, JP_ERRBUF_LOG(err)), 0, "%s", err);
	l.lines[5].addr = ST_CODE_ADDR + ST_CODE_SIZE - 1;	/* last byte */
	l.lines[1].line = 0;					/* "no line" is allowed */
	cr_assert_eq(synth_validate(&l.in, JP_ERRBUF_LOG(err)), 0, "%s", err);
}

/* Bad line entries are dropped one by one and counted; line 0 is "no line", not bad. */
Test(input, bad_line_entries_counted_one_by_one)
{
	struct st_load l;
	char err[128];
	st_load_init(&l, 1);
	cr_assert_eq(synth_lines_dropped(&l.in), 0);
	l.lines[3].addr = ST_CODE_ADDR + ST_CODE_SIZE;	/* outside */
	cr_assert_eq(synth_lines_dropped(&l.in), 1);
	l.lines[4].addr = ST_CODE_ADDR;			/* below the previous usable row */
	cr_assert_eq(synth_lines_dropped(&l.in), 2);
	l.lines[1].line = -3;
	cr_assert_eq(synth_lines_dropped(&l.in), 3);
	l.lines[5].file = NULL;
	cr_assert_eq(synth_lines_dropped(&l.in), 4);
	l.lines[2].line = 0;
	cr_assert_eq(synth_lines_dropped(&l.in), 4, "line 0 is not an error");
	cr_assert_eq(synth_validate(&l.in, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(synth_input_drop_bad_debug(&l.in, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(l.in.nr_lines, 6, "the table is kept");
}

Test(input, script_of_a_load_name)
{
	char b[64];
	cr_assert_str_eq(synth_name_script("JS:*fib /x/fib.js:1:13", b, sizeof(b)), "/x/fib.js");
	cr_assert_str_eq(synth_name_script("JS:~ node:internal/util:12:3", b, sizeof(b)),
			 "node:internal/util");
	cr_assert_null(synth_name_script("Lcom/acme/Foo;bar(I)I", b, sizeof(b)));
	cr_assert_null(synth_name_script("x.js:1:13", b, sizeof(b)), "no space before it");
	cr_assert_null(synth_name_script("JS:*f /x.js:1", b, sizeof(b)), "one number");
	cr_assert_null(synth_name_script("JS:*f /x.js:a:1", b, sizeof(b)));
	cr_assert_null(synth_name_script("JS:*f :1:2", b, sizeof(b)), "no path");
	cr_assert_null(synth_name_script("JS:*f \xe3k:1:2", b, sizeof(b)), "not text");
	cr_assert_null(synth_name_script("JS:*f /a/long/path.js:1:2", b, 8), "does not fit");
	cr_assert_null(synth_name_script(NULL, b, sizeof(b)));
}

/* node 20 writes some rows' file names from freed memory: such a row keeps its line with the
 * script the load's name gives, or is dropped without one; counted either way. */
Test(input, rows_whose_file_is_not_text)
{
	struct st_load l;
	st_load_init(&l, 1);
	l.lines[2].file = "\xb6~\x02H\x0b\x7f";
	cr_assert_eq(synth_lines_dropped(&l.in), 1, "no script in a Java name");
	cr_assert_eq(synth_lines_renamed(&l.in), 0);
	l.in.name = "JS:*fib /x/fib.js:1:13";
	cr_assert_eq(synth_lines_dropped(&l.in), 0);
	cr_assert_eq(synth_lines_renamed(&l.in), 1);
	l.lines[3].file = "";	/* what follows such a name: a fragment read as a row */
	cr_assert_eq(synth_lines_dropped(&l.in), 1, "an empty file name");
	cr_assert_eq(synth_lines_renamed(&l.in), 1);
}

Test(input, drop_bad_debug_keeps_the_symbol)
{
	struct st_load l;
	st_load_init(&l, 1);
	st_add_unwind(&l);
	l.lines[2].addr = 0x10;		/* outside: only this entry goes */
	l.f[2][0].method = 7;		/* bad inline table */
	l.unwind[48] = 9;		/* bad header */
	char err[256];
	cr_assert_eq(synth_input_drop_bad_debug(&l.in, JP_ERRBUF_LOG(err)), 1);
	cr_assert_not_null(strstr(err, "inline pc 2"), "%s", err);
	cr_assert_eq(l.in.nr_lines, 6);
	cr_assert_null(l.in.inl);
	cr_assert_eq(l.in.unwind_size, 0);
	struct synth_elf e;
	cr_assert_eq(synth_build(&l.in, &e, JP_ERRBUF_LOG(err)), 0, "%s", err);
	synth_elf_free(&e);

	st_load_init(&l, 1);
	cr_assert_eq(synth_input_drop_bad_debug(&l.in, JP_ERRBUF_LOG(err)), 0);
	cr_assert_eq(l.in.nr_lines, 6);
	l.in.code_size = 0;
	cr_assert_eq(synth_input_drop_bad_debug(&l.in, JP_ERRBUF_LOG(err)), -EINVAL);
}

Test(input, file_name_from_integers)
{
	struct st_load l;
	st_load_init(&l, 0);
	l.in.pid = 4294967295u;
	l.in.code_index = UINT64_MAX;
	char buf[SYNTH_FILE_NAME_MAX];
	cr_assert_eq(synth_file_name(&l.in, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "jitted-4294967295-18446744073709551615.so");
	char small[8];
	cr_assert_eq(synth_file_name(&l.in, small, sizeof(small)), -ENAMETOOLONG);
	l.in.file_seq = 4294967295u;	/* the longest name there is */
	cr_assert_eq(synth_file_name(&l.in, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "jitted-4294967295-18446744073709551615-4294967295.so");
	cr_assert_eq(synth_file_name(&l.in, buf, strlen(buf)), -ENAMETOOLONG, "no room for NUL");
	l.in.pid = 0, l.in.code_index = 0, l.in.file_seq = 3;
	cr_assert_eq(synth_file_name(&l.in, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "jitted-0-0-3.so");
}

/* Writes n copies of load d into a fresh dump in dir; its path (malloc'd), code_index each. */
static char *write_loads(const char *dir, const struct jd_load_desc *d, int n, int no_ext,
			 uint64_t *idx)
{
	struct jd_writer *w;
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir, .elf_mach = EM_AARCH64,
				    .no_ext = no_ext };
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(jd_write_load(w, d, idx ? &idx[i] : NULL), 0);
	char *path = strdup(jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	return path;
}

/* Written with libjitdump, read through its index: generation, tier, lines, inline table,
 * unwind data and the header's e_machine all reach synth_input. */
Test(input, from_index_entry)
{
	char *dir = tu_tmpdir("synth-input");
	struct st_load l;
	st_load_init(&l, 1);
	st_add_unwind(&l);
	struct jd_ext_load_info info = { .generation = 0, .tier = JD_TIER_C1, .level = 3 };
	struct jd_load_desc d = {
		.name = l.in.name, .code_addr = ST_CODE_ADDR, .code = l.code,
		.code_size = ST_CODE_SIZE, .timestamp = 777, .lines = l.lines, .nr_lines = 6,
		.unwind = l.unwind, .unwind_size = 68, .eh_frame_hdr_size = 20, .mapped_size = 68,
		.info = &info, .inl = &l.inl,
	};
	uint64_t idx[2];
	char *path = write_loads(dir, &d, 2, 0, idx);	/* generation 2: same code */

	struct jd_index *x;
	char err[256];
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(jd_index_nr_loads(x), 2);
	struct synth_input in[2];
	uint8_t id[2][20];
	for (int i = 0; i < 2; i++) {
		synth_input_from_load(&in[i], jd_index_header(x), jd_index_load(x, i));
		cr_assert_eq(in[i].e_machine, EM_AARCH64);
		cr_assert_eq(in[i].generation, (uint32_t)i + 1);
		cr_assert_eq(in[i].code_index, idx[i]);
		cr_assert_eq(in[i].tier, JD_TIER_C1);
		cr_assert_eq(in[i].timestamp, 777);
		cr_assert_eq(in[i].pid, (uint32_t)getpid());
		cr_assert_str_eq(in[i].name, l.in.name);
		cr_assert_eq(in[i].nr_lines, 6);
		cr_assert_str_eq(in[i].lines[3].file, "/src/acme/Baz.java");
		cr_assert_not_null(in[i].inl);
		cr_assert_eq(in[i].inl->nr_pcs, 6);
		cr_assert_eq(in[i].unwind_size, 68);
		cr_assert_eq(in[i].eh_frame_hdr_size, 20);
		cr_assert(!memcmp(in[i].code, l.code, ST_CODE_SIZE));
		cr_assert_eq(synth_build_id(&in[i], id[i], JP_ERRBUF_LOG(err)), 0, "%s", err);
	}
	cr_assert(memcmp(id[0], id[1], 20), "generations 1 and 2 share a build-id");
	jd_index_close(x);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* perf's agent repeats code_index values: the n-th reuse gets its own file name. */
Test(input, repeated_code_index_gets_its_own_file)
{
	char *dir = tu_tmpdir("synth-seq");
	struct st_load l;
	st_load_init(&l, 0);
	struct jd_load_desc d = { .name = "stub", .code_addr = ST_CODE_ADDR, .code = l.code,
				  .code_size = ST_CODE_SIZE };
	char *path = write_loads(dir, &d, 3, 1, NULL);
	/* Give loads 0 and 2 the same code_index, as the fixture's dump does. */
	size_t len;
	uint8_t *buf = tu_read_file(path, &len);
	cr_assert_not_null(buf);
	size_t off = JD_HEADER_SIZE, k = 0, at[3];
	while (off + JD_PREFIX_SIZE <= len && k < 3) {
		uint32_t id, size;
		memcpy(&id, buf + off, 4);
		memcpy(&size, buf + off + 4, 4);
		if (id == JD_CODE_LOAD)
			at[k++] = off;
		off += size;
	}
	cr_assert_eq(k, 3);
	memcpy(buf + at[2] + 48, buf + at[0] + 48, 8);	/* code_index field */
	cr_assert_eq(tu_write_file(path, buf, len), 0);
	free(buf);

	struct jd_index *x;
	char err[256];
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	uint32_t seqs[3];
	cr_assert_eq(synth_index_file_seqs(x, seqs), 0);
	cr_assert_eq(seqs[0], 0);
	cr_assert_eq(seqs[1], 0);
	cr_assert_eq(seqs[2], 1);
	struct synth_input in;
	char name[SYNTH_FILE_NAME_MAX], first[SYNTH_FILE_NAME_MAX];
	synth_input_from_load(&in, jd_index_header(x), jd_index_load(x, 0));
	synth_file_name(&in, first, sizeof(first));
	synth_input_from_load(&in, jd_index_header(x), jd_index_load(x, 2));
	in.file_seq = seqs[2];
	synth_file_name(&in, name, sizeof(name));
	first[strlen(first) - 3] = 0;	/* drop ".so" */
	char want[SYNTH_FILE_NAME_MAX + 8];
	snprintf(want, sizeof(want), "%s-1.so", first);
	cr_assert_str_eq(name, want);
	jd_index_close(x);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
