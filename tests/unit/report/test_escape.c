/* test_escape.c - issue 16 finding 12: names and paths from a recording that hold terminal
 * escape sequences, or bytes that are not UTF-8, reach the table and the generations view as
 * visible \xNN text, never as raw bytes; JSON and XML stay valid. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/lib/testutil.h"
#include "tests/unit/report/rptest.h"

#define EVIL "m\x1b]0;pwned\x07\x1b[2J()"

static int no_controls(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
			return 0;
	return 1;
}

static struct rp_hist h;

static int print_table(FILE *fp, void *arg)
{
	(void)arg;
	struct rp_table_opts o = { 0 };
	return rp_print_table(fp, &h, &o);
}

static int print_gens(FILE *fp, void *arg)
{
	return rp_print_generations(fp, arg, NULL);
}

static int print_json(FILE *fp, void *arg)
{
	return rp_print_json(fp, &h, arg, NULL, 1);
}

Test(escape, interned_names_are_escaped_once)
{
	struct rp_session *s = rt_session();
	const char *a = rp_intern(s, EVIL), *b = rp_intern(s, EVIL);
	cr_assert_eq(a, b, "the same name must intern to the same string");
	cr_assert_str_eq(a, "m\\x1b]0;pwned\\x07\\x1b[2J()");
	cr_assert_str_eq(rp_intern(s, "plain()"), "plain()");
	/* bytes that are not UTF-8 (node 20's file names from freed memory) the same way */
	cr_assert_str_eq(rp_intern(s, "\xe3k.js"), "\\xe3k.js");
	cr_assert_str_eq(rp_intern(s, "Caf\xc3\xa9.java"), "Caf\xc3\xa9.java");
	rp_session_free(s);
}

Test(escape, table_and_generations_print_no_control_characters)
{
	struct rp_session *s = rt_session();
	uint32_t g1 = rt_load(s, 5, EVIL, 0, 10, 20, 0x1000, 16);
	uint32_t g2 = rt_load(s, 5, EVIL, 0, 20, 0, 0x2000, 16);
	struct rt_frame a[] = { { .dso = "jitted-\x1b[31m.so", .sym = EVIL, .file = "E\x1b.java",
				  .line = 3, .load = g1, .ip = 0x1001 }, { 0 } };
	struct rt_frame b[] = { { .dso = "jitted-\x1b[31m.so", .sym = EVIL, .file = "E\x1b.java",
				  .line = 4, .load = g2, .ip = 0x2001 }, { 0 } };
	rt_sample(s, "ja\x1bva", 5, 15, 10, a);
	rt_sample(s, "ja\x1bva", 5, 25, 10, b);
	rp_set_span(s, 0, 100);
	rp_session_finish(s);
	enum rp_key keys[] = { RP_KEY_COMM, RP_KEY_DSO, RP_KEY_SYM };
	cr_assert_eq(rp_hist_build(&h, s, keys, 3, 0), 0);
	char *out = rt_capture(print_table, s);
	cr_assert(no_controls(out), "raw control characters in the table:\n%s", out);
	cr_assert(strstr(out, "\\x1b]0;pwned"), "%s", out);
	free(out);
	out = rt_capture(print_gens, s);
	cr_assert(no_controls(out), "raw control characters in --generations:\n%s", out);
	cr_assert(strstr(out, "\\x1b]0;pwned"), "%s", out);
	free(out);
	out = rt_capture(print_json, s);
	cr_assert(no_controls(out), "raw control characters in JSON:\n%s", out);
	cr_assert(strstr(out, "\\\\x1b]0;pwned"), "JSON escapes the backslash: %s", out);
	free(out);
	rp_hist_free(&h);
	rp_session_free(s);
}

/* Issue 34 finding 12: a right-to-left override, a bidi isolate, a C1 control and a line
 * separator in a name reach the table and JSON as visible \uXXXX text, never raw: "evil\u202e
 * gpj.exe" displayed as "evilexe.jpg" on a terminal, or a name split over two lines. */
Test(escape, bidi_controls_and_separators_are_shown_escaped)
{
	struct rp_session *s = rt_session();
	struct rt_frame a[] = { { .dso = "lib\xe2\x81\xa6x.so", .sym = "evil\xe2\x80\xaegpj.exe()",
				  .ip = 0x1001 }, { 0 } };
	struct rt_frame b[] = { { .dso = "b.so", .sym = "two\xe2\x80\xa8lines\xc2\x9b()",
				  .ip = 0x2001 }, { 0 } };
	rt_sample(s, "ja\xe2\x80\x8fva", 5, 15, 10, a);
	rt_sample(s, "java", 5, 25, 10, b);
	rp_set_span(s, 0, 100);
	rp_session_finish(s);
	enum rp_key keys[] = { RP_KEY_COMM, RP_KEY_DSO, RP_KEY_SYM };
	cr_assert_eq(rp_hist_build(&h, s, keys, 3, 0), 0);
	int (*const outputs[])(FILE *, void *) = { print_table, print_json };
	for (size_t i = 0; i < 2; i++) {
		char *out = rt_capture(outputs[i], s);
		cr_assert(!strstr(out, "\xe2\x80") && !strstr(out, "\xe2\x81") &&
			  !strstr(out, "\xc2\x9b"), "raw bidi or separator in output %zu:\n%s", i,
			  out);
		/* the model holds the escaped text; JSON escapes its backslash on top */
		static const char *const want[2][4] = {
			{ "evil\\u202egpj.exe()", "two\\u2028lines\\u009b()", "lib\\u2066x.so",
			  "ja\\u200fva" },
			{ "evil\\\\u202egpj.exe()", "two\\\\u2028lines\\\\u009b()",
			  "lib\\\\u2066x.so", "ja\\\\u200fva" } };
		for (size_t k = 0; k < 4; k++)
			cr_assert(strstr(out, want[i][k]), "%s not in output %zu:\n%s", want[i][k], i,
				  out);
		free(out);
	}
	rp_hist_free(&h);
	rp_session_free(s);
}

