/* symbols_debuginfod.c - a real `debuginfod`, started here on 127.0.0.1 serving a directory
 * of ELFs built here, gives recorder/symbols the files of DSOs that exist nowhere else: with
 * a clean HOME, only DEBUGINFOD_URLS leads to them (a stripped executable and its separate
 * debug info, fetched as two artifacts). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
static int wait_ready(const char *dir, const char *url, const char *hex)
{
	char cmd[9000];
	for (int i = 0; i < 120; i++) {
		snprintf(cmd, sizeof(cmd),
			 "rm -rf %s/probe && DEBUGINFOD_URLS=%s DEBUGINFOD_CACHE_PATH=%s/probe "
			 "debuginfod-find executable %s >/dev/null 2>&1", dir, url, dir, hex);
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
	cr_assert_eq(sym_elf_build_id(full, &bid, NULL, 0), 0);
	sym_build_id_hex(&bid, hex);

	int port = free_port();
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
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
	int ready = wait_ready(dir, url, hex);

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
