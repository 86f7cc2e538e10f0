/* cmd_profile.c - `jitprof profile`: one command from a program or a running JVM to a report.
 * Launch: the command runs under `jitprof record -k mono -g` with what its runtime needs for
 * JIT dumps (libagent.so and -XX:+PreserveFramePointer for a JVM, --perf-prof for node);
 * attach: libagent.so is loaded through the JVM's attach listener (recorder/attach/), the
 * process is recorded, then the agent is stopped. Either way inject and report follow, as
 * child processes of this same executable, and the data stays in <OUT>.jitprof/. */
#include <dirent.h>
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

#include "recorder/attach/attach.h"
#include "jitdump/jitdump.h"
#include "recorder/cli.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/profile/profile.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof profile [-d SECONDS] [-o OUT] [-F HZ] [--java|--node] [--elfs]\n"
		"                       [--jvm-log] (-p PID | -- CMD ARGS)\n\n"
		"Records CMD, or the running Java VM PID, with call graphs, merges its JIT-compiled\n"
		"code and writes a report, in one step. A JVM gets libagent.so and\n"
		"-XX:+PreserveFramePointer (java on the command line, or any command with --java,\n"
		"through JAVA_TOOL_OPTIONS); node gets --perf-prof --interpreted-frames-native-stack\n"
		"(on its command line, or in NODE_OPTIONS with --node);\n"
		"other programs are recorded and whatever jitdumps they write are merged. With -p the\n"
		"agent is loaded through the JVM's attach mechanism (as jcmd does), back-fills the\n"
		"code compiled so far, and is stopped again at the end, so PID can be profiled again.\n\n"
		"  -d, --duration SECONDS  stop after SECONDS (also 500ms, 2m; default: until CMD\n"
		"                          exits, or until Ctrl-C)\n"
		"  -o, --output OUT        the report (default profile.txt); its extension picks\n"
		"                          the format: .txt .svg .json .collapsed, and .html\n"
		"                          .pb.gz .speedscope.json where jitprof report has them\n"
		"  -F, --freq HZ           sampling frequency (default 999)\n"
		"      --elfs              also write one ELF file per sampled method generation\n"
		"                          into the data directory, for perf report (by default\n"
		"                          jitprof builds them in memory when it reads the data)\n"
		"      --jvm-log           also run the JVM with HotSpot's compilation log\n"
		"                          (-XX:+LogCompilation, into DIR/jvm-pid<PID>.log) and\n"
		"                          join it: why each generation ended (the deoptimization\n"
		"                          and its reason) and what it inlined, in the text report's\n"
		"                          generations and the HTML timeline (.txt and .html; a JVM\n"
		"                          started here, not -p)\n"
		"  -p, --pid PID           attach to this running Java VM\n"
		"      --java              CMD starts a JVM although it is not called java\n"
		"                          (the flags go in JAVA_TOOL_OPTIONS)\n"
		"      --node              CMD starts node (npm, a script): NODE_OPTIONS\n"
		"  -q, --quiet             only errors and the closing line\n"
		"  -V, --version           jitprof's version\n"
		"  -h, --help              this text\n\n"
		"The recording (perf.data), the merged recording (perf.jit.data) and the jitdumps\n"
		"stay in OUT's name with .jitprof instead of its extension (DIR), for 'jitprof\n"
		"report -i DIR/perf.jit.data' later; for perf report, write the ELFs first with\n"
		"'jitprof inject --elfs-for DIR/perf.jit.data' (or profile with --elfs).\n");
}

