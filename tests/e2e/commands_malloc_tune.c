/* commands_malloc_tune.c - the batch commands (report, ...) run with glibc's malloc tuned
 * (lib/malloc_tune.h): the running process's own environment shows the tunables, it is
 * still named "jitprof", and a user's own malloc tunables or JITPROF_MALLOC_TUNE=0 leave it
 * untuned; inject tunes its heap in its own process instead; record is never re-executed; the libraries of a few commands (capstone, libarchive,
 * libxml2, libdebuginfod) are not loaded at start. Observed on a `jitprof report -i -` that waits for
 * its input on a pipe, so the process is looked at in its final image. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/malloc_tune.h"
#include "tests/lib/testutil.h"

/* A /proc file of pid, NULs made newlines. */
static char *proc_text(pid_t pid, const char *what)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	size_t len;
	char *t = tu_read_file(path, &len);
	for (size_t i = 0; t && i < len; i++)
		if (!t[i])
			t[i] = '\n';
	return t;
}

/* The state letter of pid (after "(comm) "), or 0. */
static char proc_state(pid_t pid)
{
	char *st = proc_text(pid, "stat"), s = 0;
	char *p = st ? strrchr(st, ')') : NULL;
	if (p && p[1] == ' ')
		s = p[2];
	free(st);
	return s;
}

struct observed {
	char *environ;
	char *comm;
	char *maps;
	char *smaps;
};

/* Starts `jitprof ARGS -i -` with env_extra set (NULL-terminated "NAME=value" or "NAME" to
 * unset), waits until it sleeps on its empty input pipe, reads its environment and name,
 * then closes the pipe and reaps it. */
