/* cmd_profile.c - `jitprof profile`: one command from a program or a running JVM to a report.
 * Launch: the command runs under `jitprof record -k mono` with what its runtime needs for JIT
 * dumps (libagent.so for a JVM, --perf-prof for node); a JVM's stacks are copied
 * (--call-graph dwarf: no frame pointers needed, interpreted frames named), others' walked by
 * frame pointers (-g), unless --call-graph says otherwise;
 * attach: libagent.so is loaded through the JVM's attach listener (cmd_profile_attach.c), the
 * process is recorded, then the agent is stopped. Either way inject and report follow, in
 * this process (cmd_profile_steps.c: only the recording is a child, `jitprof record`, which
 * starts the program), and the data stays in OUT.jitprof/ (what is read from it between the
 * steps: cmd_profile_data.c). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_profile.h"
#include "recorder/cmd/cmd_report.h"
#include "recorder/profile/profile.h"

volatile sig_atomic_t profile_signal;
static volatile sig_atomic_t recorded;	/* the recording is over: a signal now ends all */
static volatile pid_t recording_pid;

/* Ctrl-C (or SIGTERM) ends the recording, not the profile: inject and report still run. One
 * that comes after the recording ends the profile: in inject or report, there and then
 * (profile_step_signal); between steps, when the flag is next looked at. */
static void on_signal(int sig)
{
	profile_signal = sig;
	if (recording_pid > 0)
		kill(recording_pid, SIGINT);
	profile_step_signal(sig);
}

/* -e: wall and offcpu make the recording --off-cpu; alloc and lock are the agent's (its
 * samples go beside the dump); other names go to record's -e. The report reads the first
 * asked for. */
static int profile_event(struct profile *p, const char *ev)
{
	static const char *const named[] = { "wall", "offcpu", "alloc", "lock" };
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(ev, named[i]))
			ev = named[i];	/* outlives -e's list, which is split in a copy */
	int time = !strcmp(ev, "wall") || !strcmp(ev, "offcpu");
	int jvm = !strcmp(ev, "alloc") || !strcmp(ev, "lock");

	if (jvm) {
		if (!strstr(p->agent_opts, ev)) {
			size_t n = strlen(p->agent_opts);
			snprintf(p->agent_opts + n, sizeof(p->agent_opts) - n, ",%s", ev);
		}
		time = 1;	/* reported by name, as wall and offcpu */
	} else if (time)
		p->off_cpu = 1;
	else if (cli_append_event(p->events, sizeof(p->events), ev))
		return 2;
	if (!p->report_event)
		p->report_event = time ? (char *)ev : p->events;
	if (p->report_event == p->events && strchr(p->events, ','))
		p->report_event = NULL;		/* the first of record's: its own default */
	return 0;
}

/* -e a,b,...: each event of the list as its own -e. A comma between slashes is a perf
 * event's term list ("cpu/event=0x3c,umask=0/"), not a separator. */
static int profile_events(struct profile *p, const char *list)
{
	char buf[sizeof(p->events)];
	size_t n = 0;
	int in_terms = 0, rc;
	for (const char *c = list;; c++) {
		if (*c == '/')
			in_terms = !in_terms;
		if ((*c == ',' && !in_terms) || !*c) {
			buf[n] = '\0';
			if (!n)
				return cli_usage_error("-e '%s': an empty event", list);
			if ((rc = profile_event(p, buf)))
				return rc;
			n = 0;
			if (!*c)
				return 0;
			continue;
		}
		if (n + 1 >= sizeof(buf))
			return cli_usage_error("-e: an event over %zu bytes", sizeof(buf) - 1);
		buf[n++] = *c;
	}
}