static const char *str_arg;

static int json_str(FILE *fp, void *arg)
{
	(void)arg;
	rp_json_str(fp, str_arg);
	return 0;
}

static int xml_str(FILE *fp, void *arg)
{
	(void)arg;
	rp_xml_str(fp, str_arg);
	return 0;
}

static int html_page(FILE *fp, void *arg)
{
	enum rp_key k = RP_KEY_SYM;
	struct rp_html_opts o = { .keys = &k, .nr_keys = 1 };
	return rp_write_html(fp, arg, &o);
}

/* The escapers write plain runs whole and escape exactly the characters their syntax needs,
 * at the start, in the middle and at the end of a string. */
Test(escape, json_and_xml_strings_escape_what_their_syntax_needs)
{
	static const struct { const char *in, *json, *xml; } c[] = {
		{ "", "\"\"", "" },
		{ "plain run()", "\"plain run()\"", "plain run()" },
		{ "\"a\\b\"", "\"\\\"a\\\\b\\\"\"", "&quot;a\\b&quot;" },
		{ "<T>&'x'\n", "\"<T>&'x'\\u000a\"", "&lt;T&gt;&amp;&apos;x&apos;?" },
		{ "\x01tail", "\"\\u0001tail\"", "?tail" },
		/* UTF-8 goes through; a byte that is not UTF-8 becomes U+FFFD, so that JSON and
		 * XML parsers (and the browsers reading the views) accept the file */
		{ "Caf\xc3\xa9()", "\"Caf\xc3\xa9()\"", "Caf\xc3\xa9()" },
		{ "\xe3k\xc3", "\"\\ufffdk\\ufffd\"", "\xef\xbf\xbdk\xef\xbf\xbd" },
		/* bidirectional controls and line separators (issue 34 finding 12) */
		{ "r\xe2\x80\xaeL\xe2\x80\xa8", "\"r\\u202eL\\u2028\"",
		  "r\xe2\x80\xaeL\xe2\x80\xa8" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		str_arg = c[i].in;
		char *out = rt_capture(json_str, NULL);
		cr_assert_str_eq(out, c[i].json, "JSON of case %zu", i);
		free(out);
		out = rt_capture(xml_str, NULL);
		cr_assert_str_eq(out, c[i].xml, "XML of case %zu", i);
		free(out);
	}
}

/* A name holding "</script>" cannot end the HTML page's data block early, nor can "<!--" then
 * "<script>" put the tokenizer into the script-data escaped states (issue 34 finding 13: the
 * page's own closing tag was then read as data and the page rendered blank): '<', '>' and '&'
 * are written \u003c, \u003e, \u0026 (the same JSON); U+2028/U+2029 never appear raw. */
Test(escape, html_data_cannot_change_the_parser_state)
{
	struct rp_session *s = rt_session();
	uint32_t g = rt_load(s, 5, "A.m</script><script>alert(1)</script>()", 0, 10, 0, 0x1000,
			     16);
	struct rt_frame f[] = { { .dso = "jitted-5-1.so", .sym = "A.m</script>()", .load = g,
				  .ip = 0x1001 }, { 0 } };
	struct rt_frame f2[] = { { .dso = "<!--<script>.so", .sym = "B.<!--<script>(&amp;)",
				   .ip = 0x5001 }, { 0 } };
	struct rt_frame f3[] = { { .dso = "c.so", .sym = "C.line\xe2\x80\xa8sep\xe2\x80\xa9()",
				   .ip = 0x6001 }, { 0 } };
	rt_sample(s, "java", 5, 15, 10, f);
	rt_sample(s, "java", 5, 16, 10, f2);
	rt_sample(s, "java", 5, 17, 10, f3);
	rp_set_span(s, 0, 100);
	rp_session_finish(s);
	char *out = rt_capture(html_page, s);
	cr_assert(strstr(out, "A.m\\u003c/script\\u003e()"), "the name, escaped, is in the page");
	cr_assert(strstr(out, "B.\\u003c!--\\u003cscript\\u003e(\\u0026amp;)"), "%s", out);
	cr_assert(strstr(out, "C.line\\\\u2028sep\\\\u2029()"), "U+2028/9 shown escaped");
	cr_assert(!strstr(out, "\xe2\x80\xa8") && !strstr(out, "\xe2\x80\xa9"));
	const char *data = strstr(out, "<script id=\"data\" type=\"application/json\">");
	cr_assert_not_null(data);
	data = strchr(data, '>') + 1;
	const char *data_end = strstr(data, "</script>");
	cr_assert_not_null(data_end);
	cr_assert(!memchr(data, '<', (size_t)(data_end - data)), "a raw '<' in the data block");
	cr_assert(!memchr(data, '&', (size_t)(data_end - data)), "a raw '&' in the data block");
	cr_assert(strncmp(data_end, "</script>\n<script>\n", 19) == 0,
		  "the data block ends where the page ends it");
	size_t closes = 0;
	for (const char *p = out; (p = strstr(p, "</script>")); p++)
		closes++;
	cr_assert_eq(closes, 2, "only the data and the code blocks close: %zu", closes);
	free(out);
	rp_session_free(s);
}
