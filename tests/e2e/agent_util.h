/* agent_util.h - what the agent_*.c end-to-end tests share: the JDKs found under /usr/lib/jvm,
 * running a sample with or without libagent.so, and finding the dump it wrote. Header-only
 * (static functions) because each tests/e2e/<name>.c is linked alone. */
#ifndef JITPROF_E2E_AGENT_UTIL_H
#define JITPROF_E2E_AGENT_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"

#define AG_MAX_JDKS 8

/* snprintf into an array, failing the test instead of truncating a path. */
#define AG_FMT(buf, ...) \
	cr_assert_lt(snprintf(buf, sizeof(buf), __VA_ARGS__), (int)sizeof(buf), "too long: " #buf)

struct ag_jdk {
	char home[PATH_MAX];
	int major;		/* from the release file; 0 unknown */
};

/* Every JDK under /usr/lib/jvm with bin/java and bin/jcmd, once per real java binary. */
static __attribute__((unused)) int ag_jdks(struct ag_jdk *out, int max)
{
	char seen[AG_MAX_JDKS][PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/usr/lib/jvm");

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max && n < AG_MAX_JDKS) {
		char java[PATH_MAX + 300], real[PATH_MAX], rel[PATH_MAX + 300], line[256];
		int dup = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		AG_FMT(java, "/usr/lib/jvm/%s/bin/java", de->d_name);
		if (!realpath(java, real) || access(real, X_OK))
			continue;
		for (int i = 0; i < n; i++)
			dup |= strcmp(seen[i], real) == 0;
		if (dup)
			continue;
		snprintf(seen[n], PATH_MAX, "%s", real);
		/* home = real path minus "/bin/java" */
		real[strlen(real) - strlen("/bin/java")] = '\0';
		snprintf(out[n].home, sizeof(out[n].home), "%s", real);
		out[n].major = 0;
		AG_FMT(rel, "%s/release", real);
		if ((f = fopen(rel, "r"))) {
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "JAVA_VERSION=\"%d", &out[n].major) == 1)
					break;
			fclose(f);
		}
		n++;
	}
	closedir(d);
	return n;
}

/* Runs fn on every JDK found; a machine without any fails the test. */
static __attribute__((unused)) void ag_each_jdk(void (*fn)(const struct ag_jdk *))
{
	struct ag_jdk jdks[AG_MAX_JDKS];
	int n = ag_jdks(jdks, AG_MAX_JDKS);

	cr_assert_gt(n, 0, "no JDK under /usr/lib/jvm");
	for (int i = 0; i < n; i++)
		fn(&jdks[i]);
}

static __attribute__((unused)) const char *ag_agent_path(void)
{
	static char p[PATH_MAX];

	if (!realpath(tu_build("libagent.so"), p))
		cr_assert_fail("libagent.so not built at %s", tu_build("libagent.so"));
	return p;
}

static __attribute__((unused)) const char *ag_classpath(void)
{
	static char p[PATH_MAX];

	if (!realpath(tu_build("java"), p))
		cr_assert_fail("samples not built at %s", tu_build("java"));
	return p;
}

/* A SANITIZE=1 libagent.so needs the ASan runtime loaded first in the JVM, and ASan must leave
 * SIGSEGV (HotSpot's implicit null checks and safepoint polls) to the JVM. NULL for a normal
 * build; else "LD_PRELOAD=..." and "ASAN_OPTIONS=...". */
static const char *const *ag_env(void)
{
	static char preload[PATH_MAX + 16];
	static const char *env[3];
	static int done;
	struct tu_result r;
	size_t len = 0;
	char *so;

	if (done)
		return env[0] ? env : NULL;
	done = 1;
	so = tu_read_file(ag_agent_path(), &len);
	if (so && memmem(so, len, "libasan.so", 10) &&
	    tu_sh(&r, "${CC:-cc} -print-file-name=libasan.so", 30) == 0 && r.status == 0) {
		r.out[strcspn(r.out, "\n")] = '\0';
		AG_FMT(preload, "LD_PRELOAD=%s", r.out);
		env[0] = preload;
		env[1] = "ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
			 "allow_user_segv_handler=1:detect_leaks=0";
		tu_result_free(&r);
	}
	free(so);
	return env[0] ? env : NULL;
}