static int parse_args(struct profile *p, int argc, char **argv)
{
	enum { OPT_JAVA = 256, OPT_NODE, OPT_ELFS, OPT_JVM_LOG, OPT_CALL_GRAPH };
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "java", no_argument, NULL, OPT_JAVA },
		{ "node", no_argument, NULL, OPT_NODE },
		{ "elfs", no_argument, NULL, OPT_ELFS },
		{ "jvm-log", no_argument, NULL, OPT_JVM_LOG },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end, err[160];
	long v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:o:F:e:p:qVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (prof_parse_duration(optarg, &p->duration_ms))
				return cli_usage_error("-d: '%s' is not a duration (seconds, or 500ms, "
						       "2m)", optarg);
			break;
		case 'o': p->out = optarg; break;
		case 'F':
			v = strtol(optarg, &end, 10);
			if (*end || v <= 0)
				return cli_usage_error("-F: '%s' is not a frequency in Hz", optarg);
			if (cli_check_freq((uint64_t)v))
				return 2;
			p->freq = optarg;
			break;
		case 'e':
			if ((c = profile_events(p, optarg)))
				return c;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > INT_MAX)
				return cli_usage_error("-p: '%s' is not a process id", optarg);
			p->pid = (pid_t)v;
			break;
		case OPT_JAVA: p->forced = PROF_RT_JAVA; break;
		case OPT_NODE: p->forced = PROF_RT_NODE; break;
		case OPT_ELFS: p->elfs = 1; break;
		case OPT_JVM_LOG: p->jvm_log = 1; break;
		case OPT_CALL_GRAPH:
			if (prof_parse_call_graph(optarg, &p->cg, JP_ERRBUF_LOG(err)))
				return cli_usage_error("%s", err);
			break;
		case 'q': p->quiet = 1; break;
		case 'V': exit(cli_version());
		case 'h': profile_usage(stdout); exit(0);
		default: return cli_usage_brief(profile_usage);
		}
	}
	if (optind < argc)
		p->cmd = argv + optind;
	if (!!p->cmd == !!p->pid)
		return cli_usage_error(p->pid ? "-p and a command exclude each other"
				       : "nothing to profile: give -p PID or -- COMMAND");
	if (!(p->fmt = rp_format_of(p->out)))
		return cli_usage_error("-o %s: unknown output format; the extension picks it: %s",
				       p->out, rp_formats_list());
	if (p->jvm_log && p->fmt->flag && strcmp(p->fmt->flag, "--html"))
		return cli_usage_error("--jvm-log explains generations: in the text report (.txt) "
				       "and the HTML report's timeline (.html), not in the %s",
				       p->fmt->what);
	return 0;
}

/* Starts exe with args: the recording, the one child process of a profile. */
static pid_t spawn(const char *exe, char *const *args)
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(exe, args);
		fprintf(stderr, "jitprof profile: error: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Waits for pid; after deadline_ms (0: none) it is asked to stop with SIGINT (*stopped set).
 * Exit status, 128+signal, or -1. */
static int wait_child(pid_t pid, unsigned long deadline_ms, int *stopped)
{
	struct timespec t0, now, tick = { 0, 20 * 1000 * 1000 };
	int status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r < 0 && errno != EINTR)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		unsigned long el = (unsigned long)((now.tv_sec - t0.tv_sec) * 1000 +
						   (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (deadline_ms && !*stopped && el >= deadline_ms) {
			kill(pid, SIGINT);
			*stopped = 1;
		}
		if (recorded && profile_signal && !*stopped) {
			kill(pid, SIGTERM);
			*stopped = 1;
		}
		nanosleep(&tick, NULL);
	}
}

/* Why the existing data directory (dfd) may not be used: it must be ours and writable by
 * nobody else, or what another user put there (links, FIFOs) or swaps later is ours to read
 * and write. NULL when it may. */
static const char *not_ours(int dfd, char *why, size_t len)
{
	struct stat st;

	if (fstat(dfd, &st))
		snprintf(why, len, "%s", strerror(errno));
	else if (st.st_uid != geteuid())
		snprintf(why, len, "it belongs to uid %u, not to you (uid %u)",
			 (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & 022)
		snprintf(why, len, "others may write into it (mode %04o)",
			 (unsigned)(st.st_mode & 07777));
	else
		return NULL;
	return why;
}

/* The data directory: made fresh (0700), or ours from an earlier run of the same output (a
 * directory, not a link, that nobody else may write), then cleared of an earlier run's files
 * (an old jitdump of the same pid would stop the agent, which never writes over one; old ELFs
 * would be mistaken for this run's). Anything else at the name is refused: profile writes
 * only where nobody else can plant or swap a name. Opened once, kept in p->dirfd. */
static int prepare_dir(struct profile *p)
{
	char tmp[PATH_MAX], parent[PATH_MAX], why[128];
	const char *base, *slash;
	struct stat st;
	int pfd, dfd;

	if (prof_data_dir(p->out, tmp, sizeof(tmp)))
		return cli_error("-o %s: name too long", p->out);
	slash = strrchr(tmp, '/');
	base = slash ? slash + 1 : tmp;
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - tmp) + !(slash - tmp)
		 : 1, slash ? tmp : ".");
	/* The way to it is the user's choice (followed); the directory itself is not. */
	if ((pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return cli_error("%s: %s", parent, strerror(errno));
	int made = !mkdirat(pfd, base, 0700);
	if (!made && errno != EEXIST) {
		close(pfd);
		return cli_error("cannot create %s: %s", tmp, strerror(errno));
	}
	dfd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		int e = errno;
		int link = !fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode);
		close(pfd);
		return cli_error("%s: %s: refused (profile writes only into a directory of its "
				 "own)", tmp, link ? "a symbolic link" : e == ENOTDIR
				 ? "not a directory" : strerror(e));
	}
	close(pfd);
	if (!made && not_ours(dfd, why, sizeof(why))) {
		close(dfd);
		return cli_error("%s exists and %s: refused (profile writes only into a directory "
				 "of its own; remove it or choose another -o)", tmp, why);
	}
	size_t n = realpath(parent, p->dir) ? strlen(p->dir) : 0;
	if (!n || snprintf(p->dir + n, sizeof(p->dir) - n, "%s%s", n > 1 ? "/" : "", base) >=
		  (int)(sizeof(p->dir) - n)) {
		close(dfd);
		return cli_error("%s: %s", tmp, n ? "name too long" : strerror(errno));
	}
	p->dirfd = dfd;
	snprintf(p->data, sizeof(p->data), "%s/perf.data", p->dir);
	snprintf(p->jitdata, sizeof(p->jitdata), "%s/perf.jit.data", p->dir);
	prof_clear_dir(dfd);
	return 0;
}

