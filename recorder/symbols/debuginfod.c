/* debuginfod.c - files by build-id from the servers DEBUGINFOD_URLS names: libdebuginfod
 * loaded on first use, the DSOs a recording names asked for ahead on a few threads (one
 * client each: a client is not thread-safe), and one time budget for all of a session's
 * requests, enforced through libdebuginfod's progress callback (called about once a second
 * while a request waits, even for a server that sends nothing). */
#include "recorder/symbols/symbols_int.h"
#include "lib/grow.h"

#include "lib/pool.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* libdebuginfod is loaded only when DEBUGINFOD_URLS asks for it: linked, it and its ~30
 * dependencies (curl, TLS, LDAP, Kerberos...) cost every jitprof run several ms to load. */
struct dbgd_api {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
};

static const struct dbgd_api *dbgd_api(void)
{
	static struct dbgd_api api;
	static int tried;
	if (!tried) {
		tried = 1;
		void *h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			*(void **)&api.begin = dlsym(h, "debuginfod_begin");
			*(void **)&api.end = dlsym(h, "debuginfod_end");
			*(void **)&api.find_executable = dlsym(h, "debuginfod_find_executable");
			*(void **)&api.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
			*(void **)&api.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
			*(void **)&api.set_user_data = dlsym(h, "debuginfod_set_user_data");
			*(void **)&api.get_user_data = dlsym(h, "debuginfod_get_user_data");
		}
	}
	return api.begin && api.end && api.find_executable && api.find_debuginfo &&
	       api.set_progressfn && api.set_user_data && api.get_user_data ? &api : NULL;
}

/* What was fetched ahead for one DSO: [0] its ELF, [1] its debug file. */
struct dbgd_ahead {
	int rc[2];		/* 0: not asked ahead; 1: fd/path hold it; -errno: a miss */
	int fd[2];
	char *path[2];
	int timed_out[2];
};

void dbgd_dso_release(struct sym_dso *d)
{
	if (!d->dbgd)
		return;
	for (int k = 0; k < 2; k++) {
		if (d->dbgd->rc[k] > 0)
			close(d->dbgd->fd[k]);
		free(d->dbgd->path[k]);
	}
	free(d->dbgd);
	d->dbgd = NULL;
}

void dbgd_end(struct sym_session *s)
{
	if (s->dbgd && dbgd_api())
		dbgd_api()->end(s->dbgd);
	s->dbgd = NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t budget_s(const struct sym_session *s)
{
	return s->o.debuginfod_timeout ? s->o.debuginfod_timeout : SYM_DEBUGINFOD_BUDGET_S;
}

/* The session's client, started on first use (on the calling thread: it also sets up
 * libcurl before any worker makes its own); NULL without DEBUGINFOD_URLS. The budget starts
 * with it. */
static debuginfod_client *dbgd(struct sym_session *s)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (s->o.no_debuginfod || !urls || !*urls)
		return NULL;
	if (!s->dbgd_tried) {
		s->dbgd_tried = 1;
		s->dbgd_deadline = now_ns() + budget_s(s) * 1000000000u;
		if (dbgd_api())
			s->dbgd = dbgd_api()->begin();
		else
			sess_msg(s, JP_LOG_WARN, "DEBUGINFOD_URLS is set but libdebuginfod.so.1 "
				 "cannot be loaded (or lacks debuginfod_set_progressfn): %s",
				 dlerror());
	}
	return s->dbgd;
}

struct req {
	uint64_t deadline;
	int aborted;
};

static int on_progress(debuginfod_client *c, long a, long b)
{
	(void)a;
	(void)b;
	struct req *r = dbgd_api()->get_user_data(c);
	if (r && now_ns() >= r->deadline) {
		r->aborted = 1;
		return 1;	/* libdebuginfod abandons the request */
	}
	return 0;
}

/* One request on cl before deadline: an fd or -errno (-ECANCELED: the budget was spent before
 * it was made); *timed_out set when it ran out of time. */
