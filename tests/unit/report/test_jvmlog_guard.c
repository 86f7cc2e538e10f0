/* test_jvmlog_guard.c - recorder/report/jvmlog_guard.c (issue 34 finding 8): a compilation
 * log's DOCTYPE and the attributes of one element past the cap never reach libxml2, byte
 * offsets stay the file's, reads of any size give the same bytes, and a hostile 1 MB log
 * reads in time of the order of a benign one of the same size. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/lib/testutil.h"

static char *dir;

static void setup(void) { dir = tu_tmpdir("jvmlog-guard"); }
static void teardown(void) { tu_rmtree(dir); free(dir); }
TestSuite(jvmlog_guard, .init = setup, .fini = teardown);

static char *write_file(const char *name, const char *text, size_t len)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(path, "%s/%s", dir, name);
	cr_assert_eq(tu_write_file(path, text, len), 0);
	return path;
}

/* The file's bytes through the guard, read chunk bytes at a time (NUL-terminated copy). */
static char *guarded(const char *path, int chunk, struct rp_jvmlog_guard *g)
{
	int fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	rp_jvmlog_guard_init(g, fd);
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);
	int n;
	while ((n = rp_jvmlog_guard_read(g, out + len, chunk)) > 0) {
		len += (size_t)n;
		if (len + (size_t)chunk + 1 > cap)
			out = realloc(out, cap = 2 * (len + (size_t)chunk + 1));
	}
	cr_assert_eq(n, 0);
	out[len] = 0;
	close(fd);
	return out;
}

static const char LOG[] =
	"<?xml version='1.0' encoding='UTF-8'?>\n"
	"<!DOCTYPE hotspot_log [\n<!ENTITY e 'boom'>\n<!-- ]> -->\n<!ATTLIST a b CDATA '>'>\n]>\n"
	"<hotspot_log process='7'><!-- <!DOCTYPE x> --><![CDATA[<!DOCTYPE y>]]>"
	"<tty>\n<nmethod compile_id='5' method='A m ()V' entry='0x10' stamp='0.1' x='a>b'/>\n"
	"</tty></hotspot_log>\n";

/* The DOCTYPE blanked, newlines kept; comments, CDATA and attribute values looked past; the
 * same bytes whatever the size of each read (a declaration cut between two reads). */
Test(jvmlog_guard, doctype_blanked_same_length_any_read_size)
{
	char *path = write_file("a.log", LOG, sizeof(LOG) - 1);
	struct rp_jvmlog_guard *g = malloc(sizeof(*g));
	char *whole = guarded(path, 1 << 16, g);
	cr_assert_eq(strlen(whole), sizeof(LOG) - 1, "the same length");
	cr_assert_eq(g->doctypes, 1);
	cr_assert_eq(g->doctype_off, strlen("<?xml version='1.0' encoding='UTF-8'?>\n"));
	cr_assert_null(strstr(whole, "ENTITY"), "%s", whole);
	cr_assert_null(strstr(whole, "ATTLIST"), "%s", whole);
	cr_assert(strstr(whole, "<!-- <!DOCTYPE x> -->"), "a comment is left as it is");
	cr_assert(strstr(whole, "<![CDATA[<!DOCTYPE y>]]>"), "CDATA is left as it is");
	cr_assert(strstr(whole, "x='a>b'/>"), "%s", whole);
	for (size_t i = 0; i < sizeof(LOG) - 1; i++)
		cr_assert_eq(LOG[i] == '\n', whole[i] == '\n', "newlines kept: %s", whole);
	for (int chunk = 1; chunk <= 13; chunk++) {
		char *c = guarded(path, chunk, g);
		cr_assert_str_eq(c, whole, "read %d bytes at a time", chunk);
		free(c);
	}
	free(whole);
	free(g);
	free(path);
}