struct profile {
	unsigned long duration_ms;
	const char *out, *freq;
	pid_t pid;
	enum prof_runtime forced;	/* --java, --node */
	int quiet;
	int elfs;	/* --elfs: inject writes the ELF files (default --no-elfs) */
	int jvm_log;	/* --jvm-log: HotSpot's compilation log written and joined */
	char jvm_log_path[PATH_MAX + 32];	/* the log found after the run, or "" */
	char **cmd;
	const struct prof_format *fmt;
	char exe[PATH_MAX], dir[PATH_MAX], data[PATH_MAX + 16], jitdata[PATH_MAX + 16];
	char jit_dir[PATH_MAX];		/* inject's --jit-dir: dumps not where the JVM wrote them */
	char cwd[PATH_MAX];		/* where a launched command starts ("" unknown) */
	int workload_status;
};

static volatile sig_atomic_t got_signal;
static volatile pid_t recording_pid;

/* Ctrl-C (or SIGTERM) ends the recording, not the profile: inject and report still run. */
static void on_signal(int sig)
{
	got_signal = sig;
	if (recording_pid > 0)
		kill(recording_pid, SIGINT);
}

static int parse_args(struct profile *p, int argc, char **argv)
{
	enum { OPT_JAVA = 256, OPT_NODE, OPT_ELFS, OPT_JVM_LOG };
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "java", no_argument, NULL, OPT_JAVA },
		{ "node", no_argument, NULL, OPT_NODE },
		{ "elfs", no_argument, NULL, OPT_ELFS },
		{ "jvm-log", no_argument, NULL, OPT_JVM_LOG },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:o:F:p:qVh", longopts, NULL)) != -1) {
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
			p->freq = optarg;
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
		case 'q': p->quiet = 1; break;
		case 'V': exit(cli_version());
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		p->cmd = argv + optind;
	if (!!p->cmd == !!p->pid)
		return cli_usage_error(p->pid ? "-p and a command exclude each other"
				       : "nothing to profile: give -p PID or -- COMMAND");
	if (!(p->fmt = prof_format_of(p->out)))
		return cli_usage_error("-o %s: unknown output format; the extension picks it: %s",
				       p->out, prof_formats_list());
	if (p->jvm_log && p->pid)
		return cli_usage_error("--jvm-log: a running JVM cannot start HotSpot's compilation "
				       "log; start it with -XX:+UnlockDiagnosticVMOptions "
				       "-XX:+LogCompilation -XX:LogFile=FILE and pass 'jitprof report "
				       "--jvm-log FILE', or profile the command that starts it");
	if (p->jvm_log && p->fmt->flag && strcmp(p->fmt->flag, "--html"))
		return cli_usage_error("--jvm-log explains generations: in the text report (.txt) "
				       "and the HTML report's timeline (.html), not in the %s",
				       p->fmt->what);
	return 0;
}

/* 1 when `jitprof report --help` offers flag: formats follow what this build's report
 * makes, whichever outputs it has. */
