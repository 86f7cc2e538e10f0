/* profile_util.h - what the profile_*.c end-to-end tests share: running `jitprof profile`,
 * the Generations sample's JVM options, and reading the text report it writes. Header-only
 * (static functions) because each tests/e2e/<name>.c is linked alone. */
#ifndef JITPROF_E2E_PROFILE_UTIL_H
#define JITPROF_E2E_PROFILE_UTIL_H

#include "tests/e2e/agent_util.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Long C1 phase, so every generation of total() collects samples (Generations.java). */
static const char *const pf_gen_jvmargs[] = {
	"-XX:Tier4InvocationThreshold=2000000", "-XX:Tier4MinInvocationThreshold=400000",
	"-XX:Tier4CompileThreshold=8000000", "-XX:Tier4BackEdgeThreshold=80000000",
	"-XX:+IgnoreUnrecognizedVMOptions", "-XX:+EnableDynamicAgentLoading", NULL,
};

#define PF_TOTAL "jitprof.samples.Generations.total(jitprof.samples.Generations$Shape[])"

/* `jitprof profile ARGS...` (NULL-terminated) with the sanitizer env of the agent. */
static __attribute__((unused)) void pf_profile(struct tu_result *r, const char *const *args,
					       unsigned timeout_s)
{
	const char *argv[80];
	char exe[PATH_MAX];
	int n = 0;

	snprintf(exe, sizeof(exe), "%s", tu_build("jitprof"));	/* tu_build's buffer is shared */
	ag_env();
	argv[n++] = exe;
	argv[n++] = "profile";
	for (int i = 0; args[i] && n < 79; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cr_assert_eq(tu_run(r, (char *const *)argv, ag_env(), NULL, 0, timeout_s), 0,
		     "cannot run jitprof");
}

/* How many generations the report's generations view gives method (0 when absent). */
static __attribute__((unused)) int pf_generations(const char *report, const char *method)
{
	char head[1024];
	const char *p;
	int n = 0;

	snprintf(head, sizeof(head), "%s  (pid ", method);
	if (!(p = strstr(report, head)) || !(p = strchr(p + strlen(head), ',')))
		return 0;
	return sscanf(p, ", %d generations", &n) == 1 ? n : 0;
}

/* How many code loads in dump have a name containing what (0 when it cannot be read). */
/* 1 when the text report's method table (the first of `report --methods`, under "# Jitted
 * methods:") has a row whose method starts with name; *first (if given) is then set to
 * whether it is the first row. */
static __attribute__((unused)) int pf_method_row(const char *report, const char *name,
						 int *first)
{
	const char *p = strstr(report, "# Methods, compiled or interpreted:");
	int row = 0;
	for (p = p ? strchr(p, '\n') : NULL; p && p[1]; p = strchr(p, '\n')) {
		p++;
		const char *end = strchr(p, '\n'), *nm = NULL;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (*p == '#') {
			if (!strncmp(p, "# Overhead", 10))
				continue;
			break;	/* "#": the table's end */
		}
		/* the method follows the last two spaces (names have single ones) */
		for (const char *h = p; (h = strstr(h, "  ")) && h < p + len; h++)
			nm = h + 2;
		if (nm && !strncmp(nm, name, strlen(name))) {
			if (first)
				*first = row == 0;
			return 1;
		}
		row++;
	}
	return 0;
}

static __attribute__((unused)) size_t pf_dump_loads(const char *dump, const char *what)
{
	struct jd_index *x;
	char err[512];
	size_t n = 0;

	if (!dump || jd_index_open(&x, dump, err, sizeof(err)) != 0)
		return 0;
	for (size_t i = 0; i < jd_index_nr_loads(x); i++)
		n += strstr(jd_index_load(x, i)->load.name, what) != NULL;
	jd_index_close(x);
	return n;
}

/* How many nmethods a HotSpot compilation log (-XX:+LogCompilation) says the JVM installed
 * for the method whose log name ("pkg.Class name (") is given: the JVM's account, not ours. */
static __attribute__((unused)) size_t pf_jvm_nmethods(const char *log, const char *method)
{
	char *text = tu_read_file(log, NULL), *line, *save = NULL;
	size_t n = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		n += strncmp(line, "<nmethod ", 9) == 0 && strstr(line, method) != NULL;
	free(text);
	return n;
}

/* The last line of s (without its newline), in a static buffer. */
static __attribute__((unused)) const char *pf_last_line(const char *s)
{
	static char buf[4096];
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		n--;
	size_t b = n;
	while (b && s[b - 1] != '\n')
		b--;
	snprintf(buf, sizeof(buf), "%.*s", (int)(n - b), s + b);
	return buf;
}

/* How many jitted-*.so files dir holds (-1: no such directory). */
static __attribute__((unused)) int pf_count_elfs(const char *dir)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "jitted-", 7) && strstr(de->d_name, ".so") != NULL;
	closedir(d);
	return n;
}

static __attribute__((unused)) int pf_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Waits until the file at path contains needle (at most timeout_ms); 1 when it does. */
static __attribute__((unused)) int pf_wait_for(const char *path, const char *needle,
					       long timeout_ms)
{
	for (long t = 0; t < timeout_ms; t += 50) {
		char *s = tu_read_file(path, NULL);
		int ok = s && strstr(s, needle);
		free(s);
		if (ok)
			return 1;
		ag_sleep_ms(50);
	}
	return 0;
}

/* Ends a JVM the test started: SIGTERM first, so that it removes its /tmp/.java_pid<pid>
 * (a killed JVM leaves it behind, and a later JVM of another user that gets the pid could not
 * start its attach listener), SIGKILL after 5 s. */
/* 1 while pid runs. kill(pid, 0) alone also succeeds on a child that died and was not reaped
 * yet (a zombie), so a test asking "did the JVM survive?" could never fail that way: a child
 * of ours is asked through waitpid (reaping it if it died), anything else through its state
 * in /proc. */
static __attribute__((unused)) int pf_alive(pid_t pid)
{
	char path[64], *stat, *p;
	int st, alive;

	pid_t w = waitpid(pid, &st, WNOHANG);
	if (w == pid)
		return 0;
	if (w == 0)
		return 1;
	if (kill(pid, 0) != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(stat = tu_read_file(path, NULL)))
		return 0;
	p = strrchr(stat, ')');
	alive = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	free(stat);
	return alive;
}

static __attribute__((unused)) void pf_kill(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		ag_sleep_ms(50);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

#endif
