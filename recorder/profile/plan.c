/* plan.c - what `jitprof profile` decides before it starts anything (the report format by
 * OUT's extension is report's table, recorder/report/formats.c): the data directory beside
 * OUT, the runtime a command starts and the flags it needs, and where libagent.so is. Pure
 * string work, unit-tested. */
#include "recorder/profile/profile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int prof_data_dir(const char *out, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s.jitprof", out);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static enum prof_runtime by_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	if (!strcmp(base, "java"))
		return PROF_RT_JAVA;
	if (!strcmp(base, "node") || !strcmp(base, "nodejs"))
		return PROF_RT_NODE;
	return PROF_RT_OTHER;
}

enum prof_runtime prof_runtime_of(const char *argv0, enum prof_runtime forced)
{
	return forced != PROF_RT_OTHER ? forced : by_name(argv0);
}

int prof_runtime_direct(const char *argv0, enum prof_runtime rt)
{
	return rt != PROF_RT_OTHER && by_name(argv0) == rt;
}

int prof_parse_call_graph(const char *arg, struct prof_call_graph *cg,
			  const struct jp_log *log)
{
	const char *comma = strchr(arg, ',');
	size_t mlen = comma ? (size_t)(comma - arg) : strlen(arg);
	unsigned long v = PROF_JAVA_STACK_SIZE;
	char *end;

	if (!strcmp(arg, "fp")) {
		*cg = (struct prof_call_graph){ PROF_CG_FP, 0 };
		return 0;
	}
	if (mlen != 5 || strncmp(arg, "dwarf", 5)) {
		jp_logf(log, JP_LOG_ERROR,
			"--call-graph: unknown mode '%s' (fp, dwarf[,SIZE])", arg);
		return -EINVAL;
	}
	if (comma) {
		errno = 0;
		v = strtoul(comma + 1, &end, 10);
		if (errno || end == comma + 1 || *end || comma[1] == '-' || !v || v > 65528) {
			jp_logf(log, JP_LOG_ERROR,
				"--call-graph dwarf: stack dump size '%s' is not a "
				"number of bytes from 1 to 65528", comma + 1);
			return -ERANGE;
		}
	}
	*cg = (struct prof_call_graph){ PROF_CG_DWARF, (unsigned)((v + 7) & ~7ul) };
	return 0;
}

struct prof_call_graph prof_call_graph_pick(struct prof_call_graph asked, int jvm,
					    const char **why)
{
	if (asked.mode != PROF_CG_AUTO) {
		*why = "as asked (--call-graph)";
		return asked;
	}
	if (!jvm) {
		*why = "not a JVM: frame pointers, as the program keeps them";
		return (struct prof_call_graph){ PROF_CG_FP, 0 };
	}
	*why = "a JVM: compiled frames unwound without frame pointers, interpreted ones named";
	return (struct prof_call_graph){ PROF_CG_DWARF, PROF_JAVA_STACK_SIZE };
}

int prof_java_args(char *agentpath, size_t len, const char *lib, const char *dir,
		   int preserve_fp, const char *args[PROF_JAVA_NARGS],
		   const struct jp_log *log)
{
	const char *bad = strchr(dir, ',') ? dir : NULL;
	int n;

	if (!bad && strpbrk(dir, " \t\n\"'"))
		bad = dir;
	if (!bad && strpbrk(lib, ",= \t\n\"'"))
		bad = lib;
	if (bad) {
		jp_logf(log, JP_LOG_ERROR,
			"'%s' holds a comma, quote or white space, which the JVM's "
			"option parsing would split: choose another -o", bad);
		return -EINVAL;
	}
	n = snprintf(agentpath, len, "-agentpath:%s=dir=%s", lib, dir);
	if (n < 0 || (size_t)n >= len) {
		jp_logf(log, JP_LOG_ERROR, "agent path too long");
		return -ENAMETOOLONG;
	}
	args[0] = agentpath;
	args[1] = "-XX:+PreserveFramePointer";
	return preserve_fp ? 2 : 1;
}

