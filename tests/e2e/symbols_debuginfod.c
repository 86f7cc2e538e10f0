/* symbols_debuginfod.c - a real `debuginfod`, started here on 127.0.0.1 serving a directory
 * of ELFs built here, gives recorder/symbols the files of DSOs that exist nowhere else: with
 * a clean HOME, only DEBUGINFOD_URLS leads to them (a stripped executable and its separate
 * debug info, fetched as two artifacts). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"

static const char *src =
	"static inline __attribute__((always_inline)) int sq(int x) { return x * x + 3; }\n"
	"__attribute__((noinline)) int work(const int *v, int n)\n"
	"{\n"
	"	int s = 0;\n"
	"	for (int i = 0; i < n; i++)\n"
	"		s += sq(v[i]);\n"
	"	return s;\n"
	"}\n";

static char msgs[8192];
static pid_t srv = -1;

/* The server never outlives the test, even when an assertion ends it early. */
static void stop_server(void)
{
	if (srv > 0) {
		kill(srv, SIGTERM);
		waitpid(srv, NULL, 0);
		srv = -1;
	}
}

static void collect(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	size_t n = strlen(msgs);
	snprintf(msgs + n, sizeof(msgs) - n, "%s\n", msg);
}

static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	cr_assert(fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
		  !getsockname(fd, (struct sockaddr *)&a, &len));
	int port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static void sh(const char *cmd)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	tu_result_free(&r);
}

static uint64_t nm_addr(const char *path, const char *sym)
{
	char cmd[4400];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "nm --defined-only %s | awk '$3 == \"%s\" { print $1 }'", path,
		 sym);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	uint64_t a = strtoull(r.out, NULL, 16);
	tu_result_free(&r);
	return a;
}

/* Waits until the server has scanned the directory: a probe fetch through its own empty
 * client cache (emptied each time: the client remembers misses). */