/* `jitprof record -k mono -g -F HZ -o DIR/perf.data` (--call-graph dwarf,SIZE in the dwarf
 * mode) plus -p PID or -- CMD. */
int profile_record(struct profile *p, char **cmd)
{
	char pid[16], cg[32];
	char *args[20 + 1] = { p->exe, "record", "-q", "-k", "mono", "-g", "-F",
			       (char *)(p->freq ? p->freq : "999"), "-o", p->data };
	int n = 10, st, stopped = 0;
	pid_t child;
	char **all;

	if (p->cg.mode == PROF_CG_DWARF) {
		snprintf(cg, sizeof(cg), "--call-graph=dwarf,%u", p->cg.size);
		args[5] = cg;
		/* 4 MiB a CPU: 32 KiB samples filled the default 1 MiB during a JVM's start-up
		 * (javac: 195 of ~3,000 lost) */
		args[n++] = "-m";
		args[n++] = "1024";
	}
	if (p->off_cpu)
		args[n++] = "--off-cpu";
	if (p->events[0]) {
		args[n++] = "-e";
		args[n++] = p->events;
	}
	if (cmd) {
		size_t nc = 0;
		while (cmd[nc])
			nc++;
		if (!(all = calloc((size_t)n + 2 + nc, sizeof(char *))))
			return cli_error("out of memory");
		memcpy(all, args, (size_t)n * sizeof(char *));
		all[n] = "--";
		memcpy(all + n + 1, cmd, nc * sizeof(char *));
	} else {
		snprintf(pid, sizeof(pid), "%d", (int)p->pid);
		args[n++] = "-p";
		args[n++] = pid;
		all = args;
	}
	child = spawn(p->exe, all);
	if (all != args)
		free(all);
	if (child < 0)
		return cli_error("fork: %s", strerror(errno));
	recording_pid = child;
	if (profile_signal)	/* Ctrl-C came while the agent went in: a recording of nothing */
		kill(child, SIGINT);
	st = wait_child(child, p->duration_ms, &stopped);
	recording_pid = 0;
	if (access(p->data, F_OK))
		return cli_error("the recording failed (no %s)", p->data);
	/* A command we stopped (-d, Ctrl-C) ends by our signal: not worth a mention. */
	p->workload_status = cmd && !stopped && !profile_signal ? st : 0;
	recorded = 1;
	profile_signal = 0;	/* that one ended the recording; the next ends the profile */
	return 0;
}