static int query(debuginfod_client *cl, const struct sym_build_id *id, int debug,
		 uint64_t deadline, char **path, int *timed_out)
{
	const struct dbgd_api *api = dbgd_api();
	struct req r = { deadline, 0 };
	*path = NULL;
	*timed_out = 0;
	if (now_ns() >= deadline)
		return -ECANCELED;
	api->set_user_data(cl, &r);
	api->set_progressfn(cl, on_progress);
	int fd = debug ? api->find_debuginfo(cl, id->data, id->size, path)
		       : api->find_executable(cl, id->data, id->size, path);
	api->set_progressfn(cl, NULL);
	api->set_user_data(cl, NULL);
	if (fd < 0) {
		free(*path);
		*path = NULL;
		*timed_out = r.aborted || fd == -ETIME || fd == -ETIMEDOUT;
	}
	return fd;
}

/* The message of a miss: what ended the request. */
static const char *miss_reason(int rc, int timed_out)
{
	if (rc == -ECANCELED)
		return "not asked, the debuginfod budget (--debuginfod-timeout) was spent";
	return timed_out ? "timed out" : strerror(-rc);
}

int dbgd_find(struct sym_session *s, struct sym_dso *d, int debug, char **path)
{
	struct dbgd_ahead *a = d->dbgd;
	*path = NULL;
	if (a && a->rc[debug]) {
		/* asked ahead: the answer is taken once; its miss was counted there */
		int rc = a->rc[debug];
		a->rc[debug] = -ENOENT;
		if (rc < 0)
			return rc;
		*path = a->path[debug];
		a->path[debug] = NULL;
		return a->fd[debug];
	}
	debuginfod_client *cl = dbgd(s);
	if (!cl || !d->bid.size)
		return -ENOENT;
	int timed_out;
	int fd = query(cl, &d->bid, debug, s->dbgd_deadline, path, &timed_out);
	if (fd < 0) {
		char hex[SYM_BUILD_ID_HEX];
		sess_msg(s, JP_LOG_INFO, "debuginfod: no %s for %s (build-id %s): %s",
			 debug ? "debuginfo" : "executable", d->long_name,
			 sym_build_id_hex(&d->bid, hex), miss_reason(fd, timed_out));
	}
	return fd;
}

int dbgd_find_kernel(struct sym_session *s, const struct sym_build_id *id, char **path)
{
	debuginfod_client *cl = dbgd(s);
	int timed_out;
	*path = NULL;
	if (!cl || !id->size)
		return -ENOENT;
	/* a distribution serves vmlinux as the kernel's debuginfo (Debian: linux-image-*-dbg) */
	int fd = query(cl, id, 1, s->dbgd_deadline, path, &timed_out);
	if (fd < 0 && fd != -ECANCELED && !timed_out)
		fd = query(cl, id, 0, s->dbgd_deadline, path, &timed_out);
	if (fd < 0) {
		char hex[SYM_BUILD_ID_HEX];
		sess_msg(s, JP_LOG_INFO, "debuginfod: no vmlinux for build-id %s: %s",
			 sym_build_id_hex(id, hex), miss_reason(fd, timed_out));
		return fd;
	}
	close(fd);
	return *path ? 0 : -ENOENT;
}

/* ---- ahead, on threads ---- */

struct job {
	struct sym_dso *d;
	int debug;
};

struct ahead {
	struct job *jobs;
	size_t n;
	uint64_t deadline;
};

static void run_job(void *ctx, void *jobp)
{
	struct ahead *ah = ctx;
	struct job *j = &ah->jobs[*(size_t *)jobp];
	struct dbgd_ahead *a = j->d->dbgd;
	int k = j->debug;
	debuginfod_client *cl = dbgd_api()->begin();
	if (!cl) {
		a->rc[k] = -ENOMEM;
		return;
	}
	int fd = query(cl, &j->d->bid, k, ah->deadline, &a->path[k], &a->timed_out[k]);
	dbgd_api()->end(cl);
	a->fd[k] = fd;
	a->rc[k] = fd >= 0 ? 1 : fd;
}