int prof_jvm_log_args(char *logfile, size_t len, const char *dir,
		      const char *args[PROF_JVMLOG_NARGS], const struct jp_log *log)
{
	if (strchr(dir, '%')) {
		jp_logf(log, JP_LOG_ERROR, "'%s' holds a '%%', which HotSpot would expand in "
			"-XX:LogFile: choose another -o", dir);
		return -EINVAL;
	}
	int n = snprintf(logfile, len, "-XX:LogFile=%s/jvm-%%p.log", dir);
	if (n < 0 || (size_t)n >= len) {
		jp_logf(log, JP_LOG_ERROR, "log file path too long");
		return -ENAMETOOLONG;
	}
	args[0] = "-XX:+UnlockDiagnosticVMOptions";
	args[1] = "-XX:+LogCompilation";
	args[2] = logfile;
	return 0;
}

pid_t prof_jvm_log_pid(const char *name)
{
	char *end;
	if (strncmp(name, "jvm-pid", 7) || name[7] < '1' || name[7] > '9')
		return 0;
	errno = 0;
	unsigned long v = strtoul(name + 7, &end, 10);
	if (errno || v > INT_MAX || strcmp(end, ".log"))
		return 0;
	return (pid_t)v;
}

const char *const prof_node_args[PROF_NODE_NARGS] = { "--perf-prof",
						       "--interpreted-frames-native-stack" };

char **prof_argv_insert(char *const *argv, const char *const *add, int nadd)
{
	size_t n = 0;
	char **v;

	while (argv[n])
		n++;
	if (!(v = calloc(n + (size_t)nadd + 1, sizeof(*v))))
		return NULL;
	v[0] = argv[0];
	for (int i = 0; i < nadd; i++)
		v[1 + i] = (char *)add[i];
	for (size_t i = 1; i < n; i++)
		v[(size_t)nadd + i] = argv[i];
	return v;
}

int prof_env_append(char *buf, size_t len, const char *existing, const char *const *add,
		    int nadd)
{
	size_t off = 0;
	int n = snprintf(buf, len, "%s", existing ? existing : "");

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	off = (size_t)n;
	for (int i = 0; i < nadd; i++) {
		n = snprintf(buf + off, len - off, "%s%s", off ? " " : "", add[i]);
		if (n < 0 || (size_t)n >= len - off)
			return -ENAMETOOLONG;
		off += (size_t)n;
	}
	return 0;
}

int prof_find_agent(const char *exe, char *buf, size_t len, const struct jp_log *log)
{
	const char *env = getenv("JITPROF_AGENT");
	const char *rel[] = { "libjitprof-agent.so", "../lib/libjitprof-agent.so",
			      "../lib/jitprof/libjitprof-agent.so", "libagent.so" };
	char dir[PATH_MAX];
	const char *slash = strrchr(exe, '/');

	if (env && *env) {
		if (!realpath(env, buf) || access(buf, R_OK)) {
			jp_logf(log, JP_LOG_ERROR, "JITPROF_AGENT=%s: %s", env, strerror(errno));
			return -ENOENT;
		}
		return 0;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - exe) : 1, slash ? exe : ".");
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char p[PATH_MAX + 64];
		snprintf(p, sizeof(p), "%s/%s", dir, rel[i]);
		if (len >= PATH_MAX && realpath(p, buf) && !access(buf, R_OK))
			return 0;
	}
	jp_logf(log, JP_LOG_ERROR, "libjitprof-agent.so not found beside %s nor in %s/../lib; set "
		"JITPROF_AGENT=/path/libjitprof-agent.so", exe, dir);
	return -ENOENT;
}

int prof_parse_duration(const char *s, unsigned long *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (v * 1000 < 1 || v > 86400.0 * 365)
		return -EINVAL;
	*ms = (unsigned long)(v * 1000);
	return 0;
}