static int wait_ready(const char *dir, const char *url, const char *kind, const char *hex)
{
	char cmd[9000];
	for (int i = 0; i < 120; i++) {
		snprintf(cmd, sizeof(cmd),
			 "rm -rf %s/probe && DEBUGINFOD_URLS=%s DEBUGINFOD_CACHE_PATH=%s/probe "
			 "debuginfod-find %s %s >/dev/null 2>&1", dir, url, dir, kind, hex);
		struct tu_result r;
		if (tu_sh(&r, cmd, 30) == 0 && r.status == 0) {
			tu_result_free(&r);
			return 1;
		}
		tu_result_free(&r);
		struct timespec ts = { 0, 250000000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* `debuginfod -F dir/srv` on a free port of 127.0.0.1 (stopped by stop_server); 1 once it
 * serves the artifact kind ("executable", "debuginfo") of build-id hex. */
static int start_server(const char *dir, char *url, size_t urllen, const char *kind,
			const char *hex)
{
	int port = free_port();
	snprintf(url, urllen, "http://127.0.0.1:%d", port);
	srv = fork();
	cr_assert_geq(srv, 0);
	if (srv == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		char portarg[16], db[4200], scan[4200];
		snprintf(portarg, sizeof(portarg), "%d", port);
		snprintf(db, sizeof(db), "%s/db.sqlite", dir);
		snprintf(scan, sizeof(scan), "%s/srv", dir);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execlp("debuginfod", "debuginfod", "-F", "-p", portarg, "-d", db, "-t", "1", "-g", "0",
		       scan, (char *)NULL);
		_exit(127);
	}
	return wait_ready(dir, url, kind, hex);
}

Test(debuginfod, clean_home_resolves_through_debuginfod, .timeout = 120, .fini = stop_server)
{
	if (!tu_have("debuginfod") || !tu_have("debuginfod-find"))
		cr_skip_test("debuginfod is not installed");
	char *dir = tu_tmpdir("sym-dbgd");
	char path[4200], cmd[9000], url[64], hex[SYM_BUILD_ID_HEX];
	snprintf(path, sizeof(path), "%s/t.c", dir);
	cr_assert_eq(tu_write_file(path, src, strlen(src)), 0);
	/* served: a stripped libt.so and its separate debug file; kept aside for the layout */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir srv home && gcc -g -O2 -fPIC -shared -o libt.so t.c && "
		 "cp libt.so full.so && objcopy --only-keep-debug libt.so srv/libt.debug && "
		 "strip -s -o srv/libt.so libt.so && rm libt.so", dir);
	sh(cmd);
	char full[4200];
	snprintf(full, sizeof(full), "%s/full.so", dir);
	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(full, &bid, NULL), 0);
	sym_build_id_hex(&bid, hex);

	int ready = start_server(dir, url, sizeof(url), "executable", hex);

	char cache[4200], home[4200], bdir[4300];
	snprintf(cache, sizeof(cache), "%s/client-cache", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	snprintf(bdir, sizeof(bdir), "%s/.debug", home);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	setenv("HOME", home, 1);
	unsetenv("PERF_BUILDID_DIR");
	struct sym_opts o = { .sz = sizeof(o), .log = { collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	uint64_t work = nm_addr(full, "work");
	/* the DSO exists nowhere locally: neither at the recorded path nor in HOME's cache */
	uint64_t base = 0x7f5500000000ull;
	cr_assert_eq(sym_mmap(s, 4, 4, base, 0x10000, 0, "/opt/gone/libt.so", bid.data, bid.size, 2,
			      1), 0);
	struct sym_result r;
	int rc = sym_resolve(s, 4, base + work + 2, 5, 2, SYM_RES_LINES, &r);
	cr_assert(ready, "debuginfod on %s did not serve %s in time", url, hex);
	cr_assert_eq(rc, 0);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", "work", "%s", msgs);
	cr_expect_not_null(r.srcfile, "lines from the served debuginfo: %s", msgs);
	if (r.srcfile)
		cr_expect(strstr(r.srcfile, "t.c"), "%s", r.srcfile);
	/* somewhere in work() the served DWARF shows sq() inlined */
	unsigned max_inline = 0;
	for (uint64_t off = 0; off < 64 && r.dso; off++) {
		struct sym_result q;
		if (!sym_resolve(s, 4, base + work + off, 5, 2, SYM_RES_LINES, &q) &&
		    q.n_inline > max_inline)
			max_inline = q.n_inline;
	}
	cr_expect_geq(max_inline, 2, "sq() inlined into work()");
	const char *found = NULL;
	cr_assert_eq(sym_dso_find(s, r.dso, &found), 0);
	cr_expect(!strncmp(found, cache, strlen(cache)), "fetched into the client cache: %s", found);
	sym_session_free(s);
	stop_server();
	tu_rmtree(dir);
	free(dir);
}

/* Kernel symbols of a recording made on another kernel: its vmlinux, found over debuginfod by
 * the recorded kernel build-id. The server holds a vmlinux-like ELF built here with the
 * running kernel's build-id (-Wl,--build-id=0x...) and functions dbgd_fn<i> at chosen offsets
 * from _text; the recording (written here) has samples at those offsets from the running
 * _text. "Another machine": the report runs where /sys/kernel/notes is hidden (a mount
 * namespace), so the running kernel cannot vouch for /proc/kallsyms. */
Test(debuginfod, kernel_vmlinux_by_build_id, .timeout = 120, .fini = stop_server)
{
	if (!tu_have("debuginfod") || !tu_have("debuginfod-find") || !tu_have("unshare"))
		cr_skip_test("debuginfod or unshare is not installed");
	struct sym_build_id kid;
	if (sym_kernel_build_id(&kid))
		cr_skip_test("the running kernel has no build-id in /sys/kernel/notes");
	char *dir = tu_tmpdir("sym-dbgd-k");
	char cmd[9000], url[64], hex[SYM_BUILD_ID_HEX], data[4200];
	static const uint64_t offs[] = { 0x1000, 0x201040, 0x300080 };
	sym_build_id_hex(&kid, hex);
	/* the ELF: .ktext (NOBITS, so the file stays small) at a vmlinux-like address */
	size_t k = (size_t)snprintf(cmd, sizeof(cmd), "cd %s && mkdir srv home && { printf "
				    "'.section .ktext,\"ax\",@nobits\\n.globl _text\\n_text:\\n'",
				    dir);
	uint64_t at = 0;
	for (size_t i = 0; i < 3; i++) {
		k += (size_t)snprintf(cmd + k, sizeof(cmd) - k, "; printf '.skip %llu\\n.globl "
				      "dbgd_fn%zu\\n.type dbgd_fn%zu,@function\\ndbgd_fn%zu:\\n"
				      ".skip 64\\n.size dbgd_fn%zu,64\\n'",
				      (unsigned long long)(offs[i] - at), i, i, i, i);
		at = offs[i] + 64;
	}
	snprintf(cmd + k, sizeof(cmd) - k, "; } > k.s && as -o k.o k.s && echo 'int dbgd_marker(void)"
		 " { return 1; }' > c.c && cc -g -O1 -c c.c && ld -o srv/vmlinux -z noexecstack "
		 "-Ttext=0xffffffff80000000 --section-start=.ktext=0xffffffff81000000 -e _text "
		 "--build-id=0x%s k.o c.o", hex);
	sh(cmd);

	/* the recording: the running kernel's map and build-id, one sample per function */
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, "awk '$3 == \"_text\" { print $1; exit }' /proc/kallsyms", 30), 0);
	uint64_t text = strtoull(r.out, NULL, 16);
	tu_result_free(&r);
	if (!text)
		text = 0xffffffff81000000ull;	/* hidden here: any address will do */
	snprintf(data, sizeof(data), "%s/k.data", dir);
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME, .sample_id_all = 1,
				     .sample_period = 1 };
	struct pd_writer *w;
	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	struct pd_sid sid = { .pid = 7, .tid = 7, .time = 1 };
	cr_assert_eq(pd_writer_comm(w, 7, 7, "kwork", true, &sid), 0);
	struct pd_mmap2_args km = { .pid = UINT32_MAX, .cpumode = PERF_RECORD_MISC_KERNEL,
				    .start = text, .len = ~0ull - text, .pgoff = text,
				    .filename = "[kernel.kallsyms]_text" };
	cr_assert_eq(pd_writer_mmap2(w, &km, &sid), 0);
	cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, kid.data, kid.size,
					    "[kernel.kallsyms]"), 0);
	for (size_t i = 0; i < 3; i++)
		for (size_t n = 0; n <= i; n++) {	/* 1, 2, 3 samples: one row each */
			struct { struct perf_event_header h; uint64_t ip; uint32_t pid, tid;
				 uint64_t time; } smp = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
							    sizeof(smp) }, text + offs[i] + 4 + n,
							  7, 7, 10 + i * 4 + n };
			cr_assert_eq(pd_writer_write(w, &smp, sizeof(smp)), 0);
		}
	cr_assert_eq(pd_writer_close(w), 0);

	int ready = start_server(dir, url, sizeof(url), "debuginfo", hex);
	cr_assert(ready, "debuginfod on %s did not serve %s in time", url, hex);
	char jp[4200];
	cr_assert_not_null(realpath(tu_build("jitprof"), jp));
	/* a mount namespace where the running kernel's notes are hidden needs privileges */
	snprintf(cmd, sizeof(cmd), "cd %s && : > nonotes && unshare -m sh -c 'mount --bind nonotes "
		 "/sys/kernel/notes && test ! -s /sys/kernel/notes'", dir);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	if (r.status) {
		tu_skip_part("cannot hide /sys/kernel/notes in a mount namespace "
			"here (%s): the debuginfod vmlinux is not tried", r.err);
		tu_result_free(&r);
		goto out;
	}
	tu_result_free(&r);
	snprintf(cmd, sizeof(cmd), "cd %s && unshare -m sh -c 'mount --bind nonotes "
		 "/sys/kernel/notes && HOME=$PWD/home DEBUGINFOD_CACHE_PATH=$PWD/cache "
		 "DEBUGINFOD_URLS=%s %s report -i k.data --sort sym 2>&1'", dir, url, jp);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	for (size_t i = 0; i < 3; i++) {
		char want[32];
		snprintf(want, sizeof(want), "[k] dbgd_fn%zu", i);
		cr_assert(strstr(r.out, want), "%s missing:\n%s", want, r.out);
	}
	tu_result_free(&r);
	/* without debuginfod the same report names none of them */
	snprintf(cmd, sizeof(cmd), "cd %s && unshare -m sh -c 'mount --bind nonotes "
		 "/sys/kernel/notes && HOME=$PWD/home DEBUGINFOD_URLS= %s report -i k.data "
		 "--sort sym 2>&1'", dir, jp);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert_null(strstr(r.out, "dbgd_fn"), "%s", r.out);
	tu_result_free(&r);
