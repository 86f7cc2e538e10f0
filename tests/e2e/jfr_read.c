/* jfr_read.c - recorder/jfr on recordings the JVM itself writes: a program that deoptimizes
 * (a type check that fails once a second class arrives, a branch never taken until it is)
 * runs under -XX:StartFlightRecording on each installed JDK; the reader's
 * jdk.Deoptimization events (compile id, reason, action, method) and its jdk.Compilation
 * count must equal what that JDK's own `jfr print --json` says, event for event.
 * The file holds events in each thread's buffer order; JDK 25's `jfr print` sorts them by
 * time, JDK 17's does not, so both lists are compared sorted (a CI run on a loaded machine
 * flushed the buffers in another order than their times). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/jfr/jfr.h"
#include "tests/lib/testutil.h"

static const char deopt_java[] =
	"public class Deopt {\n"
	"  interface Shape { long area(long x); }\n"
	"  static final class Sq implements Shape { public long area(long x) { return x * x; } }\n"
	"  static final class Tri implements Shape { public long area(long x) { return x * x / 2; } }\n"
	"  static long sum(Shape s, int n) { long t = 0; for (int i = 0; i < n; i++) t += s.area(i) ^ (i & 7); return t; }\n"
	"  static long branchy(int n, boolean odd) { long t = 0;\n"
	"    for (int i = 0; i < n; i++) { if (odd && i % 3 == 0) t -= i; else t += i; } return t; }\n"
	"  public static void main(String[] a) { long t = 0;\n"
	"    for (int r = 0; r < 300; r++) t += sum(new Sq(), 10000) + branchy(10000, false);\n"
	"    for (int r = 0; r < 300; r++) t += sum(new Tri(), 10000) + branchy(10000, true);\n"
	"    System.out.println(t); }\n"
	"}\n";

#define MAX_EV 4096

struct deopt {
	long id;
	char reason[64], action[64];
};

struct deopts {
	size_t n;
	struct deopt ev[MAX_EV];
};

static int deopt_cmp(const void *a, const void *b)
{
	const struct deopt *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	int c = strcmp(x->reason, y->reason);
	return c ? c : strcmp(x->action, y->action);
}

static int take(const struct jfr_event *ev, void *arg)
{
	struct deopts *d = arg;
	int64_t id;
	char method[128];
	if (d->n >= MAX_EV)
		return 1;
	cr_assert_eq(jfr_get_int(ev, "compileId", &id), 0);
	d->ev[d->n].id = (long)id;
	cr_assert_eq(jfr_get_str(ev, "reason", d->ev[d->n].reason, 64, NULL), 0);
	cr_assert_eq(jfr_get_str(ev, "action", d->ev[d->n].action, 64, NULL), 0);
	cr_assert_eq(jfr_get_str(ev, "method.name", method, sizeof(method), NULL), 0);
	cr_assert_neq(method[0], '\0');
	cr_assert_gt(jfr_event_time_ns(ev), 0);
	d->n++;
	return 0;
}

/* The value after `"key": ` at p, as text (quotes dropped); p moves past it. */
static int json_next(const char **p, const char *key, char *out, size_t len)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	const char *at = strstr(*p, pat);
	if (!at)
		return -1;
	at += strlen(pat);
	if (*at == '"')
		at++;
	size_t n = strcspn(at, "\",\n");
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), at);
	*p = at + n;
	return 0;
}

static void check_jdk(const char *home, const char *dir)
{
	char cmd[2048];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "cd %s && %s/bin/java -XX:StartFlightRecording=filename=d.jfr,"
		 "settings=profile Deopt.java", dir, home);
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);

	char path[1024];
	size_t len;
	snprintf(path, sizeof(path), "%s/d.jfr", dir);
	void *bytes = tu_read_file(path, &len);
	cr_assert(bytes);
	struct jfr_file *f;
	const struct jp_log quiet = { 0 };
	cr_assert_eq(jfr_open_mem(bytes, len, path, &quiet, &f), 0, "%s", home);
	static struct deopts d, want;
	d.n = want.n = 0;
	cr_assert_eq(jfr_each_event(f, "jdk.Deoptimization", take, &d), 0);
	size_t compiles = jfr_count_events(f, "jdk.Compilation");

	snprintf(cmd, sizeof(cmd), "%s/bin/jfr print --json --events jdk.Deoptimization %s", home,
		 path);
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	const char *p = r.out;
	char id[32];
	while (!json_next(&p, "compileId", id, sizeof(id))) {
		struct deopt *w = &want.ev[want.n];
		cr_assert_lt(want.n, MAX_EV);
		w->id = atol(id);
		cr_assert(!json_next(&p, "reason", w->reason, sizeof(w->reason)) &&
			  !json_next(&p, "action", w->action, sizeof(w->action)));
		want.n++;
	}
	size_t n = want.n;
	cr_assert_eq(n, d.n, "%s: jfr prints %zu deoptimizations, the reader has %zu", home, n,
		     d.n);
	qsort(d.ev, d.n, sizeof(d.ev[0]), deopt_cmp);
	qsort(want.ev, n, sizeof(want.ev[0]), deopt_cmp);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(want.ev[i].id, d.ev[i].id, "%s: sorted event %zu", home, i);
		cr_assert_str_eq(want.ev[i].reason, d.ev[i].reason, "%s: sorted event %zu", home, i);
		cr_assert_str_eq(want.ev[i].action, d.ev[i].action, "%s: sorted event %zu", home, i);
	}
	cr_assert_gt(n, 0, "%s: the program deoptimizes", home);
	tu_result_free(&r);

	snprintf(cmd, sizeof(cmd), "%s/bin/jfr summary %s | awk '$1 == \"jdk.Compilation\" "
		 "{ print $2 }'", home, path);
	cr_assert_eq(tu_sh(&r, cmd, 300), 0);
	cr_assert_eq((size_t)atol(r.out), compiles, "%s: jfr summary counts %s compilations, "
		     "the reader %zu", home, r.out, compiles);
	tu_result_free(&r);
	fprintf(stderr, "%s: %zu deoptimizations, %zu compilations, equal to jfr's\n", home, n,
		compiles);
	jfr_close(f);
	free(bytes);
}

Test(jfr_read, jvm_recordings_equal_the_jdks_own_reader, .timeout = 900)
{
	static const char *const homes[] = {
		"/usr/lib/jvm/java-17-openjdk-amd64",
		"/usr/lib/jvm/temurin-25-jdk-amd64",
	};
	char *dir = tu_tmpdir("jfr_read");
	char src[1024];
	int ran = 0;
	snprintf(src, sizeof(src), "%s/Deopt.java", dir);
	cr_assert_eq(tu_write_file(src, deopt_java, sizeof(deopt_java) - 1), 0);
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++) {
		char java[512], jfr[512];
		snprintf(java, sizeof(java), "%s/bin/java", homes[i]);
		snprintf(jfr, sizeof(jfr), "%s/bin/jfr", homes[i]);
		if (access(java, X_OK) || access(jfr, X_OK)) {
			tu_skip_part("%s has no java and jfr: not checked", homes[i]);
			continue;
		}
		check_jdk(homes[i], dir);
		ran++;
	}
	tu_rmtree(dir);
	if (!ran)
		cr_skip_test("no JDK with java and jfr installed");
}
