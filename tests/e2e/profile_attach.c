/* profile_attach.c - `jitprof profile -d S -p PID` on a running JVM: the agent goes in through
 * the attach listener (no jcmd), the report names the JVM's hot Java methods, the agent is
 * stopped at the end so a second profile of the same JVM works, a JVM that already runs the
 * agent is profiled with its own dump (left running), a JVM in its own mount namespace (its own
 * /tmp, as in a container) is reached through /proc/PID/root, and a process that is no JVM is
 * refused without being signalled. On every JDK under /usr/lib/jvm. */
#include "tests/e2e/profile_util.h"

/* ms per phase: the JVM must outlive the test, whose two profiles, injects and reports took
 * 82 s under ASan on a loaded machine (4 phases of 8 s did not: "the JVM died") */
static const char *const long_run[] = { "30000", NULL };

/* A JVM running Generations, ready for attach: libjvm mapped and main running a while. */
static pid_t start_jvm(const struct ag_jdk *jdk, const char *agent_opts, const char *log)
{
	pid_t pid = ag_spawn(jdk, agent_opts, pf_gen_jvmargs, "jitprof.samples.Generations",
			     long_run, log);
	ag_sleep_ms(1500);
	cr_assert(pf_alive(pid), "JVM %d died: %s", (int)pid, (char *)tu_read_file(log, NULL));
	return pid;
}

/* extra: NULL, or one more option (--jvm-log). */
static void profile_pid_with(struct tu_result *r, pid_t pid, const char *out, const char *extra)
{
	char p[16];

	snprintf(p, sizeof(p), "%d", (int)pid);
	const char *args[] = { "-d", "3", "-p", p, "-o", out, extra, NULL };
	pf_profile(r, args, 300);
}

static void profile_pid(struct tu_result *r, pid_t pid, const char *out)
{
	profile_pid_with(r, pid, out, NULL);
}

/* The text report at out names jitted Generations code. */
static void expect_java_report(const struct ag_jdk *jdk, const char *out)
{
	char *rep = tu_read_file(out, NULL);

	cr_assert_not_null(rep, "JDK %d: no %s", jdk->major, out);
	cr_expect(pf_method_row(rep, "jitprof.samples.Generations.", NULL),
		  "JDK %d: no jitted Generations method in %s:\n%.3000s", jdk->major, out, rep);
	cr_expect(strstr(rep, "# Generations of jitted methods"), "JDK %d: %s", jdk->major, out);
	free(rep);
}

/* Generations after the attach (the agent back-fills the code the JVM compiled before it):
 * said so, numbered by compile id, active from "before" the attach, never a period of nothing
 * at the start (0.000s-0.000s); every sample inside its generation's period. */
static void expect_attach_generations(const struct ag_jdk *jdk, const char *dir, int round)
{
	char data[PATH_MAX], msg[8192], want[PATH_MAX];
	AG_FMT(want, "%s/y%d.txt", dir, round);
	char *rep = tu_read_file(want, NULL);
	cr_assert_not_null(rep);
	cr_expect(strstr(rep, "# agent attached to a running JVM: "), "JDK %d:\n%.3000s",
		  jdk->major, rep);
	cr_expect_null(strstr(rep, "     0.000s     0.000s  "), "JDK %d:\n%.3000s", jdk->major,
		       rep);
	cr_expect(strstr(rep, "     before  "), "JDK %d:\n%.3000s", jdk->major, rep);
	free(rep);
	AG_FMT(data, "%s/y%d.txt.jitprof/perf.jit.data", dir, round);
	cr_expect_eq(tu_check_generations(data, NULL, msg, sizeof(msg)), 0, "JDK %d: %s",
		     jdk->major, msg);
}

