/* test_interp_names.c - recorder/report/interp_names.c: an interpreter frame's Method* and
 * bcp resolved through a method table written here (libjitdump's writer): the method, bci
 * and line; a garbage Method*, a bcp outside the bytecodes, a native method's bcp other than
 * 0 or its code base,
 * a pointer reused after an unload: never a wrong name. Then the frame's mark and kind. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "jitdump/jitdump.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

static struct jd_index *table(char **dir)
{
	char err[512], path[4200];
	struct jd_writer *w;
	*dir = tu_tmpdir("interp");
	JD_OPTS(jd_writer_opts, o, .dir = *dir);
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	struct jd_method_line l[] = { { 0, 20 }, { 5, 21 }, { 9, 23 } };
	struct jd_ext_method a = { .method = 0x7000, .code_addr = 0x9000, .code_size = 12,
				   .nr_lines = 3, .lines = l, .name = "Lp/A;a(I)V", .file = "p/A.java" };
	struct jd_ext_method n = { .method = 0x6000, .name = "Lp/A;n()J", .file = "p/A.java" };
	struct jd_ext_method c = { .method = 0x7000, .code_addr = 0xa000, .code_size = 4,
				   .name = "Lp/C;c()V", .file = "" };
	cr_assert_eq(jd_write_method(w, &a, 100), 0);
	cr_assert_eq(jd_write_method(w, &n, 100), 0);
	/* A native method as the agent writes it now: the address after its ConstMethod. */
	struct jd_ext_method nb = { .method = 0x6100, .code_addr = 0xd000, .name = "Lp/A;nb()V",
				    .file = "p/A.java" };
	cr_assert_eq(jd_write_method(w, &nb, 100), 0);
	cr_assert_eq(jd_write_method(w, &c, 500), 0);	/* 0x7000 reused after an unload */
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	struct jd_index *x;
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	return x;
}

Test(interp_names, resolve_never_a_wrong_name)
{
	char *dir;
	struct jd_index *x = table(&dir);
	const struct jd_ext_method *m;
	uint32_t bci, line;
	cr_assert_eq(rp_interp_resolve(x, 0x7000, 0x9006, 0, 200, &m, &bci, &line), 0);
	cr_assert_str_eq(m->name, "Lp/A;a(I)V");
	cr_assert_eq(bci, 6);
	cr_assert_eq(line, 21);
	cr_assert_eq(rp_interp_resolve(x, 0x7000, 0x9009, 0, 200, &m, &bci, &line), 0);
	cr_assert_eq(line, 23);
	/* A live bcp (r13) not of this method: the slot's saved one, if it is. */
	cr_assert_eq(rp_interp_resolve(x, 0x7000, 0x1234, 0x9000, 200, &m, &bci, &line), 0);
	cr_assert_eq(bci, 0);
	cr_assert_eq(line, 20);
	/* Neither: unnamed. Past the end by one, before the start, a garbage Method*. */
	cr_assert_eq(rp_interp_resolve(x, 0x7000, 0x900c, 0x900c, 200, &m, &bci, &line), -ENOENT);
	cr_assert_eq(rp_interp_resolve(x, 0x7000, 0x8fff, 0, 200, &m, &bci, &line), -ENOENT);
	cr_assert_eq(rp_interp_resolve(x, 0x7008, 0x9000, 0x9000, 200, &m, &bci, &line), -ENOENT);
	cr_assert_eq(rp_interp_resolve(x, 0, 0x9000, 0x9000, 200, &m, &bci, &line), -ENOENT);
	cr_assert_eq(rp_interp_resolve(NULL, 0x7000, 0x9000, 0, 200, &m, &bci, &line), -ENOENT);
	/* The pointer's other method after time 500: the first one's bcp is not its own. */
	cr_assert_eq(rp_interp_resolve(x, 0x7000, 0x9006, 0x9006, 600, &m, &bci, &line), -ENOENT);
	cr_assert_eq(rp_interp_resolve(x, 0x7000, 0xa001, 0, 600, &m, &bci, &line), 0);
	cr_assert_str_eq(m->name, "Lp/C;c()V");
	cr_assert_eq(line, 0, "no line table: line unknown");
	/* A native method: bcp 0 in its frame, anything else is not its frame. */
	cr_assert_eq(rp_interp_resolve(x, 0x6000, 0x55, 0, 200, &m, &bci, &line), 0);
	cr_assert_str_eq(m->name, "Lp/A;n()J");
	cr_assert_eq(rp_interp_resolve(x, 0x6000, 0x55, 0x56, 200, &m, &bci, &line), -ENOENT);
	/* Once its entry has called the VM, the slot holds r13, the address after its
	 * ConstMethod: its code_addr (a record that gives one), no other address. */
	cr_assert_eq(rp_interp_resolve(x, 0x6100, 0x55, 0xd000, 200, &m, &bci, &line), 0);
	cr_assert_str_eq(m->name, "Lp/A;nb()V");
	cr_assert_eq(bci, 0);
	cr_assert_eq(rp_interp_resolve(x, 0x6100, 0xd000, 0, 200, &m, &bci, &line), 0);
	cr_assert_eq(rp_interp_resolve(x, 0x6100, 0xd001, 0xcff8, 200, &m, &bci, &line),
		     -ENOENT);
	cr_assert_eq(rp_interp_resolve(x, 0x6000, 0xd000, 0xd000, 200, &m, &bci, &line),
		     -ENOENT, "an older record's native (code_addr 0): only bcp 0 is its own");
	jd_index_close(x);
	tu_rmtree(dir);
	free(dir);
}

Test(interp_names, marked_int_and_interpreted)
{
	struct rp_session *s = rt_session();
	struct rt_frame f[] = { { .dso = "jitted-7-1.so", .sym = "p.A.a(int)",
				  .flags = RP_FRAME_INTERPRETED, .ip = 0x1010 },
				{ .dso = "libc.so.6", .sym = "main", .ip = 0x50 }, { 0 } };
	rt_sample(s, "java", 7, 1000, 1, f);
	rp_set_span(s, 1000, 2000);
	rp_session_finish(s);
	const struct rp_frame *fr = rp_sample_frame(s, rp_sample_at(s, 0), 0);
	struct jp_str buf = { 0 };
	cr_assert_eq(rp_frame_kind(s, fr), RP_KIND_INTERP);
	cr_assert_str_eq(rp_frame_name(s, fr, rp_stack_tag(s), &buf), "p.A.a(int)_[int]");
	cr_assert_str_eq(rp_frame_name(s, fr, RP_NAME_GRAPH, &buf), "p.A.a(int)_[int]");
	cr_assert_str_eq(rp_frame_name(s, fr, 0, &buf), "p.A.a(int)");
	rp_session_free(s);
}