/* What the runtime gets, then the recording: on the command line of java or node itself,
 * else (--java, --node: a script or launcher that starts it, or a runtime that starts
 * others, which inherit the environment and not the command line) in JAVA_TOOL_OPTIONS or
 * NODE_OPTIONS, after what is there. */
static int launch(struct profile *p)
{
	char lib[PATH_MAX], agentpath[PATH_MAX * 2 + 32], env[8192];
	struct cli_log log = { 0 };
	const char *jargs[PROF_JAVA_NARGS + PROF_JVMLOG_NARGS];
	char logfile[PATH_MAX + 32];
	const char *const *add = NULL;
	const char *var = NULL;
	char **argv = p->cmd, **mine = NULL;
	enum prof_runtime rt = prof_runtime_of(p->cmd[0], p->forced);
	int rc, nadd = 0;

	if (rt == PROF_RT_JAVA) {
		if (cli_log_done(&log, prof_find_agent(p->exe, lib, sizeof(lib), &CLI_LOG(&log))) ||
		    cli_log_done(&log, nadd = prof_java_args(agentpath, sizeof(agentpath), lib,
							     p->dir, p->cg.mode == PROF_CG_FP,
							     jargs, &CLI_LOG(&log))))
			return 1;
		size_t an = strlen(agentpath);
		if (an + strlen(p->agent_opts) >= sizeof(agentpath))
			return cli_error("agent path too long");
		memcpy(agentpath + an, p->agent_opts, strlen(p->agent_opts) + 1);
		add = jargs;
		var = "JAVA_TOOL_OPTIONS";
		if (p->jvm_log) {
			if (cli_log_done(&log, prof_jvm_log_args(logfile, sizeof(logfile), p->dir,
								 jargs + nadd, &CLI_LOG(&log))))
				return 1;
			nadd += PROF_JVMLOG_NARGS;
		}
	} else if (p->jvm_log) {
		return cli_usage_error("--jvm-log is HotSpot's compilation log, and %s starts no JVM "
				       "(add --java if it does)", p->cmd[0]);
	} else if (rt == PROF_RT_NODE) {
		add = prof_node_args;
		nadd = PROF_NODE_NARGS;
		var = "NODE_OPTIONS";
	}
	if (add && p->forced == PROF_RT_OTHER && prof_runtime_direct(p->cmd[0], rt)) {
		if (!(argv = mine = prof_argv_insert(p->cmd, add, nadd)))
			return cli_error("out of memory");
	} else if (add && (prof_env_append(env, sizeof(env), getenv(var), add, nadd) ||
			   setenv(var, env, 1))) {
		return cli_error("%s too long", var);
	}
	rc = profile_record(p, argv);
	free(mine);
	return rc;
}


/* The mode the recording uses, said in one line with why: a JVM's (launched with java or
 * --java, or -p) stacks are copied, others keep frame pointers, unless --call-graph chose. */
void profile_pick_call_graph(struct profile *p)
{
	int jvm = p->pid || prof_runtime_of(p->cmd[0], p->forced) == PROF_RT_JAVA;
	const char *why;

	p->cg = prof_call_graph_pick(p->cg, jvm, &why);
	if (p->cg.mode == PROF_CG_DWARF)
		cli_info("call graphs: --call-graph dwarf,%u (%s)", p->cg.size, why);
	else
		cli_info("call graphs: frame pointers, -g (%s)%s", why, jvm && p->pid ? "; compiled "
			 "Java frames end a stack unless the JVM was started with "
			 "-XX:+PreserveFramePointer" : "");
}

/* A profiled command that failed makes profile fail the same way (a script or CI job that
 * profiles a test run still sees the test fail), said once, with the report written. `record`
 * gave its status as a shell does: N, or 128+S for signal S. */
/* A dwarf recording's stack copies are kept once: inject copied them into perf.jit.data
 * (--keep-stacks: report names interpreted frames from them) and everything after reads that
 * file, so perf.data would only double the disk a profile takes (32 KiB a sample, 290 MB for
 * five seconds of javac). Only once inject wrote it whole; removed by name in our own DIR. */
