/* agent_options.c - the agent's options through a real JVM: a bad option or an unwritable or
 * full directory costs exactly one "jitprof agent:" line on stderr and changes nothing else
 * (exit code, stdout, the rest of stderr); valid options change what the dump holds. */
#include "tests/e2e/agent_util.h"

#include <sys/stat.h>

static const char *const gen_args[] = { "20", NULL };

/* stderr without the lines the agent wrote, and how many warnings it wrote. */
static char *strip_agent_lines(const char *err, int *agent_lines)
{
	char *out = strdup(err), *w = out;
	const char *p = err;

	*agent_lines = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

		/* The start line naming the dump is not a warning: not counted, not compared. */
		if (ag_starts(p, "jitprof agent: writing ")) {
		} else if (ag_starts(p, "jitprof agent:")) {
			(*agent_lines)++;
		} else {
			memcpy(w, p, n);
			w += n;
		}
		p += n;
	}
	*w = '\0';
	return out;
}

/* Runs Generations with opts and compares with the run without the agent. */
static void expect_one_warning(const struct ag_jdk *jdk, const struct tu_result *base,
			       const char *opts, const char *why)
{
	struct tu_result r;
	int lines;
	char *rest;

	ag_java(&r, jdk, opts, NULL, "jitprof.samples.Generations", gen_args, 60);
	rest = strip_agent_lines(r.err, &lines);
	cr_expect_eq(r.status, base->status, "JDK %d, %s: exit %d (without agent %d)", jdk->major,
		     opts, r.status, base->status);
	cr_expect_str_eq(r.out, base->out, "JDK %d, %s: stdout differs", jdk->major, opts);
	cr_expect_str_eq(rest, base->err, "JDK %d, %s: other stderr differs", jdk->major, opts);
	cr_expect_eq(lines, 1, "JDK %d, %s: %d agent lines, want 1:\n%s", jdk->major, opts, lines,
		     r.err);
	cr_expect(strstr(r.err, why), "JDK %d, %s: warning does not say '%s':\n%s", jdk->major, opts,
		  why, r.err);
	free(rest);
	tu_result_free(&r);
}

static void bad_options_one(const struct ag_jdk *jdk)
{
	struct tu_result base;

	ag_java(&base, jdk, NULL, NULL, "jitprof.samples.Generations", gen_args, 60);
	cr_assert_eq(base.status, 0, "JDK %d without agent: %s", jdk->major, base.err);
	expect_one_warning(jdk, &base, "bogus=1", "unknown option 'bogus'");
	expect_one_warning(jdk, &base, "dir=/tmp,clock=sundial", "clock");
	expect_one_warning(jdk, &base, "flush=soon", "flush");
	expect_one_warning(jdk, &base, "lines=maybe", "lines");
	expect_one_warning(jdk, &base, "dir=/etc/passwd/jit", "/etc/passwd/jit");
	expect_one_warning(jdk, &base, "dir=/proc/jitprof-no-such-dir", "/proc/");
	tu_result_free(&base);
}

Test(agent_options, bad_options_and_dirs_leave_the_jvm_alone, .timeout = 240)
{
	ag_each_jdk(bad_options_one);
}

/* A 16 KiB tmpfs fills up after the first records: one warning, JVM unaffected. */
Test(agent_options, full_disk_leaves_the_jvm_alone, .timeout = 120)
{
	struct ag_jdk jdk;
	struct tu_result base, r, probe;
	char *dir = tu_tmpdir("agent-full"), cmd[4 * PATH_MAX + 512], *rest;
	int lines;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	tu_sh(&probe, "unshare -m true", 10);
	if (probe.status != 0)
		cr_skip_test("cannot create a mount namespace for a small tmpfs (needs root): %s",
			     probe.err);
	tu_result_free(&probe);
	ag_java(&base, &jdk, NULL, NULL, "jitprof.samples.Generations", gen_args, 60);
	AG_FMT(cmd,
		 "unshare -m sh -c 'mount -t tmpfs -o size=16k tmpfs %s && exec %s%s/bin/java "
		 "-agentpath:%s=dir=%s,flush=50 -cp %s jitprof.samples.Generations %s'",
		 dir, ag_env_sh(), jdk.home, ag_agent_path(), dir, ag_classpath(), gen_args[0]);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	rest = strip_agent_lines(r.err, &lines);
	cr_expect_eq(r.status, base.status, "exit %d, without agent %d: %s", r.status, base.status,
		     r.err);
	cr_expect_str_eq(r.out, base.out);
	cr_expect_str_eq(rest, base.err);
	cr_expect_eq(lines, 1, "%d agent lines, want 1:\n%s", lines, r.err);
	cr_expect(strstr(r.err, "No space left"), "warning does not name the cause:\n%s", r.err);
	free(rest);
	tu_result_free(&r);
	tu_result_free(&base);
	tu_rmtree(dir);
	free(dir);
}