out:
	stop_server();
	tu_rmtree(dir);
	free(dir);
}

/* Issue 34 finding 14: a server that answers slowly, or never. A tiny HTTP server on
 * 127.0.0.1 (python3) answers every request with 404 after delay seconds (delay < 0: never
 * answers); it serves concurrently and ends by itself after lifetime seconds. */
static const char *slow_py =
	"import http.server, os, sys, threading, time\n"
	"delay, life = float(sys.argv[2]), float(sys.argv[3])\n"
	"threading.Timer(life, os._exit, [0]).start()\n"
	"class H(http.server.BaseHTTPRequestHandler):\n"
	"    def do_GET(self):\n"
	"        time.sleep(delay if delay >= 0 else life)\n"
	"        self.send_error(404)\n"
	"    def log_message(self, *a):\n"
	"        pass\n"
	"s = http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H)\n"
	"s.daemon_threads = True\n"
	"s.serve_forever()\n";

static void start_slow_server(const char *dir, double delay, int lifetime, char *url,
			      size_t urllen)
{
	char py[4200], d[32], life[32], portarg[16];
	int port = free_port();
	snprintf(url, urllen, "http://127.0.0.1:%d", port);
	snprintf(py, sizeof(py), "%s/slow.py", dir);
	cr_assert_eq(tu_write_file(py, slow_py, strlen(slow_py)), 0);
	snprintf(d, sizeof(d), "%g", delay);
	snprintf(life, sizeof(life), "%d", lifetime);
	snprintf(portarg, sizeof(portarg), "%d", port);
	srv = fork();
	cr_assert_geq(srv, 0);
	if (srv == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execlp("python3", "python3", py, portarg, d, life, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) {	/* listening within 10 s */
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
		close(fd);
		if (ok)
			return;
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	cr_assert_fail("the slow server did not listen on %s", url);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* n made-up DSOs (build-ids nobody has) asked for as report asks: ahead, then each found.
 * Returns the seconds it all took. */
static double ask(const char *dir, const char *url, size_t n, uint64_t budget)
{
	char cache[4200], home[4200];
	snprintf(cache, sizeof(cache), "%s/client-cache", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	mkdir(home, 0700);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	setenv("HOME", home, 1);
	unsetenv("DEBUGINFOD_TIMEOUT");
	unsetenv("PERF_BUILDID_DIR");
	msgs[0] = 0;
	struct sym_opts o = { .sz = sizeof(o), .log = { collect, NULL },
			      .debuginfod_timeout = budget };
	struct sym_session *s = sym_session_new(&o);
	cr_assert(s);
	for (size_t i = 0; i < n; i++) {
		char name[64];
		uint8_t id[20];
		snprintf(name, sizeof(name), "/opt/gone/lib%zu.so", i);
		for (size_t k = 0; k < sizeof(id); k++)
			id[k] = (uint8_t)(0x5a ^ (i * 31 + k * 7));
		cr_assert_eq(sym_add_build_id(s, name, id, sizeof(id), 2), 0);
	}
	struct sym_dso *v[64];
	size_t k = 0;
	for (struct sym_dso *d = sym_dso_next(s, NULL); d && k < 64; d = sym_dso_next(s, d))
		v[k++] = d;
	cr_assert_eq(k, n);
	double t0 = now_s();
	cr_assert_eq(sym_session_debuginfod_ahead(s, v, k), 0);
	for (size_t i = 0; i < k; i++)
		cr_assert_eq(sym_dso_find(s, v[i], NULL), -ENOENT);
	double took = now_s() - t0;
	sym_session_free(s);
	return took;
}

/* 50 build-ids against a server taking 1 s each: 50 s one by one; a few in flight at once. */
Test(debuginfod, slow_server_asked_concurrently, .timeout = 120, .fini = stop_server)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	char *dir = tu_tmpdir("sym-dbgd-slow");
	char url[64];
	start_slow_server(dir, 1.0, 100, url, sizeof(url));
	double took = ask(dir, url, 50, 0);
	fprintf(stderr, "debuginfod: 50 build-ids, 1 s each: %.1f s\n", took);
	cr_expect_lt(took, 20.0, "50 requests of 1 s took %.1f s:\n%s", took, msgs);
	cr_expect_eq(count(msgs, "50 build-ids not found on debuginfod (0 timed out)"), 1, "%s",
		     msgs);
	cr_expect_eq(count(msgs, "not found on debuginfod"), 1, "said once:\n%s", msgs);
	stop_server();
	tu_rmtree(dir);
	free(dir);
}

/* A server that never answers: 3 build-ids took over 240 s (90 s each, libdebuginfod's own
 * timeout); now the session's budget (4 s here) bounds them all. */
Test(debuginfod, silent_server_within_the_budget, .timeout = 120, .fini = stop_server)
{
	if (!tu_have("python3"))
		cr_skip_test("python3 is not installed");
	char *dir = tu_tmpdir("sym-dbgd-never");
	char url[64];
	start_slow_server(dir, -1, 60, url, sizeof(url));
	double took = ask(dir, url, 3, 4);
	fprintf(stderr, "debuginfod: 3 build-ids, no answer, budget 4 s: %.1f s\n", took);
	cr_expect_lt(took, 12.0, "took %.1f s:\n%s", took, msgs);
	cr_expect_geq(took, 3.0, "gave up before the budget: %.1f s", took);
	cr_expect_eq(count(msgs, "3 build-ids not found on debuginfod (3 timed out)"), 1, "%s",
		     msgs);
	stop_server();
	tu_rmtree(dir);
	free(dir);
}