static void twice_one(const struct ag_jdk *jdk)
{
	char *dir = tu_tmpdir("profile-attach"), log[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	struct tu_result r;
	pid_t pid;

	AG_FMT(log, "%s/jvm.log", dir);
	pid = start_jvm(jdk, NULL, log);
	for (int round = 1; round <= 2; round++) {
		AG_FMT(out, "%s/y%d.txt", dir, round);
		/* the second with --jvm-log: the JVM's Flight Recording of its compiles and
		 * traps (a running JVM cannot start the compilation log) */
		profile_pid_with(&r, pid, out, round == 2 ? "--jvm-log" : NULL);
		cr_assert_eq(r.status, 0, "JDK %d, profile %d: %s", jdk->major, round, r.err);
		AG_FMT(want, "libagent.so loaded into Java VM %d, writing %s/y%d.txt.jitprof/jit-",
		       (int)pid, dir, round);
		cr_expect(strstr(r.err, want), "JDK %d: %s", jdk->major, r.err);
		AG_FMT(want, "jitprof profile: %s (text report) from ", out);
		cr_expect(ag_starts(pf_last_line(r.err), want), "JDK %d: %s", jdk->major, r.err);
		tu_result_free(&r);
		expect_java_report(jdk, out);
		expect_attach_generations(jdk, dir, round);
		if (round == 2) {
			char *rep = tu_read_file(out, NULL);
			cr_assert_not_null(rep);
			AG_FMT(want, "# JVM's Flight Recording (compiles and uncommon traps; no "
			       "inlining decisions or broken dependencies): process %d, ", (int)pid);
			cr_expect(strstr(rep, want), "JDK %d: no '%s' in:\n%.3000s", jdk->major, want,
				  rep);
			free(rep);
		}
		/* Detached cleanly: the agent said so, and the JVM runs on. */
		AG_FMT(want, "jitprof agent: stopped; %s/y%d.txt.jitprof/jit-", dir, round);
		cr_expect(pf_wait_for(log, want, 10000), "JDK %d: no '%s' in the JVM's output",
			  jdk->major, want);
		cr_expect(pf_alive(pid), "JDK %d: the JVM died", jdk->major);
	}
	char *s = tu_read_file(log, NULL);
	/* SIGQUIT went only to start the listener: no thread dump on the JVM's stdout. */
	cr_expect_null(strstr(s, "Full thread dump"), "JDK %d: %s", jdk->major, s);
	free(s);
	pf_kill(pid);
	tu_rmtree(dir);
	free(dir);
}

Test(profile_attach, twice_to_one_jvm, .timeout = 900)
{
	ag_each_jdk(twice_one);
}

static void has_agent_one(const struct ag_jdk *jdk)
{
	char *dir = tu_tmpdir("profile-attach"), log[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	char opts[PATH_MAX + 8];
	struct tu_result r;
	pid_t pid;

	AG_FMT(log, "%s/jvm.log", dir);
	AG_FMT(opts, "dir=%s", dir);
	pid = start_jvm(jdk, opts, log);
	AG_FMT(out, "%s/z.txt", dir);
	profile_pid(&r, pid, out);
	cr_assert_eq(r.status, 0, "JDK %d: %s", jdk->major, r.err);
	AG_FMT(want, "Java VM %d already has a JIT agent writing %s/jit-%d.dump: using that dump",
	       (int)pid, dir, (int)pid);
	cr_expect(strstr(r.err, want), "JDK %d: %s", jdk->major, r.err);
	tu_result_free(&r);
	expect_java_report(jdk, out);
	char *s = tu_read_file(log, NULL);
	cr_expect(strstr(s, "jitprof agent: already writing "), "JDK %d: %s", jdk->major, s);
	cr_expect_null(strstr(s, "jitprof agent: stopped"), "the user's agent was stopped: %s", s);
	free(s);
	pf_kill(pid);
	tu_rmtree(dir);
	free(dir);
}

Test(profile_attach, jvm_that_already_has_the_agent, .timeout = 600)
{
	ag_each_jdk(has_agent_one);
}

Test(profile_attach, not_a_jvm_is_refused_unharmed, .timeout = 60)
{
	char *dir = tu_tmpdir("profile-attach"), out[PATH_MAX], want[PATH_MAX + 64];
	struct tu_result r;
	pid_t pid = fork();

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	ag_sleep_ms(200);
	AG_FMT(out, "%s/n.txt", dir);
	profile_pid(&r, pid, out);
	cr_expect_eq(r.status, 1, "%s", r.err);
	AG_FMT(want, "jitprof profile: error: process %d is not a Java VM (no libjvm.so in its "
	       "mappings)", (int)pid);
	cr_expect(strstr(r.err, want), "%s", r.err);
	/* refused before it says how a JVM would be recorded */
	cr_expect_null(strstr(r.err, "call graphs:"), "%s", r.err);
	cr_expect(pf_alive(pid), "the process was killed");
	AG_FMT(want, "%s/n.txt.jitprof", dir);
	cr_expect_not(pf_exists(want), "a refused profile left %s", want);
	tu_result_free(&r);
	pf_kill(pid);
	profile_pid(&r, 0x7ffffff0, out);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "no process 2147483632"), "%s", r.err);
	cr_expect_null(strstr(r.err, "call graphs:"), "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* A JVM with its own /tmp (unshare -m + tmpfs): its attach socket, the agent copy and the
 * dump directory live there, reached through /proc/PID/root; the dumps come back into the
 * data directory. Twice, as the second load must find the same agent copy. */
Test(profile_attach, jvm_in_another_mount_namespace, .timeout = 600)
{
	char *dir = tu_tmpdir("profile-attach"), log[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	char sh[2 * PATH_MAX], java[PATH_MAX];
	struct ag_jdk jdk;
	struct tu_result r;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	if (!tu_have("unshare") || tu_sh(&r, "unshare -m sh -c 'mount -t tmpfs none /tmp'", 30) ||
	    r.status != 0) {
		tu_result_free(&r);
		cr_skip_test("unshare -m with a tmpfs /tmp is not allowed here");
	}
	tu_result_free(&r);
	AG_FMT(log, "%s/jvm.log", dir);
	AG_FMT(java, "%s/bin/java", jdk.home);
	/* The classes are reached through an fd opened before the tmpfs hides /tmp: a clone of
	 * this tree under /tmp (where a new user may well put it) is hidden by that mount too. */
	AG_FMT(sh, "exec 3<'%s' && mount -t tmpfs none /tmp && exec %s "
	       "-XX:+IgnoreUnrecognizedVMOptions -XX:+EnableDynamicAgentLoading "
	       "-cp /proc/self/fd/3 jitprof.samples.Generations 8000", ag_classpath(), java);
	const char *const *env = ag_env();	/* a sanitized agent needs its runtime first */
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execlp("unshare", "unshare", "-m", "sh", "-c", sh, (char *)NULL);
		_exit(127);
	}
	ag_sleep_ms(2500);
	cr_assert(pf_alive(pid), "JVM died: %s", (char *)tu_read_file(log, NULL));
	for (int round = 1; round <= 2; round++) {
		AG_FMT(out, "%s/m%d.txt", dir, round);
		profile_pid(&r, pid, out);
		cr_assert_eq(r.status, 0, "profile %d: %s", round, r.err);
		AG_FMT(want, "writing /proc/%d/root/tmp/.jitprof-profile-", (int)pid);
		cr_expect(strstr(r.err, want), "%s", r.err);
		tu_result_free(&r);
		expect_java_report(&jdk, out);
		AG_FMT(want, "%s/m%d.txt.jitprof/jit-%d.dump", dir, round, (int)pid);
		cr_expect(pf_exists(want), "the dump was not brought back to %s", want);
	}
	pf_kill(pid);
	tu_rmtree(dir);
	free(dir);
}

/* A JVM that refuses attach is told apart at once, by its command line, not after a wait. */
Test(profile_attach, jvm_with_attach_disabled_is_refused_at_once, .timeout = 120)
{
	char *dir = tu_tmpdir("profile-attach"), log[PATH_MAX], out[PATH_MAX], want[256];
	const char *jvmargs[] = { "-XX:+DisableAttachMechanism", NULL };
	const char *args[] = { "8000", NULL };
	struct ag_jdk jdk;
	struct tu_result r;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(log, "%s/jvm.log", dir);
	pid_t pid = ag_spawn(&jdk, NULL, jvmargs, "jitprof.samples.Generations", args, log);
	ag_sleep_ms(1500);
	AG_FMT(out, "%s/d.txt", dir);
	profile_pid(&r, pid, out);
	cr_expect_eq(r.status, 1, "%s", r.err);
	AG_FMT(want, "Java VM %d was started with -XX:+DisableAttachMechanism", (int)pid);
	cr_expect(strstr(r.err, want), "%s", r.err);
	cr_expect(pf_alive(pid), "the JVM was harmed");
	tu_result_free(&r);
	pf_kill(pid);
	tu_rmtree(dir);
	free(dir);
}

/* An earlier profile killed before its stop leaves the agent writing into its data directory:
 * the next profile stops that one and starts its own. The left-over agent is loaded here with
 * jcmd and the "dir:" spelling that survives jcmd's argument splitting. */
Test(profile_attach, agent_left_by_an_earlier_profile, .timeout = 300)
{
	char *dir = tu_tmpdir("profile-attach"), log[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	char cmd[3 * PATH_MAX];
	struct ag_jdk jdk;
	struct tu_result r;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(log, "%s/jvm.log", dir);
	pid_t pid = start_jvm(&jdk, NULL, log);
	AG_FMT(cmd, "%s/bin/jcmd %d JVMTI.agent_load %s dir:%s/old.jitprof", jdk.home, (int)pid,
	       ag_agent_path(), dir);
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	cr_assert(strstr(r.out, "return code: 0"), "%s %s", r.out, r.err);
	tu_result_free(&r);
	AG_FMT(want, "jitprof agent: writing %s/old.jitprof/jit-%d.dump", dir, (int)pid);
	cr_assert(pf_wait_for(log, want, 10000), "jcmd's dir: was not taken whole");

	AG_FMT(out, "%s/z.txt", dir);
	profile_pid(&r, pid, out);
	cr_assert_eq(r.status, 0, "%s", r.err);
	AG_FMT(want, "Java VM %d still runs the agent of an earlier jitprof profile that did not "
	       "end (writing %s/old.jitprof/jit-%d.dump): stopped, and started again here",
	       (int)pid, dir, (int)pid);
	cr_expect(strstr(r.err, want), "%s", r.err);
	tu_result_free(&r);
	expect_java_report(&jdk, out);
	AG_FMT(want, "jitprof agent: stopped; %s/z.txt.jitprof/jit-", dir);
	cr_expect(pf_wait_for(log, want, 10000), "no '%s'", want);
	pf_kill(pid);
	tu_rmtree(dir);
	free(dir);
}

/* Without -d the recording lasts until Ctrl-C (SIGINT to jitprof): then the agent is stopped
 * and the report written as with -d, and the exit status is 0. */
Test(profile_attach, until_ctrl_c, .timeout = 300)
{
	char *dir = tu_tmpdir("profile-attach"), log[PATH_MAX], out[PATH_MAX], want[PATH_MAX];
	char exe[PATH_MAX], p[16], plog[PATH_MAX + 16];
	struct ag_jdk jdk;
	int st;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(log, "%s/jvm.log", dir);
	AG_FMT(plog, "%s/profile.log", dir);
	pid_t jvm = start_jvm(&jdk, NULL, log);
	AG_FMT(exe, "%s", tu_build("jitprof"));
	AG_FMT(out, "%s/c.txt", dir);
	snprintf(p, sizeof(p), "%d", (int)jvm);
	const char *const *env = ag_env();
	pid_t prof = fork();
	cr_assert_neq(prof, -1);
	if (prof == 0) {
		int fd = open(plog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(127);
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execl(exe, exe, "profile", "-p", p, "-o", out, (char *)NULL);
		_exit(127);
	}
	AG_FMT(want, "libagent.so loaded into Java VM %d", (int)jvm);
	cr_assert(pf_wait_for(plog, want, 60000), "the agent never went in: %s",
		  (char *)tu_read_file(plog, NULL));
	ag_sleep_ms(2000);
	kill(prof, SIGINT);
	cr_assert_eq(waitpid(prof, &st, 0), prof);
	char *err = tu_read_file(plog, NULL);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, err);
	AG_FMT(want, "jitprof profile: %s (text report) from ", out);
	cr_expect(strstr(err, want), "%s", err);
	free(err);
	expect_java_report(&jdk, out);
	AG_FMT(want, "jitprof agent: stopped; %s/c.txt.jitprof/jit-", dir);
	cr_expect(pf_wait_for(log, want, 10000), "no '%s'", want);
	cr_expect(pf_alive(jvm), "the JVM died");
	pf_kill(jvm);
	tu_rmtree(dir);
	free(dir);
}