static struct observed observe(const char *cmd, const char *const *env)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fds[0], 0);
		close(fds[0]);
		int null = open("/dev/null", O_WRONLY);	/* its "input too short" is expected */
		if (null >= 0)
			dup2(null, 2);
		close(fds[1]);
		for (const char *const *e = env; e && *e; e++) {
			const char *eq = strchr(*e, '=');
			if (!eq) {
				unsetenv(*e);
				continue;
			}
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
			setenv(name, eq + 1, 1);
		}
		execl(tu_build("jitprof"), "jitprof", cmd, "-i", "-", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	struct observed o = { 0 };
	/* Sleeping: blocked reading the pipe, past any re-execution (which happens before the
	 * command reads anything). */
	int status;
	for (int i = 0; i < 1000 && proc_state(pid) != 'S'; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		cr_assert_eq(waitpid(pid, &status, WNOHANG), 0,
			     "%s %s ended (status %d) before reading its input", tu_build("jitprof"),
			     cmd, status);
	}
	cr_assert_eq(proc_state(pid), 'S', "jitprof %s never waited for its input", cmd);
	o.environ = proc_text(pid, "environ");
	o.comm = proc_text(pid, "comm");
	o.maps = proc_text(pid, "maps");
	o.smaps = proc_text(pid, "smaps");
	close(fds[1]);
	if (waitpid(pid, &status, 0) != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	cr_assert_not_null(o.environ);
	cr_assert_not_null(o.comm);
	return o;
}

static void observed_free(struct observed *o)
{
	free(o->environ);
	free(o->comm);
	free(o->maps);
	free(o->smaps);
}

/* The [heap] mapping's size in kB (0: none). */
static unsigned long heap_kb(const struct observed *o)
{
	const char *h = o->smaps ? strstr(o->smaps, "[heap]") : NULL;
	const char *z = h ? strstr(h, "\nSize:") : NULL;
	return z ? strtoul(z + 6, NULL, 10) : 0;
}

/* 1 when the [heap] mapping is advised for huge pages ("hg" in its VmFlags). */
static int heap_advised(const struct observed *o)
{
	const char *h = o->smaps ? strstr(o->smaps, "[heap]") : NULL;
	const char *f = h ? strstr(h, "VmFlags:") : NULL;
	const char *end = f ? strchr(f, '\n') : NULL;
	if (!f || !end)
		return 0;
	for (const char *p = f; (p = strstr(p, " hg")) && p < end; p++)
		if (p[3] == ' ' || p[3] == '\n')
			return 1;
	return 0;
}

static int tuned(const struct observed *o)
{
	return strstr(o->environ, JP_MALLOC_TUNED_FROM_ENV "=") != NULL &&
	       strstr(o->environ, "GLIBC_TUNABLES=glibc.malloc.hugetlb=1") != NULL;
}

Test(malloc_tune, report_runs_tuned_under_its_own_name)
{
	const char *env[] = { "GLIBC_TUNABLES", JP_MALLOC_TUNE_ENV, NULL };
	struct observed o = observe("report", env);
	cr_assert_str_eq(o.comm, "jitprof\n");
	if (JP_MALLOC_TUNE_ACTIVE)
		cr_assert(tuned(&o), "no tunables in the environment of jitprof report:\n%s",
			  o.environ);
	else
		cr_assert(!tuned(&o), "a sanitized build re-executed");
	observed_free(&o);
}

/* The libraries only some commands use are loaded when first used (lib/dynload.h), so a
 * report that reads its input has none of them mapped: each would cost every start ms. */
Test(malloc_tune, libraries_for_some_commands_are_not_loaded_at_start)
{
	const char *env[] = { "GLIBC_TUNABLES", JP_MALLOC_TUNE_ENV, NULL };
	for (const char *const *cmd = (const char *const[]){ "report", "inject", NULL }; *cmd;
	     cmd++) {
		struct observed o = observe(*cmd, env);
		cr_assert_not_null(o.maps);
		cr_assert(strstr(o.maps, "libelf"), "no libelf in the maps of jitprof %s:\n%s",
			  *cmd, o.maps);
		for (const char *const *lib = (const char *const[]){ "libcapstone", "libarchive",
								     "libxml2", "libdebuginfod",
								     NULL };
		     *lib; lib++)
			cr_expect_null(strstr(o.maps, *lib), "jitprof %s starts with %s mapped",
				       *cmd, *lib);
		observed_free(&o);
	}
}

Test(malloc_tune, users_glibc_tunables_kept_after_ours)
{
	const char *env[] = { "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096",
			      JP_MALLOC_TUNE_ENV, NULL };
	struct observed o = observe("report", env);
	if (JP_MALLOC_TUNE_ACTIVE) {
		cr_assert(strstr(o.environ, JP_MALLOC_TUNED_FROM_ENV "==glibc.rtld.optional_static_tls=4096"),
			  "the caller's value is not kept for its children:\n%s", o.environ);
	}
	observed_free(&o);
}

Test(malloc_tune, users_malloc_tunables_and_the_switch_leave_it_untuned)
{
	const char *own[] = { "GLIBC_TUNABLES=glibc.malloc.arena_max=2", JP_MALLOC_TUNE_ENV,
			      NULL };
	struct observed o = observe("report", own);
	cr_assert(!tuned(&o), "re-executed over the user's malloc tunables:\n%s", o.environ);
	cr_assert(strstr(o.environ, "GLIBC_TUNABLES=glibc.malloc.arena_max=2"));
	observed_free(&o);

	const char *off[] = { "GLIBC_TUNABLES", JP_MALLOC_TUNE_ENV "=0", NULL };
	o = observe("report", off);
	cr_assert(!tuned(&o), "re-executed with " JP_MALLOC_TUNE_ENV "=0:\n%s", o.environ);
	observed_free(&o);
}

/* inject tunes malloc in its own process (jp_malloc_tune_here): no re-execution, and its heap
 * grown once and advised for huge pages; JITPROF_MALLOC_TUNE=0, or malloc tunables of the
 * user's own, leave the heap as glibc makes it. */
Test(malloc_tune, inject_tunes_its_heap_without_reexecuting)
{
	int thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
	const char *env[] = { "GLIBC_TUNABLES", JP_MALLOC_TUNE_ENV, NULL };
	struct observed o = observe("inject", env);
	cr_assert(!tuned(&o), "inject re-executed:\n%s", o.environ);
	cr_assert_str_eq(o.comm, "jitprof\n");
	unsigned long kb = heap_kb(&o);
	if (!thp)
		cr_log_info("this kernel has no transparent huge pages: the heap's advice is "
			    "not checked");
	else if (JP_MALLOC_TUNE_ACTIVE && kb < (JP_MALLOC_HERE_RESERVE >> 10))
		cr_log_info("the heap could not grow by %d MiB here (overcommit or data limit: "
			    "%lu kB): its advice is not checked", JP_MALLOC_HERE_RESERVE >> 20, kb);
	else if (JP_MALLOC_TUNE_ACTIVE)
		cr_assert(heap_advised(&o), "inject's heap is not advised for huge pages:\n%s",
			  o.smaps);
	observed_free(&o);
	const char *off[] = { "GLIBC_TUNABLES", JP_MALLOC_TUNE_ENV "=0", NULL };
	o = observe("inject", off);
	cr_assert_not(heap_advised(&o), "advised with " JP_MALLOC_TUNE_ENV "=0");
	observed_free(&o);
	const char *own[] = { "GLIBC_TUNABLES=glibc.malloc.arena_max=2", JP_MALLOC_TUNE_ENV,
			      NULL };
	o = observe("inject", own);
	cr_assert_not(heap_advised(&o), "advised over the user's malloc tunables");
	cr_assert(strstr(o.environ, "GLIBC_TUNABLES=glibc.malloc.arena_max=2"));
	observed_free(&o);
}

Test(malloc_tune, record_is_never_reexecuted)
{
	/* record with no command reads nothing: ask it for help instead, through a shell that
	 * prints the environment record's children would see (its own, unchanged). */
	struct tu_result r;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "env -u GLIBC_TUNABLES -u " JP_MALLOC_TUNE_ENV " %s record "
		 "-o /dev/null -- sh -c 'echo \"[$GLIBC_TUNABLES][$" JP_MALLOC_TUNED_FROM_ENV "]\"'",
		 tu_build("jitprof"));
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	if (r.status == 0)
		cr_assert(strstr(r.out, "[][]"), "record's child saw: %s", r.out);
	else
		cr_log_warn("jitprof record could not run here (%d): %s", r.status, r.err);
	tu_result_free(&r);
}