/* The same as a prefix for a shell command line: "env A=.. B=.. " or "". */
static __attribute__((unused)) const char *ag_env_sh(void)
{
	static char buf[2 * PATH_MAX];
	const char *const *env = ag_env();

	if (!env)
		return "";
	AG_FMT(buf, "env %s %s ", env[0], env[1]);
	return buf;
}

struct ag_cmd {
	char java[PATH_MAX + 16], agent[PATH_MAX + 4200];
	const char *argv[64];
};

/* `<jdk>/bin/java [-agentpath:libagent.so=opts] jvmargs... -cp <samples> main args...` into
 * c->argv. agent_opts NULL: no agent. jvmargs and args are NULL-terminated (or NULL). */
static void ag_cmd(struct ag_cmd *c, const struct ag_jdk *jdk, const char *agent_opts,
		   const char *const *jvmargs, const char *main_class, const char *const *args)
{
	int n = 0;

	AG_FMT(c->java, "%s/bin/java", jdk->home);
	c->argv[n++] = c->java;
	if (agent_opts) {
		AG_FMT(c->agent, "-agentpath:%s%s%s", ag_agent_path(), agent_opts[0] ? "=" : "",
		       agent_opts);
		c->argv[n++] = c->agent;
	}
	for (int i = 0; jvmargs && jvmargs[i] && n < 50; i++)
		c->argv[n++] = jvmargs[i];
	c->argv[n++] = "-cp";
	c->argv[n++] = ag_classpath();
	c->argv[n++] = main_class;
	for (int i = 0; args && args[i] && n < 62; i++)
		c->argv[n++] = args[i];
	c->argv[n] = NULL;
}

/* Runs that command and waits (tu_run). */
static __attribute__((unused)) void ag_java(struct tu_result *r, const struct ag_jdk *jdk,
					    const char *agent_opts, const char *const *jvmargs,
					    const char *main_class, const char *const *args,
					    unsigned timeout_s)
{
	struct ag_cmd c;

	ag_cmd(&c, jdk, agent_opts, jvmargs, main_class, args);
	cr_assert_eq(tu_run(r, (char *const *)c.argv, ag_env(), NULL, 0, timeout_s), 0,
		     "cannot run %s", c.java);
}

/* Starts argv (argv[0] a path) in the background with ag_env(), stdout and stderr into
 * outfile; returns its pid. */
static __attribute__((unused)) pid_t ag_spawn_argv(const char *const *argv,
						   const char *outfile)
{
	const char *const *env = ag_env();
	pid_t pid = fork();

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Starts that command in the background, stdout and stderr into outfile; returns its pid. */
static __attribute__((unused)) pid_t ag_spawn(const struct ag_jdk *jdk, const char *agent_opts,
					      const char *const *jvmargs, const char *main_class,
					      const char *const *args, const char *outfile)
{
	struct ag_cmd c;

	ag_cmd(&c, jdk, agent_opts, jvmargs, main_class, args);
	return ag_spawn_argv(c.argv, outfile);
}

static __attribute__((unused)) void ag_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The one jit-<pid>.dump in dir (malloc'd path), or NULL. */
static __attribute__((unused)) char *ag_find_dump(const char *dir)
{
	struct dirent *de;
	char *found = NULL;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d)))
		if (jd_is_marker_name(de->d_name, NULL) == 1) {
			free(found);
			if (asprintf(&found, "%s/%s", dir, de->d_name) < 0)
				found = NULL;
		}
	closedir(d);
	return found;
}

/* The agent's lines in a JVM's stderr other than its start line ("jitprof agent: writing
 * PATH", said once unless quiet): its warnings. */
static __attribute__((unused)) size_t ag_warnings(const char *err)
{
	return tu_count(err, "jitprof agent") - tu_count(err, "jitprof agent: writing ");
}

static __attribute__((unused)) int ag_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* 1 if some pc of the load has a frame with a known file and line: then the innermost such
 * frame must be in its DEBUG_INFO. */
static __attribute__((unused)) int ag_has_source_lines(const struct jd_ext_inline *inl)
{
	for (uint32_t i = 0; inl && i < inl->nr_pcs; i++)
		for (uint32_t f = 0; f < inl->pcs[i].depth; f++)
			if (inl->pcs[i].frames[f].line > 0 &&
			    inl->methods[inl->pcs[i].frames[f].method].file[0])
				return 1;
	return 0;
}

#endif