static void drop_recording(const struct profile *p)
{
	if (p->cg.mode == PROF_CG_DWARF && unlinkat(p->dirfd, "perf.data", 0) && errno != ENOENT)
		cli_warn("%s: %s (kept beside %s)", p->data, strerror(errno), p->jitdata);
}

static int workload_failed(int status)
{
	if (!status)
		return 0;
	if (status > 128 && status < 128 + 65)
		fprintf(stderr, "jitprof profile: the profiled program was killed by signal %d "
			"(%s), exit status %d; the profile was written\n", status - 128,
			strsignal(status - 128), status);
	else
		fprintf(stderr, "jitprof profile: the profiled program exited with status %d; the "
			"profile was written\n", status);
	return status;
}

int cmd_profile(int argc, char **argv)
{
	struct profile p = { .out = "profile.txt" };
	struct sigaction sa = { .sa_handler = on_signal };
	ssize_t n;
	int rc, injected;

	if ((rc = parse_args(&p, argc, argv)))
		return rc;
	cli_set_quiet(p.quiet);
	if ((n = readlink("/proc/self/exe", p.exe, sizeof(p.exe) - 1)) <= 0)
		return cli_error("cannot find my own executable: %s", strerror(errno));
	p.exe[n] = '\0';
	if (!getcwd(p.cwd, sizeof(p.cwd)))
		p.cwd[0] = '\0';
	if (p.fmt->flag && !report_has_option(p.fmt->flag, NULL))
		return cli_usage_error("-o %s: the %s needs 'jitprof report %s', which this build "
				       "does not have; use %s", p.out, p.fmt->what, p.fmt->flag,
				       rp_formats_list());
	if ((rc = prepare_dir(&p)))
		return rc;
	/* Kept to the end: a signal after the recording stops the step that runs (no handler
	 * would leave the recording's child behind; a read of ours sees EINTR and the flag;
	 * inject and report end there, profile_step_signal). */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!p.pid)
		profile_pick_call_graph(&p);	/* -p: once the process is checked */
	rc = p.pid ? profile_attach(&p) : launch(&p);
	if (rc) {
		rmdir(p.dir);	/* a refused attach leaves nothing behind (kept if not empty) */
		return rc;
	}

	struct counts c;
	if (p.jvm_log && !p.pid)	/* -p: the Flight Recording, picked by the attach */
		profile_find_jvm_logs(&p, &c);
	else
		c.nr_logs = 0;
	profile_count(p.data, p.cwd, &c);
	if (p.cmd)
		profile_tidy_node_files(&p, &c);
	if (p.jvm_log && !p.pid)
		profile_pick_jvm_log(&p, &c);
	injected = 0;
	if (c.markers && !profile_signal) {
		struct inj_stats st;
		rc = profile_inject(&p, &st);
		/* 3: the dumps named could not be read (inject said why): report the rest. */
		if (rc && rc != 3 && !profile_signal)
			return cli_error("inject failed (exit %d); the recording is %s", rc, p.data);
		injected = rc == 0;
		if (injected) {	/* what the injected file holds, as inject wrote it */
			c.samples = st.samples;
			c.loads = st.mmaps_emitted;
			drop_recording(&p);
		}
	} else {
		cli_warn("no process of the recording wrote a jitdump: the report shows native "
			 "code only%s", p.pid ? "" : " (a JVM or node started by a script? add "
			 "--java or --node)");
	}
	if (!profile_signal && (rc = profile_report(&p, injected)))
		return rc;
	if (profile_signal)
		return cli_error("stopped by signal %d; the recording is %s", (int)profile_signal,
				 injected && p.cg.mode == PROF_CG_DWARF ? p.jitdata : p.data);
	char hot[256] = "";
	if (!p.fmt->flag)
		profile_hottest(p.out, hot, sizeof(hot));
	/* The closing line is said even with -q: it names where everything went. */
	fprintf(stderr, "jitprof profile: %s (%s) from %llu samples, %llu jitted code loads%s; "
		"data in %s/\n", p.out, p.fmt->what, c.samples, c.loads, hot, p.dir);
	return workload_failed(p.workload_status);
}