/* The jobs on a pool of SYM_DEBUGINFOD_THREADS (here, when no thread starts). */
static void run_all(struct ahead *ah)
{
	struct jp_pool *p = NULL;
	size_t threads = ah->n < SYM_DEBUGINFOD_THREADS ? ah->n : SYM_DEBUGINFOD_THREADS;
	if (threads > 1 && jp_pool_new(&p, (int)threads, sizeof(size_t), run_job, ah))
		p = NULL;
	for (size_t i = 0; i < ah->n; i++)
		if (!p || jp_pool_push(p, &i))
			run_job(ah, &i);
	jp_pool_finish(p);
}

/* Queues d's file (debug: its debug file) unless another source has it. 0 or -ENOMEM. */
static int want(struct sym_session *s, struct ahead *ah, size_t *cap, struct sym_dso *d,
		int debug, int *wants_debug)
{
	if (find_local(s, d, debug, wants_debug))
		return 0;
	if (!d->dbgd && !(d->dbgd = calloc(1, sizeof(*d->dbgd))))
		return -ENOMEM;
	if (jp_grow(&ah->jobs, cap, ah->n + 1, sizeof(*ah->jobs), 8))
		return -ENOMEM;
	ah->jobs[ah->n++] = (struct job){ d, debug };
	return 0;
}

/* A fetched ELF without a symtab or DWARF: its debug file is wanted too. */
static int fetched_wants_debug(const struct dbgd_ahead *a)
{
	if (a->rc[0] <= 0)
		return 0;
	Elf *elf = elf_begin(a->fd[0], ELF_C_READ_MMAP, NULL);
	int w = elf && elf_kind(elf) == ELF_K_ELF && find_wants_debug(elf);
	if (elf)
		elf_end(elf);
	return w;
}

static void say_misses(struct sym_session *s, const struct ahead *ah)
{
	size_t missed = 0, timed_out = 0, not_asked = 0;
	for (size_t i = 0; i < ah->n; i++) {
		const struct dbgd_ahead *a = ah->jobs[i].d->dbgd;
		int k = ah->jobs[i].debug;
		if (a->rc[k] >= 0)
			continue;
		missed++;
		timed_out += a->timed_out[k];
		not_asked += a->rc[k] == -ECANCELED;
	}
	if (!missed)
		return;
	if (not_asked)
		sess_msg(s, JP_LOG_WARN, "%zu build-ids not found on debuginfod (%zu timed out, "
			 "%zu not asked: the %llu s of --debuginfod-timeout were spent)", missed,
			 timed_out, not_asked, (unsigned long long)budget_s(s));
	else
		sess_msg(s, JP_LOG_WARN, "%zu build-ids not found on debuginfod (%zu timed out)",
			 missed, timed_out);
}

int sym_session_debuginfod_ahead(struct sym_session *s, struct sym_dso *const *dsos, size_t n)
{
	struct ahead ah = { 0 };
	size_t cap = 0, first_round;
	int rc = 0;
	if (!dbgd(s))
		return 0;
	ah.deadline = s->dbgd_deadline;
	for (size_t i = 0; i < n && !rc; i++) {
		struct sym_dso *d = dsos[i];
		int wants_debug = 0;
		if (!d->bid.size || d->kernel || d->anon || d->long_name[0] == '[' || d->find_done ||
		    d->dbgd)
			continue;
		size_t before = ah.n;
		rc = want(s, &ah, &cap, d, 0, &wants_debug);
		if (!rc && ah.n == before && wants_debug)
			rc = want(s, &ah, &cap, d, 1, NULL);
	}
	run_all(&ah);
	/* The ELFs fetched that have no symbols or lines of their own: their debug files. */
	first_round = ah.n;
	for (size_t i = 0; i < first_round && !rc; i++)
		if (!ah.jobs[i].debug && fetched_wants_debug(ah.jobs[i].d->dbgd))
			rc = want(s, &ah, &cap, ah.jobs[i].d, 1, NULL);
	struct ahead second = { ah.jobs + first_round, ah.n - first_round, ah.deadline };
	run_all(&second);
	say_misses(s, &ah);
	free(ah.jobs);
	return rc;
}