/* Read by the reader: the log's nmethod is there, at its offsets; the DOCTYPE said once. */
Test(jvmlog_guard, log_with_doctype_read_and_said)
{
	char *path = write_file("b.log", LOG, sizeof(LOG) - 1), err[512] = "";
	struct rp_jvmlog *jl;
	cr_assert_eq(rp_jvmlog_open(&jl, path, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(rp_jvmlog_pid(jl), 7);
	cr_assert_not_null(rp_jvmlog_find(jl, 5));
	cr_assert_null(rp_jvmlog_cut(jl), "%s", rp_jvmlog_cut(jl));
	cr_assert_eq(rp_jvmlog_bytes(jl), sizeof(LOG) - 1);
	const char *n = rp_jvmlog_notes(jl);
	cr_assert(n && strstr(n, "b.log: the document type declaration at byte 39 ignored"), "%s",
		  n ? n : "(none)");
	rp_jvmlog_free(jl);
	free(path);
}

/* A reference to an entity the DOCTYPE declared is not expanded: its '&' reads as '?', said
 * once; the predefined entities and character references are XML's. In UTF-16 (where the
 * guard's byte scan would not see the DOCTYPE) the file is no log. */
Test(jvmlog_guard, entities_not_expanded)
{
	static const char ent[] =
		"<?xml version='1.0'?>\n<!DOCTYPE hotspot_log [<!ENTITY e 'yyyyyyyy'>]>\n"
		"<hotspot_log process='1'><tty>"
		"<nmethod compile_id='4' method='A&lt;&#x41;&apos;&amp;&quot;&gt; m ()V' "
		"entry='0x10' stamp='0.1'/>"
		"<nmethod compile_id='5' method='&e;&ap;&' entry='0x20' stamp='0.2'/>&e;&amp"
		"</tty></hotspot_log>\n";
	char *path = write_file("e.log", ent, sizeof(ent) - 1), err[512] = "";
	struct rp_jvmlog *jl;
	cr_assert_eq(rp_jvmlog_open(&jl, path, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_str_eq(rp_jvmlog_find(jl, 4)->method, "A<A'&\"> m ()V");
	cr_assert_str_eq(rp_jvmlog_find(jl, 5)->method, "?e;?ap;?");
	cr_assert_null(rp_jvmlog_cut(jl), "%s", rp_jvmlog_cut(jl));
	const char *n = rp_jvmlog_notes(jl);
	cr_assert(n && strstr(n, "e.log: 5 references to entities other than XML's predefined "
			      "ones not expanded ('&' read as '?'), the first at byte "), "%s",
		  n ? n : "(none)");
	rp_jvmlog_free(jl);
	/* the same in UTF-16 with its byte-order mark */
	size_t len = sizeof(ent) - 1;
	char *u16 = malloc(2 * len + 2);
	u16[0] = (char)0xff, u16[1] = (char)0xfe;
	for (size_t i = 0; i < len; i++)
		u16[2 + 2 * i] = ent[i], u16[3 + 2 * i] = 0;
	char *p16 = write_file("e16.log", u16, 2 * len + 2);
	cr_assert_eq(rp_jvmlog_open(&jl, p16, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "e16.log: not a HotSpot compilation log at byte"), "%s", err);
	free(u16);
	free(p16);
	free(path);
}

/* Attributes past the cap are blanked, from their name to their closing quote; the first
 * RP_JVMLOG_MAX_ATTRS stay; said once with the count and the first one's offset. */
Test(jvmlog_guard, attributes_past_the_cap_dropped_and_said)
{
	char *text = malloc(64 * 1024), *p = text;
	p += sprintf(p, "<hotspot_log process='1'><tty><nmethod compile_id='5' entry='0x10' ");
	for (int i = 0; i < RP_JVMLOG_MAX_ATTRS + 100; i++)
		p += sprintf(p, "a%d=\"%d\" ", i, i);
	p += sprintf(p, "stamp='0.1'/></tty></hotspot_log>\n");
	char *path = write_file("attrs.log", text, (size_t)(p - text)), err[512] = "";
	struct rp_jvmlog_guard *g = malloc(sizeof(*g));
	char *out = guarded(path, 4096, g);
	cr_assert_eq(strlen(out), (size_t)(p - text));
	cr_assert(strstr(out, " a253=\"253\" "), "the cap's last attribute stays");
	cr_assert_null(strstr(out, "a254="), "blanked");
	cr_assert_null(strstr(out, "stamp"), "blanked");
	cr_assert_eq(g->attrs_dropped, 103);
	struct rp_jvmlog *jl;
	cr_assert_eq(rp_jvmlog_open(&jl, path, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(rp_jvmlog_find(jl, 5)->entry, 0x10);
	const char *n = rp_jvmlog_notes(jl);
	cr_assert(n && strstr(n, "attrs.log: 103 attributes past 256 in one element ignored, the "
			      "first at byte "), "%s", n ? n : "(none)");
	rp_jvmlog_free(jl);
	free(out);
	free(g);
	free(path);
	free(text);
}

static double seconds_to_read(const char *path)
{
	struct timespec a, b;
	struct rp_jvmlog *jl;
	char err[512] = "";
	clock_gettime(CLOCK_MONOTONIC, &a);
	int rc = rp_jvmlog_open(&jl, path, JP_ERRBUF_LOG(err));
	clock_gettime(CLOCK_MONOTONIC, &b);
	cr_assert_eq(rc, 0, "%s", err);
	rp_jvmlog_free(jl);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

#define MB (1024 * 1024)

/* 1 MB of each hostile shape against 1 MB of ordinary nmethods: before the guard, a DOCTYPE's
 * 4000-byte entity referenced 8500 times in one attribute (30 KB) took 10 s and 90,000
 * attributes on one element 68 s. Now each is within a small factor of the benign file (the
 * floor keeps a fast machine's few milliseconds from making the factor flaky). */
Test(jvmlog_guard, hostile_megabyte_in_linear_time, .timeout = 60)
{
	char *text = malloc(MB + 4096), *p = text;
	p += sprintf(p, "<?xml version='1.0'?>\n<hotspot_log process='1'><tty>\n");
	for (int i = 1; p - text < MB; i++)
		p += sprintf(p, "<nmethod compile_id='%d' compiler='c2' level='4' entry='0x%x' "
			     "size='100' method='A m%d ()V' stamp='0.%d'/>\n", i, 0x1000 + 16 * i,
			     i, i % 1000);
	p += sprintf(p, "</tty></hotspot_log>\n");
	char *benign = write_file("benign.log", text, (size_t)(p - text));

	p = text;
	p += sprintf(p, "<?xml version='1.0'?>\n<!DOCTYPE hotspot_log [<!ENTITY e '");
	for (int i = 0; i < 4000; i++)
		*p++ = 'y';
	p += sprintf(p, "'>]>\n<hotspot_log process='1'><tty><nmethod compile_id='5' method='");
	while (p - text < MB)
		p += sprintf(p, "&e;");
	p += sprintf(p, "' entry='0x10'/></tty></hotspot_log>\n");
	char *entities = write_file("entities.log", text, (size_t)(p - text));

	p = text;
	p += sprintf(p, "<?xml version='1.0'?>\n<hotspot_log process='1'><tty><nmethod "
		     "compile_id='5' entry='0x10' ");
	for (int i = 0; p - text < MB; i++)
		p += sprintf(p, "a%d='1' ", i);
	p += sprintf(p, "/></tty></hotspot_log>\n");
	char *attrs = write_file("attrs.log", text, (size_t)(p - text));

	double tb = seconds_to_read(benign), te = seconds_to_read(entities);
	double ta = seconds_to_read(attrs), floor = tb > 0.02 ? tb : 0.02;
	fprintf(stderr, "jvmlog_guard: 1 MB read in %.3f s (benign), %.3f s (entities), %.3f s "
		"(attributes)\n", tb, te, ta);
	cr_assert_lt(te, 10 * floor, "entities: %.3f s, benign %.3f s", te, tb);
	cr_assert_lt(ta, 10 * floor, "attributes: %.3f s, benign %.3f s", ta, tb);
	free(benign);
	free(entities);
	free(attrs);
	free(text);
}