Test(agent_options, valid_options_shape_the_dump, .timeout = 120)
{
	struct ag_jdk jdk;
	struct tu_result r;
	struct jd_index *x;
	char *dir = tu_tmpdir("agent-opts"), opts[PATH_MAX + 128], *dump, err[512];
	size_t loads;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(opts,
		 "dir=%s,clock=tsc,lines=off,inline=off,stubs=off,unload=off,flush=0,verbose", dir);
	ag_java(&r, &jdk, opts, NULL, "jitprof.samples.Generations", gen_args, 60);
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* verbose: where the dump goes, and the accounting at exit */
	cr_expect(strstr(r.err, "jitprof agent: writing "), "%s", r.err);
	cr_expect(strstr(r.err, " ms in callbacks"), "%s", r.err);
	dump = ag_find_dump(dir);
	cr_assert_not_null(dump);
	cr_assert_eq(jd_index_open(&x, dump, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(jd_index_header(x)->flags & JD_FLAGS_ARCH_TIMESTAMP, JD_FLAGS_ARCH_TIMESTAMP,
		     "clock=tsc not in the header");
	loads = jd_index_nr_loads(x);
	cr_expect_gt(loads, 0);
	for (size_t i = 0; i < loads; i++) {
		const struct jd_load_entry *e = jd_index_load(x, i);

		cr_expect_eq(e->nr_lines, 0, "lines=off, yet %s has DEBUG_INFO", e->load.name);
		cr_expect_null(e->inl, "inline=off, yet %s has an inline record", e->load.name);
		cr_expect(e->load.name[0] == 'L', "stubs=off, yet %s was written", e->load.name);
	}
	jd_index_close(x);
	free(dump);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 16 finding 4, through a JVM: dir= a symlink or a directory anybody may write to costs
 * one warning line naming the file the agent would have written, and the dump goes to the
 * private default under $HOME; names planted at every pid the JVM may get (directories, which
 * not even root can replace) do not stop it: its dump goes to jit-PID.XXXXXX/jit-PID.dump. */
static char *find_dump_below(const char *dir)
{
	struct tu_result r;
	char cmd[PATH_MAX + 128];
	AG_FMT(cmd, "find '%s' -type f -name 'jit-*.dump' | head -n 1", dir);
	cr_assert_eq(tu_sh(&r, cmd, 30), 0);
	r.out[strcspn(r.out, "\n")] = 0;
	char *p = r.out[0] ? strdup(r.out) : NULL;
	tu_result_free(&r);
	return p;
}

Test(agent_options, untrusted_dirs_and_taken_names, .timeout = 240)
{
	struct ag_jdk jdk;
	struct tu_result base, r;
	char *t = tu_tmpdir("agent-sec"), home[PATH_MAX], real[PATH_MAX], lnk[PATH_MAX],
	     open_dir[PATH_MAX], shared[PATH_MAX], opts[PATH_MAX + 16], cmd[4 * PATH_MAX];
	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(home, "%s/home", t);
	AG_FMT(real, "%s/real", t);
	AG_FMT(lnk, "%s/lnk", t);
	AG_FMT(open_dir, "%s/open", t);
	AG_FMT(shared, "%s/shared", t);
	AG_FMT(cmd, "cd '%s' && mkdir -m 700 home real && ln -s real lnk && mkdir open shared && "
		 "chmod 777 open && chmod 1777 shared", t);
	cr_assert_eq(tu_sh(&r, cmd, 30), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	setenv("HOME", home, 1);
	unsetenv("JITDUMPDIR");
	ag_java(&base, &jdk, NULL, NULL, "jitprof.samples.Generations", gen_args, 60);

	AG_FMT(opts, "dir=%s", lnk);
	expect_one_warning(&jdk, &base, opts, "symlink");
	AG_FMT(opts, "dir=%s", open_dir);
	expect_one_warning(&jdk, &base, opts, "writable by others");
	cr_expect_null(find_dump_below(real), "a dump went through the symlink");
	cr_expect_null(find_dump_below(open_dir), "a dump went into the open directory");
	char *d = find_dump_below(home);
	cr_expect_not_null(d, "no dump in the private default under $HOME");
	free(d);

	/* every pid the JVM may get is taken */
	unsigned long last = 0;
	char *lp = tu_read_file("/proc/sys/kernel/ns_last_pid", NULL);
	if (lp)
		last = strtoul(lp, NULL, 10);
	free(lp);
	if (!last) {
		tu_skip_part("no /proc/sys/kernel/ns_last_pid: taken-name part not run");
	} else {
		for (unsigned long pid = last + 1; pid <= last + 3000; pid++) {
			AG_FMT(cmd, "%s/jit-%lu.dump", shared, pid);	/* no process per name */
			cr_assert_eq(mkdir(cmd, 0700), 0);
		}
		AG_FMT(opts, "dir=%s", shared);
		ag_java(&r, &jdk, opts, NULL, "jitprof.samples.Generations", gen_args, 60);
		cr_expect_eq(r.status, base.status, "%s", r.err);
		cr_expect_str_eq(r.out, base.out);
		cr_expect(!strstr(r.err, "refused") && !strstr(r.err, "cannot"), "%s", r.err);
		tu_result_free(&r);
		d = find_dump_below(shared);
		cr_expect_not_null(d, "no dump under %s", shared);
		uint32_t pid = 0;
		if (d && jd_is_marker_name(d, &pid) && (pid <= last || pid > last + 3000)) {
			tu_skip_part("the JVM got pid %u, outside the %lu taken names", pid, last + 1);
		} else if (d) {
			cr_expect(jd_is_marker_name(d, NULL), "%s breaks perf's marker rule", d);
			cr_expect(strstr(d, ".dump/") == NULL && strchr(strstr(d, "/shared/") + 8, '/'),
				  "%s is not in a private directory", d);
		}
		free(d);
	}
	tu_result_free(&base);
	tu_rmtree(t);
	free(t);
}

/* No silent prerequisite: the agent names its dump at start (unless quiet), takes "dir:" as
 * jcmd leaves it, and says how to quote when jcmd ate a value. */
Test(agent_options, start_line_quiet_and_jcmd_spelling, .timeout = 180)
{
	struct ag_jdk jdk;
	struct tu_result r;
	char *dir = tu_tmpdir("agent-opts"), opts[PATH_MAX + 64], want[PATH_MAX + 64], *dump;

	cr_assert_eq(ag_jdks(&jdk, 1), 1, "no JDK under /usr/lib/jvm");
	AG_FMT(opts, "dir:%s", dir);
	ag_java(&r, &jdk, opts, NULL, "jitprof.samples.Generations", gen_args, 60);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dump = ag_find_dump(dir);
	cr_assert_not_null(dump, "dir:%s was not used", dir);
	AG_FMT(want, "jitprof agent: writing %s\n", dump);
	cr_expect(strstr(r.err, want), "no start line '%s' in:\n%s", want, r.err);
	free(dump);
	tu_result_free(&r);

	AG_FMT(opts, "dir=%s,quiet", dir);
	ag_java(&r, &jdk, opts, NULL, "jitprof.samples.Generations", gen_args, 60);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.err, "jitprof agent:"), "quiet, yet:\n%s", r.err);
	tu_result_free(&r);

	ag_java(&r, &jdk, "dir", NULL, "jitprof.samples.Generations", gen_args, 60);
	cr_expect(strstr(r.err, "jitprof agent: option 'dir' needs a value (jcmd drops '=value' "
			 "from an unquoted argument: write dir:VALUE, or quote twice: "
			 "'\"dir=VALUE\"')"), "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
