/* test_html_tabs.c - recorder/report/html.c and html_tree.c with several events: the page's
 * data has the first event's fields at its top level, each other event's in "tabs" with its
 * tree in "tab_trees", and one table of frame names that every tree's nodes index. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/views_int.h"
#include "tests/lib/failnext.h"
#include "tests/unit/report/rptest.h"

static int page(FILE *fp, void *arg)
{
	enum rp_key k = RP_KEY_SYM;
	struct rp_html_opts o = { .keys = &k, .nr_keys = 1 };
	return rp_write_html_events(fp, arg, 2, &o);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

Test(html_tabs, names_once_for_every_tab)
{
	struct rp_session *cpu = rt_session(), *off = rt_session();
	struct rt_frame a[] = { { .dso = "app", .sym = "work", .ip = 0x40 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	struct rt_frame b[] = { { .dso = "libc.so.6", .sym = "nanosleep", .ip = 0x900 },
				{ .dso = "app", .sym = "main", .ip = 0x58 }, { 0 } };
	rt_sample(cpu, "app", 7, 100, 1000, a);
	rt_sample(off, "app", 7, 102, 5000000, a);
	rt_sample(off, "app", 7, 103, 3000000, b);
	rp_set_event_name(cpu, "cpu-clock");
	rp_set_event_name(off, "offcpu");
	off->weigh_time = 1;
	struct rp_session *ss[] = { cpu, off };
	for (int k = 0; k < 2; k++) {
		rp_set_span(ss[k], 100, 200);
		rp_session_finish(ss[k]);
	}
	char *out = rt_capture(page, ss);
	const char *data = strstr(out, "<script id=\"data\"");
	cr_assert_not_null(data);
	cr_assert_eq(count(data, "\"names\":"), 1, "one names table");
	cr_assert_eq(count(data, "\"tab_trees\":[{"), 1);
	cr_assert_eq(count(data, "\"tabs\":[{\"tab\":1,"), 1);
	cr_assert(strstr(data, "\"event\":\"cpu-clock\""));
	cr_assert(strstr(data, "\"event\":\"offcpu\",\"time\":true"), "%.2000s", data);
	/* app, main, nanosleep (the second event's alone), work: sorted, each once */
	const char *names = strstr(data, "\"names\":");
	char want[] = "\"names\":[\"0:app\",\"0:main\",\"0:nanosleep\",\"0:work\"]";
	cr_assert(!strncmp(names, want, strlen(want)), "%.200s", names);
	/* offcpu's tree weighs nanoseconds: its root is the two intervals' time */
	const char *tt = strstr(data, "\"tab_trees\":[{");
	cr_assert(strstr(tt, "\"c\":[8000000,"), "%.300s", tt);
	free(out);
	rp_session_free(cpu);
	rp_session_free(off);
}

/* rp_html_tree into fp (tree_file: its own buffer, so stdio allocates nothing while one
 * allocation fails); tree_text reads what it wrote and closes it. */
static FILE *tree_file(void)
{
	static char buf[1 << 16];
	FILE *fp = tmpfile();
	cr_assert_not_null(fp);
	setvbuf(fp, buf, _IOFBF, sizeof(buf));
	return fp;
}

static int tree_write(FILE *fp, struct rp_session *s)
{
	enum rp_key k = RP_KEY_SYM;
	struct rp_html_opts o = { .keys = &k, .nr_keys = 1 };
	uint32_t present[1][RP_KIND__MAX] = { { 0 } };
	const struct rp_session *ss[] = { s };
	return rp_html_tree(fp, ss, 1, &o, present);
}

static char *tree_text(FILE *fp)
{
	fflush(fp);
	long len = ftell(fp);
	char *text = calloc(1, (size_t)len + 1);
	rewind(fp);
	cr_assert_eq(fread(text, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	return text;
}

/* Out of memory for the names' table per frame (or anything else the tree's data needs),
 * the page is not written (-ENOMEM): it never falls back to another way. Every allocation
 * in turn: -ENOMEM, or the same text. */
Test(html_tabs, out_of_memory_is_enomem)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { { .dso = "app", .sym = "work", .ip = 0x40 },
				{ .dso = "app", .sym = "main", .ip = 0x50 }, { 0 } };
	struct rt_frame b[] = { { .dso = "app", .sym = "rest", .ip = 0x60 },
				{ .dso = "app", .sym = "main", .ip = 0x58 }, { 0 } };
	rt_sample(s, "app", 7, 100, 1000, a);
	rt_sample(s, "app", 7, 101, 1000, b);
	rp_set_span(s, 100, 200);
	rp_session_finish(s);
	FILE *fp = tree_file();
	int rc = tree_write(fp, s);
	char *want = tree_text(fp);
	cr_assert_eq(rc, 0);
	fp = tree_file();
	tu_failnext_arm(0);
	tree_write(fp, s);
	unsigned long total = tu_failnext_disarm(NULL);
	free(tree_text(fp));
	cr_assert_gt(total, 2);
	for (unsigned long n = 1; n <= total; n++) {
		fp = tree_file();
		tu_failnext_arm(n);
		rc = tree_write(fp, s);
		tu_failnext_disarm(NULL);
		char *got = tree_text(fp);
		if (rc)
			cr_assert_eq(rc, -ENOMEM, "allocation %lu: %d", n, rc);
		else
			cr_assert_str_eq(got, want, "allocation %lu of %lu failed, rc 0, and the "
					 "data differs:\n%s\nnot\n%s", n, total, got, want);
		/* the second is the table of name indexes per frame (after the trees' array) */
		if (n == 2)
			cr_assert_eq(rc, -ENOMEM, "the name table per frame not made, rc %d", rc);
		free(got);
	}
	free(want);
	rp_session_free(s);
}