static int report_offers(const char *exe, const char *flag)
{
	char buf[16384], *p;
	size_t got = 0;
	ssize_t n;
	int fds[2], st, found = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return 0;
	if ((pid = fork()) == 0) {
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		execl(exe, exe, "report", "--help", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && got + 1 < sizeof(buf) &&
	       (n = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	buf[got] = '\0';
	for (p = buf; (p = strstr(p, flag)); p++)
		found |= p[strlen(flag)] == ' ' || p[strlen(flag)] == ',';
	return found;
}

/* Starts exe with args; its stdout goes to out_fd when >= 0. */
static pid_t spawn(const char *exe, char *const *args, int out_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(127);
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
		nanosleep(&tick, NULL);
	}
}

static int run_tool(struct profile *p, char *const *args, int out_fd)
{
	pid_t pid = spawn(p->exe, args, out_fd);
	int stopped = 0;
	return pid < 0 ? -1 : wait_child(pid, 0, &stopped);
}

/* The data directory, made fresh: an old jitdump of the same pid would stop the agent
 * (it never writes over an existing file), old ELFs would be mistaken for this run's. */
static int prepare_dir(struct profile *p)
{
	char tmp[PATH_MAX];
	int rc = prof_data_dir(p->out, p->fmt, tmp, sizeof(tmp));

	if (rc)
		return cli_error("-o %s: name too long", p->out);
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return cli_error("cannot create %s: %s", tmp, strerror(errno));
	if (!realpath(tmp, p->dir))
		return cli_error("%s: %s", tmp, strerror(errno));
	snprintf(p->data, sizeof(p->data), "%s/perf.data", p->dir);
	snprintf(p->jitdata, sizeof(p->jitdata), "%s/perf.jit.data", p->dir);
	prof_clear_dir(p->dir);
	return 0;
}

/* `jitprof record -k mono -g -F HZ -o DIR/perf.data` plus -p PID or -- CMD. */
static int record(struct profile *p, char **cmd)
{
	char pid[16];
	char *args[16 + 1] = { p->exe, "record", "-q", "-k", "mono", "-g", "-F",
			       (char *)(p->freq ? p->freq : "999"), "-o", p->data };
	int n = 10, st, stopped = 0;
	pid_t child;
	char **all;

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
	child = spawn(p->exe, all, -1);
	if (all != args)
		free(all);
	if (child < 0)
		return cli_error("fork: %s", strerror(errno));
	recording_pid = child;
	if (got_signal)		/* Ctrl-C came while the agent went in: a recording of nothing */
		kill(child, SIGINT);
	st = wait_child(child, p->duration_ms, &stopped);
	recording_pid = 0;
	if (access(p->data, F_OK))
		return cli_error("the recording failed (no %s)", p->data);
	/* A command we stopped (-d, Ctrl-C) ends by our signal: not worth a mention. */
	p->workload_status = cmd && !stopped && !got_signal ? st : 0;
	return 0;
}

/* What the runtime gets, then the recording: on the command line of java or node itself,
 * else (--java, --node: a script or launcher that starts it) in JAVA_TOOL_OPTIONS or
 * NODE_OPTIONS, after what is there. */
static int launch(struct profile *p)
{
	char lib[PATH_MAX], agentpath[PATH_MAX * 2 + 32], env[8192], err[PATH_MAX + 256];
	const char *jargs[PROF_JAVA_NARGS + PROF_JVMLOG_NARGS];
	char logfile[PATH_MAX + 32];
	const char *const *add = NULL;
	const char *var = NULL;
	char **argv = p->cmd, **mine = NULL;
	enum prof_runtime rt = prof_runtime_of(p->cmd[0], p->forced);
	int rc, nadd = 0;

	if (rt == PROF_RT_JAVA) {
		if (prof_find_agent(p->exe, lib, sizeof(lib), err, sizeof(err)) ||
		    prof_java_args(agentpath, sizeof(agentpath), lib, p->dir, jargs, err,
				   sizeof(err)))
			return cli_error("%s", err);
		add = jargs;
		nadd = PROF_JAVA_NARGS;
		var = "JAVA_TOOL_OPTIONS";
		if (p->jvm_log) {
			if (prof_jvm_log_args(logfile, sizeof(logfile), p->dir, jargs + nadd, err,
					      sizeof(err)))
				return cli_error("%s", err);
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
	if (add && prof_runtime_direct(p->cmd[0], rt)) {
		if (!(argv = mine = prof_argv_insert(p->cmd, add, nadd)))
			return cli_error("out of memory");
	} else if (add && (prof_env_append(env, sizeof(env), getenv(var), add, nadd) ||
			   setenv(var, env, 1))) {
		return cli_error("%s too long", var);
	}
	rc = record(p, argv);
	free(mine);
	return rc;
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* -p PID: agent in, record, agent stopped (only when it is ours). */
/* Where the agent goes and writes, as the JVM sees it (lib, dir) and as we do (ours): the
 * data directory itself, or for a JVM in another mount namespace copies in its /tmp. */
struct placement {
	char lib[PATH_MAX], dir[PATH_MAX], ours[PATH_MAX];
	int staged;
};

static int place(struct profile *p, const struct att_proc *proc, struct placement *pl)
{
	char lib[PATH_MAX], err[PATH_MAX + 256];

	if (prof_find_agent(p->exe, lib, sizeof(lib), err, sizeof(err)))
		return cli_error("%s", err);
	pl->staged = proc->other_mntns;
	if (pl->staged) {
		if (prof_stage_agent(proc->root, lib, proc->uid, proc->gid, pl->lib,
				     sizeof(pl->lib), err, sizeof(err)) ||
		    prof_stage_dir(proc->root, proc->uid, proc->gid, pl->dir, sizeof(pl->dir),
				   pl->ours, sizeof(pl->ours), err, sizeof(err)))
			return cli_error("Java VM %d lives in another mount namespace: %s",
					 (int)p->pid, err);
		return 0;
	}
	if (strchr(p->dir, ','))
		return cli_error("%s holds a comma, which splits the agent's options: choose "
				 "another -o", p->dir);
	/* The JVM's user writes the dumps there. */
	if (geteuid() == 0 && proc->uid != 0 && chown(p->dir, proc->uid, proc->gid))
		return cli_error("chown %s: %s", p->dir, strerror(errno));
	snprintf(pl->lib, sizeof(pl->lib), "%s", lib);
	snprintf(pl->dir, sizeof(pl->dir), "%s", p->dir);
	snprintf(pl->ours, sizeof(pl->ours), "%s", p->dir);
	return 0;
}

/* A dump an earlier `jitprof profile` left running (killed before its stop): in a data
 * directory (*.jitprof/) or a staged one (/tmp/.jitprof-profile-N/). */
static int left_by_profile(const char *dump)
{
	const char *slash = strrchr(dump, '/');
	size_t dn = slash ? (size_t)(slash - dump) : 0;

	return (dn > 8 && !strncmp(slash - 8, ".jitprof", 8)) ||
	       strstr(dump, "/.jitprof-profile-") != NULL;
}

/* Loads the agent and tells whether it writes our dump (1), or another agent's is there (0,
 * its path in dump). */
static int load(struct profile *p, const struct att_proc *proc, const struct placement *pl,
		char *dump, size_t len)
{
	char opts[PATH_MAX + 16], err[1024];
	int arc = -1;

	snprintf(opts, sizeof(opts), "dir=%s", pl->dir);
	snprintf(dump, len, "%s/jit-%d.dump", pl->ours, (int)proc->nspid);
	if (att_load_agent(proc, pl->lib, opts, 20000, &arc, err, sizeof(err)))
		return cli_error("%s", err), -1;
	if (exists(dump))
		return 1;
	if (att_find_dump(proc, dump, len))
		return cli_error("libagent.so was loaded into Java VM %d (return code %d) but "
				 "wrote no %s/jit-%d.dump: the reason is on the JVM's stderr",
				 (int)p->pid, arc, pl->dir, (int)proc->nspid), -1;
	return 0;
}

/* -p PID: agent in, record, agent stopped (only when it is ours). */
static int attach(struct profile *p)
{
	char dump[PATH_MAX + 32], err[1024];
	struct placement pl;
	struct att_proc proc;
	int arc = -1, ours, rc;

	if (att_proc_read(p->pid, &proc, err, sizeof(err)) || att_check(&proc, err, sizeof(err)))
		return cli_error("%s", err);
	if ((rc = place(p, &proc, &pl)))
		return rc;
	if ((ours = load(p, &proc, &pl, dump, sizeof(dump))) < 0)
		return 1;
	if (!ours && left_by_profile(dump)) {
		cli_warn("Java VM %d still runs the agent of an earlier jitprof profile that did "
			 "not end (writing %s): stopped, and started again here", (int)p->pid, dump);
		if (att_load_agent(&proc, pl.lib, "stop", 20000, &arc, err, sizeof(err)))
			return cli_error("%s", err);
		if ((ours = load(p, &proc, &pl, dump, sizeof(dump))) < 0)
			return 1;
	}
	if (!ours) {
		cli_info("Java VM %d already has a JIT agent writing %s: using that dump (it "
			 "keeps running after this profile)", (int)p->pid, dump);
		/* Read where we see it (another namespace's path is not ours). */
		if (proc.other_mntns)
			snprintf(p->jit_dir, sizeof(p->jit_dir), "%.*s",
				 (int)(strrchr(dump, '/') - dump), dump);
	} else {
		cli_info("libagent.so loaded into Java VM %d, writing %s", (int)p->pid, dump);
	}
	rc = record(p, NULL);
	if (ours) {
		char err2[1024];
		if (att_load_agent(&proc, pl.lib, "stop", 20000, &arc, err2, sizeof(err2)) &&
		    !(kill(p->pid, 0) && errno == ESRCH))
			cli_warn("could not stop the agent in Java VM %d: %s", (int)p->pid, err2);
	}
	if (pl.staged) {
		if (ours && prof_collect_dumps(pl.ours, p->dir, err, sizeof(err)))
			return cli_error("%s", err);
		if (ours)
			snprintf(p->jit_dir, sizeof(p->jit_dir), "%s", p->dir);
	}
	return rc;
}

#define MAX_LOGS 32
#define MAX_MARKED 64

struct counts {
	unsigned long long samples, loads, markers;
	/* the processes whose jitdump is in the working directory (node's), and whether any
	 * other process's is elsewhere */
	pid_t cwd_dump_pid[MAX_MARKED];
	int nr_cwd_dumps, dumps_elsewhere;
	/* samples of the processes that wrote a compilation log (--jvm-log) */
	pid_t log_pid[MAX_LOGS];
	unsigned long long log_samples[MAX_LOGS];
	int nr_logs;
};

/* Samples in a recording, code loads of jitted methods (MMAP2 of jitted-*.so) and jitdump
 * markers (mappings of jit-PID.dump); the samples of each pid in c->log_pid. */
static void count(const char *path, const char *cwd, struct counts *c)
{
	struct pd_reader *r;
	struct pd_event ev;
	uint32_t pid;
	size_t cwd_len = strlen(cwd);

	c->samples = c->loads = c->markers = 0;
	c->nr_cwd_dumps = c->dumps_elsewhere = 0;
	memset(c->log_samples, 0, sizeof(c->log_samples));
	if (pd_reader_open(&r, path, NULL))
		return;
	while (pd_reader_next(r, &ev) == 1) {
		if (ev.type == 9) {	/* PERF_RECORD_SAMPLE */
			c->samples++;
			for (int i = 0; i < c->nr_logs; i++)
				c->log_samples[i] += (pid_t)ev.u.sample.pid == c->log_pid[i];
		} else if ((ev.type == 1 || ev.type == 10) && ev.u.mmap.filename) {
			c->loads += strstr(ev.u.mmap.filename, "/jitted-") != NULL;
			if (!jd_is_marker_name(ev.u.mmap.filename, &pid))
				continue;
			c->markers++;
			const char *f = ev.u.mmap.filename, *slash = strrchr(f, '/');
			int seen = 0;
			for (int i = 0; i < c->nr_cwd_dumps; i++)
				seen |= c->cwd_dump_pid[i] == (pid_t)pid;
			if (seen)
				continue;
			if (cwd[0] && slash && (size_t)(slash - f) == cwd_len &&
			    !strncmp(f, cwd, cwd_len) && c->nr_cwd_dumps < MAX_MARKED)
				c->cwd_dump_pid[c->nr_cwd_dumps++] = (pid_t)pid;
			else
				c->dumps_elsewhere = 1;
		}
	}
	pd_reader_close(r);
}

/* The processes whose compilation log (jvm-pid<PID>.log) is in the data directory. */
static void find_jvm_logs(struct profile *p, struct counts *c)
{
	DIR *d = opendir(p->dir);
	struct dirent *de;
	pid_t pid;

	c->nr_logs = 0;
	while (d && (de = readdir(d)) && c->nr_logs < MAX_LOGS)
		if ((pid = prof_jvm_log_pid(de->d_name)))
			c->log_pid[c->nr_logs++] = pid;
	if (d)
		closedir(d);
}

/* The log of the JVM with the most samples (a launcher may start more than one). */
static void pick_jvm_log(struct profile *p, const struct counts *c)
{
	int best = -1;

	for (int i = 0; i < c->nr_logs; i++)
		if (best < 0 || c->log_samples[i] > c->log_samples[best])
			best = i;
	if (best < 0) {
		cli_warn("--jvm-log: no JVM wrote its compilation log into %s (killed before it "
			 "could?): the report has no deoptimization reasons", p->dir);
		return;
	}
	snprintf(p->jvm_log_path, sizeof(p->jvm_log_path), "%s/jvm-pid%d.log", p->dir,
		 (int)c->log_pid[best]);
	if (c->nr_logs > 1)
		cli_info("%d JVMs wrote a compilation log: joining that of process %d, which has the "
			 "most samples (%llu)", c->nr_logs, (int)c->log_pid[best],
			 c->log_samples[best]);
}

/* node (20) writes its jitdump, and V8 its code log, in its working directory: into the data
 * directory with the rest, when every dump of the recording is there (inject then reads them
 * with --jit-dir), so that a profile leaves nothing beside the user's files. */
static void tidy_node_files(struct profile *p, const struct counts *c)
{
	if (prof_runtime_of(p->cmd[0], p->forced) != PROF_RT_NODE || !p->cwd[0] ||
	    !c->nr_cwd_dumps || c->dumps_elsewhere || !strcmp(p->cwd, p->dir))
		return;
	int moved = prof_move_node_files(p->cwd, p->dir, c->cwd_dump_pid, c->nr_cwd_dumps);
	if (moved == c->nr_cwd_dumps)
		snprintf(p->jit_dir, sizeof(p->jit_dir), "%s", p->dir);
	else if (moved)		/* all or none: inject reads the dumps from one place */
		prof_move_node_files(p->dir, p->cwd, c->cwd_dump_pid, c->nr_cwd_dumps);
}

static int report_once(struct profile *p, int injected, const char *log);

/* The report, with the JVM's compilation log when there is one; a log the report cannot join
 * (not this run's, unreadable) costs the explanations, not the report. */
static int report(struct profile *p, int injected)
{
	const char *log = injected && p->jvm_log_path[0] ? p->jvm_log_path : NULL;
	int rc = report_once(p, injected, log);

	if (rc && log) {
		cli_warn("the report with %s failed (its message is above): writing it without the "
			 "JVM's compilation log", log);
		rc = report_once(p, injected, NULL);
	}
	return rc ? cli_error("the report failed") : 0;
}

static int report_once(struct profile *p, int injected, const char *log)
{
	char *in = injected ? p->jitdata : p->data;
	char *table[] = { p->exe, "report", "-q", "-i", in, NULL };
	char *gens[] = { p->exe, "report", "-q", "-i", in, "--generations", NULL, NULL, NULL };
	char *flag[] = { p->exe, "report", "-q", "-i", in, (char *)p->fmt->flag,
			 (char *)p->out, NULL, NULL, NULL };

	if (log) {
		gens[6] = flag[7] = "--jvm-log";
		gens[7] = flag[8] = (char *)log;
	}
	struct cli_outfile o = { 0 };
	int rc, null_fd = -1;

	if (p->fmt->flag_takes_file) {
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		rc = run_tool(p, flag, null_fd);
		close(null_fd);
		return rc ? -1 : 0;
	}
	if ((rc = cli_outfile_open(&o, p->out)) < 0) {
		cli_error("%s: %s", p->out, strerror(-rc));
		return -1;
	}
	fflush(o.fp);
	if (p->fmt->flag) {
		flag[6] = NULL;
		rc = run_tool(p, flag, o.fd);
	} else {
		rc = run_tool(p, table, o.fd);
		if (!rc && injected) {
			if (write(o.fd, "\n", 1) != 1)
				rc = -1;
			else
				rc = run_tool(p, gens, o.fd);
		}
	}
	if (rc) {
		cli_outfile_abort(&o);
		return -1;
	}
	if ((rc = cli_outfile_commit(&o)) < 0) {
		cli_error("%s: %s", p->out, strerror(-rc));
		return -1;
	}
	return 0;
}

/* "; hottest: SYMBOL (P%)" from the first row of a text report's table, or "". */
static void hottest(const char *report, char *buf, size_t len)
{
	char line[4096];
	FILE *f = fopen(report, "re");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *sym = strstr(line, "] ");
		double pct;
		if (line[0] == '#' || sscanf(line, " %lf%%", &pct) != 1 || !sym)
			continue;
		sym[strcspn(sym, "\n")] = '\0';
		snprintf(buf, len, "; hottest: %.200s (%.1f%%)", sym + 2, pct);
		break;
	}
	if (f)
		fclose(f);
}

int cmd_profile(int argc, char **argv)
{
	struct profile p = { .out = "profile.txt" };
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
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
	if (p.fmt->flag && !report_offers(p.exe, p.fmt->flag))
		return cli_usage_error("-o %s: the %s needs 'jitprof report %s', which this build "
				       "does not have; use %s", p.out, p.fmt->what, p.fmt->flag,
				       prof_formats_list());
	if ((rc = prepare_dir(&p)))
		return rc;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = p.pid ? attach(&p) : launch(&p);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc) {
		rmdir(p.dir);	/* a refused attach leaves nothing behind (kept if not empty) */
		return rc;
	}

	struct counts c;
	if (p.jvm_log)
		find_jvm_logs(&p, &c);
	else
		c.nr_logs = 0;
	count(p.data, p.cwd, &c);
	if (p.cmd)
		tidy_node_files(&p, &c);
	if (p.jvm_log)
		pick_jvm_log(&p, &c);
	/* --no-elfs unless asked: the report builds the sampled generations' ELFs in memory,
	 * no file per generation (docs/inject.md); --elfs-for writes them later for perf. */
	char *inject[12] = { p.exe, "inject", "-q", "-i", p.data, "-o", p.jitdata };
	int ni = 7;
	if (!p.elfs)
		inject[ni++] = "--no-elfs";
	if (p.jit_dir[0]) {
		inject[ni++] = "--jit-dir";
		inject[ni++] = p.jit_dir;
	}
	inject[ni] = NULL;
	injected = 0;
	if (c.markers) {
		rc = run_tool(&p, inject, -1);
		/* 3: the dumps named could not be read (inject said why): report the rest. */
		if (rc && rc != 3)
			return cli_error("inject failed (exit %d); the recording is %s", rc, p.data);
		injected = rc == 0;
		if (injected)
			count(p.jitdata, "", &c);
	} else {
		cli_warn("no process of the recording wrote a jitdump: the report shows native "
			 "code only%s", p.pid ? "" : " (a JVM or node started by a script? add "
			 "--java or --node)");
	}
	if ((rc = report(&p, injected)))
		return rc;
	char status[64] = "", hot[256] = "";
	if (p.workload_status)
		snprintf(status, sizeof(status), "; the command exited with status %d",
			 p.workload_status);
	if (!p.fmt->flag)
		hottest(p.out, hot, sizeof(hot));
	/* The closing line is said even with -q: it names where everything went. */
	fprintf(stderr, "jitprof profile: %s (%s) from %llu samples, %llu jitted code loads%s; "
		"data in %s/%s\n", p.out, p.fmt->what, c.samples, c.loads, hot, p.dir, status);
	return 0;
}
